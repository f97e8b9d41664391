package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// lineSink writes one line for each event.
type lineSink struct{ w io.Writer }

func (s lineSink) Event(_ *model.Header, e *model.Event) error {
	_, err := fmt.Fprintf(s.w, "%s\n", e.Kind)
	return err
}
func (lineSink) End(*model.Header) error { return nil }

// TestRunChecksTheOutput: the output goes to the target format's validator
// as it is written, and what that finds comes back with the result: the
// first findings, and how many more.
func TestRunChecksTheOutput(t *testing.T) {
	saved := formats
	t.Cleanup(func() { formats = saved })
	lines := FormatInfo{Name: "lines", Description: "a line an event", Extension: ".lines",
		NewWriter: func(w io.Writer, _ *model.Report, _ model.Options) (model.Sink, error) { return lineSink{w}, nil },
		Validate: func(r io.Reader, report func(model.Finding)) error {
			sc := bufio.NewScanner(r)
			for n := 1; sc.Scan(); n++ {
				report(model.Finding{Code: "LINES001", Message: "a line: " + sc.Text(), Line: n, Col: 1})
			}
			return sc.Err()
		}}
	formats = append(slices.Clone(saved), lines)
	conv, err := Prepare(Job{Source: Source{Path: "testdata/fixtures/session.rlog"}, To: "lines"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := conv.Run(&out)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(out.Bytes(), []byte("\n"))
	p := res.Problems()
	if n <= maxCheckFindings || len(res.Check.List) != maxCheckFindings || res.Check.Extra != n-maxCheckFindings ||
		len(p) != maxCheckFindings+1 || p[len(p)-1] != fmt.Sprintf("%d more", n-maxCheckFindings) {
		t.Errorf("%d lines written; check kept %d and counted %d more; problems %q", n, len(res.Check.List), res.Check.Extra, p)
	}
}

// TestPrepareRefusesAFormatWithoutReader: a file recognised as a format
// rlog-ls has no reader for is refused as that format (every agent's
// format has a reader now; this one is made up).
func TestPrepareRefusesAFormatWithoutReader(t *testing.T) {
	saved := formats
	t.Cleanup(func() { formats = saved })
	toy := FormatInfo{Name: "toy", Description: "toy session JSONL", JSON: true,
		Detect: func(h *Head) model.Evidence {
			if h.Has("toy_version") {
				return model.Certain
			}
			return model.NoEvidence
		}}
	formats = append(slices.Clone(saved), toy)
	path := t.TempDir() + "/s.jsonl"
	if err := os.WriteFile(path, []byte(`{"toy_version":1,"turn":"hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Prepare(Job{Source: Source{Path: path}, To: Rlog})
	if want := "s.jsonl is a toy session JSONL (toy): no reader yet"; !errors.Is(err, ErrNoReader) || err.Error() != want {
		t.Errorf("%v, want %q", err, want)
	}
}
