package sessions

import (
	"bytes"
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
	return read(convert.DetectedFile(path), true)
}

// read is Read of the file d looked at; without place, the changes and
// prompts are left without their lines (0), which a listing finds only
// when they are asked for (place): most listings show rows only.
func read(d convert.Detected, place bool) (*Session, error) {
	path := d.Path
	fi, err := statRegular(path)
	if err != nil {
		return nil, err
	}
	format := convert.Rlog
	if from, ok := d.Readable(); ok {
		format = from
	}
	p, obs, err := readPart(path, format, fi.Size(), nil)
	if err != nil {
		return nil, err
	}
	return sessionOf(d, format, fi, p, &Session{Changes: obs.changes(p.Cwd), Prompts: obs.prompts, Calls: obs.allCalls, Phases: obs.phases}, place)
}

// statRegular is the file at path's information, an error when it is no
// regular file.
func statRegular(path string) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return fi, nil
}

// section is a part of a session file: N bytes from Off, which is the
// file's line Line (0 is 1), read after Head (what the part's reader needs of the
// lines before it: a Codex rollout's first line, its thread). Lines, when
// set, counts the part's bytes and lines as its first reading reads them.
type section struct {
	Off, N int64
	Line   int
	Head   []byte
	Lines  *partLines
}

// fileLine is the line of the file that the line n of what the part's
// reader reads (Head, then the part) is.
func (sec *section) fileLine(n int) int {
	head := bytes.Count(sec.Head, []byte{'\n'})
	if n <= head {
		return n
	}
	return max(sec.Line, 1) + n - head - 1
}

// readPart reads the session file at path in format, whole when sec is
// nil, else only the part sec of it (a transcript read on from a cut,
// resume.go), into the figures of what it read and the observer that saw
// its events.
func readPart(path string, format convert.Format, size int64, sec *section) (part, *observer, error) {
	obs := newObserver()
	var r io.ReadCloser
	var reopen func() (io.Reader, error)
	switch {
	case sec != nil:
		r = viewPart(path, format, *sec, figuresOnly(obs))
		again := *sec
		again.Lines = nil // counted by the first reading
		reopen = func() (io.Reader, error) { return viewPart(path, format, again, figuresOnly(nil)), nil }
	case format != convert.Rlog:
		r = view(path, format, figuresOnly(obs))
		reopen = func() (io.Reader, error) { return view(path, format, figuresOnly(nil)), nil }
	default:
		f, err := os.Open(path)
		if err != nil {
			return part{}, nil, err
		}
		r = f
		reopen = func() (io.Reader, error) { return os.Open(path) }
	}
	defer r.Close()
	var ss *analysis.SessionStream
	var hdr *grammar.Header
	s := grammar.NewStream(r, grammar.StreamOptions{Reopen: reopen, SizeHint: sizeHint(format, size)})
	for {
		w, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return part{}, nil, err
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
		return part{}, nil, fmt.Errorf("%s: empty", path)
	}
	if format == convert.Rlog {
		if err := readRlogEvents(path, obs); err != nil {
			return part{}, nil, err
		}
	}
	if sec != nil {
		// The reader numbers the lines of what it read: the phases it
		// placed are put at the file's.
		for i := range obs.phases {
			if obs.phases[i].Line > 0 {
				obs.phases[i].Line = sec.fileLine(obs.phases[i].Line)
			}
		}
	}
	return partOf(hdr, ss.End(), obs), obs, nil
}

