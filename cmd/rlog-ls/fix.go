package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

const fixUsage = "rlog-ls fix [--write | -o OUTPUT|-] [--force] [--renumber-steps] [--arrows] [--add-end] [--header] FILE"

const fixAbout = `Apply the editor's quick fixes to an rlog file: renumber the steps 1..N
(W004, like the reference's recorder fix --renumber-steps), turn ASCII arrows
-> into → (W011), add the missing @end (I002), add the missing required header
fields (E004). With no fix named, all of them.

Without --write or -o, print the changes as a unified diff (as gofmt -d does;
patch -p0 applies it) and change nothing. --write replaces FILE, atomically and
never through a symbolic link; -o writes the fixed copy elsewhere (never over
an existing file without --force; -o - prints it). The fixes made are listed on
stderr.

Exit status: 0, or 2 for usage and I/O problems (nothing is written then).`

// fixFlags maps each fix flag to the code whose findings it fixes.
var fixFlags = []struct{ flag, code, usage string }{
	{"renumber-steps", "W004", "renumber every step= 1..N (W004)"},
	{"arrows", "W011", "replace ASCII arrows -> with → (W011)"},
	{"add-end", "I002", "add @end at the end of a session that has @start (I002)"},
	{"header", "E004", "add the missing required header fields: format, id, repo_sha (E004)"},
}

func fixCmd(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("fix", fixUsage, fixAbout)
	fl := cmd.fl
	write := fl.Bool("write", false, "replace FILE with the fixed text")
	fl.BoolVar(write, "w", false, "short for --write")
	out := fl.String("o", "", "write the fixed text to this `file` instead (- for stdout)")
	force := fl.Bool("force", false, "with -o, overwrite an existing file")
	wanted := map[string]*bool{}
	for _, f := range fixFlags {
		wanted[f.code] = fl.Bool(f.flag, false, f.usage)
	}
	input, exit, done := cmd.oneInput(args, stdout, stderr)
	if done {
		return exit
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rlog-ls fix: "+format+"\n", a...)
		return 2
	}
	if *write && *out != "" {
		cmd.fail(stderr, "--write replaces FILE and -o writes elsewhere: give one")
		return 2
	}
	if *force && *out == "" {
		cmd.fail(stderr, "--force goes with -o")
		return 2
	}
	info, err := os.Lstat(input)
	if err != nil {
		return fail("%s", describeIOError(err))
	}
	if info.IsDir() {
		return fail("%s is a folder; fix one file at a time", input)
	}
	if *write && info.Mode()&os.ModeSymlink != 0 {
		return fail("%s is a symbolic link; --write replaces only regular files (write the fixed copy with -o)", input)
	}
	src, err := os.ReadFile(input)
	if err != nil {
		return fail("%s", describeIOError(err))
	}
	if f, ok := analysis.CheckBinary(src, analysis.Config{}); ok {
		return fail("%s: %s", input, f.Message)
	}
	codes := map[string]bool{}
	for code, on := range wanted {
		if *on {
			codes[code] = true
		}
	}
	tree := grammar.Parse(src)
	edits, applied := analysis.FixAll(tree, filepath.Base(input), codes)
	fixed := analysis.ApplyEdits(src, edits)

	switch {
	case *out == "-":
		if _, err := stdout.Write(fixed); err != nil {
			return fail("writing to stdout: %v", err)
		}
	case *out != "":
		dir, name := filepath.Split(*out)
		if dir == "" {
			dir = "."
		}
		if _, err := convert.WriteFileAtomic(dir, name, fixed, *force); err != nil {
			return writeFailure(fail, *out, err)
		}
	case *write:
		if len(edits) == 0 {
			break
		}
		dir, name := filepath.Split(input)
		if dir == "" {
			dir = "."
		}
		if _, err := convert.WriteFileAtomic(dir, name, fixed, true); err != nil {
			return writeFailure(fail, input, err)
		}
	default:
		if err := writeUnifiedDiff(stdout, input, src, edits); err != nil {
			return fail("writing to stdout: %v", err)
		}
	}
	printFixes(stderr, input, applied, *write || *out != "")
	return 0
}

func writeFailure(fail func(string, ...any) int, target string, err error) int {
	switch {
	case errors.Is(err, convert.ErrExists):
		return fail("%s exists; use --force to overwrite it", target)
	case errors.Is(err, convert.ErrOutsideDir):
		return fail("cannot write %s: %v", target, err)
	}
	return fail("cannot write %s: %s", target, describeIOError(err))
}

// printFixes lists the fixes, FILE:LINE: CODE title, and a count.
func printFixes(w io.Writer, file string, applied []analysis.AppliedFix, written bool) {
	if len(applied) == 0 {
		fmt.Fprintf(w, "rlog-ls fix: %s: nothing to fix\n", file)
		return
	}
	// In line order, as check lists the findings.
	slices.SortStableFunc(applied, func(a, b analysis.AppliedFix) int { return cmp.Compare(a.Line, b.Line) })
	for _, a := range applied {
		fmt.Fprintf(w, "%s:%d: %s %s\n", file, a.Line+1, a.Code, strings.ReplaceAll(a.Title, "`", ""))
	}
	verb := "would apply"
	if written {
		verb = "applied"
	}
	noun := "fixes"
	if len(applied) == 1 {
		noun = "fix"
	}
	fmt.Fprintf(w, "rlog-ls fix: %s %d %s\n", verb, len(applied), noun)
}
