package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"
)

// synthUUID builds in place the uuid it built before by slicing and
// concatenating the hex id.
func TestSynthUUIDAsConcatenated(t *testing.T) {
	for _, seed := range []string{"", "s", "0f3a-session", "日本"} {
		wr := &Writer{seed: seed}
		for range 50 {
			got := wr.synthUUID()
			sum := sha256.Sum256([]byte(seed + "/uuid/" + strconv.Itoa(wr.seq)))
			s := hex.EncodeToString(sum[:12])
			want := s[0:8] + "-" + s[8:12] + "-4" + s[13:16] + "-8" + s[17:20] + "-" + s[20:24] + "00000000"
			if got != want {
				t.Fatalf("seed %q seq %d: %s, want %s", seed, wr.seq, got, want)
			}
			if id := wr.synthID("msg"); id != hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte(seed + "/msg/" + strconv.Itoa(wr.seq))); return s[:12] }()) {
				t.Fatalf("synthID(msg) = %s", id)
			}
		}
	}
}
