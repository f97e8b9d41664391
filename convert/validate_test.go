package convert_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// TestValidatorFindings: every file in testdata/validate is checked by its
// format's validator (detected), and its findings, with their places, are
// the golden file beside it.
func TestValidatorFindings(t *testing.T) {
	files, _ := filepath.Glob("testdata/validate/*")
	n := 0
	for _, p := range files {
		if strings.HasSuffix(p, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(p), func(t *testing.T) {
			format, err := convert.DetectFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var b strings.Builder
			fmt.Fprintf(&b, "format %s\n", format)
			err = convert.Validate(format, f, func(x convert.Finding) {
				fmt.Fprintf(&b, "%d:%d-%d:%d %s\n", x.Line, x.Col, x.EndLine, x.EndCol, strings.TrimPrefix(x.String(), fmt.Sprintf("%d:%d: ", x.Line, x.Col)))
			})
			if err != nil {
				t.Fatal(err)
			}
			golden.CheckFile(t, p+".golden", []byte(b.String()))
		})
	}
	if n < 8 {
		t.Errorf("only %d validator fixtures", n)
	}
}

// TestValidatorCodesDocumented: docs/diagnostics.md has a section, with an
// example and a fix, for every code a validator reports, and none for a
// code no validator has.
func TestValidatorCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^## ([A-Z]+\d{3})\b`).FindAllStringSubmatchIndex(string(doc), -1)
	found := map[string]string{}
	for i, m := range sections {
		end := len(doc)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		found[string(doc[m[2]:m[3]])] = string(doc[m[0]:end])
	}
	for _, r := range convert.ValidatorRules() {
		sec, ok := found[r.Code]
		if !ok {
			t.Errorf("docs/diagnostics.md has no section for %s (%s)", r.Code, r.Title)
			continue
		}
		if !strings.Contains(sec, "```") || !strings.Contains(strings.ToLower(sec), "fix") {
			t.Errorf("%s: section needs an example block and a fix", r.Code)
		}
	}
	for code := range found {
		if len(code) > 4 && convert.ValidatorCodes(code) == nil {
			t.Errorf("docs/diagnostics.md documents %s, which no validator reports", code)
		}
	}
}

func TestValidatorCodeFamilies(t *testing.T) {
	if got := convert.ValidatorCodes("atif"); len(got) != len(atif.Rules) {
		t.Errorf("ATIF family: %v", got)
	}
	if got := convert.ValidatorCodes("REPLAY009"); len(got) != 1 {
		t.Errorf("REPLAY009: %v", got)
	}
	for _, no := range []string{"E", "W003", "ATIF999", ""} {
		if got := convert.ValidatorCodes(no); got != nil {
			t.Errorf("%q names %v", no, got)
		}
	}
}

func TestValidTimestamp(t *testing.T) {
	for _, ts := range []string{"2026-02-09T20:41:09.682063+00:00", "2025-12-11T22:17:50.071Z", "2025-01-01", "2025-01-01 10:00"} {
		if !atif.ValidTimestamp(ts) {
			t.Errorf("%s rejected", ts)
		}
	}
	for _, ts := range []string{"2025-13-01T00:00:00Z", "2025-01-01T25:00:00Z", "2025-01-01T10:00:00.Z", "2025-01-01T10:00:00+0"} {
		if atif.ValidTimestamp(ts) {
			t.Errorf("%s accepted", ts)
		}
	}
}

// Every validator takes any bytes: findings, never a panic, each at a
// place inside the input.
func FuzzValidate(f *testing.F) {
	for _, name := range []string{"atif-findings.atif.json", "atif-minified-v17.atif.json", "atif-findings.atif.jsonl", "findings.replay.jsonl", "bad-header.rlog"} {
		b, _ := os.ReadFile(filepath.Join("testdata", "validate", name))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := strings.Count(string(data), "\n") + 1
		for _, fi := range convert.Formats() {
			if fi.Validate == nil {
				continue
			}
			err := fi.Validate(strings.NewReader(string(data)), func(x convert.Finding) {
				if x.Line < 1 || x.Line > lines || x.Col < 1 || x.EndLine < x.Line || x.EndLine == x.Line && x.EndCol < x.Col {
					t.Fatalf("%s: finding at %d:%d-%d:%d in %d lines: %v", fi.Name, x.Line, x.Col, x.EndLine, x.EndCol, lines, x)
				}
			})
			if err != nil {
				t.Fatalf("%s: %v", fi.Name, err)
			}
		}
	})
}
