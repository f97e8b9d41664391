package sessions

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// placeNaive is placeByID's rule read plainly: each line split into words
// at idDelimiters, the first line each id is a word of.
func placeNaive(text string, ids []string) []int {
	lines := make([]int, len(ids))
	for i := range lines {
		lines[i] = 1
	}
	found := make([]bool, len(ids))
	for n, l := range strings.Split(text, "\n") {
		for _, w := range strings.FieldsFunc(l, func(r rune) bool { return r < 128 && idDelimiter[r] }) {
			for i, id := range ids {
				if id != "" && !found[i] && w == id {
					lines[i], found[i] = n+1, true
				}
			}
		}
	}
	return lines
}

// TestPlaceByIDFindsWholeWords holds placeByID to placeNaive on files
// whose words cross its buffers' ends, are longer than a buffer, or
// begin with an id without being it.
func TestPlaceByIDFindsWholeWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := []string{"toolu_01", "toolu_01abc", "call_7", "", "msg-42", "call_7", "absent"}
	// the ids are rare, so that each is first found anywhere in the file
	words := []string{"toolu_01", "toolu_01abc", "toolu_01ab", "call_7", "call_77", "xcall_7", "msg-42"}
	filler := []string{"text", "é", "\r", "toolu_0", "call_", "msg-4"}
	dir := t.TempDir()
	for round := range 40 {
		var b strings.Builder
		for b.Len() < 400<<10 {
			switch r := rng.IntN(4000); {
			case r < 200:
				b.WriteString("\n")
			case r < 201:
				// a word longer than a buffer, which begins or ends with an id
				long := strings.Repeat("A", 70<<10+rng.IntN(100))
				if r%2 == 0 {
					b.WriteString(long + words[rng.IntN(len(words))])
				} else {
					b.WriteString(words[rng.IntN(len(words))] + long)
				}
			case r < 204:
				b.WriteString(words[rng.IntN(len(words))])
			default:
				b.WriteString(filler[rng.IntN(len(filler))])
			}
			b.WriteByte(idDelimiters[rng.IntN(len(idDelimiters))])
		}
		text := b.String()
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := placeByID(path, ids)
		if err != nil {
			t.Fatal(err)
		}
		if want := placeNaive(text, ids); !slices.Equal(got, want) {
			t.Fatalf("round %d: %v, want %v", round, got, want)
		}
	}
}

// TestPlaceByIDAcrossBuffers places an id once, cut by the end of
// placeByID's first buffer at each of its bytes.
func TestPlaceByIDAcrossBuffers(t *testing.T) {
	const id = "toolu_01abc"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	for cut := range len(id) + 1 {
		head := strings.Repeat("x\n", (64<<10-cut)/2) + strings.Repeat(" ", (64<<10-cut)%2)
		text := head + id + "\"\n" + "after " + id + "x " + id[:cut] + "\n"
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := placeByID(path, []string{id, id[:max(cut, 1)]})
		if err != nil {
			t.Fatal(err)
		}
		if want := placeNaive(text, []string{id, id[:max(cut, 1)]}); !slices.Equal(got, want) {
			t.Errorf("cut %d: %v, want %v", cut, got, want)
		}
	}
}

// TestListingPlacesWhenAsked: a listing for rows does not read a file
// again for the lines of its changes and prompts; a listing that asks for
// them gets those Read finds, and keeps them.
func TestListingPlacesWhenAsked(t *testing.T) {
	var mu sync.Mutex
	var placed []string
	placing = func(path string) { mu.Lock(); placed = append(placed, path); mu.Unlock() }
	t.Cleanup(func() { placing = nil })
	s := newStore(t, "write-edit")
	p := Discover(s.claude, s.homes)
	listing := func(changes bool) *Listing {
		ix := Open(s.index)
		l := ix.List(context.Background(), Request{Candidates: p.Files, Maybe: p.Maybe, Cwd: s.claude, Changes: changes})
		if err := ix.Save(); err != nil {
			t.Fatal(err)
		}
		if len(l.Sessions) == 0 {
			t.Skip("no Claude Code write-edit session recorded in testdata")
		}
		return l
	}
	listing(false)
	if len(placed) != 0 {
		t.Errorf("a listing of rows read %v again for lines", placed)
	}
	for round := range 2 {
		before := len(placed)
		l := listing(true)
		if n := len(placed) - before; n != 1-round {
			t.Errorf("round %d: %d files placed, want %d (placed once, then kept)", round, n, 1-round)
		}
		for _, got := range l.Sessions {
			want, err := Read(got.Row.File)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Changes) == 0 || len(want.Prompts) == 0 {
				t.Fatalf("%s: no changes or prompts to place", got.Row.File)
			}
			if !slices.Equal(got.Changes, want.Changes) || !slices.Equal(got.Prompts, want.Prompts) {
				t.Errorf("round %d: %v %v, want %v %v", round, got.Changes, got.Prompts, want.Changes, want.Prompts)
			}
		}
	}
}
