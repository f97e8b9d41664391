package sessions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// observer is the sink Read gives a session's events to (beside its rlog
// view's writer): it keeps the first prompt, the agent's own title and the
// calls that change files, nothing else.
type observer struct {
	prompt, own string
	cwd         string
	calls       []fileCall
	prompts     []Prompt
}

// fileCall is a call that changes files, before its targets are resolved
// against the session's folder.
type fileCall struct {
	id, tool string
	targets  []string
	workdir  string
}

// maxCallsKept bounds what one session keeps of its file-changing calls,
// maxPromptsKept of its prompts: a session that has more is listed by the
// first ones.
const (
	maxCallsKept   = 10000
	maxPromptsKept = 200
)

func newObserver() *observer { return &observer{} }

func (o *observer) Event(h *model.Header, e *model.Event) error {
	switch e.Kind {
	case model.KindUser:
		if !e.Meta && !e.Sidechain && e.AgentID == "" && strings.TrimSpace(e.Text) != "" {
			if o.prompt == "" {
				o.prompt = e.Text
			}
			if len(o.prompts) < maxPromptsKept {
				o.prompts = append(o.prompts, Prompt{Text: firstLine(e.Text, TitleChars), ID: e.ID})
			}
		}
	case model.KindSystem:
		// Claude Code's summary records (before 2.0).
		if e.Name == "summary" && o.own == "" {
			o.own = e.Text
		}
	case model.KindPassthrough:
		// Claude Code's custom-title and ai-title records.
		if key, ok := titleRecords[e.RawType]; ok {
			var rec map[string]any
			if json.Unmarshal(e.Raw, &rec) == nil {
				if s, ok := rec[key].(string); ok && strings.TrimSpace(s) != "" && (o.own == "" || key == "customTitle") {
					o.own = s
				}
			}
		}
	case model.KindToolCall:
		if e.Call != nil && len(o.calls) < maxCallsKept && e.AgentID == "" && !e.Sidechain {
			if targets, workdir := Targets(e.Call.Name, e.Call.Input); len(targets) > 0 {
				o.calls = append(o.calls, fileCall{id: e.Call.ID, tool: e.Call.Name, targets: targets, workdir: workdir})
			}
		}
	}
	return nil
}

func (o *observer) End(h *model.Header) error {
	o.cwd = h.Cwd
	if o.prompt == "" {
		o.prompt = h.Prompt
	}
	// Gemini CLI's summary of the session.
	if s, ok := h.Extra.String("summary"); ok && strings.TrimSpace(s) != "" && o.own == "" {
		o.own = s
	}
	return nil
}

// titleRecords are the records in which Claude Code keeps a session's
// title, and the field that holds it: the user's own title wins over the
// one the model gave.
var titleRecords = map[string]string{"custom-title": "customTitle", "ai-title": "aiTitle"}

// title is the session's title: the agent's own, else the first prompt's
// first line, cut at TitleChars.
func (o *observer) title() string {
	t := o.own
	if t == "" {
		t = o.prompt
	}
	return firstLine(t, TitleChars)
}

// firstLine is t's first line, trimmed, cut at n characters.
func firstLine(t string, n int) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexAny(t, "\r\n"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if utf8.RuneCountInString(t) > n {
		r := []rune(t)
		t = string(r[:n-1]) + "…"
	}
	return strings.ToValidUTF8(t, "\uFFFD")
}

// changes are the file changes of the session's calls, their targets
// resolved against cwd (a call's own working folder first).
func (o *observer) changes(cwd string) []Change {
	var out []Change
	for _, c := range o.calls {
		base := cwd
		if c.workdir != "" {
			base = resolve(cwd, c.workdir)
		}
		for _, t := range c.targets {
			out = append(out, Change{Tool: c.tool, Target: resolve(base, t), CallID: c.id})
		}
	}
	return out
}

// readRlogEvents gives observer the events of the rlog file at path, read
// by the rlog reader (the view of any other format gives them as it is
// written).
func readRlogEvents(path string, obs model.Sink) error {
	fi, _ := convert.Lookup(convert.Rlog)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return fi.Read(f, obs, &model.Report{})
}

// placeByID is the 1-based line of the session file at path where each
// of ids first is, as a word of its own (a call's line comes before its
// result's; a message's id is on its record): 1 for an id that is "" or
// not found. The file is read once, a buffer at a time, each word looked
// up once.
func placeByID(path string, ids []string) ([]int, error) {
	lines := make([]int, len(ids))
	want := map[string][]int{}
	for i, id := range ids {
		lines[i] = 1
		if id != "" {
			want[id] = append(want[id], i)
		}
	}
	if len(want) == 0 {
		return lines, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	line := 1
	var partial []byte // a word cut by the end of a buffer
	look := func(word []byte) {
		if at, ok := want[string(word)]; ok {
			for _, i := range at {
				lines[i] = line
			}
			delete(want, string(word))
		}
	}
	for len(want) > 0 {
		piece, err := br.ReadSlice('\n')
		for len(piece) > 0 {
			end := bytes.IndexAny(piece, idDelimiters)
			if end < 0 {
				partial = append(partial, piece...)
				break
			}
			if len(partial) > 0 {
				look(append(partial, piece[:end]...))
				partial = partial[:0]
			} else if end > 0 {
				look(piece[:end])
			}
			if piece[end] == '\n' {
				line++
			}
			piece = piece[end+1:]
		}
		if errors.Is(err, io.EOF) {
			if len(partial) > 0 {
				look(partial)
			}
			return lines, nil
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
	return lines, nil
}

// idDelimiters end the words placeByID looks up: a call id is a JSON
// string or an rlog value of its own.
const idDelimiters = "\n\" =,:{}[]\t\r"
