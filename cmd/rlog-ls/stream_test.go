package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// streamLogs are logs whose places are hard to count: the fixture logs, a
// generated session, and documents with CRLF, lone CRs, a byte order mark,
// invalid UTF-8, wide characters, no header or an unclosed one.
func streamLogs(t *testing.T) map[string][]byte {
	t.Helper()
	logs := map[string][]byte{}
	paths, _ := filepath.Glob("../../testdata/logs/*.rlog")
	paths = append(paths, "../../testdata/sample.rlog", "../../testdata/fixme.rlog")
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
		want := checkWhole(path, src, analysis.Config{})
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
			open, _ := readInputs([]string{stdinName}, bytes.NewReader(src), io.Discard)
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
