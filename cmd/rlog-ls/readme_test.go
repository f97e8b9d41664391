package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExamples runs the check, stats, fix, search and compare examples of the
// console blocks of the README and docs/cli.md from the repository's root
// and compares what they print (stdout, then stderr) with what the page
// shows. A block that ends with "…" shows the start of the output.
func TestReadmeExamples(t *testing.T) {
	readme := readDocs(t, "README.md", "docs/cli.md")
	t.Chdir("../..")
	blocks := regexp.MustCompile("(?ms)^( *)```console\n(.*?)^ *```").FindAllStringSubmatch(readme, -1)
	ran := map[string]int{}
	for _, b := range blocks {
		indent := b[1]
		var lines []string
		for _, l := range strings.SplitAfter(b[2], "\n") {
			lines = append(lines, strings.TrimPrefix(l, indent))
		}
		for i := 0; i < len(lines); i++ {
			cmdLine, ok := strings.CutPrefix(lines[i], "$ rlog-ls ")
			if !ok {
				continue
			}
			var want strings.Builder
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
				i++
				want.WriteString(lines[i])
			}
			args := strings.Fields(cmdLine)
			switch {
			case args[0] != "check" && args[0] != "stats" && args[0] != "fix" && args[0] != "search" && args[0] != "compare":
				continue
			case strings.Contains(cmdLine, "--write"):
				continue
			}
			var out, errOut bytes.Buffer
			run(args, strings.NewReader(""), &out, &errOut)
			got := out.String() + errOut.String()
			exp := want.String()
			if prefix, cut := strings.CutSuffix(exp, "…\n"); cut {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("rlog-ls %s: the README shows the start\n%s\nit prints\n%s", cmdLine, prefix, got)
				}
			} else if got != exp {
				t.Errorf("rlog-ls %s: the README shows\n%s\nit prints\n%s", cmdLine, exp, got)
			}
			ran[args[0]]++
		}
	}
	if ran["check"] == 0 || ran["stats"] < 2 || ran["fix"] == 0 || ran["search"] < 2 || ran["compare"] == 0 {
		t.Fatalf("examples run: %v", ran)
	}
}

// readDocs is the text of the pages named (paths from the repository's
// root), one after the other.
func readDocs(t *testing.T, pages ...string) string {
	t.Helper()
	var all strings.Builder
	for _, p := range pages {
		b, err := os.ReadFile("../../" + p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteByte('\n')
	}
	return all.String()
}
