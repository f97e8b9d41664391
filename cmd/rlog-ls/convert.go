package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/replay"
	"github.com/rlog-ls/rlog-ls/grammar"
)

const convertUsage = "rlog-ls convert [--from FORMAT] --to FORMAT INPUT|- [-o OUTPUT|-] [--force] [--report text|json] [--atif-version 1.5|1.6|1.7] [--repo-sha SHA]"

const convertAbout = `Convert a session log between rlog and the trajectory formats. The input
format is detected unless --from names it. INPUT - (or /dev/stdin) reads
standard input. The output goes beside the input with the format's extension
(to stdout for stdin) unless -o names it (-o - is stdout), never over the
input, never over an existing file without --force, and is written whole or
not at all: a failure or a signal (Ctrl-C) leaves nothing. What could not be
carried over is reported on stderr; on a terminal, a long conversion shows
its progress there.

Exit status: 0 done, 1 done but the input had records that could not be read
(or the output failed its format's validator), 2 usage or I/O problem, 128+N
after signal N.`

var shaPattern = regexp.MustCompile(`^[0-9a-fA-F]{6,40}$`)

// convertCmd is `rlog-ls convert`. Exit status: 0 when the conversion is
// done, 1 when it is done but the input had records that could not be read
// (malformed_input in the report) or the output fails its format's own
// validator, 2 for usage and I/O problems (nothing is written then), 128+N
// after signal N (nothing is written then either).
//
// The input "-" (or /dev/stdin) is standard input, whose format is then
// detected from what is read first; its output goes to standard output
// unless -o names a file. The output is streamed into a temporary file
// beside the target, which becomes the target only when the conversion
// succeeds: a failure, an interrupt or a termination leaves nothing.
func convertCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("convert", convertUsage, convertAbout)
	fl := cmd.fl
	from := fl.String("from", "", "input `format` (detected when absent): "+formatNames(false))
	to := fl.String("to", "", "output `format`: "+formatNames(true))
	out := fl.String("o", "", "output `file`, or - for stdout (default: beside the input, with the format's extension; stdout for stdin)")
	force := fl.Bool("force", false, "replace an existing output file (never the input)")
	report := fl.String("report", "text", "loss report on stderr: text or json (`format`)")
	atifVersion := fl.String("atif-version", "", "ATIF `version` to write: 1.5 (default), 1.6 or 1.7")
	repoSHA := fl.String("repo-sha", "", "repo_sha for rlog output when the source has none (6-40 hex characters: `sha`)")
	input, exit, done := cmd.oneInput(args, stdout, stderr)
	if done {
		return exit
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rlog-ls convert: "+format+"\n", a...)
		return 2
	}
	switch {
	case *to == "":
		return fail("--to is required: one of %s", formatNames(true))
	case *report != "text" && *report != "json":
		return fail("--report must be text or json, not %q", *report)
	case *repoSHA != "" && !shaPattern.MatchString(*repoSHA):
		return fail("--repo-sha must be 6 to 40 hex characters, not %q", *repoSHA)
	}
	toInfo, ok := convert.Lookup(convert.Format(*to))
	if !ok || !toInfo.CanWrite() {
		return fail("cannot write %q: the output formats are %s", *to, formatNames(true))
	}
	if *atifVersion != "" {
		if _, err := atif.ParseVersion(*atifVersion); err != nil {
			return fail("--atif-version: %v", err)
		}
		if toInfo.Name != convert.ATIF && toInfo.Name != convert.ATIFJSONL {
			return fail("--atif-version applies to --to atif or atif-jsonl only")
		}
	}
	fromStdin := isStdin(input)
	name := input
	var size int64
	var in *bufio.Reader
	if fromStdin {
		name = stdinName
		in = bufio.NewReaderSize(stdin, 64<<10)
	} else {
		info, err := os.Stat(input)
		if err != nil {
			return fail("%s", describeIOError(err))
		}
		if info.IsDir() {
			return fail("%s is a folder; convert one file at a time", input)
		}
		size = info.Size()
	}
	src := convert.Format(*from)
	if src == "" {
		var err error
		if fromStdin {
			src, err = convert.DetectReader("stdin", in)
		} else {
			src, err = detectFile(input)
		}
		if err != nil {
			return fail("%v (name the format with --from)", err)
		}
	} else if fi, ok := convert.Lookup(src); !ok || !fi.CanRead() {
		return fail("cannot read %q: the input formats are %s", *from, formatNames(false))
	}

	target := *out
	if target == "" {
		target = "-"
		if !fromStdin {
			target = convert.OutputPath(input, toInfo.Name)
		}
	}
	o, err := openOutput("convert", input, target, *force, stdin, stdout, stderr)
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	defer o.close()

	// The output goes to its file (or stdout) and, as it is written, to
	// its format's validator, so neither holds the whole output.
	var read atomic.Int64
	opts := convert.Options{ATIFVersion: *atifVersion, RepoSHA: *repoSHA, OnRead: func(n int64) { read.Store(n) }}
	pr, pw := io.Pipe()
	problems := make(chan []string, 1)
	go func() {
		p := validateOutput(toInfo.Name, pr)
		io.Copy(io.Discard, pr)
		problems <- p
	}()
	written := &countingWriter{}
	bw := bufio.NewWriterSize(io.MultiWriter(o.w, pw, written), 64<<10)
	prog := startProgress("convert", stderr, size, read.Load, written.Load)
	var rep *convert.Report
	if fromStdin {
		rep, err = convert.Convert(in, src, toInfo.Name, bw, opts)
	} else {
		rep, err = convert.ConvertFile(input, src, toInfo.Name, bw, opts)
	}
	if err == nil {
		err = bw.Flush()
	}
	pw.Close()
	found := <-problems
	prog.stop()
	if err != nil {
		o.failed(err)
		printReport(stderr, rep, *report)
		return fail("%s: %v", name, err)
	}
	status := 0
	if rep.Count(model.LossMalformed) > 0 {
		status = 1
	}
	for _, p := range found {
		fmt.Fprintf(stderr, "rlog-ls convert: output check: %s\n", p)
		status = 1
	}
	writtenPath, err := o.commit()
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	if *report == "text" && o.file != nil {
		fmt.Fprintf(stderr, "rlog-ls convert: wrote %s (%s -> %s)\n", writtenPath, src, toInfo.Name)
	}
	printReport(stderr, rep, *report)
	return status
}

