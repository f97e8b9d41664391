// Package convert converts agent session logs between rlog and the
// trajectory formats next to it. Every format is one reader and/or one
// writer package over the shared session model (convert/model); this
// package lists the formats, detects them, and runs a conversion with its
// loss report.
//
// The model types are re-exported here as aliases so that callers need only
// this package.
package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/miniswe"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/prophet"
	"github.com/rlog-ls/rlog-ls/convert/replay"
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
)

// ReadFunc reads a whole input into a sink, reporting losses.
type ReadFunc func(r io.Reader, sink model.Sink, rep *model.Report) error

// WriteFunc writes a whole session.
type WriteFunc func(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error

// StreamFunc returns a sink that writes events as they arrive, for formats
// that can be written without seeing the whole session first.
type StreamFunc func(w io.Writer, rep *model.Report, opt model.Options) model.Sink

// FormatInfo describes one format.
type FormatInfo struct {
	Name        Format
	Description string
	// Extension is the usual file name ending, for output names.
	Extension string
	Read      ReadFunc
	Write     WriteFunc
	// Stream is set when the writer can stream (a 1 GB input then never
	// needs the whole session in memory).
	Stream StreamFunc
}

// CanRead reports whether the format has a reader.
func (f FormatInfo) CanRead() bool { return f.Read != nil }

// CanWrite reports whether the format has a writer.
func (f FormatInfo) CanWrite() bool { return f.Write != nil || f.Stream != nil }

var formats = []FormatInfo{
	{Name: Rlog, Description: "rlog/1 session log", Extension: ".rlog", Read: rlogfmt.Read, Write: rlogfmt.Write},
	{Name: Claude, Description: "Claude Code session JSONL", Extension: ".jsonl", Read: claude.Read, Write: claude.Write,
		Stream: func(w io.Writer, rep *model.Report, opt model.Options) model.Sink {
			return claude.NewWriter(w, rep, opt)
		}},
	{Name: SDKJSONL, Description: "autopilot JSONL companion (Agent SDK messages), read only", Extension: ".jsonl", Read: sdkjsonl.Read},
	{Name: Trajectory, Description: "autopilot trajectory JSON", Extension: ".json", Read: trajectory.Read, Write: trajectory.Write},
	{Name: ATIF, Description: "ATIF v1.0-v1.7 (writes v1.5, or 1.6/1.7 on request)", Extension: ".trajectory.json", Read: atif.Read, Write: atif.Write},
	{Name: ATIFJSONL, Description: "streaming ATIF-JSONL (header line + one step per line)", Extension: ".atif.jsonl", Read: atif.ReadJSONL, Write: atif.WriteJSONL},
	{Name: Replay, Description: "REPLAY.jsonl v1 (canonical, event-tagged)", Extension: ".replay.jsonl", Read: replay.Read, Write: replay.Write,
		Stream: func(w io.Writer, rep *model.Report, opt model.Options) model.Sink {
			return replay.NewWriter(w, rep, opt)
		}},
	{Name: Prophet, Description: "mini-prophet trajectory.json", Extension: ".prophet.json", Read: prophet.Read, Write: prophet.Write},
	{Name: MiniSWE, Description: "mini-swe-agent trajectory (read only)", Extension: ".traj.json", Read: miniswe.Read},
}

// Register adds or replaces a format, for formats outside this module. The
// rlog reader and writer (convert/rlogfmt, on the parser) are in the table
// above directly: rlogfmt does not import this package, so no blank import
// is needed for `rlog` to work.
func Register(f FormatInfo) {
	for i := range formats {
		if formats[i].Name == f.Name {
			formats[i] = f
			return
		}
	}
	formats = append(formats, f)
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

// ErrUnknownFormat is returned for a name that is no format.
var ErrUnknownFormat = errors.New("unknown format")

// Read reads r as format from into a Session.
func Read(r io.Reader, from Format) (*Session, *Report, error) {
	fi, ok := Lookup(from)
	if !ok {
		return nil, nil, fmt.Errorf("%w %q", ErrUnknownFormat, from)
	}
	if fi.Read == nil {
		return nil, nil, fmt.Errorf("format %s cannot be read", from)
	}
	rep := &Report{From: string(from)}
	var c model.Collector
	if err := fi.Read(r, &c, rep); err != nil {
		return nil, rep, err
	}
	return &c.Session, rep, nil
}

// Write writes s as format to.
func Write(w io.Writer, s *Session, to Format, opts Options) (*Report, error) {
	fi, ok := Lookup(to)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, to)
	}
	rep := &Report{From: s.Header.SourceFormat, To: string(to), Events: len(s.Events)}
	switch {
	case fi.Write != nil:
		return rep, fi.Write(w, s, rep, opts)
	case fi.Stream != nil:
		return rep, model.Replay(s, fi.Stream(w, rep, opts))
	}
	return rep, fmt.Errorf("format %s cannot be written", to)
}

// Convert reads r as from and writes it to w as to. When the target writer
// streams, events go straight from reader to writer and the session is
// never held in memory. The report lists what was lost; it is returned even
// with an error.
func Convert(r io.Reader, from, to Format, w io.Writer, opts Options) (*Report, error) {
	fi, ok := Lookup(from)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, from)
	}
	if fi.Read == nil {
		return nil, fmt.Errorf("format %s cannot be read", from)
	}
	r = counting(r, opts)
	return convertWith(func(sink model.Sink, rep *model.Report) error { return fi.Read(r, sink, rep) }, from, to, w, opts)
}

