package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/report"
)

// streamLogs are logs whose places are hard to count: the fixture logs, a
// generated session, and documents with CRLF, lone CRs, a byte order mark,
// invalid UTF-8, wide characters, no header or an unclosed one.
func streamLogs(t *testing.T) map[string][]byte {
	t.Helper()
	logs := map[string][]byte{}
	paths, _ := filepath.Glob("../../testdata/logs/*.rlog")
	paths = append(paths, "../../testdata/sample.rlog", "../../testdata/fixme.rlog", "../../analysis/testdata/growing-usage.rlog")
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		logs[filepath.Base(p)] = src
	}
	if len(logs) < 8 {
		t.Fatalf("only %d fixture logs", len(logs))
	}
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: 300 << 10, FindingRate: 0.2, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	logs["generated"] = buf.Bytes()
	// Responses whose usage grows from a streaming snapshot to the final
	// count, repeated across windows.
	var streamed bytes.Buffer
	if err := gen.Write(&streamed, gen.Options{Bytes: 100 << 10, Timed: true, Streamed: true, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	logs["generated streamed"] = streamed.Bytes()
	body := "t!:Read id=é😀 → [running]\r\no: id=nope → [ok]\rwat\xff\xfe here\n\tu: ts=bad step=4\nu: step=2 AKIAIOSFODNN7EXAMPLE\n"
	logs["crlf"] = []byte("\uFEFF---\r\nformat: rlog/1\r\nid: s\r\n---\r\n" + strings.Repeat(body, 40))
	logs["no header"] = []byte(strings.Repeat(body, 30))
	logs["unclosed"] = []byte("---\nid: x\nkey: value\n\n" + strings.Repeat(body, 30) + "t!:Read id=late\n")
	return logs
}

// TestCheckStreamsAsTheWholeLogIsChecked: `check` reads a log window by
// window; what it prints, lines and columns (in characters) included, is
// what checking the log read whole gives, from a file and from standard
// input.
func TestCheckStreamsAsTheWholeLogIsChecked(t *testing.T) {
	defer func(w int) { windowBytes = w }(windowBytes)
	defer grammar.SetChunkLimitsForTest(5, 300)()
	dir := t.TempDir()
	for name, src := range streamLogs(t) {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".rlog")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		want := checkWhole(path, src, false, analysis.Config{})
		inLineOrder(want.findings)
		if len(want.findings) == 0 {
			t.Fatalf("%s: no findings to compare", name)
		}
		for _, window := range []int{1, 2000, 0} {
			windowBytes = window
			got := checkAll([]string{path}, analysis.Config{}, func(p string) (io.ReadCloser, error) { return os.Open(p) })[0]
			if got.err != nil || !reflect.DeepEqual(got.findings, want.findings) {
				t.Fatalf("%s, window %d: %v\n got  %v\n want %v", name, window, got.err, got.findings, want.findings)
			}
			open, _, _ := readInputs("check", []string{stdinName}, bytes.NewReader(src), io.Discard)
			got = checkAll([]string{stdinName}, analysis.Config{}, open)[0]
			for i := range got.findings {
				got.findings[i].File = path
			}
			if got.err != nil || !reflect.DeepEqual(got.findings, want.findings) {
				t.Fatalf("%s from stdin, window %d: %v\n got  %v\n want %v", name, window, got.err, got.findings, want.findings)
			}
		}
	}
}

// A log whose reading fails half way reports the error, not the findings
// of what was read.
func TestCheckStreamReportsReadErrors(t *testing.T) {
	open := func(string) (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(strings.NewReader(cleanHeader+strings.Repeat("u: hi\n", 20000)), failingReader{})), nil
	}
	r := checkAll([]string{stdinName}, analysis.Config{}, open)[0]
	if r.err == nil || !strings.Contains(r.err.Error(), "disk on fire") {
		t.Fatalf("err = %v, %d findings", r.err, len(r.findings))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, fmt.Errorf("disk on fire") }

// TestStatsStreamsAsTheWholeLogIsRead: `stats` reads a log window by
// window; its statistics are those of the log read whole (what watch
// shows), from a file and from standard input.
func TestStatsStreamsAsTheWholeLogIsRead(t *testing.T) {
	defer func(w int) { windowBytes = w }(windowBytes)
	defer grammar.SetChunkLimitsForTest(5, 300)()
	logs := streamLogs(t)
	stats, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	logs["stats fixture"] = stats
	dir := t.TempDir()
	for name, src := range logs {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".rlog")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		want := sessionOf(path, grammar.Parse(bytes.Clone(src)))
		for _, window := range []int{1, 2000, 0} {
			windowBytes = window
			got := sessionStats(path, func(p string) (io.ReadCloser, error) { return os.Open(p) })
			if got.err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, window %d: %v\n got  %+v\n want %+v", name, window, got.err, got, want)
			}
			open, _, _ := readInputs("stats", []string{stdinName}, bytes.NewReader(src), io.Discard)
			got = sessionStats(stdinName, open)
			got.json.File = path
			if got.err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s from stdin, window %d: %v\n got  %+v\n want %+v", name, window, got.err, got, want)
			}
		}
	}
}

