package analysis

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis/secretrules"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// The promise of S001 and redact, held against gitleaks itself: on the
// planted corpus (a fake credential for every rule that applies to a log),
// on the fixtures and, when there is one, on the corpus of real logs,
//   - every line gitleaks flags has an S001, but for the kinds of finding
//     the line scan does not claim (s001Excuse says which, and the test
//     lists them);
//   - gitleaks finds nothing in what Redact writes;
//   - the redacted copy of an rlog file has the findings it had, S001 aside.
//
// The gitleaks binary is $RLOG_GITLEAKS, else gitleaks on the PATH, else
// $(go env GOPATH)/bin/gitleaks; it must be the release the rules come from.
// Without it the test skips and says why; with RLOG_REQUIRE_GITLEAKS=1 (CI)
// it fails instead.
func TestGitleaksOracle(t *testing.T) {
	bin := gitleaksBinary(t)
	sets := map[string][]string{
		"planted":  {"../testdata/secrets/planted.rlog"},
		"fixtures": fixtureFiles(t, "../testdata", "secrets"),
		// Keys named past the rule's keyword (sonar_login, then a tail
		// of 20), and a prefix in lower case.
		"key names": {"../testdata/secrets/key-names.rlog"},
	}
	if testing.Short() {
		t.Log("-short: no sweep over the corpus (two minutes of gitleaks)")
	} else if root, ok := corpus.Sweep(t); ok {
		sets["corpus"] = fixtureFiles(t, root, "")
	}
	for name, files := range sets {
		t.Run(name, func(t *testing.T) {
			before := t.TempDir()
			after := t.TempDir()
			srcs := map[string][]byte{}
			for i, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				rel := fmt.Sprintf("%03d-%s", i, filepath.Base(f))
				srcs[rel] = src
				out, _ := Redact(src)
				writeFile(t, filepath.Join(before, rel), src)
				writeFile(t, filepath.Join(after, rel), out)
				if strings.HasSuffix(f, ".rlog") {
					checkStillValid(t, rel, src, out)
				}
			}
			found := runGitleaks(t, bin, before)
			if name == "planted" {
				rules := map[string]bool{}
				for _, f := range found {
					rules[f.RuleID] = true
				}
				if len(rules) < 200 {
					t.Errorf("gitleaks flags %d rules on the planted corpus: the corpus has one for each", len(rules))
				}
			}
			covered, excused := 0, 0
			for _, f := range found {
				src := srcs[filepath.Base(f.File)]
				if s001OnLine(src, f.StartLine) {
					covered++
					continue
				}
				if why := s001Excuse(src, f); why != "" {
					excused++
					t.Logf("%s:%d %s: no S001 (%s)", f.File, f.StartLine, f.RuleID, why)
					continue
				}
				t.Errorf("%s:%d %s: gitleaks flags the line, S001 does not: %q", filepath.Base(f.File), f.StartLine, f.RuleID, f.Match)
			}
			t.Logf("gitleaks: %d findings, %d lines with an S001, %d excused", len(found), covered, excused)
			for _, f := range runGitleaks(t, bin, after) {
				t.Errorf("%s:%d %s: left in the redacted copy: %q", filepath.Base(f.File), f.StartLine, f.RuleID, f.Line)
			}
		})
	}
}

// The same promise without gitleaks: every line where gitleaks' rules find
// something (secretrules.Find, which finds what gitleaks finds and more)
// has an S001, on the planted corpus, the fixtures and a generated session.
func TestS001CoversGitleaksRules(t *testing.T) {
	docs := map[string][]byte{"generated": generatedSession(t, 1<<20, 3)}
	for _, f := range append(fixtureFiles(t, "../testdata", ""), "../testdata/secrets/planted.rlog") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = src
	}
	n := 0
	for name, src := range docs {
		for _, f := range secretrules.Find(src) {
			line := secretrules.LineOf(src, f.MatchStart)
			lf := gitleaksFinding{RuleID: f.RuleID, StartLine: line, EndLine: secretrules.LineOf(src, f.MatchEnd-1),
				Match: string(src[f.MatchStart:f.MatchEnd])}
			n++
			if !s001OnLine(src, line) && s001Excuse(src, lf) == "" {
				t.Errorf("%s:%d %s: the rules find %q, S001 does not flag the line", name, line, f.RuleID, lf.Match)
			}
		}
	}
	if n < 217 {
		t.Errorf("only %d findings of the rules: the planted corpus has one for each rule", n)
	}
}

// gitleaksFinding is what gitleaks' JSON report says of a finding.
type gitleaksFinding struct {
	RuleID, File, Match, Secret, Line string
	StartLine, EndLine, StartColumn   int
	Tags                              []string
}

