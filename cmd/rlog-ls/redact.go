package main

import (
	"fmt"
	"io"
	"path/filepath"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
)

const redactUsage = "rlog-ls redact [-o OUTPUT|-] [--force] FILE|-"

const redactAbout = `Write a copy of FILE with every value that looks like a credential (S001:
API keys, tokens, private keys, passwords) replaced by [redacted:kind]. FILE -
(or /dev/stdin) reads standard input. The copy goes beside the input as
NAME.redacted.EXT (to stdout for stdin) unless -o names it (-o - is stdout),
never over the input, never over an existing file without --force, and whole
or not at all: a failure or a signal (Ctrl-C) leaves nothing. Where each value
was (never the value) is listed on stderr.

Exit status: 0 written, 2 usage or I/O problem, 128+N after signal N
(nothing is written then).`

// maxListed bounds the per-value lines of the report; the summary counts all.
const maxListed = 200

// redactCmd is `rlog-ls redact`: it writes a copy of FILE with every value
// that S001 reports (API keys, tokens, private keys, passwords) replaced by
// [redacted:kind], beside the input as NAME.redacted.EXT unless -o says
// otherwise, never over an existing file without --force, never over the
// input, and atomically (a failure or a signal leaves nothing). FILE "-"
// (or /dev/stdin) is standard input, whose copy goes to standard output
// unless -o names a file. The report (where each value was, never the
// value) goes to stderr. Exit status: 0 when the copy is written, 2 for
// usage and I/O problems (nothing is written then).
func redactCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("redact", redactUsage, redactAbout)
	fl := cmd.fl
	out := fl.String("o", "", "output `file`, or - for stdout (default: NAME.redacted.EXT beside the input; stdout for stdin)")
	force := fl.Bool("force", false, "replace an existing output file (never the input)")
	input, exit, done := cmd.oneInput(args, stdout, stderr)
	if done {
		return exit
	}
	fail := cmd.failure(stderr)
	name, src, err := readInput(input, stdin, "redact one file at a time")
	if err != nil {
		return fail("%v", err)
	}
	target := *out
	if target == "" {
		target = "-"
		if !isStdin(input) {
			target = filepath.Join(filepath.Dir(input), analysis.RedactedName(filepath.Base(input)))
		}
	}
	o, err := openOutput("redact", input, target, *force, stdin, stdout, stderr)
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	defer o.close()
	// Piece by piece: the copy of a large file is written while the rest
	// is scanned, and an interrupt stops both.
	matches, err := analysis.RedactTo(src, func(b []byte) error {
		_, err := o.w.Write(b)
		return err
	})
	if err != nil {
		o.failed(err)
		return fail("writing %s: %v", o.target, err)
	}
	written, err := o.commit()
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	printRedactions(stderr, name, src, matches)
	fmt.Fprintf(stderr, "rlog-ls redact: wrote %s: %s\n", written, redactionSummary(matches))
	return 0
}

// printRedactions lists where each value was, as FILE:LINE:COL: kind
// (columns count characters, like check's).
func printRedactions(w io.Writer, file string, src []byte, matches []analysis.SecretMatch) {
	line, lineStart, off := 1, 0, 0
	for i, m := range matches {
		if i == maxListed {
			fmt.Fprintf(w, "%s: %d more not listed\n", file, len(matches)-maxListed)
			return
		}
		for ; off < m.Start; off++ {
			if src[off] == '\n' {
				line, lineStart = line+1, off+1
			}
		}
		col := utf8.RuneCount(src[lineStart:m.Start]) + 1
		fmt.Fprintf(w, "%s:%d:%d: redacted %s\n", file, line, col, analysis.SecretMatch{Kind: m.Kind}.Describe())
	}
}

// redactionSummary is "3 values redacted (2 openai_key, 1 password)".
func redactionSummary(matches []analysis.SecretMatch) string {
	if len(matches) == 0 {
		return "no credential found; the copy is identical"
	}
	return analysis.RedactionSummary(matches)
}
