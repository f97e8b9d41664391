package sessions

import (
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
// view's writer): it keeps the first prompt, the agent's own title, the
// calls that change files, every call by tool and target, and the
// phases, nothing else.
type observer struct {
	prompt, own string
	cwd         string
	calls       []fileCall
	prompts     []Prompt
	allCalls    []Call
	phases      []Phase
	// agent is the agent whose session the file is: "" for a session's
	// own file, the sub-agent's id in a sub-agent's file, whose every
	// event names it (the agent of the first message or call);
	// agentKnown says it is known.
	agent      string
	agentKnown bool

	// ownCustom says own is the user's own title; sidechain that a
	// sub-agent's event was seen (in a sub-agent's own file, every
	// event is one: mine keeps them, and resume.go reads such a file
	// whole), compacted that a compaction was, and compactionOpen that
	// no run's end (its cost-state) came since (resume.go reads by parts
	// only where neither matters).
	ownCustom, sidechain, compacted, compactionOpen bool
}

// mine reports whether e is of the agent whose session the file is, not
// of a sub-agent whose events the file holds too.
func (o *observer) mine(e *model.Event) bool {
	return e.AgentID == o.agent && (o.agent != "" || !e.Sidechain)
}

// fileCall is a call that changes files, before its targets are resolved
// against the session's folder.
type fileCall struct {
	id, tool string
	targets  []string
	workdir  string
}

// maxCallsKept bounds what one session keeps of its file-changing calls
// and of its calls, maxPromptsKept of its prompts: a session that has
// more is listed by the first ones.
const (
	maxCallsKept   = 10000
	maxPromptsKept = 200
)

func newObserver() *observer { return &observer{} }

// BorrowsEvents implements model.Borrower: the observer keeps strings
// (ownCopy where they must outlive the read) and numbers.
func (*observer) BorrowsEvents() bool { return true }

func (o *observer) Event(h *model.Header, e *model.Event) error {
	if e.Sidechain || e.AgentID != "" {
		o.sidechain = true
	}
	if !o.agentKnown {
		switch e.Kind {
		case model.KindUser, model.KindAgent, model.KindThinking, model.KindToolCall:
			o.agent, o.agentKnown = e.AgentID, true
		}
	}
	switch e.Kind {
	case model.KindUser:
		if !e.Meta && !e.Sidechain && e.AgentID == "" && strings.TrimSpace(e.Text) != "" {
			if o.prompt == "" {
				o.prompt = e.Text
			}
			if len(o.prompts) < maxPromptsKept {
				o.prompts = append(o.prompts, Prompt{Text: firstLine(e.Text, TitleChars), ID: ownCopy(e.ID)})
			}
		}
	case model.KindSystem:
		// Claude Code's summary records (before 2.0).
		if e.Name == "summary" && o.own == "" {
			o.own = e.Text
		}
	case model.KindPassthrough:
		if e.RawType == "cost-state" {
			o.compactionOpen = false
		}
		// Claude Code's custom-title and ai-title records.
		if key, ok := titleRecords[e.RawType]; ok {
			var rec map[string]any
			if json.Unmarshal(e.Raw, &rec) == nil {
				if s, ok := rec[key].(string); ok && strings.TrimSpace(s) != "" && (o.own == "" || key == "customTitle") {
					o.own, o.ownCustom = s, o.ownCustom || key == "customTitle"
				}
			}
		}
	case model.KindToolCall:
		if e.Call == nil || !o.mine(e) {
			break
		}
		if len(o.allCalls) == maxCallsKept {
			// Past the calls kept, only those that change files are.
			if targets, workdir := Targets(e.Call.Name, e.Call.Input); len(targets) > 0 && len(o.calls) < maxCallsKept {
				o.calls = append(o.calls, fileCall{id: ownCopy(e.Call.ID), tool: ownCopy(e.Call.Name), targets: targets, workdir: workdir})
			}
			break
		}
		about, targets, workdir := describeCall(e.Call.Name, e.Call.Input)
		o.allCalls = append(o.allCalls, Call{Tool: firstLine(e.Call.Name, TitleChars), Target: ownCopy(about), ID: ownCopy(e.Call.ID)})
		if len(targets) > 0 && len(o.calls) < maxCallsKept {
			o.calls = append(o.calls, fileCall{id: ownCopy(e.Call.ID), tool: ownCopy(e.Call.Name), targets: targets, workdir: workdir})
		}
	case model.KindCompaction, model.KindLifecycle:
		if e.Kind == model.KindCompaction {
			o.compacted, o.compactionOpen = true, true
		}
		if p, ok := phaseOf(e); ok && len(o.phases) < maxPhasesKept && o.mine(e) {
			o.phases = append(o.phases, p)
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
	return ownCopy(strings.ToValidUTF8(t, "\uFFFD"))
}

// ownCopy is a copy of s for the session's lists, which the index holds
// long after the file's read: a reader's string may share its memory
// with many others (the rlog reader makes its ids and lines in blocks of
// kilobytes), and a title or an id must not keep that alive.
func ownCopy(s string) string { return strings.Clone(s) }

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
// not found. The file is read once, a buffer at a time, a byte at a time
// against a table (idDelimiter), and only a word of the length of an id
// is looked up; a word longer than every id is not kept whole, so that a
// long one (an image's base64) costs no memory.
func placeByID(path string, ids []string) ([]int, error) {
	if placing != nil {
		placing(path)
	}
	lines := make([]int, len(ids))
	want := map[string][]int{}
	longest := 0
	for i, id := range ids {
		lines[i] = 1
		if id != "" {
			want[id] = append(want[id], i)
			longest = max(longest, len(id))
		}
	}
	if len(want) == 0 {
		return lines, nil
	}
	length := make([]bool, longest+1) // length[n]: an id has n bytes
	for id := range want {
		length[len(id)] = true
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	line := 1
	// partial is a word cut by the end of a buffer, its first longest+1
	// bytes; partialLen its whole length.
	partial := make([]byte, 0, longest+1)
	partialLen := 0
	look := func(word []byte) {
		if len(word) > longest || !length[len(word)] {
			return
		}
		if at, ok := want[string(word)]; ok {
			for _, i := range at {
				lines[i] = line
			}
			delete(want, string(word))
		}
	}
	keep := func(piece []byte) {
		partialLen += len(piece)
		partial = append(partial, piece[:min(len(piece), cap(partial)-len(partial))]...)
	}
	for len(want) > 0 {
		n, err := f.Read(buf)
		chunk := buf[:n]
		word := 0 // where the word being read starts in chunk
		for i, c := range chunk {
			if !idDelimiter[c] {
				continue
			}
			if partialLen > 0 {
				keep(chunk[word:i])
				look(partial) // cut at longest+1 bytes: no id when longer
				partial, partialLen = partial[:0], 0
			} else if i > word {
				look(chunk[word:i])
			}
			if c == '\n' {
				line++
			}
			word = i + 1
		}
		keep(chunk[word:])
		if errors.Is(err, io.EOF) {
			if partialLen > 0 {
				look(partial)
			}
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// placing, when set, is told of each file placeByID reads (a test counts
// them).
var placing func(path string)

// idDelimiters end the words placeByID looks up: a call id is a JSON
// string or an rlog value of its own.
const idDelimiters = "\n\" =,:{}[]\t\r"

// idDelimiter[c] says c is one of idDelimiters.
var idDelimiter = func() (t [256]bool) {
	for i := range len(idDelimiters) {
		t[idDelimiters[i]] = true
	}
	return t
}()
