package sessions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/report"
)

// Row is one session's figures, as `rlog-ls sessions --format json`
// writes them (docs/cli.md documents every field).
type Row struct {
	// File is the session file's path, as it was found.
	File string `json:"file"`
	// Format is the format the file was read in (convert's name: rlog,
	// claude, codex, gemini ...).
	Format string `json:"format"`
	// Agent is the agent the session's header names (claude-code, codex,
	// gemini-cli ...), "" when it names none.
	Agent string `json:"agent"`
	ID    string `json:"id"`
	// Title is the agent's own title or summary of the session when it
	// keeps one, else the first prompt (its first line, cut at TitleChars).
	Title string `json:"title"`
	// Cwd is the folder the session ran in, when its header says.
	Cwd string `json:"cwd"`
	// Start and End are the session's earliest and latest timestamps;
	// DurationMS the time between them (null when unknown).
	Start      *time.Time `json:"start"`
	End        *time.Time `json:"end"`
	DurationMS *float64   `json:"duration_ms"`
	Tokens     Tokens     `json:"tokens"`
	// CostUSD is the cost the session states (null when it states none).
	CostUSD   *float64 `json:"cost_usd"`
	ToolCalls int      `json:"tool_calls"`
	Errors    int      `json:"errors"`
	Subagents int      `json:"subagents"`
	// Parent is the file of the session that started this one when it is
	// a sub-agent's (convert.ParentOf), "" otherwise: a sub-agent's file
	// is listed as its parent's child, not as a row of its own, unless it
	// is named.
	Parent string `json:"parent"`
	// Children are the files of the sub-agents this session started
	// (convert.Subagents), in the order they started; empty when its
	// format keeps them in the session's own file.
	Children []Child `json:"children"`
	// Size and Modified are the file's when it was read.
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified"`
}

// Child is a sub-agent's file and the call that started it.
type Child struct {
	File    string `json:"file"`
	CallID  string `json:"call_id"`
	AgentID string `json:"agent_id"`
	Type    string `json:"type"`
}

// Tokens are a session's token totals, each message counted once (the
// usage rule, as `rlog-ls stats` counts them).
type Tokens struct {
	In          uint64 `json:"in"`
	Out         uint64 `json:"out"`
	Cached      uint64 `json:"cached"`
	CacheCreate uint64 `json:"cache_create"`
}

// Session is what Read learns of a session file: its row, the files its
// calls changed, its prompts, its calls and its phases.
type Session struct {
	Row     Row
	Changes []Change
	Prompts []Prompt
	Calls   []Call
	Phases  []Phase
}

// Prompt is a prompt of the session (not the agent's own, nor a
// sub-agent's): its first line, cut at TitleChars, and the session file's
// line where it is.
type Prompt struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	ID   string `json:"id,omitempty"`
}

// TitleChars is the longest title a row keeps, in characters.
const TitleChars = 120

// afterWindow, when set, is called after each window of a reading (the
// memory test samples the heap there).
var afterWindow func()

// Read reads the session file at path once, a window at a time, and
// returns its row and changes: a session in another format than rlog is
// read as its rlog view (View), whose figures are what `rlog-ls stats`
// shows of the file.
func Read(path string) (*Session, error) {
	return read(path, true)
}

