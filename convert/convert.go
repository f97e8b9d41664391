// Package convert converts agent session logs between rlog and the
// trajectory formats next to it. Every format is one entry of one table
// (FormatInfo): its names, how to detect it, a streaming reader, a
// streaming writer and a validator, each in the format's own package over
// the shared session model (convert/model). The command line and the
// editor know the formats through this table only.
//
// The model types are re-exported here as aliases so that callers need only
// this package.
package convert

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/codex"
	"github.com/rlog-ls/rlog-ls/convert/gemini"
	"github.com/rlog-ls/rlog-ls/convert/miniswe"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/prophet"
	"github.com/rlog-ls/rlog-ls/convert/replay"
	"github.com/rlog-ls/rlog-ls/convert/replaybundle"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/convert/sdkjsonl"
	"github.com/rlog-ls/rlog-ls/convert/trajectory"
)

// Aliases of the model, so callers need only this package.
type (
	Session = model.Session
	Header  = model.Header
	Event   = model.Event
	Report  = model.Report
	Loss    = model.Loss
	Options = model.Options
	Finding = model.Finding
	Rule    = model.Rule
	// Head is what detection sees of an input; Evidence how strongly a
	// format's probe claims it.
	Head     = model.Head
	Evidence = model.Evidence
	// Link ties a session's file to the file of a sub-agent it started.
	Link = model.Link
)

// Format is a format name as the CLI spells it.
type Format string

// The formats.
const (
	Rlog       Format = rlogfmt.Name
	Claude     Format = claude.Name
	SDKJSONL   Format = sdkjsonl.Name
	Trajectory Format = trajectory.Name
	ATIF       Format = atif.Name
	ATIFJSONL  Format = atif.NameJSONL
	Replay     Format = replay.Name
	Prophet    Format = prophet.Name
	MiniSWE    Format = miniswe.Name
	// ReplayBundle is the replay viewer's document, not REPLAY.jsonl.
	ReplayBundle Format = replaybundle.Name
	// Codex CLI rollouts and Gemini CLI sessions are read only.
	Codex  Format = codex.Name
	Gemini Format = gemini.Name
)

// ReadFunc reads a whole input into a sink, reporting losses.
type ReadFunc func(r io.Reader, sink model.Sink, rep *model.Report) error

// WriterFunc returns a sink that writes a session to w as it arrives.
type WriterFunc func(w io.Writer, rep *model.Report, opt model.Options) (model.Sink, error)

// ValidateFunc checks an input with a format's rules and reports each
// finding; the error is for input it could not read at all.
type ValidateFunc func(r io.Reader, report func(model.Finding)) error

// FormatInfo is everything about one format. Adding a format is adding
// one entry to the table (and its package).
type FormatInfo struct {
	Name        Format
	Description string
	// JSON is set for formats that are JSON or JSON Lines.
	JSON bool
	// Names are the file names that name the format, as patterns on the
	// lower-case base name ("*.atif.jsonl", "replay.jsonl"). Content
	// decides; a name only covers an empty or unrecognisable file.
	Names []string
	// Extension ends the default output names (OutputPath). It names the
	// format, so that an output never takes a companion file's name.
	Extension string
	// Detect judges from the start of an input (Head) how strongly it is
	// this format, looking only at this format's own evidence: detection
	// ranks the claims of every format (see detect.go).
	Detect func(h *Head) model.Evidence
	// Read streams an input into a sink. ReadNamed, when set, reads a
	// file's content from r together with what lies beside the file at
	// path (sub-agent transcripts).
	Read      ReadFunc
	ReadNamed func(r io.Reader, path string, sink model.Sink, rep *model.Report) error
	// PartOf, when set, reports whether a file of this format found in a
	// folder belongs to another session's file, which reads it (a
	// sub-agent's transcript, a copy the agent migrated): a folder's
	// sessions (SessionFile) leave it out, or it would count twice.
	PartOf func(path string) bool
	// Subagents, when set, lists the files of the sub-agents a session
	// file of this format started, in the order they started; ParentOf
	// the file of the session that started the sub-agent whose file it
	// is (ok false for a file no session started). Both look only at
	// what the files say of their links (first records, meta files,
	// the lines that start a sub-agent), never at a whole session.
	Subagents func(path string) ([]model.Link, error)
	ParentOf  func(path string) (model.Link, bool, error)
	// NewWriter returns a sink that writes as events arrive.
	NewWriter WriterFunc
	// TotalsFirst says the writer puts the session's token totals at the
	// start of its output (rlog's header, ATIF-JSONL's header line) when it
	// knows them then: an input that can be read twice is read once before
	// to find them (Options.Totals).
	TotalsFirst bool
	// Validate checks a file with the rules its own ecosystem applies, and
	// Rules lists those rules (their codes are in docs/diagnostics.md).
	Validate ValidateFunc
	Rules    []model.Rule
	// Export is the title of the editor's action that converts an rlog
	// document to this format; "" when the editor does not offer it.
	Export string
}

