package convert_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// benchInputs is the largest corpus file of each readable format.
var benchInputs = []struct {
	from convert.Format
	file string
}{
	{convert.Claude, "claude-code-jsonl/openagents/claude-code-example.jsonl"},
	{convert.SDKJSONL, "autopilot-sdk-jsonl/openagents-docs-logs/20251223/082302-call-issue-ready-now-to.jsonl"},
	{convert.Trajectory, "autopilot-trajectory-json/openagents-docs-logs/20251220/020941-start-working.json"},
	{convert.ATIF, "atif/harbor-trajectories/Hermes-70B-t-bench-ext/et-3794839e__CFGFY8g/trajectory.json"},
	{convert.ATIFJSONL, "atif-jsonl/openagents/20251205/session-2025-12-05T07-45-57-649Z-x8251x.atif.jsonl"},
	{convert.Rlog, "rlog/openagents-docs-logs/20251220/103818-call-issue-ready-now-to.rlog"},
	{convert.MiniSWE, "mini-swe-agent/harbor-trajectories/2026-02-09__12-22-47/107_jawah__charset_normalizer__s__eQqxHiY/mini-swe-agent.trajectory.json"},
}

type nullSink struct{}

func (nullSink) Event(*model.Header, *model.Event) error { return nil }
func (nullSink) End(*model.Header) error                 { return nil }

// BenchmarkRead measures each reader alone (events go to a sink that keeps
// nothing), in MB/s of input.
func BenchmarkRead(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(string(in.from), func(b *testing.B) {
			data, err := os.ReadFile(corpus.Path(b, in.file))
			if err != nil {
				b.Fatal(err)
			}
			fi, _ := convert.Lookup(in.from)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := fi.Read(bytes.NewReader(data), nullSink{}, &model.Report{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// REPLAY and prophet have no corpus file: read what their writers make.
	for _, to := range []convert.Format{convert.Replay, convert.Prophet} {
		b.Run(string(to), func(b *testing.B) {
			src := readSession(b, benchInputs[0].from, benchInputs[0].file)
			var out bytes.Buffer
			if _, err := convert.Write(&out, src, to, convert.Options{}); err != nil {
				b.Fatal(err)
			}
			fi, _ := convert.Lookup(to)
			b.SetBytes(int64(out.Len()))
			for b.Loop() {
				if err := fi.Read(bytes.NewReader(out.Bytes()), nullSink{}, &model.Report{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func readSession(b *testing.B, from convert.Format, file string) *convert.Session {
	f, err := os.Open(corpus.Path(b, file))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s, _, err := convert.Read(f, from)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkWrite measures each writer on the largest Claude transcript, in
// MB/s of output.
func BenchmarkWrite(b *testing.B) {
	src := readSession(b, benchInputs[0].from, benchInputs[0].file)
	for _, f := range convert.Formats() {
		if !f.CanWrite() {
			continue
		}
		b.Run(string(f.Name), func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if _, err := convert.Write(&out, src, f.Name, convert.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(out.Len()))
		})
	}
}
