package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// A Claude Code transcript or a Codex CLI rollout grows by appended lines
// while its session runs. The index keeps of it a cut: the offset of a
// line where nothing the reading carries from one line to the next is
// open, and the figures of the part before it. When the file grew, and the
// bytes before the cut are those read, only the part from the cut on is
// read, and its figures merged with the kept ones (part.merge); the cut
// moves to the last one in what was read.
//
// A cut is a line that starts a turn (Claude Code: a prompt of the user, a
// user record whose content is text, not a tool's result, not meta, not a
// sub-agent's; Codex CLI: a task_started event) after which every tool
// result answers a call made after it, and after which no compaction and
// no sub-agent's line comes: what a reading of the part after it sees is
// then what the reading of the whole sees there. A part of a rollout is
// read after the rollout's first line, whose thread its reader keeps. A
// transcript with sub-agents' files beside it is never cut (the reader
// splices their transcripts in where their calls end, and appends at its
// end those it found no call for), nor one whose last compaction's run has
// not ended (its figures read ahead to the run's end); a part after a cut
// that holds a compaction or a sub-agent's event all the same (a
// sub-agent's own rollout) is read with the whole. Other formats are read
// whole: an rlog file's analysis needs its header, which a part would have
// to be given (not done yet), and Gemini CLI's JSON and the other JSON
// formats are written whole each time.

// cut is where a session file is read on from when it grew.
type cut struct {
	// Offset is the byte offset of the cut's line, Line its line number.
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
	// Window is windowHash at Offset: bytes there that changed say the
	// file was written anew, not appended to.
	Window string `json:"window"`
	// Before is the part of the file before Offset.
	Before part `json:"before"`
	// Kept is how many calls that changed files, changes, prompts, calls
	// and phases that part holds of those its session keeps
	// (Session.Changes, .Prompts, .Calls, .Phases): the first ones.
	Kept kept `json:"kept"`
}

// rest is what reads of a transcript from its cut gained since the
// changes file last kept its changes, prompts, calls and phases (when it
// had Size and ModNS): theirs follow the first Kept of those.
type rest struct {
	Size  int64 `json:"size"`
	ModNS int64 `json:"mod_ns"`
	Kept  kept  `json:"kept"`
	lists
}

// lists are what a session keeps beside its row, in the file's order.
type lists struct {
	Changes []Change `json:"changes,omitempty"`
	Prompts []Prompt `json:"prompts,omitempty"`
	Calls   []Call   `json:"calls,omitempty"`
	Phases  []Phase  `json:"phases,omitempty"`
}

func listsOf(s *Session) lists { return lists{s.Changes, s.Prompts, s.Calls, s.Phases} }

// empty reports whether l holds nothing.
func (l lists) empty() bool {
	return len(l.Changes)+len(l.Prompts)+len(l.Calls)+len(l.Phases) == 0
}

// holds reports whether l has at least the first k.
func (l lists) holds(k kept) bool {
	return len(l.Changes) >= k.Changes && len(l.Prompts) >= k.Prompts && len(l.Calls) >= k.Calls && len(l.Phases) >= k.Phases
}

// firstThen is the first k of l (which holds them) followed by m, in new
// slices.
func (l lists) firstThen(k kept, m lists) lists {
	return lists{
		Changes: append(slices.Clone(l.Changes[:k.Changes]), m.Changes...),
		Prompts: append(slices.Clone(l.Prompts[:k.Prompts]), m.Prompts...),
		Calls:   append(slices.Clone(l.Calls[:k.Calls]), m.Calls...),
		Phases:  append(slices.Clone(l.Phases[:k.Phases]), m.Phases...),
	}
}

// follows reports whether r's lists follow those of c (nil follows
// nothing).
func (r *rest) follows(c *changeEntry) bool {
	return r != nil && c.Size == r.Size && c.ModNS == r.ModNS && c.lists().holds(r.Kept)
}