// CanRead reports whether the format has a reader.
func (f FormatInfo) CanRead() bool { return f.Read != nil }

// CanWrite reports whether the format has a writer.
func (f FormatInfo) CanWrite() bool { return f.NewWriter != nil }

// NamedBy reports whether a file called name (any case, any folder) is
// named like this format's files.
func (f FormatInfo) NamedBy(name string) bool {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/")))
	for _, p := range f.Names {
		if ok, _ := path.Match(p, base); ok {
			return true
		}
	}
	return false
}

// sinkOf is a writer's constructor, which cannot fail, as the table's
// WriterFunc.
func sinkOf[W model.Sink](newWriter func(io.Writer, *model.Report, model.Options) W) WriterFunc {
	return func(w io.Writer, rep *model.Report, opt model.Options) (model.Sink, error) {
		return newWriter(w, rep, opt), nil
	}
}

// sinkOrError is sinkOf for a constructor that refuses options it cannot
// honour (ATIF's version).
func sinkOrError[W model.Sink](newWriter func(io.Writer, *model.Report, model.Options) (W, error)) WriterFunc {
	return func(w io.Writer, rep *model.Report, opt model.Options) (model.Sink, error) {
		return newWriter(w, rep, opt)
	}
}

var formats = []FormatInfo{
	{
		Name: Rlog, Description: "rlog/1 session log",
		Names: []string{"*.rlog"}, Extension: ".converted.rlog",
		Detect: rlogfmt.Detect,
		Read:   rlogfmt.Read,
		// Subagents: rlogSubagents, set by init (it reads the table).
		NewWriter:   sinkOf(rlogfmt.NewWriter),
		TotalsFirst: true,
		Validate:    validateRlog, Rules: rlogRules(),
	},
	{
		Name: ATIF, Description: "ATIF v1.0-v1.7 (writes v1.5, or 1.6/1.7 on request)", JSON: true,
		Names: []string{"*.atif.json", "*.trajectory.json"}, Extension: ".atif.json",
		Detect:    atif.Detect,
		Read:      atif.Read,
		Subagents: atif.Subagents, ParentOf: atif.ParentOf,
		NewWriter: sinkOrError(atif.NewWriter),
		Validate:  atif.Validate, Rules: atif.Rules,
		Export: "Convert to ATIF",
	},
	{
		Name: ATIFJSONL, Description: "streaming ATIF-JSONL (header line + one step per line)", JSON: true,
		Names: []string{"*.atif.jsonl"}, Extension: ".atif.jsonl",
		Detect:    atif.DetectJSONL,
		Read:      atif.ReadJSONL,
		Subagents: atif.SubagentsJSONL, ParentOf: atif.ParentOf,
		NewWriter:   sinkOrError(atif.NewJSONLWriter),
		TotalsFirst: true,
		Validate:    atif.ValidateJSONL, Rules: atif.Rules,
		Export: "Export ATIF-JSONL",
	},
	{
		Name: Replay, Description: "REPLAY.jsonl v1 (canonical, event-tagged)", JSON: true,
		Names: []string{"replay.jsonl", "*.replay.jsonl"}, Extension: ".replay.jsonl",
		Detect:    replay.Detect,
		Read:      replay.Read,
		NewWriter: sinkOf(replay.NewWriter),
		Validate:  replay.Validate, Rules: replay.Rules,
		Export: "Export REPLAY.jsonl",
	},
	{
		Name: Claude, Description: "Claude Code session JSONL", JSON: true,
		Names: []string{"*.claude.jsonl"}, Extension: ".claude.jsonl",
		Detect:    claude.Detect,
		Read:      claude.Read,
		ReadNamed: claude.ReadNamed,
		PartOf:    claude.PartOf,
		Subagents: claude.Subagents, ParentOf: claude.ParentOf,
		NewWriter: sinkOf(claude.NewWriter),
		Export:    "Export Claude Code JSONL",
	},
	{
		Name: SDKJSONL, Description: "autopilot JSONL companion (Agent SDK messages), read only", JSON: true,
		Detect:    sdkjsonl.Detect,
		Read:      sdkjsonl.Read,
		Subagents: sdkjsonl.Subagents, ParentOf: sdkjsonl.ParentOf,
	},
	{
		Name: Trajectory, Description: "autopilot trajectory JSON", JSON: true,
		Names: []string{"*.autopilot.json"}, Extension: ".autopilot.json",
		Detect:    trajectory.Detect,
		Read:      trajectory.Read,
		Subagents: sdkjsonl.Subagents,
		NewWriter: sinkOf(trajectory.NewWriter),
		Export:    "Export trajectory JSON",
	},
	{
		Name: Prophet, Description: "mini-prophet trajectory.json", JSON: true,
		Names: []string{"*.prophet.json"}, Extension: ".prophet.json",
		Detect:    prophet.Detect,
		Read:      prophet.Read,
		NewWriter: sinkOf(prophet.NewWriter),
		Export:    "Export mini-prophet trajectory",
	},
	{
		Name: MiniSWE, Description: "mini-swe-agent trajectory (read only)", JSON: true,
		Names:  []string{"*.traj.json", "*mini-swe-agent*.json"},
		Detect: miniswe.Detect,
		Read:   miniswe.Read,
	},
	{
		Name: ReplayBundle, Description: "autopilot ReplayBundle (replay viewer JSON, read only)", JSON: true,
		Names:  []string{"*-replay.json", "*.replay.json"},
		Detect: replaybundle.Detect,
		Read:   replaybundle.Read,
	},
	{
		Name: Codex, Description: "Codex CLI rollout", JSON: true,
		Names:     []string{"rollout-*.jsonl"},
		Detect:    codex.Detect,
		Read:      codex.Read,
		ReadNamed: codex.ReadNamed,
		Subagents: codex.Subagents, ParentOf: codex.ParentOf,
	},
	{
		Name: Gemini, Description: "Gemini CLI session", JSON: true,
		Detect:    gemini.Detect,
		Read:      gemini.Read,
		ReadNamed: gemini.ReadNamed,
		PartOf:    func(path string) bool { return !gemini.OwnSession(path) },
		Subagents: gemini.Subagents, ParentOf: gemini.ParentOf,
	},
}

