package analysis_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// A rule's cases are in testdata/rules/CODE.txtar: a comment that says
// what the rule reports, then small logs that show it, each with what
// `rlog-ls check` reports on it. A case NAME is
//
//   - NAME.rlog, the log;
//   - NAME.disable, the codes turned off (W009,I004), if any;
//   - NAME.jsonl or NAME.json, the log's companion, for the rules that
//     compare the two (and NAME.sub-ID.jsonl, a subagent's file);
//   - NAME.findings, what is reported, each finding under the line it
//     marks (`go test -update` writes it).
//
// The first case of CODE.txtar is the code's example in
// docs/diagnostics.md, where TestDiagnosticsDoc writes it.
const rulesDir = "testdata/rules"

type ruleCase struct {
	name    string
	log     []byte
	disable []string
	// companion are the files beside the log, in the archive's order.
	companion []golden.File
}

// casesOf lists the cases of an archive in its order.
func casesOf(a *golden.Archive) []ruleCase {
	var out []ruleCase
	for _, f := range a.Files {
		name, ok := strings.CutSuffix(f.Name, ".rlog")
		if !ok {
			continue
		}
		c := ruleCase{name: name, log: f.Data}
		if d, ok := a.Get(name + ".disable"); ok {
			c.disable = strings.Split(strings.TrimSpace(string(d)), ",")
		}
		for _, g := range a.Files {
			if isCompanionOf(g.Name, name) {
				c.companion = append(c.companion, g)
			}
		}
		out = append(out, c)
	}
	return out
}

func isCompanionOf(file, name string) bool {
	rest, ok := strings.CutPrefix(file, name+".")
	if !ok {
		return false
	}
	return rest == "jsonl" || rest == "json" || strings.HasPrefix(rest, "sub-") && strings.HasSuffix(rest, ".jsonl")
}

// findings is what `rlog-ls check` reports on the case: a binary file's
// one finding, else the log's, then where it and its companion disagree.
func (c ruleCase) findings(t *testing.T) string {
	t.Helper()
	cfg, unknown := analysis.DisableCodes(c.disable)
	if len(unknown) > 0 {
		t.Fatalf("%s: unknown codes %v", c.name, unknown)
	}
	if f, ok := analysis.CheckBinary(c.log, cfg); ok {
		return analysis.AnnotateNotes(c.log, []analysis.Finding{f}, nil)
	}
	tree := grammar.Parse(c.log)
	found := analysis.Check(tree, cfg)
	notes := make([][]string, len(found))
	if len(c.companion) > 0 {
		dir := t.TempDir()
		path := filepath.Join(dir, c.name+".rlog")
		files := map[string][]byte{}
		for _, f := range append([]golden.File{{Name: c.name + ".rlog", Data: c.log}}, c.companion...) {
			files[f.Name] = f.Data
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, ok := companion.Load(path, tree)
		if !ok {
			t.Fatalf("%s: the companion %s was not found or not read", c.name, c.companion[0].Name)
		}
		for _, f := range companion.Filter(p.Findings(), cfg) {
			found = append(found, f.Finding)
			var places []string
			for _, in := range f.In {
				name := filepath.Base(in.Path)
				places = append(places, fmt.Sprintf("%s: %s:%d:%d", in.Message, name, in.Line+1, column(files[name], int(in.Off))))
			}
			notes = append(notes, places)
		}
	}
	return analysis.AnnotateNotes(c.log, found, notes)
}

// column is the 1-based column, in characters, of byte off of text.
func column(text []byte, off int) int {
	off = min(off, len(text))
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	return utf8.RuneCount(text[start:off]) + 1
}

// TestRules checks each rule on its cases, as `rlog-ls check` reports
// them. `go test -update` rewrites the findings, to be read before they
// are committed.
func TestRules(t *testing.T) {
	golden.Run(t, rulesDir+"/*.txtar", func(t *testing.T, a *golden.Archive) {
		cases := casesOf(a)
		if len(cases) == 0 {
			t.Fatalf("%s holds no log", a.Path)
		}
		for _, c := range cases {
			a.Check(t, c.name+".findings", []byte(c.findings(t)))
		}
	})
}

// TestEveryCodeHasACase: every code has its archive, whose first case,
// its example, shows it.
func TestEveryCodeHasACase(t *testing.T) {
	for _, r := range analysis.Rules {
		path := filepath.Join(rulesDir, string(r.Code)+".txtar")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s has no case: write %s (see TestRules)", r.Code, path)
			continue
		}
		a := golden.Parse(data)
		cases := casesOf(a)
		if len(cases) == 0 {
			t.Errorf("%s holds no log", path)
			continue
		}
		if len(strings.TrimSpace(string(a.Comment))) == 0 {
			t.Errorf("%s: say in the archive's comment what the rule reports", path)
		}
		first, _ := a.Get(cases[0].name + ".findings")
		if !regexp.MustCompile(`(?m)^` + string(r.Code) + ` `).Match(first) {
			t.Errorf("%s: the first case, %s, is the code's example, and does not report %s:\n%s", path, cases[0].name, r.Code, first)
		}
	}
}

const diagnosticsDoc = "../docs/diagnostics.md"

