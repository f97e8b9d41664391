package sessions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// TestRowListingHeapIndependentOfStore: the first listing of rows (an
// empty index; `rlog-ls sessions`, the editor's Sessions view) and its save
// hold the changes, prompts, calls and phases of the sessions being read,
// not those of the store: a store ten times as large peaks at about the
// same heap. It measures memory, not time.
func TestRowListingHeapIndependentOfStore(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads 66 MB of transcripts")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	cwd := "/work/project"
	// peak lists a store of n sessions of 150 KB on average with an empty
	// index and saves it: the most heap it held, and what the store's
	// lists take when held (read back from the changes file, each name
	// once: less than a listing holding them would take) and how many
	// calls they have. A store of 40 sessions and one of 400 are made of
	// the same 40 transcripts (agentstore.Generate), copied once and ten
	// times, of the writer's shape, which has the calls to measure in
	// 150 KB (the CLI's shape spends most of a small session on the
	// records of the run's start).
	peak := func(n int) (held, lists uint64, calls int) {
		var rows uint64
		dir := t.TempDir()
		homes := Homes{Claude: filepath.Join(dir, ".claude")}
		agentstore.Generate(t, filepath.Join(homes.Claude, "projects", ClaudeProject(cwd)), n, int64(n)*150<<10, agentstore.Writer)
		p := Discover(cwd, homes)
		ix := Open(filepath.Join(dir, "sessions.json"))
		held, rows = peakDuring(func() {
			if l := ix.List(context.Background(), Request{Candidates: p.Files, Cwd: cwd}); len(l.Sessions) != n {
				t.Fatalf("%d sessions listed, want %d", len(l.Sessions), n)
			}
			if err := ix.Save(); err != nil {
				t.Fatal(err)
			}
		})
		again := Open(ix.path)
		_, lists = peakDuring(func() {
			again.mu.Lock()
			again.loadChanges()
			again.mu.Unlock()
		})
		for _, c := range again.changes {
			calls += len(c.Calls)
		}
		// What the index keeps (its entries and rows) grows with the store
		// by design: the peak is taken above it.
		return held - min(held, rows), lists, calls
	}
	small, smallLists, smallCalls := peak(40)
	large, largeLists, largeCalls := peak(400)
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	t.Logf("peak heap over the listing and its save, above what the index keeps: %.1f MB for 40 sessions (%d calls, %.1f MB of lists), %.1f MB for 400 (%d calls, %.1f MB of lists)",
		mb(small), smallCalls, mb(smallLists), mb(large), largeCalls, mb(largeLists))
	if largeCalls < 9*smallCalls || largeLists < smallLists+2<<20 {
		t.Fatalf("%d and %d calls, %.1f and %.1f MB of lists: too few to measure", smallCalls, largeCalls, mb(smallLists), mb(largeLists))
	}
	// A listing that held the lists of the sessions it read until the
	// save would peak at more than the lists of the 360 sessions more;
	// the rows, some 2 KB a session, are what the index keeps, and the
	// peak varies by some 1 MB from one run to the next.
	if grown := largeLists - smallLists; large > small+grown/2 {
		t.Errorf("peak heap %.1f MB for 40 sessions, %.1f MB for 400: grows with the store (%.1f MB of lists more)", mb(small), mb(large), mb(grown))
	}
}

// TestSpilledChangesFileEqualsHeld: the changes file a listing of rows
// writes (the sessions' lists spilled as they are read, merged with the
// old file an entry at a time) is the one a listing that keeps them writes
// from memory, byte for byte, through listings of each agent's recorded
// sessions, one folder after another, and one of a file that changed.
func TestSpilledChangesFileEqualsHeld(t *testing.T) {
	for _, scenario := range []string{"compare-a", "compare-b", "subagent", "compaction"} {
		t.Run(scenario, func(t *testing.T) {
			s := newStore(t, scenario)
			// The sessions of each folder, then the first folder's again
			// after one of its files changed (its time only).
			steps := []string{s.claude, s.codex, s.gemini, s.claude}
			var touched string
			var mtime time.Time
			run := func(held bool) [][]byte {
				spilled := false
				os.Remove(s.index)
				os.Remove(strings.TrimSuffix(s.index, ".json") + ".changes.json")
				if touched != "" {
					os.Chtimes(touched, mtime, mtime)
				}
				var files [][]byte
				for i, cwd := range steps {
					if i == len(steps)-1 {
						p := Discover(cwd, s.homes).Files
						if len(p) == 0 {
							t.Fatalf("no sessions in %s", cwd)
						}
						touched = p[0]
						if fi, err := os.Stat(touched); err == nil && mtime.IsZero() {
							mtime = fi.ModTime()
						}
						later := mtime.Add(time.Hour)
						os.Chtimes(touched, later, later)
					}
					ix := Open(s.index)
					ix.keepChanges = held
					p := Discover(cwd, s.homes)
					ix.List(context.Background(), Request{Candidates: p.Files, Maybe: p.Maybe, Cwd: cwd})
					for _, e := range ix.entries {
						spilled = spilled || e.spilled != nil
					}
					if err := ix.Save(); err != nil {
						t.Fatal(err)
					}
					b, err := os.ReadFile(ix.changesPath())
					if err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
					files = append(files, b)
				}
				if spilled == held {
					t.Fatalf("spilled %v, with the lists held %v", spilled, held)
				}
				return files
			}
			want, got := run(true), run(false)
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("step %d: the changes file written from the spill file differs:\n%s\nfrom memory:\n%s", i, got[i], want[i])
				}
			}
		})
	}
}

// TestSpilledListsOfAGrownFile: in a server (one index, no save between
// listings), a listing of rows spills a session's lists; the session grows
// and is listed again from its cut, its lists before the cut read back from
// the spill file; a listing that asks for the lists then gives those of the
// whole file, as reading it whole does.
func TestSpilledListsOfAGrownFile(t *testing.T) {
	generated := agentstore.Claude(t, filepath.Join(t.TempDir(), "store"), 1, 200<<10)[0]
	b, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	ends := lineEnds(b)
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.Base(generated))
	ix := Open(filepath.Join(dir, "index.json"))
	resumed, spilled := 0, false
	for i, n := range []int{ends[len(ends)/3], ends[2*len(ends)/3], len(b)} {
		writeGrown(t, p, b[:n], i)
		l := ix.List(context.Background(), Request{Files: []string{p}})
		resumed += l.Resumed
		ix.mu.Lock()
		spilled = spilled || ix.entries[p].spilled != nil
		ix.mu.Unlock()
	}
	if !spilled || resumed == 0 {
		t.Fatalf("spilled %v, %d listings read from a cut", spilled, resumed)
	}
	l := ix.List(context.Background(), Request{Files: []string{p}, Changes: true})
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	whole, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	got := l.Sessions[0]
	if g, w := toJSON(t, got.Changes, got.Prompts, got.Calls, got.Phases), toJSON(t, whole.Changes, whole.Prompts, whole.Calls, whole.Phases); g != w {
		t.Errorf("changes, prompts, calls and phases\nlisted %s\nwhole  %s", g, w)
	}
}