// s001Excuse says why S001 need not flag a finding's line, or "": S001
// reads one line, as it is written, and starts only at word starts.
func s001Excuse(src []byte, f gitleaksFinding) string {
	for _, tag := range f.Tags {
		if strings.HasPrefix(tag, "decoded:") {
			return "found in decoded text (" + tag + "): S001 does not decode; redact does"
		}
	}
	if f.EndLine > f.StartLine {
		return "the match runs over several lines: S001 reads one"
	}
	line := lineText(src, f.StartLine)
	if f.RuleID == "maxmind-license-key" {
		return "a MaxMind key is flagged only where it is assigned to a key"
	}
	if f.RuleID == "sourcegraph-access-token" && !bytes.Contains(bytes.ToLower([]byte(f.Match)), []byte("sgp_")) {
		return "40 hex digits (a commit's id, mostly) in a file that names Sourcegraph: S001 flags sgp_ tokens only"
	}
	if k := bytes.Index(line, []byte(strings.Trim(f.Match, "\n"))); k > 0 && isWordByte(line[k-1]) {
		return "glued to the word before it: S001 starts at word starts"
	}
	return ""
}

// s001OnLine reports whether S001 is on line n (1-based) of src, as the
// checker and the editor report it (through the chunk summaries) for an
// rlog file, and as the line scan finds it for any other.
func s001OnLine(src []byte, n int) bool {
	return len(FindSecrets(bytes.TrimSuffix(lineText(src, n), []byte("\r")))) > 0
}

func lineText(src []byte, n int) []byte {
	for ; n > 1; n-- {
		k := bytes.IndexByte(src, '\n')
		if k < 0 {
			return nil
		}
		src = src[k+1:]
	}
	if k := bytes.IndexByte(src, '\n'); k >= 0 {
		return src[:k]
	}
	return src
}

// checkStillValid: a redacted rlog file has the findings it had, S001 and
// the line of each aside.
func checkStillValid(t *testing.T, name string, src, out []byte) {
	t.Helper()
	cfg := Config{Disabled: map[string]bool{"S001": true}}
	if a, b := findingCodes(Check(grammar.Parse(src), cfg)), findingCodes(Check(grammar.Parse(out), cfg)); a != b {
		t.Errorf("%s: redaction changed the findings:\n%s\n%s", name, a, b)
	}
	for _, f := range Check(grammar.Parse(out), Config{}) {
		if f.Code == "S001" {
			t.Errorf("%s: S001 left after redaction on line %d", name, f.Line+1)
		}
	}
}

// fixtureFiles lists the logs (rlog and JSON lines) under root, but for
// the folder skip.
func fixtureFiles(t *testing.T, root, skip string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && skip != "" && d.Name() == skip {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".rlog" || ext == ".jsonl" || ext == ".json") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitleaksBinary finds gitleaks of the release the rules come from, or
// skips (fails when RLOG_REQUIRE_GITLEAKS is set).
func gitleaksBinary(t *testing.T) string {
	t.Helper()
	missing := func(format string, a ...any) string {
		msg := fmt.Sprintf(format, a...)
		if os.Getenv("RLOG_REQUIRE_GITLEAKS") != "" {
			t.Fatalf("%s (RLOG_REQUIRE_GITLEAKS is set; .ci/run installs it)", msg)
		}
		t.Skipf("%s: go install github.com/zricethezav/gitleaks/v8@%s, or name it in RLOG_GITLEAKS", msg, secretrules.GitleaksVersion)
		return ""
	}
	bin := os.Getenv("RLOG_GITLEAKS")
	if bin == "" {
		bin, _ = exec.LookPath("gitleaks")
	}
	if bin == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			p := filepath.Join(strings.Split(strings.TrimSpace(string(out)), string(os.PathListSeparator))[0], "bin", "gitleaks")
			if _, err := os.Stat(p); err == nil {
				bin = p
			}
		}
	}
	if bin == "" {
		return missing("no gitleaks binary")
	}
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return missing("%s: not a Go binary whose version can be read: %v", bin, err)
	}
	if info.Main.Version != secretrules.GitleaksVersion {
		return missing("%s is gitleaks %s, the rules are %s's", bin, info.Main.Version, secretrules.GitleaksVersion)
	}
	return bin
}

// runGitleaks runs gitleaks dir on dir and returns its findings.
func runGitleaks(t *testing.T, bin, dir string) []gitleaksFinding {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(bin, "dir", "--no-banner", "--exit-code", "0", "--log-level", "error", "-f", "json", "-r", report, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gitleaks: %v\n%s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var fs []gitleaksFinding
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatalf("gitleaks' report: %v", err)
	}
	return fs
}

// checkS001CoversRules: on one line, every finding of gitleaks' rules
// (secretrules.Find, which finds what gitleaks finds) is on a line S001
// flags, or is one that s001Excuse names.
func checkS001CoversRules(t *testing.T, line []byte) {
	t.Helper()
	if bytes.ContainsAny(line, "\n\r") || len(FindSecrets(line)) > 0 {
		return
	}
	for _, f := range secretrules.Find(line) {
		lf := gitleaksFinding{RuleID: f.RuleID, StartLine: 1, EndLine: 1, Match: string(line[f.MatchStart:f.MatchEnd])}
		if why := s001Excuse(line, lf); why == "" {
			t.Fatalf("%q: the rules find %s %q, S001 nothing", line, f.RuleID, lf.Match)
		}
	}
}

// The line scan's candidates are necessary conditions: no line where a
// rule finds something goes through them unflagged.
func FuzzS001CoversRules(f *testing.F) {
	planted, _ := os.ReadFile("../testdata/secrets/planted.rlog")
	for _, line := range bytes.Split(planted, []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkS001CoversRules(t, line) })
}