// then is r followed by what a read from a later cut gained: m, which
// follows the first k of the lists r ends with (nil when r holds fewer).
func (r *rest) then(k kept, m lists) *rest {
	n := &rest{Size: r.Size, ModNS: r.ModNS}
	var ok [4]bool
	n.Changes, n.Kept.Changes, ok[0] = joinAfter(r.Kept.Changes, k.Changes, r.Changes, m.Changes)
	n.Prompts, n.Kept.Prompts, ok[1] = joinAfter(r.Kept.Prompts, k.Prompts, r.Prompts, m.Prompts)
	n.Calls, n.Kept.Calls, ok[2] = joinAfter(r.Kept.Calls, k.Calls, r.Calls, m.Calls)
	n.Phases, n.Kept.Phases, ok[3] = joinAfter(r.Kept.Phases, k.Phases, r.Phases, m.Phases)
	if ok != [4]bool{true, true, true, true} {
		return nil
	}
	return n
}

// joinAfter is more after the first k of a list made of before items kept
// elsewhere and then had: the items to keep beside the first of those
// before, and how many of those; false when had is too short.
func joinAfter[T any](before, k int, had, more []T) ([]T, int, bool) {
	if k <= before {
		return more, k, true
	}
	if k-before > len(had) {
		return nil, 0, false
	}
	return append(slices.Clone(had[:k-before]), more...), before, true
}

// kept counts the calls that changed files, their changes, the prompts,
// the calls and the phases a session keeps.
type kept struct {
	FileCalls int `json:"file_calls,omitempty"`
	Changes   int `json:"changes,omitempty"`
	Prompts   int `json:"prompts,omitempty"`
	Calls     int `json:"calls,omitempty"`
	Phases    int `json:"phases,omitempty"`
}

// windowBytes is how much of the file before a cut, and of its start,
// windowHash hashes.
const windowBytes = 4 << 10

// windowHash is a hash of the file's first bytes and of those just before
// off, and of off: a file appended to keeps it, one written anew loses it.
func windowHash(f io.ReaderAt, off int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, windowBytes)
	for _, at := range []int64{0, max(off-windowBytes, 0)} {
		n := min(windowBytes, off-at)
		if _, err := f.ReadAt(buf[:n], at); err != nil {
			return "", err
		}
		h.Write(buf[:n])
	}
	h.Write([]byte{byte(off), byte(off >> 8), byte(off >> 16), byte(off >> 24), byte(off >> 32), byte(off >> 40), byte(off >> 48), byte(off >> 56)})
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// resumable is the format of the session file d looked at when the index
// reads it by parts, "" when it does not: a Claude Code transcript
// without sub-agents' files, a Codex CLI rollout.
func resumable(d convert.Detected) convert.Format {
	path := d.Path
	format, ok := d.Readable()
	switch {
	case ok && format == convert.Claude && !claude.PartOf(path) && len(claude.SubagentFiles(path)) == 0:
		return format
	case ok && format == convert.Codex:
		return format
	}
	return ""
}

