package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// jsonFinding is one element of `check --format json`. Lines and columns
// are 1-based and columns count characters; the end is exclusive.
type jsonFinding struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
}

type checkedFile struct {
	path     string
	findings []jsonFinding
	err      error
}

func check(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output format: text or json")
	minSev := fl.String("min-severity", "hint", "lowest severity to report: error, warning, info or hint")
	disable := fl.String("disable", "", "comma-separated codes not to report (e.g. W003,I004)")
	cpuprofile := fl.String("cpuprofile", "", "write a CPU profile to this file (to report a slow file)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: rlog-ls check [--format text|json] [--min-severity LEVEL] [--disable CODE,...] [--cpuprofile FILE] PATH...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "rlog-ls check: --format must be text or json, not %q\n", *format)
		return 2
	}
	min, ok := analysis.ParseSeverity(*minSev)
	if !ok {
		fmt.Fprintf(stderr, "rlog-ls check: --min-severity must be error, warning, info or hint, not %q\n", *minSev)
		return 2
	}
	cfg, unknown := analysis.DisableCodes(strings.Split(*disable, ","))
	if len(unknown) > 0 {
		fmt.Fprintf(stderr, "rlog-ls check: unknown code(s) in --disable: %s (see docs/diagnostics.md)\n", strings.Join(unknown, ", "))
		return 2
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, "rlog-ls check: no files given (try: rlog-ls check session.rlog, or a folder)")
		return 2
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %v\n", err)
			return 2
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}

	paths, ioFailed := collect(fl.Args(), stderr)
	results := checkAll(paths, cfg)
	status := 0
	if ioFailed {
		status = 2
	}
	counts := map[string]int{}
	var all []jsonFinding
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %s\n", describeIOError(r.err))
			status = 2
			continue
		}
		for _, f := range r.findings {
			sev, _ := analysis.ParseSeverity(f.Severity)
			if sev == analysis.Error && status == 0 {
				status = 1
			}
			if sev > min {
				continue
			}
			counts[f.Severity]++
			all = append(all, f)
		}
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if all == nil {
			all = []jsonFinding{}
		}
		if err := enc.Encode(all); err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %v\n", err)
			return 2
		}
		return status
	}
	for _, f := range all {
		fmt.Fprintf(stdout, "%s:%d:%d: %s %s: %s\n", f.File, f.Line, f.Column, f.Severity, f.Code, f.Message)
	}
	fmt.Fprintf(stdout, "%s checked: %s\n", plural(len(results), "file"), summary(counts))
	return status
}

// collect expands folders into the *.rlog files under them; files named
// explicitly are checked whatever their extension (ATIF and REPLAY files
// with their own validators).
func collect(args []string, stderr io.Writer) ([]string, bool) {
	var out []string
	failed := false
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %s\n", describeIOError(err))
			failed = true
			continue
		}
		if !info.IsDir() {
			out = append(out, arg)
			continue
		}
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(stderr, "rlog-ls check: %s\n", describeIOError(err))
				failed = true
				return nil
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".rlog") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			failed = true
		}
	}
	return out, failed
}

// checkAll checks files on every core and returns results in input order.
func checkAll(paths []string, cfg analysis.Config) []checkedFile {
	results := make([]checkedFile, len(paths))
	// Workers take the next file themselves: handing files out from another
	// goroutine kept a core waiting for it between files.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(paths); i = int(next.Add(1)) - 1 {
				results[i] = checkFile(paths[i], cfg)
			}
		})
	}
	wg.Wait()
	return results
}

func checkFile(path string, cfg analysis.Config) checkedFile {
	src, err := os.ReadFile(path)
	if err != nil {
		return checkedFile{path: path, err: err}
	}
	if kind := trajectoryKind(path, src); kind != "" {
		// ATIF and REPLAY files named explicitly: their own validators.
		return checkedFile{path: path, findings: validateTrajectory(path, kind, src)}
	}
	tree := grammar.Parse(src)
	r := checkedFile{path: path}
	for _, f := range analysis.Check(tree, cfg) {
		sl, sc := lineColumn(tree, f.Span.Start)
		el, ec := lineColumn(tree, f.Span.End)
		r.findings = append(r.findings, jsonFinding{
			File: path, Line: sl, Column: sc, EndLine: el, EndColumn: ec,
			Severity: f.Severity.String(), Code: f.Code, Message: f.Message,
		})
	}
	return r
}

// lineColumn converts a byte offset to a 1-based line and character column
// (an invalid byte counts as one character, as editors show it).
func lineColumn(t *grammar.Tree, off int) (int, int) {
	l := t.Line(t.LineAt(off))
	text := t.Slice(l.Start, min(off, l.End))
	return l.Num + 1, utf8.RuneCount(text) + 1
}

func describeIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return pe.Path + ": no such file or folder"
		case errors.Is(err, fs.ErrPermission):
			return pe.Path + ": permission denied"
		}
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

func summary(counts map[string]int) string {
	return fmt.Sprintf("%s, %s, %d info, %s",
		plural(counts["error"], "error"), plural(counts["warning"], "warning"), counts["info"], plural(counts["hint"], "hint"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
