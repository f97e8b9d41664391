package companion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/trajectory"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// MaxRecord is the largest record Event reads: a larger one is described
// by its size and place, not loaded.
const MaxRecord = 16 << 20

// ErrTooLarge is returned for a record over MaxRecord.
var ErrTooLarge = errors.New("the record is too large to show")

// ErrChanged is returned when a record's bytes are not what the index
// found there: the file was rewritten since; the next Current re-reads it.
var ErrChanged = errors.New("the file changed since it was read")

// Read returns the bytes of a record.
func (s *Snapshot) Read(ref Ref) ([]byte, error) {
	if int(ref.File) >= len(s.Files) || int(ref.Rec) >= s.Files[ref.File].Len() || ref.Rec < 0 {
		return nil, fmt.Errorf("no record %d of file %d", ref.Rec, ref.File)
	}
	ix := s.Files[ref.File]
	rec := ix.Record(int(ref.Rec))
	if rec.Len > MaxRecord {
		return nil, ErrTooLarge
	}
	f, err := os.Open(ix.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, rec.Len)
	if _, err := f.ReadAt(b, rec.Off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrChanged
		}
		return nil, err
	}
	if !jsonscan.Valid(b) {
		return nil, ErrChanged
	}
	return b, nil
}

// Event reads a record and decodes it with its format's reader: the
// message or thinking with its whole text, the call with its whole input,
// the result with its whole output.
func (s *Snapshot) Event(ref Ref) (*model.Event, error) {
	b, err := s.Read(ref)
	if err != nil {
		return nil, err
	}
	ix := s.Files[ref.File]
	rec := ix.Record(int(ref.Rec))
	rep := &model.Report{}
	var evs []model.Event
	switch {
	case byReader(ix.Format):
		return readerEvent(ix, rec, b)
	case ix.Format == convert.Trajectory:
		var c model.Collector
		doc := make([]byte, 0, len(b)+16)
		doc = append(append(append(doc, `{"steps":[`...), b...), "]}"...)
		if err := trajectory.Read(bytes.NewReader(doc), &c, rep); err != nil {
			return nil, err
		}
		evs = c.Session.Events
	case rec.Flags&BareString != 0:
		text, _ := jsonscan.String(b)
		evs = []model.Event{{Kind: model.KindUser, Text: text}}
	case rec.Kind == User || rec.Kind == ToolResult:
		evs, _ = claude.UserEvents(nil, wrapBlock(b), model.Event{}, rep)
	case rec.Kind == Agent || rec.Kind == Thinking || rec.Kind == ToolUse:
		evs, _ = claude.AssistantEvents(nil, wrapBlock(b), model.Event{}, rep)
	default:
		// A whole SDK line: init, status, result.
		return sdkLineEvent(b, rec.Kind)
	}
	if len(evs) == 0 {
		return nil, ErrChanged
	}
	return &evs[0], nil
}

func wrapBlock(b []byte) []byte {
	msg := make([]byte, 0, len(b)+16)
	return append(append(append(msg, `{"content":[`...), b...), "]}"...)
}

