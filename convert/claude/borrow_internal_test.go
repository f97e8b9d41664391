package claude

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// FuzzReadBorrowed holds the reader's reuse of an entry's events
// (eventRoom) for a sink that borrows events to its reading for a sink
// that keeps them: the same events, header, report and error, on every
// testdata input and on a generated session as the writer writes it.
func FuzzReadBorrowed(f *testing.F) {
	for _, b := range readtest.Inputs(f, "../../testdata", "../testdata", "testdata") {
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
		readtest.SameBorrowed(t, func(s model.Sink, rep *model.Report) error { return Read(bytes.NewReader(in), s, rep) })
	})
}

// TestReadFileBorrowed is FuzzReadBorrowed for the recorded transcripts
// read with their sub-agents' spliced in (ReadFile): a sub-agent's state
// reuses events of its own.
func TestReadFileBorrowed(t *testing.T) {
	recorded, _ := filepath.Glob("../../testdata/agents/claude-code/*/*/claude/projects/*/*.jsonl")
	if len(recorded) == 0 {
		t.Fatal("no recorded transcripts")
	}
	for _, p := range recorded {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(p))))), func(t *testing.T) {
			readtest.SameBorrowed(t, func(s model.Sink, rep *model.Report) error { return ReadFile(p, s, rep) })
		})
	}
}
