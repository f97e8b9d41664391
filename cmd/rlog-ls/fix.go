package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

const fixUsage = "rlog-ls fix [--write | -o OUTPUT|-] [--force] [--renumber-steps] [--arrows] [--add-end] [--header] FILE|-"

const fixAbout = `Apply the editor's quick fixes to an rlog file: renumber the steps 1..N
(W004, like the reference's recorder fix --renumber-steps), turn ASCII arrows
-> into → (W011), add the missing @end (I002), add the missing required header
fields (E004). With no fix named, all of them. FILE - (or /dev/stdin) reads
standard input.

Without --write or -o, print the changes as a unified diff (as gofmt -d does;
patch -p0 applies it) and change nothing. -o writes the fixed copy elsewhere
(never over an existing file without --force; -o - prints it). The fixes made
are listed on stderr.

--write replaces FILE, atomically, never through a symbolic link, keeping its
owner, group and permissions, and only if nothing else is writing it: FILE is
left as it was when another process holds it open for writing (an agent still
writing its log; Linux tells which), when it changed after it was read, or
when its owner cannot be kept. Write the fixed copy with -o then. A signal
(Ctrl-C) leaves FILE as it was and no temporary file.

Exit status: 0, 2 for usage and I/O problems and a FILE not replaced
(nothing is written then), 128+N after signal N.`

func fixCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("fix", fixUsage, fixAbout)
	fl := cmd.fl
	write := fl.Bool("write", false, "replace FILE with the fixed text")
	fl.BoolVar(write, "w", false, "short for --write")
	out := fl.String("o", "", "write the fixed text to this `file` instead (- for stdout)")
	force := fl.Bool("force", false, "with -o, overwrite an existing file (never FILE)")
	wanted := map[analysis.Code]*bool{} // a flag for each rule's quick fix
	for _, r := range analysis.Rules {
		if r.Fix != nil {
			wanted[r.Code] = fl.Bool(r.Fix.Name, false, fmt.Sprintf("%s (%s)", r.Fix.About, r.Code))
		}
	}
	input, exit, done := cmd.oneInput(args, stdout, stderr)
	if done {
		return exit
	}
	fail := cmd.failure(stderr)
	switch {
	case *write && *out != "":
		cmd.fail(stderr, "--write replaces FILE and -o writes elsewhere: give one")
		return 2
	case *force && *out == "":
		cmd.fail(stderr, "--force goes with -o")
		return 2
	case *write && isStdin(input):
		cmd.fail(stderr, "--write replaces FILE, and standard input is no file to replace: print the fixed text with -o -, or write it with -o FILE")
		return 2
	}
	name, src, read, err := readFixInput(input, stdin, *write)
	if err != nil {
		return fail("%v", err)
	}
	if f, ok := analysis.CheckBinary(src, analysis.Config{}); ok {
		return fail("%s: %s", name, f.Message)
	}
	codes := map[analysis.Code]bool{}
	for code, on := range wanted {
		if *on {
			codes[code] = true
		}
	}
	base := "" // the header fix names the session after the file
	if name != stdinName {
		base = filepath.Base(input)
	}
	tree := grammar.Parse(src)
	edits, applied := analysis.FixAll(tree, base, codes)

	switch {
	case *out != "" || (*write && len(edits) > 0):
		var o *output
		if *write {
			o, err = replaceInput("fix", input, read, stderr)
		} else {
			o, err = openOutput("fix", input, *out, *force, stdin, stdout, stderr)
		}
		target := *out
		if *write {
			target = input
		}
		if err != nil {
			return fail("%s", outputError(target, err))
		}
		defer o.close()
		if _, err := o.w.Write(analysis.ApplyEdits(src, edits)); err != nil {
			o.failed(err)
			return fail("writing %s: %v", o.target, err)
		}
		if _, err := o.commit(); err != nil {
			return fail("%s", outputError(target, err))
		}
	case *write:
	default:
		if err := writeUnifiedDiff(stdout, name, src, edits); err != nil {
			return fail("writing to stdout: %v", err)
		}
	}
	printFixes(stderr, name, applied, *write || *out != "")
	return 0
}

// readFixInput reads fix's input: standard input, or the file, which must
// not be a folder nor, to be replaced (write), a symbolic link. read is
// the file's state from before it was read, for replacing it.
func readFixInput(input string, stdin io.Reader, write bool) (name string, src []byte, read fs.FileInfo, err error) {
	if isStdin(input) {
		name, src, err = readInput(input, stdin, "fix one file at a time")
		return name, src, nil, err
	}
	info, err := os.Lstat(input)
	switch {
	case err != nil:
		return input, nil, nil, errors.New(describeIOError(err))
	case info.IsDir():
		return input, nil, nil, fmt.Errorf("%s is a folder; fix one file at a time", input)
	case write && info.Mode()&os.ModeSymlink != 0:
		return input, nil, nil, fmt.Errorf("%s is a symbolic link; --write replaces only regular files (write the fixed copy with -o)", input)
	}
	f, err := os.Open(input)
	if err != nil {
		return input, nil, nil, errors.New(describeIOError(err))
	}
	defer f.Close()
	if read, err = f.Stat(); err == nil {
		src, err = io.ReadAll(f)
	}
	if err != nil {
		return input, nil, nil, fmt.Errorf("%s: %v", input, err)
	}
	return input, src, read, nil
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