// SessionFile reports whether the file at path, found in a folder, is a
// session rlog-ls reads on its own (not an rlog log: those are read as
// they are), and its format: a file of a format with a reader that is
// not part of another session's file (FormatInfo.PartOf).
func SessionFile(path string) (Format, bool) {
	if rlogNamed(path) {
		return "", false
	}
	return DetectedFile(path).Session()
}

// ReadableFile reports whether the file at path, named on its own, is a
// session in a format other than rlog that rlog-ls reads (a Claude Code
// transcript, an ATIF trajectory ...), and its format: then check, stats
// and report read its rlog view. A .rlog file is rlog without a look.
// Unlike SessionFile, a file that is part of another session's (a Gemini
// CLI sub-agent's) is read too: the user named it.
func ReadableFile(path string) (Format, bool) {
	if rlogNamed(path) {
		return "", false
	}
	return DetectedFile(path).Readable()
}

// Detected is what one look at the head of the file at Path says: its
// format as DetectFile tells it, or the error it gives. Its methods answer
// what ReadableFile, SessionFile, Subagents and ParentOf answer of the
// file, each of which looks at the head again: the sessions index asks all
// four of every file it reads, and looks once.
type Detected struct {
	Path   string
	Format Format
	Err    error
}

// DetectedFile looks at the head of the file at path (DetectFile), a .rlog
// file's too (its links are those of the format its content has).
func DetectedFile(path string) Detected {
	f, err := DetectFile(path)
	return Detected{Path: path, Format: f, Err: err}
}

// rlogNamed says path is named as an rlog log (.rlog, any case).
func rlogNamed(path string) bool { return strings.EqualFold(filepath.Ext(path), ".rlog") }

// Readable is ReadableFile of the file d looked at.
func (d Detected) Readable() (Format, bool) {
	if rlogNamed(d.Path) || d.Err != nil || d.Format == Rlog {
		return "", false
	}
	fi, _ := Lookup(d.Format)
	return d.Format, fi.CanRead()
}

