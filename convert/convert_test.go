package convert_test

import (
	"bytes"
	"encoding/json"
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
}

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func TestDetectCorpus(t *testing.T) {
	n := 0
	for _, c := range corpusInputs {
		for _, p := range corpus.Glob(t, c.glob) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) == 0 {
				// The 0-byte SDK log: no content to detect, no name hint.
				if _, err := convert.Detect(p, data); err == nil {
					t.Errorf("%s: empty file detected without a hint", p)
				}
				continue
			}
			head := data[:min(len(data), 64<<10)]
			got, err := convert.Detect(p, head)
			if err != nil || got != c.want {
				t.Errorf("Detect(%s) = %q, %v; want %q", filepath.Base(p), got, err, c.want)
			}
			n++
		}
	}
	if n < 25 {
		t.Errorf("only %d corpus files detected; corpus incomplete?", n)
	}
}

// TestConvertMatrix converts every corpus file to every writable format and
// checks the output with that format's validator (ATIF, REPLAY) or by
// reading it back.
func TestConvertMatrix(t *testing.T) {
	var targets []convert.FormatInfo
	for _, f := range convert.Formats() {
		if f.CanWrite() && f.Name != convert.Rlog {
			targets = append(targets, f)
		}
	}
	for _, c := range corpusInputs {
		for _, p := range corpus.Glob(t, c.glob) {
			for _, to := range targets {
				opts := convert.Options{Now: fixedNow}
				versions := []string{""}
				if to.Name == convert.ATIF {
					versions = []string{"1.5", "1.6", "1.7"}
				}
				for _, v := range versions {
					opts.ATIFVersion = v
					var out bytes.Buffer
					rep, err := convert.ConvertFile(p, c.want, to.Name, &out, opts)
					name := filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p) + " -> " + string(to.Name) + v
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
	// Whatever was written reads back without error.
	if _, _, err := convert.Read(bytes.NewReader(out), to); err != nil {
		t.Errorf("%s: reading the output back: %v", name, err)
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