// countingWriter counts what goes through it, for progress.
type countingWriter struct{ n atomic.Int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return len(p), nil
}

// Load is the count so far.
func (c *countingWriter) Load() int64 { return c.n.Load() }

func printReport(w io.Writer, rep *convert.Report, format string) {
	if rep == nil {
		return
	}
	if format == "json" {
		fmt.Fprintf(w, "%s\n", rep.JSON())
		return
	}
	fmt.Fprint(w, rep.Text())
}

// detectFile detects the format of a file from its name and first 64 KB.
func detectFile(path string) (convert.Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	return convert.Detect(path, head[:n])
}

func formatNames(write bool) string {
	var names []string
	for _, f := range convert.Formats() {
		if write && f.CanWrite() || !write && f.CanRead() {
			names = append(names, string(f.Name))
		}
	}
	return strings.Join(names, ", ")
}

// validateOutput checks converted output, read from r as it is written,
// with its format's own rules: the ATIF and REPLAY validators, and
// rlog-ls's own rules for rlog (errors only: warnings on an rlog output
// mirror its source). The formats that are one document are read whole.
func validateOutput(to convert.Format, r io.Reader) []string {
	var out []string
	switch to {
	case convert.ATIF:
		data, err := io.ReadAll(r)
		if err != nil {
			return []string{err.Error()}
		}
		for _, f := range atif.Validate(data) {
			out = append(out, f.String())
		}
	case convert.ATIFJSONL:
		fs, err := atif.ValidateJSONL(r)
		if err != nil {
			out = append(out, err.Error())
		}
		for _, f := range fs {
			out = append(out, f.String())
		}
	case convert.Replay:
		fs, err := replay.Validate(r)
		if err != nil {
			out = append(out, err.Error())
		}
		for _, f := range fs {
			out = append(out, f.String())
		}
	case convert.Rlog:
		data, err := io.ReadAll(r)
		if err != nil {
			return []string{err.Error()}
		}
		for _, f := range analysis.Check(grammar.Parse(data), analysis.Config{}) {
			if f.Severity == analysis.Error {
				out = append(out, f.Code+" "+f.Message)
			}
		}
	}
	return out
}

// trajectoryKind tells which validator a file named explicitly to check
// needs: "atif-jsonl" for *.atif.jsonl, "replay" for REPLAY.jsonl and
// *.replay.jsonl, "atif" for a *.json whose content is ATIF; "" for rlog.
func trajectoryKind(path string, src []byte) convert.Format {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(base, ".atif.jsonl"):
		return convert.ATIFJSONL
	case base == "replay.jsonl" || strings.HasSuffix(base, ".replay.jsonl"):
		return convert.Replay
	case strings.HasSuffix(base, ".json"):
		if f, err := convert.Detect(path, src[:min(len(src), 64<<10)]); err == nil && f == convert.ATIF {
			return convert.ATIF
		}
	}
	return ""
}

// validateTrajectory runs a format's validator and reports its findings in
// check's shape: errors with the code ATIF or REPLAY, on the finding's line
// (line 1 for whole-document ATIF, whose findings carry a JSON path).
func validateTrajectory(path string, kind convert.Format, src []byte) []jsonFinding {
	type finding struct {
		line int
		msg  string
	}
	var fs []finding
	code := "ATIF"
	switch kind {
	case convert.ATIF:
		for _, f := range atif.Validate(src) {
			fs = append(fs, finding{f.Line, f.Path + ": " + f.Message})
		}
	case convert.ATIFJSONL:
		got, err := atif.ValidateJSONL(bytes.NewReader(src))
		if err != nil {
			fs = append(fs, finding{0, err.Error()})
		}
		for _, f := range got {
			fs = append(fs, finding{f.Line, f.Path + ": " + f.Message})
		}
	case convert.Replay:
		code = "REPLAY"
		got, err := replay.Validate(bytes.NewReader(src))
		if err != nil {
			fs = append(fs, finding{0, err.Error()})
		}
		for _, f := range got {
			msg := f.Message
			if f.Path != "" {
				msg = f.Path + ": " + msg
			}
			fs = append(fs, finding{f.Line, msg})
		}
	}
	out := make([]jsonFinding, 0, len(fs))
	for _, f := range fs {
		line := max(f.line, 1)
		out = append(out, jsonFinding{File: path, Line: line, Column: 1, EndLine: line, EndColumn: 1,
			Severity: "error", Code: code, Message: f.msg})
	}
	return out
}