// TestDiagnosticsDoc keeps docs/diagnostics.md in step with the rule
// table: every code has a section with a fix, and its example is the first
// case of its archive, generated between the section's example comments
// (`go test ./analysis -run TestDiagnosticsDoc -update` writes them).
func TestDiagnosticsDoc(t *testing.T) {
	doc, err := os.ReadFile(diagnosticsDoc)
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^## ([A-Z]\d{3})\b`).FindAllSubmatchIndex(doc, -1)
	type section struct{ start, end int }
	found := map[string]section{}
	for i, m := range sections {
		end := len(doc)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		found[string(doc[m[2]:m[3]])] = section{m[0], end}
	}
	type replacement struct {
		start, end int
		text       string
	}
	var replace []replacement
	for _, r := range analysis.Rules {
		sec, ok := found[string(r.Code)]
		if !ok {
			t.Errorf("docs/diagnostics.md has no section for %s", r.Code)
			continue
		}
		delete(found, string(r.Code))
		text := doc[sec.start:sec.end]
		if !bytes.Contains(bytes.ToLower(text), []byte("fix")) {
			t.Errorf("%s: the section needs a fix", r.Code)
		}
		open := []byte(exampleOpen(string(r.Code)))
		i := bytes.Index(text, open)
		j := bytes.Index(text, []byte(exampleClose))
		if i < 0 || j < i {
			t.Errorf("%s: the section has no example: write the lines %q and %q where it goes, and run with -update", r.Code, open, exampleClose)
			continue
		}
		data, err := os.ReadFile(filepath.Join(rulesDir, string(r.Code)+".txtar"))
		if err != nil {
			continue // TestEveryCodeHasACase says so
		}
		want := renderExample(golden.Parse(data))
		body := text[i+len(open) : j]
		if string(body) == want {
			continue
		}
		if !golden.Updating() {
			t.Errorf("%s: the example in docs/diagnostics.md is not the first case of %s/%s.txtar (run with -update to write it)\n--- doc\n%s--- case\n%s",
				r.Code, rulesDir, r.Code, body, want)
			continue
		}
		replace = append(replace, replacement{sec.start + i + len(open), sec.start + j, want})
	}
	for code := range found {
		t.Errorf("docs/diagnostics.md documents %s, which no rule reports", code)
	}
	if len(replace) > 0 {
		slices.SortFunc(replace, func(a, b replacement) int { return a.start - b.start })
		var out bytes.Buffer
		at := 0
		for _, r := range replace {
			out.Write(doc[at:r.start])
			out.WriteString(r.text)
			at = r.end
		}
		out.Write(doc[at:])
		if err := os.WriteFile(diagnosticsDoc, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", diagnosticsDoc)
	}
}

func exampleOpen(code string) string {
	return "<!-- example: the first case of analysis/" + rulesDir + "/" + code + ".txtar, written by go test -update -->\n"
}

const exampleClose = "<!-- end of example -->\n"

// renderExample is the doc's example of a rule: the first case's files
// (with their names when there are several) and its findings.
func renderExample(a *golden.Archive) string {
	c := casesOf(a)[0]
	files := append([]golden.File{{Name: c.name + ".rlog", Data: c.log}}, c.companion...)
	var b strings.Builder
	for _, f := range files {
		if len(files) > 1 {
			fmt.Fprintf(&b, "`%s`:\n\n", f.Name)
		}
		lang := "rlog"
		if strings.HasSuffix(f.Name, ".json") || strings.HasSuffix(f.Name, ".jsonl") {
			lang = "json"
		}
		fmt.Fprintf(&b, "```%s\n%s```\n\n", lang, shortenRuns(printable(f.Data)))
	}
	findings, _ := a.Get(c.name + ".findings")
	fmt.Fprintf(&b, "```text\n%s```\n", printable(findings))
	return b.String()
}

// printable writes the bytes a page cannot show (control characters but
// tab and line feed, and bytes that are not UTF-8) as \xNN.
func printable(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\t' && r != '\n' || r == 0x7f {
			fmt.Fprintf(&s, `\x%02x`, b[0])
		} else {
			s.Write(b[:size])
		}
		b = b[size:]
	}
	return s.String()
}

// shortenRuns shows a run of more than 8 equal lines as its first three,
// a line saying how many more there are, and its last.
func shortenRuns(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var out []string
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j] == lines[i] {
			j++
		}
		if n := j - i; n > 8 && lines[i] != "" {
			out = append(out, lines[i:i+3]...)
			out = append(out, fmt.Sprintf("… %d more lines %q …\n", n-4, strings.TrimSuffix(lines[i], "\n")))
			out = append(out, lines[j-1])
		} else {
			out = append(out, lines[i:j]...)
		}
		i = j
	}
	return strings.Join(out, "")
}

// TestRuleTable: each entry is a code of its own, shaped as the docs and
// users write it (its letter the default severity's), with a place where
// it is checked, and each quick fix has a flag of its own.
func TestRuleTable(t *testing.T) {
	letters := map[analysis.Severity]string{analysis.Error: "ES", analysis.Warning: "W", analysis.Info: "I", analysis.Hint: "H"}
	codes, fixes := map[analysis.Code]bool{}, map[string]analysis.Code{}
	for _, r := range analysis.Rules {
		if codes[r.Code] {
			t.Errorf("%s twice", r.Code)
		}
		codes[r.Code] = true
		if !regexp.MustCompile(`^[EWIHS]\d{3}$`).MatchString(string(r.Code)) || !strings.Contains(letters[r.Severity], string(r.Code[0])) {
			t.Errorf("%s: not a code of a %s", r.Code, r.Severity)
		}
		if r.Scope == 0 || r.Title == "" {
			t.Errorf("%s: no scope or title", r.Code)
		}
		if f := r.Fix; f != nil {
			if f.Name == "" || f.About == "" || f.Make == nil {
				t.Errorf("%s: a fix without its name, help or maker", r.Code)
			}
			if other, ok := fixes[f.Name]; ok {
				t.Errorf("%s and %s: both fixes are --%s", other, r.Code, f.Name)
			}
			fixes[f.Name] = r.Code
		}
	}
}
