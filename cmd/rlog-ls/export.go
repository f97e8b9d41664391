package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/otlp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

const exportUsage = "rlog-ls export --otlp [-o FILE|- [--force] | --endpoint URL [--protocol http/protobuf|http/json]] [--include-content] [--max-attr BYTES] PATH..."

const exportAbout = `Export sessions as OpenTelemetry traces (OTLP), on the GenAI semantic
conventions: a session is an invoke_agent span, each model response a chat
span with its tokens, each tool call an execute_tool span under it, each
sub-agent a nested invoke_agent span (docs/otel.md has the mapping).

PATH is a session file in any format rlog-ls reads, or a folder: every
session file under it (files of no known format are passed over).

-o FILE writes OTLP/JSON, one ExportTraceServiceRequest a line (what the
Collector's otlpjsonfile receiver reads), whole or not at all; -o - writes
to stdout. --endpoint URL (or OTEL_EXPORTER_OTLP_ENDPOINT) sends them to an
OTLP/HTTP receiver instead (see --help's flags and docs/otel.md).

Message contents, tool arguments and results are left out unless
--include-content is given; then every credential-like value in them is
redacted as rlog-ls redact does. Attribute values are cut to --max-attr
bytes, and the cuts reported. A session whose events have no times is
refused, with one line naming the first event without one.

Exit status: 0 every session exported, 1 some refused or rejected, 2 usage
or I/O problem (nothing is written then), 128+N after signal N.`

func exportCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("export", exportUsage, exportAbout)
	fl := cmd.fl
	asOTLP := fl.Bool("otlp", false, "export OpenTelemetry traces (OTLP); the only export for now")
	out := fl.String("o", "", "write OTLP/JSON to `file` (- for stdout)")
	force := fl.Bool("force", false, "replace an existing output file")
	content := fl.Bool("include-content", false, "add messages, tool arguments and results, redacted")
	maxAttr := fl.Int("max-attr", otlp.DefaultMaxAttr, "cap of an attribute value in `bytes`")
	protocol := fl.String("protocol", "", "with --endpoint: http/protobuf (default) or http/json (default OTEL_EXPORTER_OTLP_PROTOCOL)")
	endpoint := fl.String("endpoint", "", "send to the OTLP/HTTP receiver at `URL` (/v1/traces is added; default OTEL_EXPORTER_OTLP_ENDPOINT)")
	paths, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	fail := func(format string, a ...any) int {
		cmd.fail(stderr, format, a...)
		return 2
	}
	switch {
	case !*asOTLP:
		return fail("--otlp is required (the only export for now)")
	case len(paths) == 0:
		return fail("no sessions given (try: rlog-ls export --otlp -o traces.jsonl session.jsonl, or a folder)")
	case *maxAttr < 16:
		return fail("--max-attr must be at least 16 bytes, not %d", *maxAttr)
	}
	url := ""
	if *out == "" {
		var err error
		if url, err = otlp.Endpoint(*endpoint, os.Getenv); err != nil {
			return fail("--endpoint: %v", err)
		}
	} else if *endpoint != "" {
		return fail("-o and --endpoint go apart: write a file or send")
	}
	if *out == "" && url == "" {
		return fail("name the output: -o FILE (OTLP/JSON) or --endpoint URL (or set OTEL_EXPORTER_OTLP_ENDPOINT)")
	}
	files, failed := collectSessions(paths, stderr)
	if len(files) == 0 {
		return 2
	}
	opts := otlp.Options{IncludeContent: *content, MaxAttr: *maxAttr}
	if url != "" {
		asJSON, err := otlp.Protocol(*protocol, os.Getenv)
		if err != nil {
			return fail("%v", err)
		}
		return sendOTLP(url, asJSON, opts, files, failed, stderr)
	}
	for _, f := range files {
		if sameAsInput(f, *out, stdin) {
			return fail("%s", outputError(*out, errSameFile))
		}
	}
	o, err := openOutput("export", "", *out, *force, stdin, stdout, stderr)
	if err != nil {
		return fail("%s", outputError(*out, err))
	}
	defer o.close()

	written := &countingWriter{}
	w := io.MultiWriter(o.w, written)
	batch := &otlp.Batch{Send: func(td *tracepb.TracesData, _ int) error {
		b, err := otlp.MarshalJSON(td)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}}
	stats, rep, err := exportFiles(opts, batch, files, stderr, written.Load)
	if err != nil {
		o.failed(err)
		return fail("%v", err)
	}
	target, err := o.commit()
	if err != nil {
		return fail("%s", outputError(*out, err))
	}
	printExportSummary(stderr, stats, written.Load(), target, nil)
	fmt.Fprint(stderr, rep.Text())
	if failed || stats.Refused > 0 {
		return 1
	}
	return 0
}

