package otlp_test

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/otlp"
	"github.com/rlog-ls/rlog-ls/grammar"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// sessions are the recorded sessions and fixtures the tests export.
func sessions(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{
		"testdata/logs/*.rlog", "testdata/*.rlog", "convert/testdata/fixtures/session.rlog",
		"testdata/agents/claude-code/*/*/claude/projects/*/*.jsonl", "testdata/claude/*.jsonl",
		"testdata/agents/codex/*/*/codex-home/sessions/*/*/*/*.jsonl",
		"testdata/agents/gemini-cli/*/*/*/tmp/*/chats/*.json*",
		"convert/testdata/fixtures/*.json", "convert/testdata/fixtures/*.jsonl",
	} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) < 20 {
		t.Fatalf("only %d sessions found", len(out))
	}
	return out
}

// exportJSON exports files as `export --otlp -o` writes them.
func exportJSON(t *testing.T, files []string, opts otlp.Options) ([]byte, otlp.Stats) {
	t.Helper()
	var out bytes.Buffer
	b := &otlp.Batch{MaxSpans: 50, Send: func(td *tracepb.TracesData, _ int) error {
		j, err := otlp.MarshalJSON(td)
		out.Write(j)
		out.WriteByte('\n')
		return err
	}}
	x := &otlp.Exporter{Options: opts, Out: b}
	for _, f := range files {
		x.File(f) // a refused session sends nothing; counted in Stats
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), x.Stats
}

// Exporting twice gives the same bytes: what makes a backend keep one
// copy of each span. Every line is an ExportTraceServiceRequest by the
// OTLP schema (unknown fields rejected), with ids of their lengths.
func TestExportIsStableAndValid(t *testing.T) {
	files := sessions(t)
	opts := otlp.Options{IncludeContent: true, MaxAttr: 512}
	first, st := exportJSON(t, files, opts)
	second, _ := exportJSON(t, files, opts)
	if !bytes.Equal(first, second) {
		t.Fatal("two exports of the same sessions differ")
	}
	if st.Sessions < 20 || st.Spans < 200 {
		t.Fatalf("exported only %+v", st)
	}
	spans, lines := 0, 0
	seen := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSuffix(first, []byte("\n")), []byte("\n")) {
		lines++
		fixed, err := otlp.ProtoJSON(line)
		if err != nil {
			t.Fatal(err)
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := (protojson.UnmarshalOptions{}).Unmarshal(fixed, &req); err != nil {
			t.Fatalf("line %d is no ExportTraceServiceRequest: %v", lines, err)
		}
		var td tracepb.TracesData
		if err := otlp.UnmarshalJSON(line, &td); err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		for _, rs := range td.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					spans++
					id := hex.EncodeToString(sp.TraceId) + hex.EncodeToString(sp.SpanId)
					if seen[id] {
						t.Errorf("span %s (%s) twice", id, sp.Name)
					}
					seen[id] = true
					if sp.EndTimeUnixNano <= sp.StartTimeUnixNano {
						t.Errorf("span %s ends at or before its start", sp.Name)
					}
				}
			}
		}
	}
	if spans != st.Spans {
		t.Fatalf("%d spans in the file, %d counted", spans, st.Spans)
	}
	if bytes.Contains(first, []byte(`"SPAN_KIND_`)) {
		t.Fatal("enums written as names, not numbers")
	}
	// protojson alone reads the hex ids silently as base64, wrongly.
	var naive tracepb.TracesData
	line, _, _ := bytes.Cut(first, []byte("\n"))
	if err := protojson.Unmarshal(line, &naive); err != nil || len(naive.ResourceSpans[0].ScopeSpans[0].Spans[0].TraceId) == 16 {
		t.Fatalf("the hex ids were not what protojson expects: %v", err)
	}
}

// Every span's children lie within it, in time: a backend that finds a
// child outside its parent adjusts it (Jaeger's clock-skew adjuster) and
// then no longer takes a re-export for the same span.
func TestChildrenWithinParents(t *testing.T) {
	for _, f := range sessions(t) {
		var c collected
		x := &otlp.Exporter{Out: &c}
		if _, err := x.File(f); err != nil {
			continue
		}
		byID := map[string]*tracepb.Span{}
		for _, sp := range c.spans {
			byID[string(sp.SpanId)] = sp
		}
		roots := 0
		for _, sp := range c.spans {
			if len(sp.ParentSpanId) == 0 {
				roots++
				continue
			}
			p := byID[string(sp.ParentSpanId)]
			switch {
			case p == nil:
				t.Errorf("%s: %s has no parent in the trace", f, sp.Name)
			case sp.StartTimeUnixNano < p.StartTimeUnixNano || sp.EndTimeUnixNano > p.EndTimeUnixNano:
				t.Errorf("%s: %s is not within its parent %s", f, sp.Name, p.Name)
			}
		}
		if roots != 1 {
			t.Errorf("%s: %d root spans", f, roots)
		}
	}
}