// readByParts reads the Claude Code transcript at path (fi) from the cut
// prev when the file still holds what was read before it, else from its
// start: the part up to the last cut in what it reads, then the rest. It
// returns the session and the cut to keep (nil for none), and from, where
// it started: the session's changes, prompts, calls and phases are those
// of what it read, which follow the first prev.Kept of the file's.
// A nil session says the file is to be read whole (it has no cut).
func readByParts(d convert.Detected, format convert.Format, fi os.FileInfo, prev *cut) (s *Session, next *cut, from int64, err error) {
	path := d.Path
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	size := fi.Size()
	whole := part{}
	fromLine := 1 // the line number of from
	if prev != nil && prev.Offset > 0 && prev.Offset <= size && prev.Line > 1 {
		if w, err := windowHash(f, prev.Offset); err == nil && w == prev.Window {
			from, whole, fromLine = prev.Offset, prev.Before, prev.Line
		}
	}
	scan, head, err := scannerOf(f, format)
	if err != nil {
		return nil, nil, 0, err
	}
	at, err := lastCut(f, from, size, scan)
	switch {
	case err != nil:
		return nil, nil, 0, err
	case at < 0 && from > 0:
		at = from
	case at <= 0:
		return nil, nil, 0, nil
	}
	// again is the reading when a part cannot be read on its own: from the
	// start, once (a file without a cut is then read whole).
	again := func() (*Session, *cut, int64, error) {
		if from > 0 {
			return readByParts(d, format, fi, nil)
		}
		return nil, nil, 0, nil
	}
	pr := partsRead{path: path, format: format, head: head, keep: true}
	if from > 0 {
		pr.before = prev.Kept
	}
	// The line number of at: from's and the lines between, counted as
	// the part between is read (else read again for them: a reader that
	// stopped before the part's end).
	atLine := fromLine
	ahead := whole
	if at > from {
		mid, ok, err := pr.read(from, at, fromLine)
		if err != nil {
			return nil, nil, 0, err
		}
		if !ok {
			return again()
		}
		n := pr.lines.lines
		if pr.lines.bytes != at-from {
			if n, err = countLines(f, from, at); err != nil {
				return nil, nil, 0, err
			}
		}
		atLine += n
		if from == 0 {
			ahead = mid
		} else {
			ahead = whole.merge(mid)
		}
	}
	keptAhead := pr.before
	rest, ok, err := pr.read(at, size, atLine)
	if err != nil {
		return nil, nil, 0, err
	}
	if !ok {
		return again()
	}
	whole = ahead.merge(rest)
	if pr.keep {
		w, err := windowHash(f, at)
		if err != nil {
			return nil, nil, 0, err
		}
		next = &cut{Offset: at, Line: atLine, Window: w, Before: ahead, Kept: keptAhead}
	}
	got := pr.got
	got.Changes = (&observer{calls: pr.fileCalls}).changes(whole.Cwd)
	s, err = sessionOf(d, format, fi, whole, &Session{Changes: got.Changes, Prompts: got.Prompts, Calls: got.Calls, Phases: got.Phases}, false)
	return s, next, from, err
}

// partsRead is a reading of a session file by its parts (readByParts).
type partsRead struct {
	path   string
	format convert.Format
	head   []byte // what a part after the file's start is read after
	// keep says the cut may be kept: no compaction's run was left open
	// (the figures read ahead of it to the run's end, which may come
	// after the cut).
	keep bool
	// fileCalls, got.Prompts, got.Calls and got.Phases are the calls that
	// changed files, the prompts, the calls and the phases of the parts
	// read, in order, after those of the part before the first part read,
	// capped as a reading of the whole caps them; before counts them with
	// that part's.
	fileCalls []fileCall
	got       lists
	before    kept
	// lines are the bytes and lines of the last part read.
	lines partLines
}

// read reads the part from off (line line) to end; false says it must be
// read with the whole: it starts after a cut and holds a compaction (whose
// usage is read ahead from its line, numbered from the file's start) or a
// sub-agent's line.
func (r *partsRead) read(off, end int64, line int) (part, bool, error) {
	r.lines = partLines{}
	sec := &section{Off: off, N: end - off, Line: line, Lines: &r.lines}
	if off > 0 {
		sec.Head = r.head
	}
	p, obs, err := readPart(r.path, r.format, end-off, sec)
	if err != nil {
		return part{}, false, err
	}
	if off > 0 && (obs.sidechain || obs.compacted) {
		return part{}, false, nil
	}
	r.keep = r.keep && !obs.compactionOpen
	b := &r.before
	c := firstOf(obs.calls, maxCallsKept-b.FileCalls)
	pr := firstOf(obs.prompts, maxPromptsKept-b.Prompts)
	ca := firstOf(obs.allCalls, maxCallsKept-b.Calls)
	ph := firstOf(obs.phases, maxPhasesKept-b.Phases)
	r.fileCalls = append(r.fileCalls, c...)
	r.got.Prompts, r.got.Calls, r.got.Phases = append(r.got.Prompts, pr...), append(r.got.Calls, ca...), append(r.got.Phases, ph...)
	b.FileCalls, b.Prompts = b.FileCalls+len(c), b.Prompts+len(pr)
	b.Calls, b.Phases = b.Calls+len(ca), b.Phases+len(ph)
	for _, fc := range c {
		b.Changes += len(fc.targets)
	}
	return p, true, nil
}

// firstOf is the first n of s (all of them when it has fewer).
func firstOf[T any](s []T, n int) []T {
	return s[:min(len(s), max(n, 0))]
}