// `stats -` reads standard input, as check, convert, redact and report do
// (it said "-: no such file or folder"); standard input named twice is
// refused.
func TestStatsReadsStandardInput(t *testing.T) {
	src, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"stats", "--format", "json", "-"}, bytes.NewReader(src), &out, &errb); code != 0 || errb.Len() > 0 {
		t.Fatalf("stats -: %d %s", code, errb.String())
	}
	var doc statsDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Sessions) != 1 || doc.Sessions[0].File != stdinName {
		t.Fatalf("stats -: %v %s", err, out.String())
	}
	want, _, _ := runCLI(t, "stats", "--format", "json", fixture)
	if got := strings.Replace(out.String(), jsonString(stdinName), jsonString(fixture), 1); got != want {
		t.Fatalf("stats - differs from stats FILE:\n%s\n%s", got, want)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"stats", "-"}, bytes.NewReader(src), &out, &errb); code != 0 || !strings.HasPrefix(out.String(), stdinName+"\n  session") {
		t.Fatalf("stats - as text: %d %s %s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"stats", "-", "/dev/stdin"}, bytes.NewReader(src), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "rlog-ls stats: standard input named more than once") {
		t.Fatalf("stdin twice: %d %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"stats", "-"}, bytes.NewReader([]byte("\x00\x01\x02\x00\x00\x00binary")), &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "<stdin>: Binary file") {
		t.Fatalf("binary stdin: %d %q", code, errb.String())
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReportStreamsAsTheWholeLogIsRead: `report` reads a log window by
// window and writes the page as it makes it; the page's data is that of
// the log read whole, from a file and from standard input.
func TestReportStreamsAsTheWholeLogIsRead(t *testing.T) {
	defer func(w int) { windowBytes = w }(windowBytes)
	defer grammar.SetChunkLimitsForTest(5, 300)()
	dir := t.TempDir()
	dataOf := func(page []byte) []byte {
		i := bytes.Index(page, []byte(`id="rlog-data">`)) + len(`id="rlog-data">`)
		return bytes.TrimSpace(page[i : i+bytes.Index(page[i:], []byte("</script>"))])
	}
	for name, src := range streamLogs(t) {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".rlog")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(path)
		tree := grammar.Parse(bytes.Clone(src))
		findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, report.DefaultMaxFindings)
		opts := report.Options{Name: filepath.Base(path), Path: abs, Generator: "rlog-ls " + pageVersion()}
		want, err := json.Marshal(report.Build(tree, analysis.BuildSession(tree, companion.SessionOptions(abs, tree)), findings, more, opts))
		if err != nil {
			t.Fatal(err)
		}
		for _, window := range []int{1, 2000, 0} {
			windowBytes = window
			var out, errb bytes.Buffer
			if code := run([]string{"report", "-o", "-", path}, nil, &out, &errb); code != 0 {
				t.Fatalf("%s: %d %s", name, code, errb.String())
			}
			if got := dataOf(out.Bytes()); !bytes.Equal(got, want) {
				t.Fatalf("%s, window %d: the page's data differs\n got  %.2000s\n want %.2000s", name, window, got, want)
			}
			out.Reset()
			if code := run([]string{"report", "-"}, bytes.NewReader(src), &out, &errb); code != 0 {
				t.Fatalf("%s from stdin: %d %s", name, code, errb.String())
			}
			opts := report.Options{Name: stdinName, Generator: opts.Generator}
			want, _ := json.Marshal(report.Build(tree, analysis.BuildSession(tree, analysis.SessionOptions{}), findings, more, opts))
			if got := dataOf(out.Bytes()); !bytes.Equal(got, want) {
				t.Fatalf("%s from stdin, window %d: the page's data differs", name, window)
			}
		}
	}
}

// A log read twice by report is read to where the first reading ended
// when it grew in between (an agent still writes it), and refused when it
// was cut shorter.
func TestReportOfALogThatChanges(t *testing.T) {
	defer func(w int) { windowBytes = w }(windowBytes)
	windowBytes = 4096
	defer func() { afterWindow = nil }()
	src := streamLogs(t)["generated"]
	dir := t.TempDir()
	path := filepath.Join(dir, "growing.rlog")
	want := func() []byte {
		tree := grammar.Parse(bytes.Clone(src))
		findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, report.DefaultMaxFindings)
		b, _ := json.Marshal(report.Build(tree, analysis.BuildSession(tree, analysis.SessionOptions{}), findings, more, report.Options{Name: "growing.rlog"}))
		return b
	}()
	// The windows of the first reading: the change comes after them, in
	// the second.
	first := 0
	for s := grammar.NewStream(bytes.NewReader(src), grammar.StreamOptions{WindowBytes: windowBytes}); ; first++ {
		if _, err := s.Next(); err != nil {
			break
		}
	}
	for _, change := range []string{"grows", "shrinks"} {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		windows := 0
		afterWindow = func() {
			if windows++; windows != first+1 {
				return
			}
			if change == "grows" {
				f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString("u: written while the first reading went on\nwat\n")
				f.Close()
			} else if err := os.Truncate(path, int64(len(src)/2)); err != nil {
				t.Fatal(err)
			}
		}
		_, in, closer, err := openInput(path, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		d, err := readReport(in, analysis.Config{}, report.Options{Name: "growing.rlog"})
		closer.Close()
		afterWindow = nil
		switch got, _ := json.Marshal(d); {
		case change == "grows" && (err != nil || !bytes.Equal(got, want)):
			t.Errorf("a log that grew: %v, data equal: %v", err, bytes.Equal(got, want))
		case change == "shrinks" && (err == nil || !strings.Contains(err.Error(), "changed while it was read")):
			t.Errorf("a log cut shorter: %v", err)
		}
	}
}
