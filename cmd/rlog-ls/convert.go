package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

const convertUsage = "rlog-ls convert [--from FORMAT] --to FORMAT INPUT|- [-o OUTPUT|-] [--force] [--report text|json] [--atif-version 1.5|1.6|1.7] [--repo-sha SHA]"

const convertAbout = `Convert a session log between rlog and the trajectory formats. The input
format is detected unless --from names it. INPUT - (or /dev/stdin) reads
standard input. The output goes beside the input with the format's extension
(to stdout for stdin) unless -o names it (-o - is stdout), never over the
input, never over an existing file without --force, and is written whole or
not at all: a failure or a signal (Ctrl-C) leaves nothing. An rlog log with
its companion beside it (NAME.jsonl) takes the whole records from it where the
log cut them (docs/companions.md). What could not be carried over is reported
on stderr; on a terminal, a long conversion shows its progress there.

Exit status: 0 done, 1 done but the input had records that could not be read
(or the output failed its format's validator), 2 usage or I/O problem, 128+N
after signal N.`

// convertMemoryLimit is the soft memory limit of a conversion.
const convertMemoryLimit = 128 << 20

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
	fail := cmd.failure(stderr)
	switch {
	case *to == "":
		return fail("--to is required: one of %s", formatNames(true))
	case *report != "text" && *report != "json":
		return fail("--report must be text or json, not %q", *report)
	case *repoSHA != "" && !shaPattern.MatchString(*repoSHA):
		return fail("--repo-sha must be 6 to 40 hex characters, not %q", *repoSHA)
	}
	var read atomic.Int64
	job := convert.Job{From: convert.Format(*from), To: convert.Format(*to),
		Options: convert.Options{ATIFVersion: *atifVersion, RepoSHA: *repoSHA, OnRead: func(n int64) { read.Store(n) }}}
	fromStdin := isStdin(input)
	name := input
	if fromStdin {
		name = stdinName
		job.Source = convert.Source{Stream: stdin, Name: "stdin"}
	} else {
		job.Source = convert.Source{Path: input}
		job.Options.Complete = completer(input, job.From, job.To)
	}
	conv, err := convert.Prepare(job)
	switch {
	case errors.Is(err, convert.ErrUndetected):
		return fail("%v (name the format with --from)", err)
	case err != nil:
		return fail("%s", describeIOError(err))
	}

	target := *out
	if target == "" {
		target = "-"
		if !fromStdin {
			target = convert.OutputPath(input, conv.To())
		}
	}
	o, err := openOutput("convert", input, target, *force, stdin, stdout, stderr)
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	defer o.close()

	if os.Getenv("GOMEMLIMIT") == "" {
		// A conversion streams: it holds a few megabytes and the sets of
		// ids that need the whole session. On a busy machine the collector
		// can fall behind the allocations and let the heap grow far past
		// that; a soft limit makes it catch up instead.
		debug.SetMemoryLimit(convertMemoryLimit)
	}
	written := &countingWriter{}
	prog := startProgress("convert", stderr, conv.Size(), read.Load, written.Load)
	res, err := conv.Run(io.MultiWriter(o.w, written))
	prog.stop()
	if err != nil {
		o.failed(err)
		printReport(stderr, res.Report, *report)
		return fail("%s: %v", name, err)
	}
	status := 0
	if res.Malformed() {
		status = 1
	}
	for _, p := range res.Problems() {
		fmt.Fprintf(stderr, "rlog-ls convert: output check: %s\n", p)
		status = 1
	}
	writtenPath, err := o.commit()
	if err != nil {
		return fail("%s", outputError(target, err))
	}
	if *report == "text" && o.file != nil {
		fmt.Fprintf(stderr, "rlog-ls convert: wrote %s (%s -> %s)\n", writtenPath, res.From, res.To)
	}
	printReport(stderr, res.Report, *report)
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

func formatNames(write bool) string { return strings.Join(convert.Names(write), ", ") }

// completer is what completes a conversion of the log at path from its
// companion (companion.Completer), for an rlog log converted to another
// format; nil otherwise.
func completer(path string, from, to convert.Format) func(model.Sink, *model.Report) model.Sink {
	if from == "" {
		from, _ = convert.DetectFile(path)
	}
	if from != convert.Rlog || to == convert.Rlog {
		return nil
	}
	complete, _ := companion.Completer(path)
	return complete
}
