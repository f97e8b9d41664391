package analysis

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// idIndex numbers ids as a map would, whatever their length and number,
// from strings and byte slices alike.
func TestIDIndexNumbersLikeAMap(t *testing.T) {
	var ix idIndex
	want := mapNumbers{}
	ids := []string{"", "a", "toolu_01", strings.Repeat("x", idBlockSize+10), "b"}
	for i := range 50000 {
		ids = append(ids, fmt.Sprintf("call_%d", i%30000))
	}
	for i, id := range ids {
		var k int32
		var added bool
		if i%2 == 0 {
			k, added = idNumber(&ix, id)
		} else {
			k, added = idNumber(&ix, []byte(id))
		}
		want.check(t, id, k, added)
		if string(ix.bytes(k)) != id {
			t.Fatalf("%q: bytes %q", id, ix.bytes(k))
		}
	}
	if ix.Len() != len(want) {
		t.Fatalf("Len %d, want %d", ix.Len(), len(want))
	}
	for id, w := range want {
		if k, ok := idLookup(&ix, id); !ok || k != w {
			t.Fatalf("lookup %q: %d %v, want %d", id, k, ok, w)
		}
	}
	if _, ok := idLookup(&ix, "absent"); ok {
		t.Fatal("found an id never added")
	}
	var empty idIndex
	if _, ok := idLookup(&empty, "a"); ok {
		t.Fatal("found an id in an empty index")
	}
}

// mapNumbers numbers ids as idIndex must: in the order they first come.
type mapNumbers map[string]int32

// check fails t unless id's number k, and whether it was added, are the
// map's.
func (want mapNumbers) check(t *testing.T, id string, k int32, added bool) {
	t.Helper()
	w, seen := want[id]
	if !seen {
		w = int32(len(want))
		want[id] = w
	}
	if k != w || added == seen {
		t.Fatalf("%q: number %d (added %v), want %d (added %v)", id, k, added, w, !seen)
	}
}

// FuzzIDIndex holds idIndex to a map: the ids are the input's lines, many
// alike, numbered in the order they first come.
func FuzzIDIndex(f *testing.F) {
	f.Add([]byte("a\nb\na\n\ntoolu_01\nb"), uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, repeat uint8) {
		var ix idIndex
		want := mapNumbers{}
		for r := range int(repeat%8) + 1 {
			for i, line := range bytes.Split(src, []byte("\n")) {
				id := string(line)
				if i%3 == 0 {
					id = fmt.Sprintf("%s%d", line, (i*r)%97)
				}
				var k int32
				var added bool
				if i%3 == 0 {
					k, added = idNumber(&ix, id)
				} else {
					k, added = idNumber(&ix, line)
				}
				want.check(t, id, k, added)
			}
		}
		for id, w := range want {
			if k, ok := idLookup(&ix, id); !ok || k != w || string(ix.bytes(k)) != id {
				t.Fatalf("lookup %q: %d %v, want %d", id, k, ok, w)
			}
		}
	})
}

// Ids whose hashes are the same (so are their slots' bits of it) are told
// apart by their bytes, before and after the table grows.
func TestIDIndexTellsApartIDsOfOneHash(t *testing.T) {
	seen := map[uint32]string{}
	var a, b string
	for i := 0; b == ""; i++ { // about 2^16 ids hashed to find two
		id := fmt.Sprintf("toolu_%d", i)
		h := hashID(id)
		if other, ok := seen[h]; ok {
			a, b = other, id
		}
		seen[h] = id
	}
	var ix idIndex
	if k, added := idNumber(&ix, a); k != 0 || !added {
		t.Fatalf("%q: %d %v", a, k, added)
	}
	if _, ok := idLookup(&ix, b); ok {
		t.Fatalf("%q found as %q, of the same hash", b, a)
	}
	if k, added := idNumber(&ix, b); k != 1 || !added {
		t.Fatalf("%q: %d %v, want a number of its own", b, k, added)
	}
	for i := range 5000 { // grow the table
		idNumber(&ix, fmt.Sprintf("call_%d", i))
	}
	for want, id := range []string{a, b} {
		if k, ok := idLookup(&ix, id); !ok || k != int32(want) {
			t.Fatalf("after growing, %q: %d %v, want %d", id, k, ok, want)
		}
		if k, added := idNumber(&ix, id); k != int32(want) || added {
			t.Fatalf("after growing, %q numbered %d (added %v), want %d", id, k, added, want)
		}
	}
}

// A chunk's id table numbers ids as a map would, reused from chunk to
// chunk, sized for fewer ids than it gets (it grows), and the summary's
// table made from it finds each id and no other.
func TestChunkIDTableNumbersLikeAMap(t *testing.T) {
	var scratch idTableScratch
	for chunk := range 200 {
		lines := chunk % 40
		scratch = scratch.reset(lines)
		want := map[string]int32{}
		var names []string
		n := chunk % 70 // more ids than lines in some chunks
		for i := range 3 * n {
			id := fmt.Sprintf("id%d_%d", chunk, (i*7)%max(n, 1))
			if i%5 == 0 {
				id = ""
			}
			k, added := scratch.number([]byte(id))
			w, seen := want[id]
			if !seen {
				w = int32(len(want))
				want[id] = w
			}
			if k != w || added == seen {
				t.Fatalf("chunk %d, %q: number %d (added %v), want %d (added %v)", chunk, id, k, added, w, !seen)
			}
			if added {
				names = append(names, id)
			}
		}
		table := scratch.sized()
		if got := scratch.names(); !slices.Equal(got, names) {
			t.Fatalf("chunk %d: names %q, want %q", chunk, got, names)
		}
		for id, w := range want {
			if k, ok := table.find(names, id); !ok || k != w {
				t.Fatalf("chunk %d: find %q: %d %v, want %d", chunk, id, k, ok, w)
			}
		}
		for _, absent := range []string{"absent", fmt.Sprintf("id%d_", chunk), fmt.Sprintf("id%d_%d", chunk+1, 0)} {
			if _, ok := table.find(names, absent); ok {
				t.Fatalf("chunk %d: found %q, never added", chunk, absent)
			}
		}
	}
}

// FuzzChunkIDTable holds a chunk's id table to a map on any ids (the
// words of the input), on a table sized for lines lines.
func FuzzChunkIDTable(f *testing.F) {
	f.Add([]byte("qnJKpCfy LWFdVBdk qnJKpCfy toolu_01ABC  x x"), 3)
	f.Add([]byte(""), 0)
	f.Fuzz(func(t *testing.T, in []byte, lines int) {
		scratch := idTableScratch{}.reset(min(max(lines, 0), 1000))
		want := map[string]int32{}
		var names []string
		for _, id := range bytes.Split(in, []byte(" ")) {
			k, added := scratch.number(id)
			w, seen := want[string(id)]
			if !seen {
				w = int32(len(want))
				want[string(id)] = w
				names = append(names, string(id))
			}
			if k != w || added == seen {
				t.Fatalf("%q: number %d (added %v), want %d (added %v)", id, k, added, w, !seen)
			}
		}
		table := scratch.sized()
		if got := scratch.names(); !slices.Equal(got, names) {
			t.Fatalf("names %q, want %q", got, names)
		}
		for id, w := range want {
			if k, ok := table.find(names, id); !ok || k != w {
				t.Fatalf("find %q: %d %v, want %d", id, k, ok, w)
			}
		}
		if _, ok := table.find(names, string(in)+" "); ok {
			t.Fatal("found an id never added")
		}
	})
}
