package replay

import (
	"bytes"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// FuzzReadBorrowed holds Read's reuse of its event (eventRoom) for a sink
// that borrows events to its reading for a sink that keeps them: the same
// events, header, report and error, on every testdata input and on a
// generated session as the writer writes it.
func FuzzReadBorrowed(f *testing.F) {
	for _, b := range readtest.Inputs(f, "../../testdata", "../testdata") {
		f.Add(b)
	}
	var c model.Collector
	if err := rlogfmt.Read(bytes.NewReader(benchdata.TimedSession(f, 64<<10)), &c, &model.Report{}); err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, &c.Session, &model.Report{}, model.Options{}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		sameBorrowed(t, func(s model.Sink, rep *model.Report) error { return Read(bytes.NewReader(in), s, rep) })
	})
}

// borrowing is a sink that borrows events (model.Borrower) and keeps a
// copy of each (Event.Clone) in its Collector: a reader that reuses its
// events for it must give it what it gives a Collector, or it left
// something of an event in the next.
type borrowing struct{ *model.Collector }

func (b borrowing) Event(h *model.Header, e *model.Event) error {
	return b.Collector.Event(h, e.Clone())
}

func (borrowing) BorrowsEvents() bool { return true }

// sameBorrowed fails t when read, a reader of one input, gives a sink
// that borrows events another session, report or error than it gives a
// Collector.
func sameBorrowed(t *testing.T, read func(model.Sink, *model.Report) error) {
	t.Helper()
	readtest.Same(t, func(borrow bool) (model.Session, string, error) {
		var rep model.Report
		var c model.Collector
		var sink model.Sink = &c
		if borrow {
			sink = borrowing{&c}
		}
		err := read(sink, &rep)
		return c.Session, rep.Text(), err
	}, func(s model.Session) []model.Event { return s.Events })
}
