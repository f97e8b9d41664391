package convert_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/internal/ccusage"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/otlp"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/usage"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// streamedSnapshots is the log: message m1's usage written twice,
// a streaming snapshot (5) before the final count (50); stats said 12
// output tokens, the ATIF export 57. With unkeyed repeats around it.
const streamedSnapshots = `---
format: rlog/1
id: s1
repo_sha: 4f2a9c1e7b
---
u: hello ts=2025-01-01T00:00:00Z
a: thinking about it message_id=m1 tokens_in=10 tokens_out=5 ts=2025-01-01T00:00:01Z
t!:Read id=t1 a.go → [running] message_id=m1 tokens_in=10 tokens_out=50 tokens_cache_create=7
o: id=t1 → [ok]
th: plain tokens_in=2 tokens_out=3 tokens_cached=100
a: plain again tokens_in=2 tokens_out=3 tokens_cached=100
a: done message_id=m2 tokens_in=3 tokens_out=7 ts=2025-01-01T00:00:05Z
a: after tokens_in=2 tokens_out=3 tokens_cached=100
`

// statsInputs are the sessions whose token totals `rlog-ls stats` and
// every export must agree on: the rlog fixtures of the repository, the
// issue's log, generated logs (autopilot's repeated usage without ids;
// message ids whose usage grows), and the fixture of every other format
// (whose totals are those of its rlog conversion); the corpus too, when
// there is one.
func statsInputs(t *testing.T) []input {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := []input{{write("streamed.rlog", []byte(streamedSnapshots)), convert.Rlog}}
	for _, glob := range []string{"../testdata/*.rlog", "../testdata/logs/*.rlog", "../testdata/companions/*/*.rlog", "../analysis/testdata/*.rlog"} {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no files (%v)", glob, err)
		}
		for _, p := range paths {
			in = append(in, input{p, convert.Rlog})
		}
	}
	for seed := range uint64(4) {
		var b bytes.Buffer
		opts := gen.Options{Bytes: 24 << 10, Seed: seed, FindingRate: 0.02, Timed: seed%2 == 0, Streamed: seed >= 2}
		if err := gen.Write(&b, opts); err != nil {
			t.Fatal(err)
		}
		in = append(in, input{write(fmt.Sprintf("gen-%d.rlog", seed), b.Bytes()), convert.Rlog})
	}
	in = append(in, fixtureInputs()...)
	in = append(in, input{"../testdata/claude/units-session.jsonl", convert.Claude})
	return append(in, sweepInputs(t)...)
}

func countsOf(u model.Usage) usage.Counts { return u.Counts() }

// statsTokens are `rlog-ls stats`' token totals of an rlog log.
func statsTokens(src []byte) usage.Counts {
	s := analysis.SessionStats(grammar.Parse(src))
	return usage.Counts{In: s.TokensIn, Out: s.TokensOut, Cached: s.TokensCached, CacheCreate: s.TokensCacheCreate}
}

