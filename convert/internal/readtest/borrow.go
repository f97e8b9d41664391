package readtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Borrowing is a sink that borrows events (model.Borrower) and keeps a
// copy of each (Event.Clone) in its Collector: a reader that reuses its
// events for it must give it what it gives a Collector, or it left
// something of an event in the next.
type Borrowing struct{ model.Collector }

// Event keeps a copy of e.
func (b *Borrowing) Event(h *model.Header, e *model.Event) error {
	return b.Collector.Event(h, e.Clone())
}

// BorrowsEvents says b keeps nothing of an event past the call.
func (*Borrowing) BorrowsEvents() bool { return true }

// SameBorrowed fails t when read, a reader of one input, gives a sink that
// borrows events (Borrowing) another session, report or error than it
// gives a Collector.
func SameBorrowed(t *testing.T, read func(model.Sink, *model.Report) error) {
	t.Helper()
	Same(t, func(borrow bool) (model.Session, string, error) {
		var rep model.Report
		if borrow {
			var b Borrowing
			err := read(&b, &rep)
			return b.Session, rep.Text(), err
		}
		var c model.Collector
		err := read(&c, &rep)
		return c.Session, rep.Text(), err
	}, func(s model.Session) []model.Event { return s.Events })
}

// Inputs are the files of at most 1 MB under the testdata folders dirs
// (and their folders, fuzz corpora left out): inputs of every format, for
// a reader's differential tests (a file of another format is malformed
// input to it).
func Inputs(t testing.TB, dirs ...string) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "fuzz" {
					return filepath.SkipDir
				}
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.Size() <= 1<<20 {
				if b, err := os.ReadFile(p); err == nil {
					in[p] = b
				}
			}
			return nil
		})
	}
	if len(in) == 0 {
		t.Fatalf("no inputs under %v", dirs)
	}
	return in
}
