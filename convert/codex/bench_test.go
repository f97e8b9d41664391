package codex_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/codex"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

type nullSink struct{}

func (nullSink) Event(*model.Header, *model.Event) error { return nil }
func (nullSink) End(*model.Header) error                 { return nil }

// BenchmarkRead measures the reader on 10 MB of what Codex CLI wrote in
// the producer harness (every recorded rollout, one after the other, again
// and again), events going to a sink that keeps nothing: MB/s of input,
// and x-floor against splitting the same input into lines with
// bytes.IndexByte (docs/performance.md).
func BenchmarkRead(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(recorded, "*", "*", "codex-home", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(files) == 0 {
		b.Fatal("no recorded rollout")
	}
	var one []byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, data...)
	}
	in := bytes.Repeat(one, int(10<<20/len(one))+1)
	benchdata.MeasureRead(b, in, func(r io.Reader) error { return codex.Read(r, nullSink{}, &model.Report{}) })
}
