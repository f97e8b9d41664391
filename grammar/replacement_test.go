package grammar

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/edittest"
)

// checkReplacement checks that Replacement names the shortest replacement: the parts it
// keeps are equal, the prefix cannot grow, the suffix cannot grow without
// overlapping the prefix, and the edit gives the same tree as a parse.
func checkReplacement(t *testing.T, old, b []byte, context string) {
	t.Helper()
	tr := Parse(bytes.Clone(old))
	start, end, newEnd := tr.Replacement(b)
	if start > end || start > newEnd || end > len(old) || newEnd > len(b) || len(old)-end != len(b)-newEnd {
		t.Fatalf("%s: Replacement = %d, %d, %d for %d → %d bytes", context, start, end, newEnd, len(old), len(b))
	}
	if !bytes.Equal(old[:start], b[:start]) || !bytes.Equal(old[end:], b[newEnd:]) {
		t.Fatalf("%s: Replacement = %d, %d, %d keeps bytes that differ", context, start, end, newEnd)
	}
	if start < min(len(old), len(b)) && old[start] == b[start] {
		t.Fatalf("%s: the common prefix is longer than %d", context, start)
	}
	if end > start && newEnd > start && old[end-1] == b[newEnd-1] {
		t.Fatalf("%s: the common suffix is longer than %d", context, len(old)-end)
	}
	assertSameAsFullParse(t, tr.Edit(start, end, bytes.Clone(b[start:newEnd])), b, context)
}

func TestReplacement(t *testing.T) {
	for _, tiny := range []bool{false, true} {
		if tiny {
			withTinyChunks(t)
		}
		doc := generated(400)
		cases := map[string][2][]byte{
			"same":             {doc, doc},
			"append a line":    {doc, append(bytes.Clone(doc), "o: id=c1 → [ok]\n"...)},
			"append to a line": {doc[:len(doc)-1], doc},
			"truncate":         {doc, doc[:len(doc)/2]},
			"prepend":          {doc, append([]byte("# note\n"), doc...)},
			"empty to text":    {nil, doc},
			"text to empty":    {doc, nil},
			"repeated bytes":   {[]byte("aaaa\naaaa\n"), []byte("aaaa\naaaa\naaaa\n")},
			"middle":           {doc, bytes.Replace(doc, []byte("question 200 "), []byte("question 二百 "), 1)},
		}
		for name, c := range cases {
			checkReplacement(t, c[0], c[1], fmt.Sprintf("%s (tiny chunks %v)", name, tiny))
		}
		r := rand.New(rand.NewPCG(3, 4))
		for i := range 300 {
			s, e, ins := edittest.Random(r, len(doc), editPieces)
			checkReplacement(t, doc, edittest.Splice(doc, s, e, ins), fmt.Sprintf("random %d (tiny chunks %v)", i, tiny))
		}
	}
}

// CommonEnds of a part of the document equals the comparison of that part's
// bytes, for parts that start and end anywhere (inside chunks, on their
// edges, empty) and texts that share any amount with them.
func TestCommonEndsOfAPart(t *testing.T) {
	for _, tiny := range []bool{false, true} {
		if tiny {
			withTinyChunks(t)
		}
		doc := generated(400)
		tr := Parse(bytes.Clone(doc))
		r := rand.New(rand.NewPCG(5, 6))
		for i := range 500 {
			from := r.IntN(len(doc) + 1)
			to := from + r.IntN(len(doc)-from+1)
			part := doc[from:to]
			s, e, ins := edittest.Random(r, len(part), editPieces)
			b := edittest.Splice(part, s, e, ins)
			if i%5 == 0 {
				b = bytes.Clone(part)
			}
			prefix, suffix := tr.CommonEnds(from, to, b)
			wantPrefix := prefixLen(part, b)
			wantSuffix := suffixLen(part[wantPrefix:], b[wantPrefix:])
			if prefix != wantPrefix || suffix != wantSuffix {
				t.Fatalf("case %d (tiny chunks %v): [%d, %d) of %d: CommonEnds = %d, %d, want %d, %d", i, tiny, from, to, len(doc), prefix, suffix, wantPrefix, wantSuffix)
			}
		}
	}
}