// Session is SessionFile of the file d looked at.
func (d Detected) Session() (Format, bool) {
	f, ok := d.Readable()
	if !ok {
		return "", false
	}
	if fi, _ := Lookup(f); fi.PartOf != nil && fi.PartOf(d.Path) {
		return "", false
	}
	return f, true
}

// Formats lists every known format, readers and writers alike.
func Formats() []FormatInfo { return append([]FormatInfo(nil), formats...) }

// Lookup returns the format named name.
func Lookup(name Format) (FormatInfo, bool) {
	for _, f := range formats {
		if f.Name == name {
			return f, true
		}
	}
	return FormatInfo{}, false
}

// Names lists the names of the formats that can be read (write false) or
// written (write true), for usage texts.
func Names(write bool) []string {
	var out []string
	for _, f := range formats {
		if write && f.CanWrite() || !write && f.CanRead() {
			out = append(out, string(f.Name))
		}
	}
	return out
}

// ErrUnknownFormat is returned for a name that is no format.
var ErrUnknownFormat = errors.New("unknown format")

// ErrNoReader is returned for a format rlog-ls detects but cannot read
// yet.
var ErrNoReader = errors.New("no reader yet")

func readable(from Format) (FormatInfo, error) {
	fi, ok := Lookup(from)
	if !ok {
		return fi, fmt.Errorf("%w %q", ErrUnknownFormat, from)
	}
	if fi.Read == nil {
		return fi, fmt.Errorf("%w for %s (%s)", ErrNoReader, from, fi.Description)
	}
	return fi, nil
}

// Read reads r as format from into a Session (for tests and small inputs:
// it holds everything).
func Read(r io.Reader, from Format) (*Session, *Report, error) {
	fi, err := readable(from)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{From: string(from)}
	var c model.Collector
	if err := fi.Read(r, &c, rep); err != nil {
		return nil, rep, err
	}
	return &c.Session, rep, nil
}

// ReadFile streams the session in the file at path, read as format from,
// into sink, with what lies beside the file when the format reads it
// (ReadNamed: Claude Code's sub-agent transcripts, Codex's and Gemini
// CLI's sub-agents), as ConvertFile reads it. Events carry their place
// (Loc): the record's line, and the sub-agent's file relative to path's
// folder for a sub-agent's events.
func ReadFile(path string, from Format, sink model.Sink, rep *model.Report) error {
	fi, err := readable(from)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi.ReadNamed != nil {
		return fi.ReadNamed(f, path, sink, rep)
	}
	return fi.Read(f, sink, rep)
}

// Write writes s as format to.
func Write(w io.Writer, s *Session, to Format, opts Options) (*Report, error) {
	rep := &Report{From: s.Header.SourceFormat, To: string(to), Events: len(s.Events)}
	sink, err := NewWriter(w, to, rep, opts)
	if err != nil {
		return nil, err
	}
	return rep, model.Replay(s, sink)
}

// NewWriter returns the streaming writer of format to.
func NewWriter(w io.Writer, to Format, rep *Report, opts Options) (model.Sink, error) {
	ti, ok := Lookup(to)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, to)
	}
	if ti.NewWriter == nil {
		return nil, fmt.Errorf("format %s cannot be written", to)
	}
	return ti.NewWriter(w, rep, opts)
}

// Convert reads r as from and writes it to w as to, event by event: the
// session is never held in memory. The report lists what was lost; it is
// returned even with an error. An r that can seek (a file, bytes) is read
// twice when the target writes the session's totals first (TotalsFirst);
// other input (standard input) is read once, and the totals come at the
// end.
func Convert(r io.Reader, from, to Format, w io.Writer, opts Options) (*Report, error) {
	fi, err := readable(from)
	if err != nil {
		return nil, err
	}
	if rs, ok := r.(io.ReadSeeker); ok && totalsFirst(from, to, opts) {
		start, err := rs.Seek(0, io.SeekCurrent)
		if err == nil {
			opts.Totals, opts.TotalsStated, err = sessionTotals(func(sink model.Sink, rep *model.Report) error { return fi.Read(rs, sink, rep) })
		}
		if err == nil {
			_, err = rs.Seek(start, io.SeekStart)
		}
		if err != nil {
			return nil, err
		}
	}
	r = counting(r, opts)
	return convertWith(func(sink model.Sink, rep *model.Report) error { return fi.Read(r, sink, rep) }, from, to, w, opts)
}

