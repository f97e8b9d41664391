package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// fixtureLogs are the project's own logs: realistic sessions modelled on
// real ones (testdata/logs, described in its README), the README's
// sample, and the grammar's fixtures (every line kind, CRLF and a byte
// order mark, headers a line-at-a-time reader cannot place).
var fixtureLogs = []string{"../testdata/logs/*.rlog", "../testdata/*.rlog", "../grammar/tmtest/testdata/*.rlog"}

// globLogs is the files the patterns match: at least ten, or the fixtures
// are not where the test expects them.
func globLogs(t *testing.T, patterns ...string) []string {
	t.Helper()
	var logs []string
	for _, pattern := range patterns {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, m...)
	}
	if len(logs) < 10 {
		t.Fatalf("only %d fixture logs: %v", len(logs), logs)
	}
	return logs
}

// TestFindingsOfFixtureLogs checks every finding rlog-ls reports on the
// fixture logs: testdata/findings/NAME.txtar says what the log is modelled
// on and shows each finding under the line it marks, the way `rlog-ls
// check` users read them. These are the rules at work on whole sessions;
// `go test -update` rewrites the findings after a deliberate change, to be
// read before it is committed. A new log needs its archive, with a comment
// saying what it shows.
func TestFindingsOfFixtureLogs(t *testing.T) {
	logs := globLogs(t, fixtureLogs...)
	seen := map[string]bool{}
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".rlog")
		if seen[name] {
			t.Fatalf("two fixture logs are called %s", name)
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			golden.Use(t, filepath.Join("testdata", "findings", name+".txtar"), func(t *testing.T, a *golden.Archive) {
				if len(strings.TrimSpace(string(a.Comment))) == 0 {
					t.Errorf("%s: say in the archive's comment what %s shows", a.Path, path)
				}
				a.Check(t, "findings", []byte(annotate(src, Check(grammar.Parse(src), Config{}))))
			})
		})
	}
	// Every archive belongs to a log.
	archives, _ := filepath.Glob(filepath.Join("testdata", "findings", "*.txtar"))
	for _, a := range archives {
		if !seen[strings.TrimSuffix(filepath.Base(a), ".txtar")] {
			t.Errorf("%s has no log", a)
		}
	}
}

// annotate renders findings under the lines they mark:
//
//	W002 warning 40:7-40:15: Observation references unknown call id: Zz9xY8wQ
//	  40 | o: id=Zz9xY8wQ → [ok]
//	     |       ^^^^^^^^
//
// Lines and columns are 1-based, columns in characters. Long lines are
// shown around the finding; the related places follow, one line each.
func annotate(src []byte, fs []Finding) string { return annotateNotes(src, fs, nil) }

// annotateNotes is annotate with the lines notes[i] under finding i (for
// places in other files, which the findings' Related cannot name).
func annotateNotes(src []byte, fs []Finding, notes [][]string) string {
	t := grammar.Parse(src)
	pos := func(off int) (line, col int) {
		n := t.LineAt(off)
		return n + 1, utf8.RuneCount(t.Slice(t.Line(n).Start, off)) + 1
	}
	var b strings.Builder
	if len(fs) == 0 {
		b.WriteString("(none)\n")
	}
	for i, f := range fs {
		l1, c1 := pos(f.Span.Start)
		l2, c2 := pos(f.Span.End)
		fmt.Fprintf(&b, "%s %s %d:%d-%d:%d: %s\n", f.Code, f.Severity, l1, c1, l2, c2, f.Message)
		l := t.Line(l1 - 1)
		text := []rune(strings.ToValidUTF8(strings.NewReplacer("\t", " ", "\x00", "␀", "\uFEFF", "·").Replace(string(t.Text(l))), "\uFFFD"))
		from, to := c1-1, c2-1
		if l2 != l1 {
			to = len(text)
		}
		to = max(to, from+1)
		// Show at most 100 characters: the finding and what is around it.
		lo, hi := max(0, from-40), min(len(text), max(to, from+60))
		if hi-lo > 100 {
			hi = lo + 100
		}
		prefix := ""
		if lo > 0 {
			prefix = "…"
		}
		suffix := ""
		if hi < len(text) {
			suffix = "…"
		}
		gutter := fmt.Sprintf("%4d | ", l1)
		fmt.Fprintf(&b, "%s%s%s%s\n", gutter, prefix, string(text[lo:hi]), suffix)
		fmt.Fprintf(&b, "%s| %s%s\n", strings.Repeat(" ", len(gutter)-2), strings.Repeat(" ", from-lo+utf8.RuneCountInString(prefix)),
			strings.Repeat("^", max(1, min(to, hi)-from)))
		for _, r := range f.Related {
			rl, rc := pos(r.Span.Start)
			fmt.Fprintf(&b, "     = %s: %d:%d\n", r.Message, rl, rc)
		}
		if i < len(notes) {
			for _, n := range notes[i] {
				fmt.Fprintf(&b, "     = %s\n", n)
			}
		}
	}
	return b.String()
}
