package convert_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// corpusInputs maps corpus globs to the format each file must be detected
// as.
var corpusInputs = []struct {
	glob string
	want convert.Format
}{
	{"claude-code-jsonl/*/*.jsonl", convert.Claude},
	{"claude-code-jsonl/openagents/20251211-regex-log/*.jsonl", convert.Claude},
	{"claude-code-jsonl/openagents/20251211-regex-log/subagents/*.jsonl", convert.Claude},
	{"autopilot-sdk-jsonl/openagents-docs-logs/*/*.jsonl", convert.SDKJSONL},
	{"autopilot-trajectory-json/openagents-docs-logs/*/*.json", convert.Trajectory},
	{"atif/harbor-trajectories/*/*/trajectory.json", convert.ATIF},
	{"atif/openagents-nonconformant/*/*/trajectory.json", convert.ATIF},
	{"atif-jsonl/openagents/*/*.jsonl", convert.ATIFJSONL},
	{"mini-swe-agent/harbor-trajectories/*/*/*.json", convert.MiniSWE},
	{"rlog/*/*/*.rlog", convert.Rlog},
}

// input is a file a test converts and the format it is in.
type input struct {
	path   string
	format convert.Format
}

// companionInputs are the records of the log and companion pairs of
// testdata/companions, each in the format its autopilot wrote.
var companionInputs = []input{
	{"../testdata/companions/claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.jsonl", convert.Claude},
	{"../testdata/companions/sdk/222000-fix-locked-login.jsonl", convert.SDKJSONL},
	{"../testdata/companions/disagree/224500-disagree.jsonl", convert.SDKJSONL},
	{"../testdata/companions/trajectory/1610-list-the-cargo-files.json", convert.Trajectory},
}

// sweepInputs are the corpus files of corpusInputs, or none (logged)
// without a corpus.
func sweepInputs(t *testing.T) []input {
	t.Helper()
	if _, ok := corpus.Sweep(t); !ok {
		return nil
	}
	var out []input
	for _, c := range corpusInputs {
		for _, p := range corpus.SweepGlob(t, c.glob) {
			out = append(out, input{p, c.want})
		}
	}
	return out
}

// fixtureInputs are the fixtures of every format and the records of
// testdata/companions.
func fixtureInputs() []input {
	var out []input
	for _, f := range fixtures {
		out = append(out, input{fixture(f.path), f.format})
	}
	return append(out, companionInputs...)
}

// inputs are the fixture inputs, then the corpus files when there is a
// corpus.
func inputs(t *testing.T) []input {
	t.Helper()
	return append(fixtureInputs(), sweepInputs(t)...)
}

// inputName is a short name for an input in messages: its folder and file.
func inputName(p string) string {
	return filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p)
}

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// TestDetect: every input is detected as its format from its first 64 KiB
// and name, from its path, and from a reader.
func TestDetect(t *testing.T) {
	swept := sweepInputs(t)
	for _, in := range append(fixtureInputs(), swept...) {
		data, err := os.ReadFile(in.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			// The corpus's 0-byte SDK log: no content to detect, no name hint.
			if _, err := convert.Detect(in.path, data); err == nil {
				t.Errorf("%s: empty file detected without a hint", in.path)
			}
			continue
		}
		head := data[:min(len(data), 64<<10)]
		if got, err := convert.Detect(in.path, head); err != nil || got != in.format {
			t.Errorf("Detect(%s) = %q, %v; want %q", inputName(in.path), got, err, in.format)
		}
		checkDetected(t, in.path, inputName(in.path), in.format)
	}
	if _, ok := corpus.Find(); ok && len(swept) < 25 {
		t.Errorf("only %d corpus files; corpus incomplete?", len(swept))
	}
}

// TestConvertMatrix converts every input to every format (ATIF and
// ATIF-JSONL in each version they write), checks the output with that
// format's validator (ATIF, ATIF-JSONL, REPLAY, rlog) or as JSON, and
// reads it back.
func TestConvertMatrix(t *testing.T) {
	for _, in := range inputs(t) {
		for _, to := range convert.Formats() {
			if !to.CanWrite() {
				continue
			}
			versions := []string{""}
			if to.Name == convert.ATIF || to.Name == convert.ATIFJSONL {
				versions = []string{"1.5", "1.6", "1.7"}
			}
			for _, v := range versions {
				var out bytes.Buffer
				rep, err := convert.ConvertFile(in.path, in.format, to.Name, &out, convert.Options{Now: fixedNow, ATIFVersion: v})
				name := inputName(in.path) + " -> " + string(to.Name) + v
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if rep == nil {
					t.Errorf("%s: nil report", name)
					continue
				}
				checkOutput(t, name, to.Name, out.Bytes())
			}
		}
	}
}

