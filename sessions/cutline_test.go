package sessions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// TestCutLineCountedAsRead: the line a cut is kept at, counted as the
// part before it is read (the file is not read again for it), is the
// line countLines finds there, on every recorded transcript with a cut
// and on generated ones, read from the start and read on from the cut
// after a turn was appended.
func TestCutLineCountedAsRead(t *testing.T) {
	files := resumableFiles(t)
	dir := t.TempDir()
	generated := agentstore.Claude(t, filepath.Join(dir, "store"), 4, 4<<20)
	turn := []byte(`{"type":"user","message":{"role":"user","content":"one more"},"uuid":"u-more","timestamp":"2026-11-27T09:30:00.000Z"}` + "\n")
	cuts := 0
	check := func(p string, prev *cut) *cut {
		t.Helper()
		d := convert.DetectedFile(p)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		format := resumable(d)
		if format == "" {
			return nil
		}
		s, next, _, err := readByParts(d, format, fi, prev)
		if err != nil || s == nil || next == nil {
			return nil
		}
		cuts++
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n, err := countLines(f, 0, next.Offset)
		if err != nil {
			t.Fatal(err)
		}
		if next.Line != n+1 {
			t.Errorf("%s: the cut at byte %d is kept at line %d, it is line %d", p, next.Offset, next.Line, n+1)
		}
		return next
	}
	for _, p := range files {
		check(p, nil)
	}
	for _, p := range generated {
		c := check(p, nil)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(turn)
		f.Close()
		check(p, c)
	}
	if cuts < len(generated)*2 {
		t.Errorf("%d cuts kept of %d files: the generated transcripts have one each, before and after a turn", cuts, len(files)+len(generated))
	}
}
