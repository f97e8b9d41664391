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

// synthHex carries the counter's digits up from the last id's, or formats
// them when the counter moved otherwise: the ids are those of the counter
// formatted each time, over 9 -> 10, 99 -> 100, 999 -> 1000 and jumps.
func TestSynthIDCounterDigits(t *testing.T) {
	wr := &Writer{seed: "s"}
	check := func() {
		t.Helper()
		sum := sha256.Sum256([]byte("s/msg/" + strconv.Itoa(wr.seq)))
		if id := wr.synthID("msg"); id != hex.EncodeToString(sum[:12]) {
			t.Fatalf("seq %d: synthID(msg) = %s", wr.seq, id)
		}
	}
	for range 1200 {
		wr.seq++
		check()
		check() // the same counter again
	}
	for _, jump := range []int{99998, 99999, 100000, 7, 8, 0, 1, 1 << 40, 1<<40 + 1} {
		wr.seq = jump
		check()
		wr.seq++
		check()
	}
}