// read is Read; without place, the changes and prompts are left without
// their lines (0), which a listing finds only when they are asked for
// (place): most listings show rows only.
func read(path string, place bool) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	obs := newObserver()
	format := convert.Rlog
	var r io.ReadCloser = f
	var reopen func() (io.Reader, error)
	if from, ok := convert.ReadableFile(path); ok {
		f.Close()
		format = from
		r = view(path, from, figuresOnly(obs))
		reopen = func() (io.Reader, error) { return view(path, from, figuresOnly(nil)), nil }
	} else {
		reopen = func() (io.Reader, error) { return os.Open(path) }
	}
	defer r.Close()
	var ss *analysis.SessionStream
	var hdr *grammar.Header
	s := grammar.NewStream(r, grammar.StreamOptions{Reopen: reopen, SizeHint: sizeHint(format, fi.Size())})
	for {
		w, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if ss == nil {
			hdr = w.Header()
			ss = analysis.NewSessionStream(analysis.SessionOptions{MinGap: -1})
		}
		ss.Window(w)
		if afterWindow != nil {
			afterWindow()
		}
	}
	if ss == nil {
		return nil, fmt.Errorf("%s: empty", path)
	}
	if format == convert.Rlog {
		if err := readRlogEvents(path, obs); err != nil {
			return nil, err
		}
	}
	sess := ss.End()
	row := Row{File: path, Format: string(format), Size: fi.Size(), Modified: fi.ModTime()}
	row.ID, _ = hdr.Get("id")
	row.Agent, _ = hdr.Get("agent")
	row.Cwd, _ = hdr.Get("cwd")
	fill(&row, sess)
	row.Title = obs.title()
	if row.Cwd == "" {
		row.Cwd = obs.cwd
	}
	row.Children = []Child{}
	if links, err := convert.Subagents(path); err == nil {
		for _, l := range links {
			row.Children = append(row.Children, Child{File: l.Path, CallID: l.CallID, AgentID: l.AgentID, Type: l.Type})
		}
	}
	if l, ok, err := convert.ParentOf(path); err == nil && ok {
		row.Parent = l.Path
	}
	out := &Session{Row: row, Changes: obs.changes(row.Cwd), Prompts: obs.prompts, Calls: obs.allCalls, Phases: obs.phases}
	if place {
		if err := placeAll(path, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// placeAll gives s's changes, prompts, calls and phases their lines in
// the session file at path: the line of their call's or their message's
// id (a phase the reader placed keeps its line). The ids are dropped
// once they have their lines: a heavy user's hundreds of thousands of ids
// would only take room in the changes file and in memory.
func placeAll(path string, s *Session) error {
	changes, prompts, calls, phases := s.Changes, s.Prompts, s.Calls, s.Phases
	var ids []string
	for _, c := range changes {
		ids = append(ids, c.CallID)
	}
	for _, p := range prompts {
		ids = append(ids, p.ID)
	}
	for _, c := range calls {
		ids = append(ids, c.ID)
	}
	for _, p := range phases {
		ids = append(ids, p.ID)
	}
	if len(ids) == 0 {
		return nil
	}
	lines, err := placeByID(path, ids)
	if err != nil {
		return err
	}
	for i := range changes {
		changes[i].Line, changes[i].CallID = lines[i], ""
	}
	lines = lines[len(changes):]
	for i := range prompts {
		prompts[i].Line, prompts[i].ID = lines[i], ""
	}
	lines = lines[len(prompts):]
	for i := range calls {
		calls[i].Line, calls[i].ID = lines[i], ""
	}
	lines = lines[len(calls):]
	for i := range phases {
		if phases[i].ID != "" || phases[i].Line == 0 {
			phases[i].Line, phases[i].ID = lines[i], ""
		}
	}
	return nil
}

// sizeHint is the size of what the stream reads: the file's for rlog,
// unknown for a view.
func sizeHint(format convert.Format, size int64) int64 {
	if format == convert.Rlog {
		return size
	}
	return 0
}

// fill sets a row's figures from the session's, as `rlog-ls stats` does
// (its sessionRowOf): the same fields of the same analysis.Session.
func fill(row *Row, s *analysis.Session) {
	c := &s.Counters
	row.Tokens = Tokens{In: c.TokensIn, Out: c.TokensOut, Cached: c.TokensCached, CacheCreate: c.TokensCacheCreate}
	row.CostUSD = s.CostUSD
	row.ToolCalls = s.CallCount()
	row.Errors = s.Errors
	row.Subagents = len(s.Subagents)
	if s.StartLine >= 0 {
		row.Start, row.End = report.TimePtr(s.Start), report.TimePtr(s.End)
	}
	if d, ok := s.Duration(); ok {
		row.DurationMS = report.MillisPtr(d)
	}
}