// ConvertFile is Convert over a file. For Claude Code transcripts it also
// reads the sub-agent transcripts beside the file (subagents/agent-*.jsonl).
func ConvertFile(path string, from, to Format, w io.Writer, opts Options) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if from == Claude {
		r := counting(f, opts)
		return convertWith(func(sink model.Sink, rep *model.Report) error { return claude.ReadNamed(r, path, sink, rep) }, from, to, w, opts)
	}
	return Convert(f, from, to, w, opts)
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

func convertWith(read func(model.Sink, *model.Report) error, from, to Format, w io.Writer, opts Options) (*Report, error) {
	ti, ok := Lookup(to)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, to)
	}
	if !ti.CanWrite() {
		return nil, fmt.Errorf("format %s cannot be written", to)
	}
	if to == ATIF || to == ATIFJSONL {
		if _, err := atif.ParseVersion(opts.ATIFVersion); err != nil {
			return nil, err
		}
	}
	rep := &Report{From: string(from), To: string(to)}
	if ti.Stream != nil {
		return rep, read(ti.Stream(w, rep, opts), rep)
	}
	var c model.Collector
	if err := read(&c, rep); err != nil {
		return rep, err
	}
	return rep, ti.Write(w, &c.Session, rep, opts)
}

// ErrUndetected is returned when Detect cannot tell the format.
var ErrUndetected = errors.New("cannot detect the input format")

// Detect tells the format from the first bytes of a file (head; 64 KB is
// plenty) and its name, which only breaks ties and covers empty files.
func Detect(name string, head []byte) (Format, error) {
	base := strings.ToLower(filepath.Base(name))
	byName := Format("")
	switch {
	case strings.HasSuffix(base, ".rlog"):
		byName = Rlog
	case strings.HasSuffix(base, ".atif.jsonl"):
		byName = ATIFJSONL
	case base == "replay.jsonl" || strings.HasSuffix(base, ".replay.jsonl"):
		byName = Replay
	case strings.HasSuffix(base, ".traj.json") || strings.Contains(base, "mini-swe-agent"):
		byName = MiniSWE
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(head)
	if len(trimmed) == 0 {
		if byName != "" {
			return byName, nil
		}
		return "", fmt.Errorf("%w: %s is empty", ErrUndetected, name)
	}
	if trimmed[0] != '{' {
		if bytes.HasPrefix(trimmed, []byte("---")) || bytes.Contains(head, []byte("\nformat: rlog/")) || byName == Rlog {
			return Rlog, nil
		}
		return "", fmt.Errorf("%w: %s does not start with a JSON object or an rlog header", ErrUndetected, name)
	}
	// JSONL: a complete first line that is an object.
	if nl := bytes.IndexByte(trimmed, '\n'); nl > 0 || json.Valid(trimmed) {
		first := trimmed
		if nl > 0 {
			first = bytes.TrimSpace(trimmed[:nl])
		}
		if f, err := model.ParseFields(first); err == nil && f != nil {
			if g := detectLine(f); g != "" {
				return g, nil
			}
		}
	}
	keys := topKeys(trimmed)
	switch {
	case keys["schema_version"] != "" || keys["__header__"] != "":
		if keys["__header__"] != "" {
			return ATIFJSONL, nil
		}
		return ATIF, nil
	case strings.HasPrefix(keys["trajectory_format"], "mini-swe-agent"):
		return MiniSWE, nil
	case strings.HasPrefix(keys["trajectory_format"], "mini-prophet"):
		return Prophet, nil
	case keys["info"] != "" && keys["messages"] != "":
		return MiniSWE, nil
	case keys["messages"] != "" && bytes.Contains(trimmed[:min(len(trimmed), 4096)], []byte(`"key"`)):
		return Prophet, nil
	case keys["info"] != "":
		return MiniSWE, nil
	case keys["session_id"] != "" && (keys["prompt"] != "" || keys["repo_sha"] != "" || keys["steps"] != ""):
		if keys["agent"] != "" {
			return ATIF, nil
		}
		return Trajectory, nil
	case keys["agent"] != "" && keys["steps"] != "":
		return ATIF, nil
	}
	if byName != "" {
		return byName, nil
	}
	return "", fmt.Errorf("%w: %s is JSON of no known shape", ErrUndetected, name)
}

var sdkTypes = map[string]bool{"system": true, "assistant": true, "user": true, "result": true, "tool_progress": true, "stream_event": true, "auth_status": true}

// detectLine classifies the first line of a JSONL file.
func detectLine(f model.Fields) Format {
	if _, ok := f.Get("__header__"); ok {
		return ATIFJSONL
	}
	if _, ok := f.Get("event"); ok {
		return Replay
	}
	typ, _ := f.String("type")
	_, hasMessage := f.Get("message")
	_, hasUUID := f.Get("uuid")
	_, hasSession := f.Get("sessionId")
	_, hasParent := f.Get("parentUuid")
	_, hasLeaf := f.Get("leafUuid")
	if hasUUID || hasSession || hasParent || hasLeaf {
		return Claude
	}
	if sdkTypes[typ] && hasMessage {
		return SDKJSONL
	}
	switch typ {
	case "queue-operation", "file-history-snapshot", "summary":
		return Claude
	}
	if _, ok := f.Get("step_id"); ok {
		if _, ok := f.Get("source"); ok {
			return ATIFJSONL
		}
	}
	return ""
}

// topKeys returns the top-level keys of a JSON object that may be cut
// short, with string values (or "…" for other values seen in full, "?" for
// a value the head ends inside).
func topKeys(b []byte) map[string]string {
	out := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, ok := t.(string)
		if !ok {
			return out
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			out[key] = "?"
			return out
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			if s == "" {
				s = `""`
			}
			out[key] = s
		} else {
			out[key] = "…"
		}
	}
	return out
}
