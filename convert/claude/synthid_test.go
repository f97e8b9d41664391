package claude

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
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
			if id := wr.synthID(msgID); id != hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte(seed + "/msg/" + strconv.Itoa(wr.seq))); return s[:12] }()) {
				t.Fatalf("synthID(msg) = %s", id)
			}
		}
	}
}

// synthHex carries the counter's digits up where they stand in its
// kind's block from the last id's, or formats them when the counter moved
// otherwise: the ids are those of the counter formatted each time, over
// 9 -> 10, 99 -> 100, 999 -> 1000, steps of 1 to 11 with the kinds taking
// turns, and jumps back and forth.
func TestSynthIDCounterDigits(t *testing.T) {
	wr := &Writer{seed: "s"}
	check := func(kind idKind) {
		t.Helper()
		sum := sha256.Sum256([]byte("s/" + idKindNames[kind] + "/" + strconv.Itoa(wr.seq)))
		if id := wr.synthID(kind); id != hex.EncodeToString(sum[:12]) {
			t.Fatalf("seq %d: synthID(%s) = %s", wr.seq, idKindNames[kind], id)
		}
	}
	for range 1200 {
		wr.seq++
		check(msgID)
		check(msgID) // the same counter again
	}
	for step := 1; step <= 11; step++ {
		for i := range 250 {
			wr.seq += step
			check(idKind(step % 2))
			if i%50 == 0 {
				check(sessionID) // (a kind between)
			}
		}
	}
	for _, jump := range []int{99998, 99999, 100000, 7, 8, 0, 1, 1 << 40, 1<<40 + 1, 1<<40 + 10, 1<<40 + 19} {
		wr.seq = jump
		check(uuidID)
		wr.seq++
		check(uuidID)
		check(msgID)
	}
}

// FuzzSynthHexEqualsSum256 holds synthHex (blockSum, hex24) to the hex of
// sha256.Sum256 of seed/kind/seq, for seeds of any length: those whose
// input fits in one block with its padding (at most 55 bytes), those at
// the edge and those longer, which go to sha256.Sum256.
func FuzzSynthHexEqualsSum256(f *testing.F) {
	f.Add("", uint8(0), uint32(0), uint8(1))
	f.Add("0f3a-session", uint8(1), uint32(9), uint8(3))
	f.Add("123456789012345678901234567890123456789012345678", uint8(0), uint32(1), uint8(9))  // 55 bytes
	f.Add("1234567890123456789012345678901234567890123456789", uint8(0), uint32(1), uint8(9)) // 56
	f.Add("123456789012345678901234567890123456789012345", uint8(2), uint32(99), uint8(1))
	f.Add("日本", uint8(2), uint32(1<<31), uint8(0))
	f.Fuzz(func(t *testing.T, seed string, kind uint8, seq uint32, step uint8) {
		wr := &Writer{seed: seed, seq: int(seq)}
		// Again with the digest and its blocks reused: the kinds taking
		// turns, the counter going up by 0 to 12 (carried up in place,
		// or formatted), over a longer number of digits, and another seed.
		for i := range 24 {
			if i == int(step)%24 {
				wr.seed = seed[:len(seed)/2]
			}
			k := idKind((int(kind) + i*int(step)) % int(idKinds))
			got := wr.synthHex(k)
			sum := sha256.Sum256([]byte(wr.seed + "/" + idKindNames[k] + "/" + strconv.Itoa(wr.seq)))
			if want := hex.EncodeToString(sum[:12]); string(got[:]) != want {
				t.Fatalf("seed %q kind %d seq %d: %s, want %s", wr.seed, k, wr.seq, got, want)
			}
			wr.seq += (i * int(step+1)) % 13
		}
	})
}

// FuzzHex24 holds hex24 to hex.Encode.
func FuzzHex24(f *testing.F) {
	f.Add([]byte("\x00\x09\x0a\x0f\x10\x90\xa0\xff\x99\xaa\x5f\xf5"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sum [12]byte
		copy(sum[:], b)
		if got, want := hex24(sum), hex.EncodeToString(sum[:]); string(got[:]) != want {
			t.Fatalf("hex24(%x) = %s", sum, got)
		}
	})
}

// stateIsSum holds with this Go's crypto/sha256: blockSum makes the ids.
func TestBlockSumUsed(t *testing.T) {
	if !stateIsSum() {
		t.Fatal("a digest's state after a padded block is not its input's sum: every id goes to sha256.Sum256")
	}
	var s blockSum
	if _, ok := s.sum12("0123456789abcdef0123456789abcdef", uuidID, 12); !ok {
		t.Fatal("a 42-byte input is not hashed in one block")
	}
}

// BenchmarkSynthUUID is one made-up uuid (a write of the generated 1 MiB
// session makes about 8,400 ids), and BenchmarkSHA256Block the hash of one
// block alone: on a CPU with SHA extensions (not under valgrind, which
// hides them) the hash is a small part of an id, far less than callgrind's
// count of the AVX2 code says.
func BenchmarkSynthUUID(b *testing.B) {
	wr := &Writer{seed: "0123456789abcdef0123456789abcdef", strs: strblock.New(2048, 2048)}
	for b.Loop() {
		wr.synthUUID()
	}
}

func BenchmarkSHA256Block(b *testing.B) {
	var block [sha256.BlockSize]byte
	h := sha256.New()
	for b.Loop() {
		h.Reset()
		h.Write(block[:])
	}
}