// sessionOf is s, the changes, prompts, calls and phases of the file d
// looked at whose figures are p, given its row, with the sub-agents' files
// the file links; they are placed on their lines when place is set.
func sessionOf(d convert.Detected, format convert.Format, fi os.FileInfo, p part, s *Session, place bool) (*Session, error) {
	path := d.Path
	row := Row{File: path, Format: string(format), Size: fi.Size(), Modified: fi.ModTime()}
	p.fill(&row)
	row.Children = []Child{}
	if links, err := d.Subagents(); err == nil {
		for _, l := range links {
			row.Children = append(row.Children, Child{File: l.Path, CallID: l.CallID, AgentID: l.AgentID, Type: l.Type})
		}
	}
	if l, ok, err := d.ParentOf(); err == nil && ok {
		row.Parent = l.Path
	}
	out := s
	out.Row = row
	if place {
		if err := placeAll(path, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// placeAll gives s's changes, prompts, calls and phases their lines in
// the session file at path: the line of their call's or their message's
// id (one that has a line and no id keeps its line: placed). The ids are
// dropped once they have their lines: a heavy user's hundreds of
// thousands of ids would only take room in the changes file and in memory.
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
		changes[i].Line, changes[i].CallID = placed(changes[i].Line, changes[i].CallID, lines[i]), ""
	}
	lines = lines[len(changes):]
	for i := range prompts {
		prompts[i].Line, prompts[i].ID = placed(prompts[i].Line, prompts[i].ID, lines[i]), ""
	}
	lines = lines[len(prompts):]
	for i := range calls {
		calls[i].Line, calls[i].ID = placed(calls[i].Line, calls[i].ID, lines[i]), ""
	}
	lines = lines[len(calls):]
	for i := range phases {
		phases[i].Line, phases[i].ID = placed(phases[i].Line, phases[i].ID, lines[i]), ""
	}
	return nil
}

// placed is the line of an item at line with id whose id was found at
// found: an item without an id keeps the line it has (one placed before,
// kept from before a transcript's cut, or a phase the reader placed).
func placed(line int, id string, found int) int {
	if id == "" && line > 0 {
		return line
	}
	return found
}

// sizeHint is the size of what the stream reads: the file's for rlog,
// unknown (-1) for a view, whose size is known only at its end. A hint of
// 0 would say the view is empty: the stream's first buffer would be one
// byte, and the next a whole window's (1 MB), for every view however
// small (a rest after a cut is often one turn).
func sizeHint(format convert.Format, size int64) int64 {
	if format == convert.Rlog {
		return size
	}
	return -1
}

// part is what a session file, or a part of one, says of the session:
// the figures of its row, mergeable (merge), and what its title is made
// of. The index keeps the part of a grown file before its cut (resume.go).
type part struct {
	ID     string `json:"id,omitempty"`
	Agent  string `json:"agent,omitempty"`
	Cwd    string `json:"cwd,omitempty"`
	Tokens Tokens `json:"tokens"`
	// CostUSD is the cost the part's last statement of it states.
	CostUSD   *float64   `json:"cost_usd,omitempty"`
	ToolCalls int        `json:"tool_calls,omitempty"`
	Errors    int        `json:"errors,omitempty"`
	Subagents int        `json:"subagents,omitempty"`
	Start     *time.Time `json:"start,omitempty"`
	End       *time.Time `json:"end,omitempty"`
	// Prompt is the first prompt's first line; Own the agent's own title
	// (OwnSet: one was given, OwnCustom: the user's own, which a later
	// title the model gave does not replace), its first line.
	Prompt    string `json:"prompt,omitempty"`
	Own       string `json:"own,omitempty"`
	OwnSet    bool   `json:"own_set,omitempty"`
	OwnCustom bool   `json:"own_custom,omitempty"`
}

// partOf is the part read: its figures as `rlog-ls stats` computes them
// (its sessionRowOf: the same fields of the same analysis.Session), its
// header's and its observer's.
func partOf(hdr *grammar.Header, s *analysis.Session, obs *observer) part {
	var p part
	p.ID, _ = hdr.Get("id")
	p.Agent, _ = hdr.Get("agent")
	p.Cwd, _ = hdr.Get("cwd")
	if p.Cwd == "" {
		p.Cwd = obs.cwd
	}
	c := &s.Counters
	p.Tokens = Tokens{In: c.TokensIn, Out: c.TokensOut, Cached: c.TokensCached, CacheCreate: c.TokensCacheCreate}
	p.CostUSD = s.CostUSD
	p.ToolCalls = s.CallCount()
	p.Errors = s.Errors
	p.Subagents = len(s.Subagents)
	if s.StartLine >= 0 {
		p.Start, p.End = report.TimePtr(s.Start), report.TimePtr(s.End)
	}
	p.Prompt = firstLine(obs.prompt, TitleChars)
	p.Own, p.OwnSet, p.OwnCustom = firstLine(obs.own, TitleChars), obs.own != "", obs.ownCustom
	return p
}

// merge is the part of a file that is p followed by q (the one rule of a
// row's figures over a file's parts; TestMergeEqualsWhole holds it equal to
// reading the whole at every cut of every recorded transcript): counts add
// up, the times span both, the cost is the last stated, the header's
// values and the title are the first given but for the user's own title,
// whose last one wins.
func (p part) merge(q part) part {
	m := p
	first := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	m.ID, m.Agent, m.Cwd, m.Prompt = first(p.ID, q.ID), first(p.Agent, q.Agent), first(p.Cwd, q.Cwd), first(p.Prompt, q.Prompt)
	m.Tokens = Tokens{In: p.Tokens.In + q.Tokens.In, Out: p.Tokens.Out + q.Tokens.Out,
		Cached: p.Tokens.Cached + q.Tokens.Cached, CacheCreate: p.Tokens.CacheCreate + q.Tokens.CacheCreate}
	if q.CostUSD != nil {
		m.CostUSD = q.CostUSD
	}
	m.ToolCalls, m.Errors, m.Subagents = p.ToolCalls+q.ToolCalls, p.Errors+q.Errors, p.Subagents+q.Subagents
	if q.Start != nil && (p.Start == nil || q.Start.Before(*p.Start)) {
		m.Start = q.Start
	}
	if q.End != nil && (p.End == nil || q.End.After(*p.End)) {
		m.End = q.End
	}
	if q.OwnCustom || !p.OwnSet {
		m.Own, m.OwnSet = q.Own, q.OwnSet
	}
	m.OwnCustom = p.OwnCustom || q.OwnCustom
	return m
}

// fill sets a row's figures and title from the part's.
func (p part) fill(row *Row) {
	row.ID, row.Agent, row.Cwd = p.ID, p.Agent, p.Cwd
	row.Tokens, row.CostUSD = p.Tokens, p.CostUSD
	row.ToolCalls, row.Errors, row.Subagents = p.ToolCalls, p.Errors, p.Subagents
	row.Start, row.End, row.DurationMS = p.Start, p.End, nil
	if p.Start != nil && p.End != nil {
		if d, ok := analysis.WallClock(*p.Start, *p.End); ok {
			row.DurationMS = report.MillisPtr(d)
		}
	}
	row.Title = p.Prompt
	if p.OwnSet {
		row.Title = p.Own
	}
}