// countLines is the number of newlines in f from offset from to to.
func countLines(f io.ReaderAt, from, to int64) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for from < to {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), to-from)], from)
		n += bytes.Count(buf[:k], []byte{'\n'})
		from += int64(k)
		if err != nil && from < to {
			return 0, err
		}
	}
	return n, nil
}

// scannerOf is how the cuts of the session file f in format are found,
// and what a part after one is read after: a Codex CLI rollout's first
// line (its session_meta: the thread whose lines its reader keeps).
func scannerOf(f io.ReaderAt, format convert.Format) (lineScanner, []byte, error) {
	if format == convert.Codex {
		head, err := headLine(f)
		return scanCodexLine, head, err
	}
	return scanClaudeLine, nil, nil
}

// lastCut is the offset of the last cut of the transcript in f from
// offset from to size (see cut), -1 when there is none.
func lastCut(f io.ReaderAt, from, size int64, scan lineScanner) (int64, error) {
	var found int64 = -1
	err := eachCut(f, from, size, scan, func(off int64) bool {
		found = off
		return false
	})
	return found, err
}

// eachCut calls fn with the offsets of the cuts of the session file in f
// from offset from to size, the last first, until fn returns false: its
// lines are read from the end, each given to scan, up to the first that
// scan says no cut comes before (a compaction, a sub-agent's line). A
// prompt is a cut once the record before it is read, unless a run ended
// (lineRunEnd) after that record: the prompt's record then starts a
// resumed run, which the reading of the whole marks there (@resume) and
// that of the part after it could not.
func eachCut(f io.ReaderAt, from, size int64, scan lineScanner, fn func(off int64) bool) error {
	// answers are the calls whose results were read (after the line at
	// hand) and whose calls were not.
	answers := map[string]bool{}
	// pending is a prompt's offset, a cut unless a run's end comes before
	// the record before it.
	pending := int64(-1)
	stopped := false
	err := linesBackward(f, from, size, func(line []byte, off int64) bool {
		kind := scan(line, answers)
		switch {
		case pending < 0:
		case kind == lineRunEnd:
			pending = -1
		case kind != lineOther:
			at := pending
			pending = -1
			if !fn(at) {
				stopped = true
				return false
			}
		}
		switch kind {
		case lineStops:
			stopped = true
			return false
		case linePrompt:
			if len(answers) == 0 {
				pending = off
			}
		}
		return true
	})
	// Before a prompt left pending comes the file's start, or a line too
	// long to read, which is a record (a run's end is a small one): no run
	// ended between them.
	if err == nil && !stopped && pending >= 0 {
		fn(pending)
	}
	return err
}

// lineScanner reads one line of a session file for eachCut: the tool
// results it holds are added to answers, the calls it makes taken out.
type lineScanner func(line []byte, answers map[string]bool) lineKind

// lineKind is what a line is to the search for a cut.
type lineKind uint8

const (
	lineOther  lineKind = iota // no record of the conversation
	lineRecord                 // a record of the conversation
	linePrompt                 // it starts a turn: a cut when every call is answered
	lineStops                  // no cut comes before it
	lineRunEnd                 // a run of the agent ended (the next record resumes it)
)

// scanClaudeLine reads one line of a Claude Code transcript: a prompt is
// a user record whose content is text (not a tool's result, not meta, not
// a sub-agent's); a compaction or a sub-agent's line ends the search; a
// cost-state ends a run; user, assistant and system records are the
// conversation's (the reader resumes a run at the first of them).
func scanClaudeLine(line []byte, answers map[string]bool) lineKind {
	if bytes.Contains(line, []byte(`"compact_boundary"`)) || bytes.Contains(line, []byte(`"isSidechain":true`)) {
		return lineStops
	}
	var ix jsonscan.Index
	e, err := claude.ScanEntry(&ix, line)
	switch {
	case err != nil:
		return lineOther
	case e.Type == "cost-state":
		return lineRunEnd
	case e.Type == "system":
		return lineRecord
	case e.Type != "user" && e.Type != "assistant":
		return lineOther
	}
	role := model.KindUser
	if e.Type == "assistant" {
		role = model.KindAgent
	}
	_, content := claude.ScanMessage(&ix, e.Message, role, func(b claude.Block) {
		switch id, _ := jsonscan.String(b.ID); b.Kind {
		case model.KindToolResult:
			answers[id] = true
		case model.KindToolCall:
			delete(answers, id)
		}
	})
	if len(content) > 0 && content[0] == '"' {
		if s, _ := jsonscan.String(content); e.Type == "user" && !e.IsMeta && !e.IsSidechain && strings.TrimSpace(s) != "" {
			return linePrompt
		}
	}
	return lineRecord
}