// sendOTLP sends the sessions to the receiver at url, in batches.
func sendOTLP(url string, asJSON bool, opts otlp.Options, files []string, failed bool, stderr io.Writer) int {
	headers, err := otlp.Headers(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls export: %v\n", err)
		return 2
	}
	sender := &otlp.Sender{URL: url, Headers: headers, JSON: asJSON}
	var sent atomic.Int64
	batch := &otlp.Batch{Send: func(td *tracepb.TracesData, n int) error {
		err := sender.Send(td, n)
		sent.Store(sender.Bytes)
		return err
	}}
	stats, rep, err := exportFiles(opts, batch, files, stderr, sent.Load)
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls export: %v\n", err)
		printExportSummary(stderr, stats, sender.Bytes, url, sender)
		return 2
	}
	printExportSummary(stderr, stats, sender.Bytes, url, sender)
	fmt.Fprint(stderr, rep.Text())
	if failed || stats.Refused > 0 || sender.Rejected > 0 {
		return 1
	}
	return 0
}

// exportFiles exports every file to batch, printing a refused session's
// reason in one line, flushes the batch, and returns the export's figures
// and the losses of all the files. An error is one that stops the export
// (the output failed).
func exportFiles(opts otlp.Options, batch *otlp.Batch, files []string, stderr io.Writer, written func() int64) (otlp.Stats, *model.Report, error) {
	x := &otlp.Exporter{Options: opts, Out: batch}
	var total int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			total += fi.Size()
		}
	}
	var read atomic.Int64
	prog := startProgress("export", stderr, total, read.Load, written)
	defer prog.stop()
	all := &model.Report{To: "otlp"}
	for _, f := range files {
		before := x.Stats.Spans
		rep, err := x.File(f)
		if fi, statErr := os.Stat(f); statErr == nil {
			read.Add(fi.Size())
		}
		if err != nil {
			if x.Stats.Spans != before {
				// Spans went out before the failure: the output is broken.
				return x.Stats, all, fmt.Errorf("%s: %v", f, err)
			}
			fmt.Fprintf(stderr, "rlog-ls export: %s: %s\n", f, describeExportError(err))
			continue
		}
		all.MergeIn(rep, filepath.Base(f))
	}
	err := batch.Flush()
	return x.Stats, all, err
}

func describeExportError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return describeIOError(err)
	}
	return err.Error()
}

// printExportSummary is the line that ends an export.
func printExportSummary(w io.Writer, st otlp.Stats, bytes int64, target string, sent *otlp.Sender) {
	s := fmt.Sprintf("rlog-ls export: %s, %s, %s to %s", plural(st.Sessions, "session"), plural(st.Spans, "span"), analysis.ByteSize(bytes), target)
	if sent != nil {
		s += fmt.Sprintf(" in %s", plural(sent.Requests, "request"))
		if sent.Retries > 0 {
			s += fmt.Sprintf(" (%d retried)", sent.Retries)
		}
		if sent.Rejected > 0 {
			s += fmt.Sprintf(", %d spans rejected (%s)", sent.Rejected, sent.Reason)
		}
	}
	if st.Refused > 0 {
		s += fmt.Sprintf(", %d refused", st.Refused)
	}
	if st.Cut > 0 {
		s += fmt.Sprintf(", %s cut to --max-attr", plural(st.Cut, "value"))
	}
	if st.Redacted > 0 {
		s += fmt.Sprintf(", %s redacted", plural(st.Redacted, "credential"))
	}
	fmt.Fprintln(w, s)
}

// collectSessions expands folders into the session files under them:
// every rlog log and every session of another format rlog-ls reads on its
// own (pickSession). A file named explicitly
// is taken as it is (its format is checked when it is read).
func collectSessions(args []string, stderr io.Writer) ([]string, bool) {
	return collectFiles("export", args, stderr, false, "no session files", func(p string, d fs.DirEntry) error {
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir // as export always has: .git and the like
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".rlog") {
			return errTake
		}
		return pickSession(p, d)
	})
}