// The numbers equal stats': an rlog session's tokens (root and the sum of
// its responses), its duration, its calls per tool and each finished
// call's latency.
func TestNumbersEqualStats(t *testing.T) {
	for _, f := range sessions(t) {
		if !strings.HasSuffix(f, ".rlog") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tree := grammar.Parse(src)
		s := analysis.BuildSession(tree, analysis.SessionOptions{})
		var c collected
		x := &otlp.Exporter{Out: &c}
		if _, err := x.File(f); err != nil {
			t.Logf("%s: %v", filepath.Base(f), err)
			continue
		}
		root := c.spans[len(c.spans)-1]
		if len(root.ParentSpanId) != 0 {
			t.Fatalf("%s: the last span is not the root", f)
		}
		in := s.Counters.TokensIn + s.Counters.TokensCached + s.Counters.TokensCacheCreate
		if in > 0 || s.Counters.TokensOut > 0 {
			if got := intAttr(root, "gen_ai.usage.input_tokens"); got != int64(in) {
				t.Errorf("%s: input tokens %d, stats %d", f, got, in)
			}
			if got := intAttr(root, "gen_ai.usage.output_tokens"); got != int64(s.Counters.TokensOut) {
				t.Errorf("%s: output tokens %d, stats %d", f, got, s.Counters.TokensOut)
			}
			if got := intAttr(root, "gen_ai.usage.cache_read.input_tokens"); got != int64(s.Counters.TokensCached) {
				t.Errorf("%s: cache reads %d, stats %d", f, got, s.Counters.TokensCached)
			}
			var sum int64
			for _, sp := range c.spans {
				if strings.HasPrefix(sp.Name, "chat") {
					sum += intAttr(sp, "gen_ai.usage.output_tokens")
				}
			}
			if sum != int64(s.Counters.TokensOut) {
				t.Errorf("%s: the responses' output tokens add up to %d, stats %d", f, sum, s.Counters.TokensOut)
			}
		}
		if d, ok := s.Duration(); ok {
			// A span of no length lasts 1 ns, which its parents cover: a
			// session that ends with one is 1 ns longer.
			if got := time.Duration(root.EndTimeUnixNano - root.StartTimeUnixNano); got != d && got != d+1 {
				t.Errorf("%s: duration %v, stats %v", f, got, d)
			}
		}
		calls := map[string]int{}
		latency := map[string]time.Duration{}
		for _, sp := range c.spans {
			if strings.HasPrefix(sp.Name, "execute_tool ") {
				calls[strAttr(sp, "gen_ai.tool.name")]++
				if strAttr(sp, "rlog.call.outcome") != "unfinished" {
					latency[strAttr(sp, "gen_ai.tool.call.id")] = time.Duration(sp.EndTimeUnixNano - sp.StartTimeUnixNano)
				}
			}
		}
		for _, ts := range s.Tools {
			if calls[ts.Tool] != ts.Calls {
				t.Errorf("%s: %d %s calls, stats %d", f, calls[ts.Tool], ts.Tool, ts.Calls)
			}
		}
		for _, call := range s.Calls {
			if !call.HasLatency || !call.ID.Valid() {
				continue
			}
			id := string(tree.Slice(call.ID.Start, call.ID.End))
			want := max(call.Latency, time.Nanosecond) // a span lasts at least 1 ns
			if got, ok := latency[id]; ok && got != want {
				t.Errorf("%s: call %s lasts %v, stats %v", f, id, got, want)
			}
		}
	}
}

func intAttr(sp *tracepb.Span, key string) int64 {
	for _, kv := range sp.Attributes {
		if kv.Key == key {
			return kv.Value.GetIntValue()
		}
	}
	return 0
}

func strAttr(sp *tracepb.Span, key string) string {
	for _, kv := range sp.Attributes {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}
