package convert_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
)

// TestPipelineRefuses: a job is refused, before anything is read past the
// input's head, for a target rlog-ls does not write, options that do not
// fit it, an input that is not there or is a folder, a --from that does
// not fit (a format without a reader: TestPrepareRefusesAFormatWithoutReader).
func TestPipelineRefuses(t *testing.T) {
	dir := t.TempDir()
	rlog := fixture("session.rlog")
	atifDoc := fixture("atif-1.6.atif.json")
	for _, c := range []struct {
		job  convert.Job
		says string
	}{
		{convert.Job{Source: convert.Source{Path: rlog}, To: "sdk-jsonl"}, `cannot write "sdk-jsonl"`},
		{convert.Job{Source: convert.Source{Path: rlog}, To: "nope"}, `cannot write "nope"`},
		{convert.Job{Source: convert.Source{Path: rlog}, To: convert.ATIF, Options: convert.Options{ATIFVersion: "1.3"}}, "--atif-version"},
		{convert.Job{Source: convert.Source{Path: rlog}, To: convert.Replay, Options: convert.Options{ATIFVersion: "1.6"}}, "applies to --to atif"},
		{convert.Job{Source: convert.Source{Path: filepath.Join(dir, "missing.rlog")}, To: convert.ATIF}, "no such file"},
		{convert.Job{Source: convert.Source{Path: dir}, To: convert.ATIF}, "is a folder"},
		{convert.Job{Source: convert.Source{Path: rlog}, From: "nope", To: convert.ATIF}, `cannot read "nope"`},
		{convert.Job{Source: convert.Source{Path: rlog}, From: convert.Gemini, To: convert.ATIF}, "--from gemini does not fit session.rlog, which is rlog"},
		{convert.Job{Source: convert.Source{Path: atifDoc}, From: convert.Trajectory, To: convert.Rlog}, "--from trajectory does not fit atif-1.6.atif.json, which is atif"},
		{convert.Job{Source: convert.Source{Bytes: []byte(`{"a":1}`), Name: "x.json"}, To: convert.Rlog}, "JSON of no known shape"},
	} {
		if _, err := convert.Prepare(c.job); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Prepare(%+v) = %v, want an error saying %q", c.job, err, c.says)
		}
	}
}

// TestPipelineSources: a file, a stream and bytes convert to what
// ConvertFile and Convert make of them (a file with what lies beside it), the format detected from each without consuming the
// stream, and the output checks clean with its validator.
func TestPipelineSources(t *testing.T) {
	for _, f := range []struct {
		path string
		to   convert.Format
	}{
		{"claude/session.jsonl", convert.ATIFJSONL},
		{"session.rlog", convert.Replay},
		{"trajectory.json", convert.ATIF},
		{"REPLAY.jsonl", convert.Rlog},
	} {
		path := fixture(f.path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		from, err := convert.DetectFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if _, err := convert.ConvertFile(path, from, f.to, &want, convert.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		var held bytes.Buffer // bytes are read twice for the totals
		if _, err := convert.Convert(bytes.NewReader(data), from, f.to, &held, convert.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		var once bytes.Buffer // a stream is read once: totals at the end
		if _, err := convert.Convert(struct{ io.Reader }{bytes.NewReader(data)}, from, f.to, &once, convert.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			src  convert.Source
			want []byte
		}{
			{convert.Source{Path: path}, want.Bytes()},
			{convert.Source{Stream: bytes.NewReader(data), Name: "stdin"}, once.Bytes()},
			{convert.Source{Bytes: data, Name: filepath.Base(path)}, held.Bytes()},
		} {
			conv, err := convert.Prepare(convert.Job{Source: c.src, To: f.to, Options: convert.Options{Now: fixedNow}})
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			if conv.From() != from || conv.To() != f.to {
				t.Errorf("%s: %s -> %s, want %s -> %s", f.path, conv.From(), conv.To(), from, f.to)
			}
			var out bytes.Buffer
			res, err := conv.Run(&out)
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			if !bytes.Equal(out.Bytes(), c.want) {
				t.Errorf("%s to %s from %+v: the output differs from Convert's", f.path, f.to, c.src.Name)
			}
			if p := res.Problems(); p != nil || res.Report == nil || res.From != from {
				t.Errorf("%s to %s: problems %v, report %v, from %s", f.path, f.to, p, res.Report, res.From)
			}
		}
	}
}
