package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// The pipeline of a conversion as `rlog-ls convert` and the editor run it:
// Prepare finds the formats (the source's detected, or the one named
// checked against the input) before anything is written; Run converts,
// checks the output with the target format's validator as it is written,
// and returns what was lost and what the check found. The caller opens the
// output and tells the user.

// Source is the input of a conversion: a file (Path), a stream read once
// in order (Stream: standard input), or bytes held in memory (Bytes: an
// editor's document), which can be read twice.
type Source struct {
	Path   string
	Stream io.Reader
	Bytes  []byte
	// Name is what detection and messages call a Stream or Bytes ("" for
	// an input without a name).
	Name string
}

// Job is a conversion as asked for.
type Job struct {
	Source Source
	// From is the source's format, "" to detect it. A named format is
	// checked against the input (CheckFrom) unless FromKnown says the
	// caller knows it (an editor's rlog document).
	From      Format
	FromKnown bool
	To        Format
	Options   Options
}

// Conversion is a job whose formats are known and whose input was found:
// Run runs it.
type Conversion struct {
	job      Job
	from, to FormatInfo
	size     int64
	stream   *bufio.Reader // the Stream, buffered for detection
}

// streamBuffer is what detection of a stream sees of it (DetectReader).
const streamBuffer = 64 << 10

// Prepare checks a job and finds its formats, reading no more than the
// head of the input: the target must be written by rlog-ls, and the
// options fit it; the input must be there (a file, not a folder); the
// source's format is detected, or the one named must fit the input, and
// must have a reader.
func Prepare(job Job) (*Conversion, error) {
	c := &Conversion{job: job}
	to, ok := Lookup(job.To)
	if !ok || !to.CanWrite() {
		return nil, fmt.Errorf("cannot write %q: the output formats are %s", job.To, strings.Join(Names(true), ", "))
	}
	c.to = to
	if v := job.Options.ATIFVersion; v != "" {
		if _, err := atif.ParseVersion(v); err != nil {
			return nil, fmt.Errorf("--atif-version: %v", err)
		}
		if to.Name != ATIF && to.Name != ATIFJSONL {
			return nil, errors.New("--atif-version applies to --to atif or atif-jsonl only")
		}
	}
	src := job.Source
	switch {
	case src.Path != "":
		info, err := os.Stat(src.Path)
		if err != nil {
			return nil, err
		}
		if info.IsDir() {
			return nil, fmt.Errorf("%s is a folder; convert one file at a time", src.Path)
		}
		c.size = info.Size()
	case src.Stream != nil:
		c.stream = bufio.NewReaderSize(src.Stream, streamBuffer)
	default:
		c.size = int64(len(src.Bytes))
	}
	from, err := c.sourceFormat()
	if err != nil {
		return nil, err
	}
	c.from = from
	return c, nil
}

// sourceFormat is the format of the job's input: the one named (checked
// against the input unless known), or the one detected.
func (c *Conversion) sourceFormat() (FormatInfo, error) {
	job := c.job
	if job.From != "" {
		fi, ok := Lookup(job.From)
		if !ok || !fi.CanRead() {
			return fi, fmt.Errorf("cannot read %q: the input formats are %s", job.From, strings.Join(Names(false), ", "))
		}
		if job.FromKnown {
			return fi, nil
		}
		h, err := c.head()
		if err != nil {
			return fi, err
		}
		return fi, checkFrom(job.From, h)
	}
	h, err := c.head()
	if err != nil {
		return FormatInfo{}, err
	}
	f, err := detect(h)
	if err != nil {
		return FormatInfo{}, err
	}
	fi, _ := Lookup(f)
	if !fi.CanRead() {
		return fi, fmt.Errorf("%s is a %s (%s): %w", c.inputName(), fi.Description, fi.Name, ErrNoReader)
	}
	return fi, nil
}

// head is what detection sees of the input.
func (c *Conversion) head() (*Head, error) {
	src := c.job.Source
	switch {
	case src.Path != "":
		return ReadHead(src.Path)
	case c.stream != nil:
		return peekHead(src.Name, c.stream)
	}
	return scanHead(src.Name, src.Bytes, nil), nil
}

// inputName names the input in messages.
func (c *Conversion) inputName() string {
	switch {
	case c.job.Source.Path != "":
		return filepath.Base(c.job.Source.Path)
	case c.job.Source.Name != "":
		return c.job.Source.Name
	}
	return "the input"
}

// From is the source's format, detected or named.
func (c *Conversion) From() Format { return c.from.Name }

// To is the target's format.
func (c *Conversion) To() Format { return c.to.Name }

// Size is the input's size in bytes (0 for a stream), for progress.
func (c *Conversion) Size() int64 { return c.size }

// Result is what a conversion did.
type Result struct {
	From, To Format
	// Report lists what could not be carried over.
	Report *Report
	// Check is the output's check by the target format's validator
	// (empty for a format without one): the first findings, and how many
	// more; CheckErr is set when the validator could not read the output.
	Check    *Findings
	CheckErr error
}

// maxCheckFindings is how many of the output check's findings a result
// keeps; the rest are counted.
const maxCheckFindings = 20

// Problems are the output check's findings for people, one a line, and
// how many more there were and why the check failed; nil for an output
// that checks clean.
func (r *Result) Problems() []string {
	var out []string
	if r.Check != nil {
		for _, f := range r.Check.List {
			out = append(out, f.String())
		}
		if r.Check.Extra > 0 {
			out = append(out, fmt.Sprintf("%d more", r.Check.Extra))
		}
	}
	if r.CheckErr != nil {
		out = append(out, r.CheckErr.Error())
	}
	return out
}

// Malformed reports whether the input had records that could not be read.
func (r *Result) Malformed() bool { return r.Report != nil && r.Report.Count(model.LossMalformed) > 0 }

// Run converts the input into w, streaming, and checks the output as it
// is written with the target format's validator (neither holds the whole
// output). The result comes back even with an error; w has all of the
// output only when there is none.
func (c *Conversion) Run(w io.Writer) (*Result, error) {
	res := &Result{From: c.from.Name, To: c.to.Name}
	pr, pw := io.Pipe()
	type check struct {
		found *Findings
		err   error
	}
	checked := make(chan check, 1)
	go func() {
		found, err := CheckOutput(c.to.Name, pr, maxCheckFindings)
		io.Copy(io.Discard, pr) // a validator that stopped early must not stop the writing
		checked <- check{found, err}
	}()
	bw := bufio.NewWriterSize(io.MultiWriter(w, pw), 64<<10)
	var err error
	src, opts := c.job.Source, c.job.Options
	switch {
	case src.Path != "":
		res.Report, err = ConvertFile(src.Path, c.from.Name, c.to.Name, bw, opts)
	case c.stream != nil:
		res.Report, err = Convert(c.stream, c.from.Name, c.to.Name, bw, opts)
	default:
		res.Report, err = Convert(bytes.NewReader(src.Bytes), c.from.Name, c.to.Name, bw, opts)
	}
	if err == nil {
		err = bw.Flush()
	}
	pw.Close()
	ch := <-checked
	res.Check, res.CheckErr = ch.found, ch.err
	return res, err
}