// sdkLineEvent decodes a whole SDK line (a system or result message).
func sdkLineEvent(b []byte, k Kind) (*model.Event, error) {
	var line struct {
		Message struct {
			Model  string  `json:"model"`
			Status *string `json:"status"`
			Result string  `json:"result"`
			Sub    string  `json:"subtype"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &line); err != nil {
		return nil, ErrChanged
	}
	ev := &model.Event{Model: line.Message.Model}
	switch k {
	case Init:
		ev.Kind = model.KindInit
	case Status:
		ev.Kind = model.KindStatus
		if line.Message.Status != nil {
			ev.Text = *line.Message.Status
		}
	default:
		ev.Kind = model.KindLifecycle
		ev.Name = "end"
		ev.Text = line.Message.Result
	}
	return ev, nil
}

// Content is a record's full content, as text to show.
type Content struct {
	// What says what the text is ("Output of Read", "Agent message" ...).
	What string
	// Text is the whole content: the message, the thinking, the output,
	// or the call's input as indented JSON.
	Text string
	// Language is "json" for a call's input, "text" otherwise.
	Language string
	// Failed marks a result that is an error.
	Failed bool
}

// Describe turns a record's event into its content. call is the event of
// the call a result answers, when known (it names the tool).
func Describe(ev *model.Event, call *model.Event) Content {
	c := Content{Language: "text"}
	switch ev.Kind {
	case model.KindUser:
		c.What, c.Text = "User message", ev.Text
	case model.KindAgent:
		c.What, c.Text = "Agent message", ev.Text
	case model.KindThinking:
		c.What, c.Text = "Thinking", ev.Text
	case model.KindToolCall:
		c.What = "Input of " + ev.Call.Name
		c.Text, c.Language = indentJSON(ev.Call.Input), "json"
	case model.KindToolResult:
		c.What = "Output"
		if call != nil && call.Call != nil {
			c.What = "Output of " + call.Call.Name
		}
		c.Text, c.Failed = ev.Result.Content, ev.Result.IsError
		if c.Failed {
			c.What += " (an error)"
		}
	case model.KindSubagent:
		c.What = "Subagent " + ev.Subagent.Type
		c.Text = strings.TrimSpace(ev.Subagent.Status + ": " + ev.Subagent.Summary)
	case model.KindInit:
		c.What, c.Text = "Init", "model: "+ev.Model
	case model.KindStatus:
		c.What, c.Text = "Status", ev.Text
	default:
		c.What, c.Text = "Session result", ev.Text
	}
	return c
}

func indentJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// Hover limits: what a hover shows of a record before it says how much
// more there is. Editors show hovers in a small scrolling box; more than
// this is better read in its own document.
const (
	HoverChars = 4000
	HoverLines = 60
)

// Markdown shows content in a hover: a title naming the file and line it
// comes from, the text in a fenced block cut at HoverChars characters or
// HoverLines lines, and, when cut, how much more there is and how to see
// it whole.
func Markdown(c Content, path string, line int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** in full, from `%s` line %d:\n\n", c.What, filepath.Base(path), line+1)
	text, moreChars, moreLines := cut(c.Text, HoverChars, HoverLines)
	fence := fenceFor(text)
	fmt.Fprintf(&b, "%s%s\n%s\n%s", fence, c.Language, text, fence)
	if moreChars > 0 {
		fmt.Fprintf(&b, "\n\n… %s more characters", analysis.GroupDigits(uint64(moreChars)))
		if moreLines > 0 {
			fmt.Fprintf(&b, " (%s more lines)", analysis.GroupDigits(uint64(moreLines)))
		}
		b.WriteString(". Go to Definition opens the record; *rlog: Show Full Record* shows it whole.")
	}
	return b.String()
}

// cut returns the start of s, at most chars characters and lines lines,
// and how many characters and lines are left out.
func cut(s string, chars, lines int) (string, int, int) {
	n, nl := 0, 0
	for i, r := range s {
		if n == chars || nl == lines {
			rest := s[i:]
			return strings.TrimRight(s[:i], "\n"), utf8.RuneCountInString(rest), strings.Count(strings.TrimRight(rest, "\n"), "\n") + boolInt(nl == lines)
		}
		n++
		if r == '\n' {
			nl++
		}
	}
	return s, 0, 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fenceFor is a code fence longer than any run of backticks in s.
func fenceFor(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// CallOf returns the call a result record answers: the last call with its
// id before it in its file.
func (s *Snapshot) CallOf(ref Ref) (Ref, bool) {
	ix := s.Files[ref.File]
	rec := ix.Record(int(ref.Rec))
	if rec.Kind != ToolResult || rec.hash == 0 {
		return Ref{}, false
	}
	for i := int(ref.Rec) - 1; i >= 0; i-- {
		if r := ix.Record(i); r.Kind == ToolUse && r.hash == rec.hash {
			return Ref{File: ref.File, Rec: int32(i)}, true
		}
	}
	return Ref{}, false
}

// Content reads a record and describes it, naming the tool of a result.
func (s *Snapshot) Content(ref Ref) (Content, error) {
	ev, err := s.Event(ref)
	if err != nil {
		return Content{}, err
	}
	var call *model.Event
	if c, ok := s.CallOf(ref); ok {
		call, _ = s.Event(c)
	}
	return Describe(ev, call), nil
}
