package otlp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/otlp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// FuzzExport: whatever a session file holds, the export does not crash,
// and what it sends is valid OTLP: one root, every parent in the trace
// and covering its children, no span ending at or before its start.
func FuzzExport(f *testing.F) {
	for _, p := range []string{"testdata/logs/timed.rlog", "testdata/logs/hand-edited.rlog", "testdata/claude/units-session.jsonl"} {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Ext(p) == ".jsonl")
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonl bool) {
		name := "s.rlog"
		if jsonl {
			name = "s.jsonl"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var spans []*tracepb.Span
		b := &otlp.Batch{MaxSpans: 7, Send: func(td *tracepb.TracesData, _ int) error {
			if _, err := otlp.MarshalJSON(td); err != nil {
				t.Fatalf("OTLP/JSON: %v", err)
			}
			for _, rs := range td.ResourceSpans {
				spans = append(spans, rs.ScopeSpans[0].Spans...)
			}
			return nil
		}}
		x := &otlp.Exporter{Options: otlp.Options{IncludeContent: true, MaxAttr: 64}, Out: b}
		if _, err := x.File(path); err != nil {
			return
		}
		if err := b.Flush(); err != nil {
			t.Fatal(err)
		}
		byID := map[string]*tracepb.Span{}
		for _, sp := range spans {
			if _, dup := byID[string(sp.SpanId)]; dup {
				t.Fatalf("span id of %s twice", sp.Name)
			}
			byID[string(sp.SpanId)] = sp
		}
		roots := 0
		for _, sp := range spans {
			if sp.EndTimeUnixNano <= sp.StartTimeUnixNano {
				t.Fatalf("%s ends at or before its start", sp.Name)
			}
			if len(sp.ParentSpanId) == 0 {
				roots++
				continue
			}
			p := byID[string(sp.ParentSpanId)]
			if p == nil || sp.StartTimeUnixNano < p.StartTimeUnixNano || sp.EndTimeUnixNano > p.EndTimeUnixNano {
				t.Fatalf("%s is not within its parent", sp.Name)
			}
		}
		if roots != 1 {
			t.Fatalf("%d roots", roots)
		}
	})
}