func checkOutput(t *testing.T, name string, to convert.Format, out []byte) {
	t.Helper()
	switch to {
	case convert.ATIF:
		if fs, _ := convert.ValidateAll(convert.ATIF, bytes.NewReader(out)); len(fs) > 0 {
			t.Errorf("%s: %d ATIF findings, first: %v", name, len(fs), fs[0])
		}
	case convert.ATIFJSONL:
		fs, err := convert.ValidateAll(convert.ATIFJSONL, bytes.NewReader(out))
		if err != nil || len(fs) > 0 {
			t.Errorf("%s: %d ATIF-JSONL findings, first: %v %v", name, len(fs), fs[:min(len(fs), 3)], err)
		}
	case convert.Replay:
		fs, err := convert.ValidateAll(convert.Replay, bytes.NewReader(out))
		if err != nil || len(fs) > 0 {
			t.Errorf("%s: %d REPLAY findings, first: %v %v", name, len(fs), fs[:min(len(fs), 3)], err)
		}
	case convert.Claude:
		for i, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
			if len(line) > 0 && !json.Valid(line) {
				t.Errorf("%s: line %d is not JSON", name, i+1)
				return
			}
		}
	case convert.Rlog:
		if fs, err := convert.CheckOutput(convert.Rlog, bytes.NewReader(out), 3); err != nil || len(fs.List) > 0 {
			t.Errorf("%s: rlog findings %v %v", name, fs.List, err)
		}
	default:
		if !json.Valid(out) {
			t.Errorf("%s: output is not JSON", name)
		}
	}
	switch to {
	case convert.ATIF, convert.Prophet, convert.Trajectory:
		// Indented while it is encoded, as json.Indent indents it.
		var compact, want bytes.Buffer
		if json.Compact(&compact, out) != nil || json.Indent(&want, compact.Bytes(), "", "  ") != nil {
			t.Errorf("%s: output is not JSON", name)
		} else if !bytes.Equal(out, want.Bytes()) {
			t.Errorf("%s: output is not indented as json.Indent indents it:\n%s", name, firstDifference(out, want.Bytes()))
		}
	}
	// Whatever was written reads back without error.
	if _, _, err := convert.Read(bytes.NewReader(out), to); err != nil {
		t.Errorf("%s: reading the output back: %v", name, err)
	}
}

// firstDifference shows where got and want part, with a little of what
// comes before.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("at byte %d: %q, want %q", i, got[from:min(i+80, len(got))], want[from:min(i+80, len(want))])
}

// Values that come encoded with white space between their tokens (tool
// arguments and extras from sources that pretty-print, or write JSON as
// Python does) are indented where they stand, as json.Indent indents
// the compact document: an empty object or list with a space inside
// stays {} or [] (it was written with an empty indented line).
func TestIndentedValuesAsJSONIndent(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	s := &convert.Session{
		Header: model.Header{ID: "s", AgentName: "a", AgentVersion: "1", Extra: model.Fields{{Key: "x", Value: raw(`{ "a" : [ ] }`)}}},
		Events: []model.Event{
			{Kind: model.KindUser, Text: "go", Time: "2026-01-02T03:04:05Z"},
			{Kind: model.KindToolCall, MessageID: "m1", Call: &model.ToolCall{ID: "c1", Name: "Bash", Input: raw(`{ }`)}},
			{Kind: model.KindToolCall, MessageID: "m1", Call: &model.ToolCall{ID: "c2", Name: "Bash", Input: raw("{\n  \"cmd\": \"ls\",\n  \"env\": [ ],\n  \"n\": 1\n}")}},
			{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "c1", Content: "ok"}, Extra: model.Fields{{Key: "meta", Value: raw(`{"a": 1, "b": [1, 2], "c": { }}`)}}},
			{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "c2", Content: "ok"}},
		},
	}
	for _, to := range []convert.Format{convert.ATIF, convert.Prophet, convert.Trajectory} {
		var out bytes.Buffer
		if _, err := convert.Write(&out, s, to, convert.Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out.Bytes(), []byte(`{}`)) {
			t.Errorf("%s: no empty object written", to)
		}
		checkOutput(t, string(to), to, out.Bytes())
	}
}

func TestConvertErrors(t *testing.T) {
	var out bytes.Buffer
	if _, err := convert.Convert(strings.NewReader("{}"), "nope", convert.ATIF, &out, convert.Options{}); err == nil {
		t.Error("unknown source format accepted")
	}
	if _, err := convert.Convert(strings.NewReader("{}"), convert.Claude, convert.SDKJSONL, &out, convert.Options{}); err == nil {
		t.Error("writing a read-only format accepted")
	}
	if _, err := convert.Convert(strings.NewReader("{}"), convert.Claude, convert.ATIF, &out, convert.Options{ATIFVersion: "1.3"}); err == nil {
		t.Error("ATIF 1.3 output accepted")
	}
}

func TestReportRenderings(t *testing.T) {
	var out bytes.Buffer
	rep, err := convert.ConvertFile(fixture("claude/session.jsonl"), convert.Claude, convert.ATIF, &out, convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := rep.Text()
	if !strings.Contains(text, "claude -> atif") || !strings.Contains(text, "malformed_input") || !strings.Contains(text, "line 24") {
		t.Errorf("text report lacks the malformed lines:\n%s", text)
	}
	var decoded struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Losses []struct {
			Kind      string `json:"kind"`
			Detail    string `json:"detail"`
			Count     int    `json:"count"`
			Locations []struct {
				Line int `json:"line"`
			} `json:"locations"`
		} `json:"losses"`
	}
	if err := json.Unmarshal(rep.JSON(), &decoded); err != nil {
		t.Fatal(err)
	}
	lines := map[int]bool{}
	for _, l := range decoded.Losses {
		if l.Kind == "malformed_input" {
			for _, loc := range l.Locations {
				lines[loc.Line] = true
			}
		}
	}
	for _, want := range []int{24} {
		if !lines[want] {
			t.Errorf("JSON report lacks malformed line %d: %s", want, rep.JSON())
		}
	}
}

func totals(s *convert.Session) (model.Usage, bool) {
	return s.Totals()
}