// scanCodexLine reads one line of a Codex CLI rollout: a turn starts at
// its task_started event; a compaction, a sub-agent's activity or another
// thread's session_meta (a forked sub-agent's rollout) ends the search;
// every other line is a record (a rollout marks no run's end).
func scanCodexLine(line []byte, answers map[string]bool) lineKind {
	if bytes.Contains(line, []byte(`"SubAgentActivity"`)) {
		return lineStops
	}
	var typ string
	var payload []byte
	if jsonscan.Object(line, func(k, v []byte) error {
		switch string(k) {
		case "type":
			typ, _ = jsonscan.String(v)
		case "payload":
			payload = v
		}
		return nil
	}) != nil || len(payload) == 0 || payload[0] != '{' {
		return lineRecord
	}
	var kind, callID string
	jsonscan.Members(payload, func(k, v []byte) error {
		switch string(k) {
		case "type":
			kind, _ = jsonscan.String(v)
		case "call_id":
			callID, _ = jsonscan.String(v)
		}
		return nil
	})
	switch {
	case typ == "compacted" || typ == "session_meta":
		return lineStops
	case typ == "event_msg" && kind == "task_started":
		return linePrompt
	case typ == "response_item" && (kind == "function_call_output" || kind == "custom_tool_call_output"):
		answers[callID] = true
	case typ == "response_item":
		delete(answers, callID)
	}
	return lineRecord
}

// headLine is the first line of f, its newline included.
func headLine(f io.ReaderAt) ([]byte, error) {
	var line []byte
	buf := make([]byte, 64<<10)
	for off := int64(0); ; off += int64(len(buf)) {
		n, err := f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return append(line, buf[:i+1]...), nil
		}
		line = append(line, buf[:n]...)
		if len(line) > maxCutLine {
			return nil, errors.New("the first line is too long")
		}
		if err != nil {
			return line, nil
		}
	}
}

// maxCutLine is the longest line the search for a cut reads: one longer
// (an image's base64, a huge tool output) ends it, as if it were no cut's
// part, so that the search holds no more than that of a file.
const maxCutLine = 8 << 20

// linesBackward calls fn with each line of f between offsets from and
// size, the last first, and the line's offset, until fn returns false or a
// line is longer than maxCutLine. A last line without its newline is not
// given (it is being written). It holds the line at hand and a chunk
// before it.
func linesBackward(f io.ReaderAt, from, size int64, fn func(line []byte, off int64) bool) error {
	const chunk = 64 << 10
	// store[start:] are the bytes from pos to the end of the line at hand.
	var store []byte
	start := 0
	pos := size
	last := true // the file's last line, given only when it ends
	for pos > from {
		n := int(min(chunk, pos-from))
		if start < n {
			grown := make([]byte, 2*(len(store)-start+n))
			start = copy(grown[len(grown)-(len(store)-start):], store[start:])
			start = len(grown) - start
			store = grown
		}
		pos -= int64(n)
		start -= n
		if _, err := f.ReadAt(store[start:start+n], pos); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		for len(store) > start {
			buf := store[start:]
			i := bytes.LastIndexByte(buf[:len(buf)-1], '\n')
			if i < 0 && pos > from {
				if len(buf) > maxCutLine {
					return nil
				}
				break // the line starts in the chunk before
			}
			line := buf[i+1:]
			if last {
				last = false
				if line[len(line)-1] != '\n' {
					store = store[:start+i+1]
					continue
				}
			}
			if len(bytes.TrimSpace(line)) > 0 && !fn(bytes.TrimRight(line, "\r\n"), pos+int64(i+1)) {
				return nil
			}
			store = store[:start+i+1]
		}
	}
	return nil
}