// TestStatsTotalsEqualEveryExport: one token rule, everywhere. For every
// input, the OTLP export's session span, and for every format F that can
// be written, the export's own totals
// (its messages' usage, read back and counted by the rule; for Claude
// Code, also by ccusage's rules) are `rlog-ls stats`' totals of the
// session. The totals an export states (rlog's header and @end, ATIF's
// final_metrics, trajectory's usage) are the source's own statement when
// it makes one, carried as it is, and otherwise the same count.
func TestStatsTotalsEqualEveryExport(t *testing.T) {
	for _, in := range statsInputs(t) {
		name := inputName(in.path)
		src := readSourceSession(t, in.path, in.format)
		var stated *usage.Counts
		if src.Header.Totals != nil {
			c := countsOf(*src.Header.Totals)
			stated = &c
		}
		var asRlog bytes.Buffer
		if _, err := convert.ConvertFile(in.path, in.format, convert.Rlog, &asRlog, convert.Options{Now: fixedNow}); err != nil {
			t.Fatalf("%s -> rlog: %v", name, err)
		}
		want := statsTokens(asRlog.Bytes())
		if in.format == convert.Rlog {
			b, err := os.ReadFile(in.path)
			if err != nil {
				t.Fatal(err)
			}
			if want = statsTokens(b); want != statsTokens(asRlog.Bytes()) {
				t.Errorf("%s: stats %+v, of its rlog conversion %+v", name, want, statsTokens(asRlog.Bytes()))
			}
		}
		if got, ok := otlpTokens(t, in.path); ok && got != want {
			t.Errorf("%s -> otlp: the session span's tokens %+v, stats %+v", name, got, want)
		}
		for _, to := range convert.Formats() {
			if !to.CanWrite() || !to.CanRead() {
				continue
			}
			var out bytes.Buffer
			if _, err := convert.ConvertFile(in.path, in.format, to.Name, &out, convert.Options{Now: fixedNow}); err != nil {
				t.Fatalf("%s -> %s: %v", name, to.Name, err)
			}
			back, _, err := convert.Read(bytes.NewReader(out.Bytes()), to.Name)
			if err != nil {
				t.Fatalf("%s -> %s, read back: %v", name, to.Name, err)
			}
			if _, total := messageUsage(t, back); countsOf(total) != want {
				t.Errorf("%s -> %s: its messages add up to %+v, stats says %+v", name, to.Name, countsOf(total), want)
			}
			// And as rlog again: a response's texts that the format
			// joined keep the response's usage (its largest), not its
			// first text's.
			var again bytes.Buffer
			if _, err := convert.Convert(bytes.NewReader(out.Bytes()), to.Name, convert.Rlog, &again, convert.Options{Now: fixedNow}); err != nil {
				t.Fatalf("%s -> %s -> rlog: %v", name, to.Name, err)
			}
			if got := statsTokens(again.Bytes()); got != want {
				t.Errorf("%s -> %s -> rlog: stats %+v, want %+v", name, to.Name, got, want)
			}
			if back.Header.Totals != nil {
				got, wantStated := countsOf(*back.Header.Totals), want
				if stated != nil {
					wantStated = *stated
				}
				if got != wantStated {
					t.Errorf("%s -> %s: states totals %+v, want %+v (stats %+v)", name, to.Name, got, wantStated, want)
				}
			}
			switch to.Name {
			case convert.Rlog:
				if got := statsTokens(out.Bytes()); got != want {
					t.Errorf("%s -> rlog: stats of the output %+v, want %+v", name, got, want)
				}
			case convert.Claude:
				cc, _, err := ccusage.Count(bytes.NewReader(out.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				if got := (usage.Counts{In: uint64(cc.Input), Out: uint64(cc.Output), Cached: uint64(cc.CacheRead), CacheCreate: uint64(cc.CacheCreate)}); got != want {
					t.Errorf("%s -> claude: ccusage counts %+v, stats %+v", name, got, want)
				}
			}
		}
	}
}

// otlpTokens are the token counts of the session span the OTLP export
// makes of the file at path; ok is false for a session it refuses (one
// without times, or a corpus file too empty to detect).
func otlpTokens(t *testing.T, path string) (usage.Counts, bool) {
	t.Helper()
	var root *tracepb.Span
	b := &otlp.Batch{Send: func(td *tracepb.TracesData, _ int) error {
		for _, rs := range td.ResourceSpans {
			for _, sp := range rs.ScopeSpans[0].Spans {
				if len(sp.ParentSpanId) == 0 {
					root = sp
				}
			}
		}
		return nil
	}}
	x := &otlp.Exporter{Out: b}
	if _, err := x.File(path); err != nil {
		if errors.Is(err, otlp.ErrNoTimes) || errors.Is(err, convert.ErrUndetected) {
			return usage.Counts{}, false
		}
		t.Fatalf("%s -> otlp: %v", path, err)
	}
	if err := b.Flush(); err != nil || root == nil {
		t.Fatalf("%s -> otlp: no session span (%v)", path, err)
	}
	attr := func(key string) uint64 {
		for _, kv := range root.Attributes {
			if kv.Key == key {
				return uint64(kv.Value.GetIntValue())
			}
		}
		return 0
	}
	c := usage.Counts{Out: attr("gen_ai.usage.output_tokens"), Cached: attr("gen_ai.usage.cache_read.input_tokens"),
		CacheCreate: attr("gen_ai.usage.cache_creation.input_tokens")}
	c.In = attr("gen_ai.usage.input_tokens") - c.Cached - c.CacheCreate // the conventions count every input token
	return c, true
}

// onlyReader hides everything of a reader but Read: standard input,
// which can be read once.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestHeaderTotals: converting a file to rlog reads it twice, so the header
// has the session's token totals (tokens_total_*), the same as @end's and
// as `rlog-ls stats` counts; read once (standard input), only @end has
// them, and the loss report says so. ATIF-JSONL, which writes its header
// line first too, puts them in its final_metrics there.
func TestHeaderTotals(t *testing.T) {
	for _, in := range []input{{fixture("claude/session.jsonl"), convert.Claude}, {fixture("trajectory.json"), convert.Trajectory},
		{fixture("sdk.jsonl"), convert.SDKJSONL}, {fixture("session.atif.jsonl"), convert.ATIFJSONL}} {
		name := inputName(in.path)
		var fromFile bytes.Buffer
		rep, err := convert.ConvertFile(in.path, in.format, convert.Rlog, &fromFile, convert.Options{Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		want := statsTokens(fromFile.Bytes())
		if st := readSourceSession(t, in.path, in.format).Header.Totals; st != nil {
			want = st.Counts() // the source's own statement, carried
		}
		header, end := headerAndEndTotals(fromFile.Bytes())
		if header.IsZero() || header != end || header != want {
			t.Errorf("%s: header %+v, @end %+v, want %+v", name, header, end, want)
		}
		if rep.Count(model.LossMoved) != 0 {
			t.Errorf("%s from a file: %s", name, rep.Text())
		}
		f, err := os.Open(in.path)
		if err != nil {
			t.Fatal(err)
		}
		var once bytes.Buffer
		rep, err = convert.Convert(onlyReader{f}, in.format, convert.Rlog, &once, convert.Options{Now: fixedNow})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		// Read once, the header has the totals only when the source stated
		// them within the events the writer sees before it (and a Claude
		// Code transcript has no sub-agent files).
		header, end = headerAndEndTotals(once.Bytes())
		if end.IsZero() || !header.IsZero() && header != end {
			t.Errorf("%s read once: header %+v, @end %+v", name, header, end)
		}
		if moved := strings.Contains(rep.Text(), "moved: header tokens_total_in"); moved != header.IsZero() {
			t.Errorf("%s read once: header %+v, and the report:\n%s", name, header, rep.Text())
		}
	}
	var jsonl bytes.Buffer
	if _, err := convert.ConvertFile(fixture("claude/session.jsonl"), convert.Claude, convert.ATIFJSONL, &jsonl, convert.Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(jsonl.String(), "\n")
	if !strings.Contains(first, `"final_metrics":{"total_prompt_tokens":`) {
		t.Errorf("ATIF-JSONL header line without final_metrics: %s", first)
	}
	// The totals a source states at its end, after more events than the
	// writer sees before its header line (a log whose @end states them),
	// are its own in that line, and read back as the source's; totals it
	// does not state are marked made up, and read back as none.
	var late strings.Builder
	late.WriteString("---\nformat: rlog/1\nid: late-totals\nrepo_sha: 4f2a9c1e7b\n---\n")
	for i := range 300 {
		fmt.Fprintf(&late, "a: step %d message_id=m%d tokens_in=1 tokens_out=2\n", i, i)
	}
	late.WriteString("@end tokens_in=999 tokens_out=888\n")
	latePath := filepath.Join(t.TempDir(), "late-totals.rlog")
	if err := os.WriteFile(latePath, []byte(late.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []input{{latePath, convert.Rlog}, {fixture("trajectory.json"), convert.Trajectory}, {fixture("sdk.jsonl"), convert.SDKJSONL},
		{fixture("claude/session.jsonl"), convert.Claude}} {
		name := inputName(in.path)
		stated := readSourceSession(t, in.path, in.format).Header.Totals
		var out bytes.Buffer
		if _, err := convert.ConvertFile(in.path, in.format, convert.ATIFJSONL, &out, convert.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		back, _, err := convert.Read(bytes.NewReader(out.Bytes()), convert.ATIFJSONL)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Header.Totals; (got == nil) != (stated == nil) || got != nil && *got != *stated {
			t.Errorf("%s -> atif-jsonl: totals read back %+v, the source states %+v", name, got, stated)
		}
	}
}

// headerAndEndTotals are the token totals an rlog log's header and its
// last @end line state.
func headerAndEndTotals(src []byte) (header, end usage.Counts) {
	tree := grammar.Parse(src)
	head := func(k string) uint64 {
		v, _ := tree.Header().Get(k)
		n, _ := strconv.ParseUint(v, 10, 64)
		return n
	}
	for u := range tree.Usage() {
		if l := tree.Line(u.Line); l.Kind == grammar.Lifecycle {
			end = usage.Counts{In: u.In, Out: u.Out, Cached: u.Cached, CacheCreate: u.CacheCreate}
		}
	}
	header = usage.Counts{In: head("tokens_total_in"), Out: head("tokens_total_out"), Cached: head("tokens_cached"),
		CacheCreate: head("tokens_cache_create")}
	return header, end
}
