package analysis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// deliberate lists, per log, where rlog-ls reports differently from the
// reference validator on purpose. Each entry is "CODE line message" as the
// comparison renders it (line 0 for findings the reference gives no line).
// The fixture logs are named from the repository's root, the corpus files
// from the corpus's.
var deliberate = map[string]struct{ added, removed []string }{
	// A null header value is missing (E004); serde_yaml 0.8 read it as "~".
	"testdata/logs/empty-header-values.rlog": {
		added: []string{
			"E004 0 Missing required header field: id (the value is empty)",
			"E004 0 Missing required header field: repo_sha (the value is empty)",
		},
		removed: []string{"W009 0 repo_sha '~' has unusual length (expected 6-40 hex chars)"},
	},
	"rlog/openagents-docs-logs/20251219/2144-start-working.rlog": {
		added: []string{"E004 0 Missing required header field: id (the value is empty)"},
	},
	"rlog/openagents-docs-logs/20251223/154722-process-issues-from-database.rlog": {
		added: []string{
			"E004 0 Missing required header field: id (the value is empty)",
			"E004 0 Missing required header field: repo_sha (the value is empty)",
		},
		removed: []string{"W009 0 repo_sha '~' has unusual length (expected 6-40 hex chars)"},
	},
	// W005 works: an agent line quoting rlog syntax has ts=12:34:56:, which
	// the reference's capture regex silently skipped.
	"testdata/logs/long-session.rlog": {
		added: []string{"W005 53 Invalid timestamp format: 12:34:56:"},
	},
	"rlog/openagents-docs-logs/20251220/103818-call-issue-ready-now-to.rlog": {
		added: []string{"W005 1864 Invalid timestamp format: 12:34:56:"},
	},
}

// newRuleCounts are codes the reference does not have; they are checked by
// unit tests, and counted here so a change in them on real files is noticed.
var newRuleCounts = map[string]map[string]int{
	"testdata/logs/hand-edited.rlog":                                         {"H002": 1, "S001": 1, "W011": 1},
	"testdata/logs/recorder-convert.rlog":                                    {"W010": 1},
	"testdata/logs/repeated-ids.rlog":                                        {"W010": 2},
	"testdata/fixme.rlog":                                                    {"W011": 1},
	"rlog/openagents-docs-logs/20251219/1610-list-the-cargo-toml-files.rlog": {"W010": 1},
	"rlog/openagents-docs-logs/20251219/1916-use-issue-ready-to-get.rlog":    {"W010": 22},
	// Thinking signatures right after the word "Key" or "API": gitleaks
	// 8.30.1 flags the same four lines (TestGitleaksOracle's corpus sweep).
	"rlog/openagents-docs-logs/20251220/153410-call-issue-ready-now-to.rlog": {"S001": 4},
	"rlog-derived/recorder-convert/agent-a028728.rlog":                       {"W010": 3},
	"rlog-derived/recorder-convert/opus-raw.rlog":                            {"W010": 1},
	"rlog-derived/recorder-convert/claude-code-example.rlog":                 {"W010": 233},
}

type refFindings struct {
	Issues []struct {
		Line     *int   `json:"line"`
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"issues"`
	ParseError string `json:"parse_error"`
}

// TestConformanceWithReferenceValidator compares rlog-ls's findings on
// each fixture log with what the reference validator reports on it
// (testdata/conformance, see its README), minus the deliberate differences
// above; with a corpus of real logs (RLOG_CORPUS), it does the same on each
// of them against the reference's findings kept in the corpus
// (reference-findings), and without one that part is skipped, saying why.
// The findings rlog-ls's own rules add are TestFindingsOfFixtureLogs.
func TestConformanceWithReferenceValidator(t *testing.T) {
	logs := globLogs(t, "../testdata/logs/*.rlog", "../testdata/*.rlog")
	for _, path := range logs {
		rel := strings.TrimPrefix(filepath.ToSlash(path), "../")
		t.Run(rel, func(t *testing.T) {
			ref := filepath.Join("testdata", "conformance", strings.TrimSuffix(filepath.Base(path), ".rlog")+".json")
			conform(t, rel, path, ref)
		})
	}
	t.Run("corpus", func(t *testing.T) {
		root, ok := corpus.Sweep(t)
		if !ok {
			t.Skip("no corpus of real logs: set RLOG_CORPUS to sweep it")
		}
		files := corpus.SweepFiles(t, ".rlog", "rlog", "rlog-derived")
		if len(files) == 0 {
			t.Skipf("no .rlog under %s/rlog or %s/rlog-derived", root, root)
		}
		for _, path := range files {
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			t.Run(rel, func(t *testing.T) {
				conform(t, rel, path, filepath.Join(root, "reference-findings", strings.TrimSuffix(rel, ".rlog")+".json"))
			})
		}
	})
}

// conform compares rlog-ls's findings on the log at path (named rel in
// deliberate and newRuleCounts) with the reference validator's in the file
// refPath.
func conform(t *testing.T, rel, path, refPath string) {
	var ref refFindings
	raw, err := os.ReadFile(refPath)
	if err != nil {
		t.Fatalf("no reference findings: %v", err)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.ParseError != "" {
		t.Fatalf("the reference refused the log (%s); compare only logs it reads", ref.ParseError)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lineless := map[string]bool{}
	var want []string
	for _, is := range ref.Issues {
		line := 0
		if is.Line != nil {
			line = *is.Line
		} else {
			lineless[is.Code] = true
		}
		if r, _ := RuleFor(Code(is.Code)); r.Severity.String() != is.Severity {
			t.Errorf("%s: reference severity %s, ours %s", is.Code, is.Severity, r.Severity)
		}
		want = append(want, fmt.Sprintf("%s %d %s", is.Code, line, is.Message))
	}
	d := deliberate[rel]
	want = slices.DeleteFunc(want, func(s string) bool { return slices.Contains(d.removed, s) })
	want = append(want, d.added...)

	var got []string
	newCounts := map[string]int{}
	for _, f := range Check(grammar.Parse(src), Config{}) {
		r, _ := RuleFor(f.Code)
		line := f.Line + 1
		if !r.Reference && f.Code != "E004" {
			newCounts[string(f.Code)]++
			continue
		}
		// The reference gives these no line; ours have one, checked in unit tests.
		if lineless[string(f.Code)] || f.Code == "E004" || f.Code == "W007" || f.Code[0] == 'I' || f.Code == "W008" || f.Code == "W009" {
			line = 0
		}
		got = append(got, fmt.Sprintf("%s %d %s", f.Code, line, f.Message))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings differ from the reference\n got  %q\n want %q", got, want)
	}
	wantNew := newRuleCounts[rel]
	if len(wantNew) == 0 {
		wantNew = map[string]int{}
	}
	if fmt.Sprint(newCounts) != fmt.Sprint(wantNew) {
		t.Errorf("new-rule findings %v, want %v", newCounts, wantNew)
	}
}
