// Package edittest makes random edits for the tests that check incremental
// results against a fresh computation.
package edittest

import "math/rand/v2"

// Random picks a range of a document of n bytes (usually short, sometimes
// long) and a replacement made of up to three of pieces.
func Random(r *rand.Rand, n int, pieces []string) (start, end int, text []byte) {
	start = r.IntN(n + 1)
	end = start
	if r.IntN(3) > 0 {
		end = min(n, start+r.IntN(60))
	}
	if r.IntN(30) == 0 {
		end = min(n, start+r.IntN(n+1))
	}
	for k := r.IntN(4); k > 0; k-- {
		text = append(text, pieces[r.IntN(len(pieces))]...)
	}
	return start, end, text
}

// Splice returns src with bytes [start, end) replaced by text, in a new slice.
func Splice(src []byte, start, end int, text []byte) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(text))
	out = append(out, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}
