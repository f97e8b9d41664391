package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/companion"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/report"
)

const reportUsage = "rlog-ls report [-o OUTPUT|-] [--force] [--link TEMPLATE] [--disable CODE,...] [--severity CODE=LEVEL] FILE"

const reportAbout = `Write the session view of an rlog file: one self-contained HTML page (no
network, works from file://) with a timeline of the phases, tool calls
(from start to result, coloured by outcome) and subagents, the cumulative
tokens, a table of tools (calls, errors, latency median/p95/max), the
findings where they occur, and every item linked to its line.

The page goes beside the input as NAME.report.html unless -o names it (-o -
is stdout; FILE - reads stdin and writes stdout), never over the input nor
over an existing file without --force, and is written whole or not at all (a
signal, Ctrl-C, leaves nothing). The page is made to be shared: it names files
relative to the log. --link makes line numbers links into an editor: {path} is
the log's absolute path and {line} the line, e.g. --link
'vscode://file/{path}:{line}'. --disable and --severity configure the findings
shown, as for check. When the log's JSONL companion is beside it, APM is
counted from the companion. docs/report.md describes the page and its data.

Exit status: 0 written, 2 usage or I/O problem, 128+N after signal N
(nothing is written then).`

// reportCmd is `rlog-ls report`. Exit status: 0 when the page is written,
// 2 for usage and I/O problems (nothing is written then).
func reportCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("report", reportUsage, reportAbout)
	fl := cmd.fl
	out := fl.String("o", "", "output `file`, or - for stdout (default: NAME.report.html beside the input; stdout for stdin)")
	force := fl.Bool("force", false, "replace an existing output file (never the input)")
	link := fl.String("link", "", "make line numbers links: a `template` with {path} and {line}")
	var codes codeFlags
	codes.add(fl)
	input, exit, done := cmd.oneInput(args, stdout, stderr)
	if done {
		return exit
	}
	cfg, ok := codes.config(cmd, stderr)
	if !ok {
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rlog-ls report: "+format+"\n", a...)
		return 2
	}
	if *link != "" && !strings.Contains(*link, "{line}") {
		cmd.fail(stderr, "--link needs {line} in its template, e.g. 'vscode://file/{path}:{line}'")
		return 2
	}
	name, src, err := readInput(input, stdin, "the report is of one log")
	if err != nil {
		return fail("%v", err)
	}
	path := ""
	if name != stdinName {
		name = filepath.Base(input)
		if path, err = filepath.Abs(input); err != nil {
			path = input
		}
	}
	if f, ok := analysis.CheckBinary(src, analysis.Config{}); ok {
		return fail("%s: %s", name, f.Message)
	}
	target := *out
	if target == "" {
		target = "-"
		if !isStdin(input) {
			target = reportPath(input)
		}
	}
	t := grammar.Parse(src)
	sessionOpts := analysis.SessionOptions{}
	if path != "" {
		sessionOpts = companion.SessionOptions(path, t)
	}
	page, err := buildReport(t, cfg, sessionOpts, report.Options{Name: name, Path: path, Link: *link, Generator: "rlog-ls " + pageVersion()})
	if err != nil {
		return fail("%v", err)
	}
	o, err := openOutput("report", input, target, *force, stdin, stdout, stderr)
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	defer o.close()
	if _, err := o.w.Write(page); err != nil {
		o.failed(err)
		return fail("writing %s: %v", o.target, err)
	}
	written, err := o.commit()
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	if o.file != nil {
		fmt.Fprintf(stderr, "rlog-ls report: wrote %s\n", written)
	}
	return 0
}

// buildReport makes the page of a log, parsed as t: the session statistics (with
// sessionOpts: the companion's action counts give APM its counts and
// times), its first findings under cfg, and the HTML.
func buildReport(t *grammar.Tree, cfg analysis.Config, sessionOpts analysis.SessionOptions, opts report.Options) ([]byte, error) {
	// The session and the findings are independent passes: one core each.
	var s *analysis.Session
	var wg sync.WaitGroup
	wg.Go(func() { s = analysis.SessionFor(t, sessionOpts) })
	findings, more := analysis.NewAnalyzer(t).FindingsUpTo(cfg, report.DefaultMaxFindings)
	wg.Wait()
	return report.HTML(report.Build(t, s, findings, more, opts), report.NewNonce())
}

// reportPath is where the report of input goes by default: beside it,
// NAME.report.html (session.rlog gives session.report.html).
func reportPath(input string) string {
	dir, base := filepath.Split(input)
	if ext := filepath.Ext(base); ext != "" && len(ext) < len(base) {
		base = base[:len(base)-len(ext)]
	}
	return filepath.Join(dir, base+".report.html")
}