// ConvertFile is Convert over a file. Formats with a ReadNamed read what
// lies beside the file too (Claude Code's subagents/agent-*.jsonl).
func ConvertFile(path string, from, to Format, w io.Writer, opts Options) (*Report, error) {
	fi, err := readable(from)
	if err != nil {
		return nil, err
	}
	if fi.ReadNamed == nil {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return Convert(f, from, to, w, opts)
	}
	read := func(r io.Reader) func(model.Sink, *model.Report) error {
		return func(sink model.Sink, rep *model.Report) error { return fi.ReadNamed(r, path, sink, rep) }
	}
	if totalsFirst(from, to, opts) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		opts.Totals, opts.TotalsStated, err = sessionTotals(read(f))
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return convertWith(read(counting(f, opts)), from, to, w, opts)
}

// ConvertPart is ConvertFile over a part of the file at path, which r
// holds from where the part starts (the sessions index reads a grown
// transcript from where it stopped): a format with a ReadNamed reads what
// lies beside the file as it does for the whole. r is read once, so a
// target that wants the totals first must be given them (opts.Totals).
func ConvertPart(r io.Reader, path string, from, to Format, w io.Writer, opts Options) (*Report, error) {
	fi, err := readable(from)
	if err != nil {
		return nil, err
	}
	if totalsFirst(from, to, opts) {
		return nil, fmt.Errorf("a part of %s is read once: %s wants the totals first", path, to)
	}
	r = counting(r, opts)
	if fi.ReadNamed == nil {
		return convertWith(func(sink model.Sink, rep *model.Report) error { return fi.Read(r, sink, rep) }, from, to, w, opts)
	}
	return convertWith(func(sink model.Sink, rep *model.Report) error { return fi.ReadNamed(r, path, sink, rep) }, from, to, w, opts)
}

// totalsFirst reports whether a conversion to format to wants the
// session's totals before its events (and does not have them yet). From
// rlog to rlog the header is the source's own.
func totalsFirst(from, to Format, opts Options) bool {
	ti, ok := Lookup(to)
	return ok && ti.TotalsFirst && opts.Totals == nil && !(from == Rlog && to == Rlog)
}

// sessionTotals reads a session once for its token totals, as a writer
// reports them at its end (model.Totals): what the source states, else
// its messages counted by the usage rule; nil when it has no usage.
// stated says the source states them.
func sessionTotals(read func(model.Sink, *model.Report) error) (tot *model.Usage, stated bool, err error) {
	var ts totalsSink
	if err := read(&ts, &model.Report{}); err != nil {
		return nil, false, err
	}
	return ts.tot, ts.stated, nil
}

// totalsSink is the sink of the first reading: a ledger, and the totals
// at the end.
type totalsSink struct {
	ledger model.Ledger
	tot    *model.Usage
	stated bool
}

// BorrowsEvents implements model.Borrower: the ledger keeps message ids
// (strings) and counts.
func (*totalsSink) BorrowsEvents() bool { return true }

func (s *totalsSink) Event(_ *model.Header, e *model.Event) error {
	s.ledger.Add(e)
	return nil
}

func (s *totalsSink) End(h *model.Header) error {
	if u, ok := model.Totals(h, &s.ledger); ok {
		s.tot, s.stated = &u, h.Totals != nil
	}
	return nil
}

// counting returns r, telling opts.OnRead how much is read when it is set.
func counting(r io.Reader, opts Options) io.Reader {
	if opts.OnRead == nil {
		return r
	}
	return &countingReader{r: r, onRead: opts.OnRead}
}

// countingReader tells onRead how much has been read.
type countingReader struct {
	r      io.Reader
	n      int64
	onRead func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.onRead(c.n)
	return n, err
}

// The lookahead before a writer: the events a source gives before its
// header is complete (see model.Lookahead).
const (
	lookaheadEvents = 256
	lookaheadBytes  = 4 << 20
)

func convertWith(read func(model.Sink, *model.Report) error, from, to Format, w io.Writer, opts Options) (*Report, error) {
	rep := &Report{From: string(from), To: string(to)}
	sink, err := NewWriter(w, to, rep, opts)
	if err != nil {
		return nil, err
	}
	sink = &model.Lookahead{Sink: sink, MaxEvents: lookaheadEvents, MaxBytes: lookaheadBytes}
	if opts.Complete != nil && from == Rlog && to != Rlog {
		sink = opts.Complete(sink, rep)
	}
	if opts.Observe != nil {
		sink = model.Tee(opts.Observe, sink)
	}
	return rep, read(sink, rep)
}
