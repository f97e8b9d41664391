package analysis

import "testing"

// TestPairTables holds the line scan's tables of byte pairs, built by rows
// when the package loads, to their definitions asked pair by pair.
func TestPairTables(t *testing.T) {
	for c := range 256 {
		stop := secretClass[c]&clsSep != 0
		for b := range 256 {
			if run := startRun[c<<8|b]; run != 0 && run < lightRun {
				stop = true
			}
		}
		if got := lightStop[c] != 0; got != stop {
			t.Errorf("lightStop[%q] = %v, want %v", byte(c), got, stop)
		}
	}
	for k := range 1 << 16 {
		a, b := byte(k), byte(k>>8)
		var nonWord uint8
		if !wordByte[a] {
			nonWord |= 1
		}
		if !wordByte[b] {
			nonWord |= 2
		}
		if nonWordPair[k] != nonWord {
			t.Fatalf("nonWordPair[%q %q] = %b, want %b", a, b, nonWordPair[k], nonWord)
		}
		if keyEndPair[k] != mayEndKey(a, b) {
			t.Fatalf("keyEndPair[%q %q] = %v, want %v", a, b, keyEndPair[k], mayEndKey(a, b))
		}
		var light uint8
		if run := startRun[int(a)<<8|int(b)]; secretClass[a]&clsSep != 0 || run != 0 && run < lightRun {
			light |= 1
		}
		if secretClass[b]&clsSep != 0 || lightStop[b] != 0 && (!wordByte[a] || isEscapeLetter(a)) {
			light |= 2
		}
		if lightPair[k] != light {
			t.Fatalf("lightPair[%q %q] = %b, want %b", a, b, lightPair[k], light)
		}
	}
}
