package companion

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// Ref names a record of a Snapshot: a file (an index into Files) and the
// record's position in it.
type Ref struct {
	File, Rec int32
}

// Pairing is a log joined to its companion: which record each line of the
// log was written from, and where the two disagree. It is immutable.
type Pairing struct {
	Snap *Snapshot
	// Mismatch is set when the companion records another session than the
	// log's header names; nothing is joined then.
	Mismatch bool

	links []link // by line
	// lineOf[f][r] is the line record r of file f was written to, -1 for
	// none.
	lineOf    [][]int32
	subagents []subagentLink
	findings  []Finding
}

type link struct {
	line int32
	ref  Ref
}

type subagentLink struct {
	line int32
	path string
}

// Record returns the record line n was written from.
func (p *Pairing) Record(n int) (Ref, bool) {
	i, ok := slices.BinarySearchFunc(p.links, int32(n), func(l link, n int32) int { return int(l.line - n) })
	if !ok {
		return Ref{}, false
	}
	return p.links[i].ref, true
}

// Line returns the line written from record ref (the t!: or o: line of a
// Task call, not the x: line that shares it).
func (p *Pairing) Line(ref Ref) (int, bool) {
	if int(ref.File) >= len(p.lineOf) || ref.Rec < 0 || int(ref.Rec) >= len(p.lineOf[ref.File]) {
		return 0, false
	}
	n := p.lineOf[ref.File][ref.Rec]
	return int(n), n >= 0
}

// Joined is how many lines have a record.
func (p *Pairing) Joined() int { return len(p.links) }

// SubagentFile returns the file of the subagent an x: line names.
func (p *Pairing) SubagentFile(n int) (string, bool) {
	for _, s := range p.subagents {
		if int(s.line) == n {
			return s.path, true
		}
	}
	return "", false
}

// Findings are where the log and its companion disagree, with the default
// severities (see Filter).
func (p *Pairing) Findings() []Finding { return p.findings }

// Finding is an analysis finding about the pair, with the places in the
// companion files it is about.
type Finding struct {
	analysis.Finding
	In []FilePlace
}

// FilePlace is a place in a companion file.
type FilePlace struct {
	Path string
	Place
	Message string
}

// Filter applies a configuration: disabled codes go, severities change.
func Filter(fs []Finding, cfg analysis.Config) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if g, ok := cfg.Apply(f.Finding); ok {
			f.Finding = g
			out = append(out, f)
		}
	}
	return out
}

// The codes of the pair's findings (docs/diagnostics.md).
const (
	CodeOtherSession = analysis.W014
	CodeUnreadable   = analysis.W015
	CodeNotInRecord  = analysis.I005
	CodeNotInLog     = analysis.I006
)

// matchWindow is how many records of a kind a message line may skip to
// find its own: a record the log did not write (an empty text), or a line
// the record lacks, must not shift every line after it.
const matchWindow = 16

// Join joins the log t to the companion s. Tool calls, results and
// subagents are joined by call id (the whole id, or the 8 characters rlog
// writers keep of it: the last since 2025-12-19, the first before);
// messages, thinking, @init and # status: lines by order, each checked
// against the first bytes of its record's text (and its message id when
// the line has message_id=).
func Join(t *grammar.Tree, s *Snapshot) *Pairing {
	p, _ := JoinContext(context.Background(), t, s)
	return p
}

// JoinContext is Join that stops when ctx is done (a server drops the join
// of a version the user has already edited again): it then returns nil
// and ctx's error.
func JoinContext(ctx context.Context, t *grammar.Tree, s *Snapshot) (*Pairing, error) {
	p := &Pairing{Snap: s}
	j := &joiner{t: t, s: s, p: p, files: make([]*fileLookup, len(s.Files)),
		subFiles: len(s.Files) > 1 || s.Main().Format == convert.Claude}
	main := s.Main()
	logID, _ := t.Header().Get("id")
	if !sameSession(logID, main.SessionID) {
		p.Mismatch = true
		j.add(CodeOtherSession, j.anchor(), fmt.Sprintf("%s records session %s, not this log's %s",
			filepath.Base(main.Path), main.SessionID, logID),
			FilePlace{Path: main.Path, Place: main.SessionAt, Message: "the session id of " + filepath.Base(main.Path)})
		j.unreadable()
		return p, nil
	}
	if err := j.walk(ctx); err != nil {
		return nil, err
	}
	j.finish()
	return p, nil
}

// sameSession reports whether the log's header id and the companion's
// session id name one session. Either may be unknown; a log may keep only
// the start of the id.
func sameSession(logID, recordID string) bool {
	if logID == "" || recordID == "" || logID == recordID {
		return true
	}
	short, long := logID, recordID
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= 8 && strings.HasPrefix(long, short)
}

type joiner struct {
	t     *grammar.Tree
	s     *Snapshot
	p     *Pairing
	files []*fileLookup
	// calls are the records joined to the call and result lines, with the
	// hash of the id as the log writes it, for the x: lines of the same
	// calls.
	calls    []joinedCall
	deferred []grammar.Line
	// also are the x: lines joined to the record of their Task call or
	// result, which belongs first to the t!: or o: line.
	also []int32
	// subFiles is set when lines may belong to a subagent's file (tid=).
	subFiles bool
	// missingSub says which subagent transcripts were reported missing.
	missingSub map[string]bool
	callLines  int // call lines
}

type joinedCall struct {
	id     uint64
	ref    Ref
	result bool
}

// fileLookup finds the records of one file by kind and id, for one join:
// which records lines have taken, how far each kind has been read, and
// indexes by id, built only when a line is not joined to the next record
// of its kind (a log is joined again after each edit, and the server keeps
// nothing of this between joins).
type fileLookup struct {
	ix   *Index
	used []bool
	// byKind lists the positions of the records of each kind; cursor is
	// the next record of each kind a message line may take, first the
	// first record of each kind not taken yet.
	byKind [Result + 1][]int32
	cursor [Result + 1]int
	first  [Result + 1]int
	// ids find calls, results and subagent steps by id: by the hash of the
	// whole id, and by its last or first 8 bytes.
	ids [Result + 1][3]*idIndex
	// referenced is set once a line of the log has been looked up here.
	referenced bool
}

// The keys an idIndex sorts by.
const (
	byHash = iota
	byTail
	byHead
)

// idIndex is the records of one kind sorted by a key of their id, then by
// position; next is how far the run of each key has been read.
type idIndex struct {
	keys []idKey
	next map[int32]int32
}

type idKey struct {
	key uint64
	rec int32
}

func (j *joiner) file(i int) *fileLookup {
	if j.files[i] == nil {
		ix := j.s.Files[i]
		fl := &fileLookup{ix: ix, used: make([]bool, ix.Len())}
		for r := range ix.Len() {
			k := ix.Record(r).Kind
			fl.byKind[k] = append(fl.byKind[k], int32(r))
		}
		j.files[i] = fl
	}
	j.files[i].referenced = true
	return j.files[i]
}

// index returns the index of the records of kind k by key, building it.
func (fl *fileLookup) index(k Kind, by int) *idIndex {
	if q := fl.ids[k][by]; q != nil {
		return q
	}
	q := &idIndex{next: map[int32]int32{}}
	for _, r := range fl.byKind[k] {
		rec := fl.ix.Record(int(r))
		switch {
		case rec.hash == 0:
		case by == byHash:
			q.keys = append(q.keys, idKey{rec.hash, r})
		case rec.keyLen <= 8:
		case by == byTail:
			q.keys = append(q.keys, idKey{pack8(rec.key[8:16]), r})
		default:
			q.keys = append(q.keys, idKey{pack8(rec.key[:8]), r})
		}
	}
	slices.SortFunc(q.keys, func(a, b idKey) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.rec, b.rec)) })
	fl.ids[k][by] = q
	return q
}

// pack8 is 8 bytes as a key.
func pack8(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// take finds the first record of kind k not yet joined whose id is id, or
// ends or starts with id when id has the 8 characters rlog writers keep.
func (fl *fileLookup) take(k Kind, id []byte) (int32, bool) {
	// Logs are written in the order of their records: the first record of
	// the kind not taken yet is nearly always the one.
	list := fl.byKind[k]
	for fl.first[k] < len(list) && fl.used[list[fl.first[k]]] {
		fl.first[k]++
	}
	if i := fl.first[k]; i < len(list) {
		r := list[i]
		rec := fl.ix.Record(int(r))
		if len(id) > 8 && rec.hash == hashBytes(id) && int(rec.keyLen) == min(len(id), 255) && rec.head() == string(id[:8]) ||
			len(id) == 8 && rec.keyLen > 8 && pack8(rec.key[8:16]) == pack8(id) {
			fl.used[r] = true
			return r, true
		}
	}
	try := func(by int, key uint64, exact bool) (int32, bool) {
		q := fl.index(k, by)
		lo, found := slices.BinarySearchFunc(q.keys, key, func(e idKey, key uint64) int { return cmp.Compare(e.key, key) })
		if !found {
			return 0, false
		}
		i := max(int(q.next[int32(lo)]), lo)
		for ; i < len(q.keys) && q.keys[i].key == key; i++ {
			r := q.keys[i].rec
			if fl.used[r] {
				continue
			}
			if exact {
				// The hash found it: check the start, against a collision.
				rec := fl.ix.Record(int(r))
				if int(rec.keyLen) != min(len(id), 255) || rec.head() != string(id[:min(len(id), 8)]) {
					continue
				}
			}
			fl.used[r] = true
			q.next[int32(lo)] = int32(i + 1)
			return r, true
		}
		q.next[int32(lo)] = int32(i)
		return 0, false
	}
	if r, ok := try(byHash, hashBytes(id), true); ok {
		return r, true
	}
	if len(id) == 8 {
		if r, ok := try(byTail, pack8(id), false); ok {
			return r, true
		}
		if r, ok := try(byHead, pack8(id), false); ok {
			return r, true
		}
	}
	// rlog-ls writes a call id used twice as <id>_2, <id>_3 ...
	if i := bytes.LastIndexByte(id, '_'); i > 0 && i < len(id)-1 && isDigits(id[i+1:]) {
		return fl.take(k, id[:i])
	}
	return 0, false
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// message finds the next record of kind k whose text starts as text does
// (and whose API message is msgID, when both say), within matchWindow.
func (fl *fileLookup) message(k Kind, text []byte, msgID uint64) (int32, bool) {
	list := fl.byKind[k]
	text = bytes.TrimLeft(text, " \t")
	for i := fl.cursor[k]; i < len(list) && i < fl.cursor[k]+matchWindow; i++ {
		r := list[i]
		if fl.used[r] {
			continue
		}
		rec := fl.ix.Record(int(r))
		if msgID != 0 && rec.hash != 0 && rec.hash != msgID {
			continue
		}
		key := rec.textKey()
		n := min(len(key), len(text))
		if k == Status {
			if !bytes.EqualFold(key[:n], text[:n]) {
				continue
			}
		} else if !bytes.Equal(key[:n], text[:n]) {
			continue
		}
		fl.used[r] = true
		fl.cursor[k] = i + 1
		return r, true
	}
	return 0, false
}

func (j *joiner) link(n int, file int, rec int32) {
	j.p.links = append(j.p.links, link{line: int32(n), ref: Ref{File: int32(file), Rec: rec}})
}

// fileFor is the file a line's record is in: a subagent's transcript for
// a line with tid= (rlog-ls's conversions of Claude Code sessions write
// the agent id there), the main file otherwise. ok is false for a line of
// a subagent whose transcript is not there.
func (j *joiner) fileFor(l grammar.Line, text []byte) (int, bool) {
	if !j.subFiles || !bytes.Contains(text, []byte("tid=")) {
		return 0, true
	}
	v, ok := grammar.ValueOf(text, "tid", l.Content-l.Start)
	if !ok {
		return 0, true
	}
	tid := string(bytes.Trim(text[v.Start:v.End], `"`))
	if tid == "" || tid == "1" {
		return 0, true
	}
	if i, ok := j.s.FileOf(tid); ok {
		return i, true
	}
	if j.s.Main().Format != convert.Claude {
		return 0, true
	}
	if j.missingSub == nil {
		j.missingSub = map[string]bool{}
	}
	if !j.missingSub[tid] {
		j.missingSub[tid] = true
		j.add(CodeNotInRecord, grammar.Span{Start: l.Start, End: l.TrimEnd}, fmt.Sprintf("The transcript of subagent %s (subagents/agent-%s.jsonl) is not beside %s: its lines have no record",
			tid, tid, filepath.Base(j.s.Main().Path)))
	}
	return 0, false
}

// callID is the id a call line names: id_full= when the line has it (the
// reference converter keeps the whole id there), else id=.
func callID(l grammar.Line, text []byte) []byte {
	if !l.ID.Valid() {
		return nil
	}
	if bytes.Contains(text, []byte("id_full=")) {
		if v, ok := grammar.ValueOf(text, "id_full", l.Content-l.Start); ok {
			if full := bytes.Trim(text[v.Start:v.End], `"`); len(full) > 0 {
				return full
			}
		}
	}
	return text[l.ID.Start-l.Start : l.ID.End-l.Start]
}

func (j *joiner) walk(ctx context.Context) error {
	t := j.t
	seen := 0
	for l := range t.Body() {
		if seen++; seen%4096 == 1 && ctx.Err() != nil { // at the first line, then every 4096
			return ctx.Err()
		}
		switch l.Kind {
		case grammar.User, grammar.Agent, grammar.Thinking, grammar.ToolStart, grammar.Tool, grammar.Mcp,
			grammar.Observation, grammar.Subagent, grammar.Lifecycle, grammar.Comment:
		default:
			continue
		}
		text := t.Text(l)
		fi, ok := j.fileFor(l, text)
		if !ok {
			continue
		}
		content := text[l.Content-l.Start : l.TrimEnd-l.Start]
		switch l.Kind {
		case grammar.User, grammar.Agent, grammar.Thinking:
			k := map[grammar.Kind]Kind{grammar.User: User, grammar.Agent: Agent, grammar.Thinking: Thinking}[l.Kind]
			var msgID uint64
			if bytes.Contains(text, []byte("message_id=")) {
				if v, ok := grammar.ValueOf(text, "message_id", l.Content-l.Start); ok {
					msgID = hashBytes(bytes.Trim(text[v.Start:v.End], `"`))
				}
			}
			if r, ok := j.file(fi).message(k, content, msgID); ok {
				j.link(l.Num, fi, r)
			}
		case grammar.ToolStart, grammar.Tool, grammar.Mcp:
			id := callID(l, text)
			if id == nil {
				continue
			}
			j.callLines++
			if r, ok := j.file(fi).take(ToolUse, id); ok {
				j.link(l.Num, fi, r)
				j.calls = append(j.calls, joinedCall{id: hashBytes(t.Slice(l.ID.Start, l.ID.End)), ref: Ref{int32(fi), r}})
			} else {
				j.missing(l, fi, "call")
			}
		case grammar.Observation:
			id := callID(l, text)
			if id == nil {
				continue
			}
			if r, ok := j.file(fi).take(ToolResult, id); ok {
				j.link(l.Num, fi, r)
				j.calls = append(j.calls, joinedCall{id: hashBytes(t.Slice(l.ID.Start, l.ID.End)), ref: Ref{int32(fi), r}, result: true})
			} else {
				j.missing(l, fi, "result")
			}
		case grammar.Subagent:
			fl := j.file(fi)
			if len(fl.byKind[Subagent]) > 0 && l.ID.Valid() {
				r, ok := fl.take(Subagent, callID(l, text))
				if ok {
					j.link(l.Num, fi, r)
				}
				j.subagentFile(l, text, Ref{int32(fi), r}, ok)
				continue
			}
			j.deferred = append(j.deferred, l)
		case grammar.Lifecycle:
			if bytes.HasPrefix(content, []byte("init")) && (len(content) == 4 || content[4] == ' ') {
				if r, ok := j.file(fi).message(Init, nil, 0); ok {
					j.link(l.Num, fi, r)
				}
			}
		case grammar.Comment:
			if rest, ok := bytes.CutPrefix(content, []byte("status:")); ok {
				if r, ok := j.file(fi).message(Status, bytes.TrimSpace(rest), 0); ok {
					j.link(l.Num, fi, r)
				}
			}
		}
	}
	return nil
}

// missing reports a call or result line whose record is not in the
// companion. An empty companion is one finding, not one per line.
func (j *joiner) missing(l grammar.Line, fi int, what string) {
	ix := j.s.Files[fi]
	if ix.Len() == 0 {
		return // finish reports the empty file once
	}
	id := j.t.Slice(l.ID.Start, l.ID.End)
	msg := fmt.Sprintf("Call %s is not in %s, the full record of this session", id, filepath.Base(ix.Path))
	if what == "result" {
		msg = fmt.Sprintf("The result of call %s is not in %s, the full record of this session", id, filepath.Base(ix.Path))
	}
	j.add(CodeNotInRecord, l.ID, msg)
}

// finish joins the x: lines, orders the links, and reports what only the
// companion has.
func (j *joiner) finish() {
	t := j.t
	// The first call and result line of each id, for the x: lines.
	uses, results := map[uint64]Ref{}, map[uint64]Ref{}
	if len(j.deferred) > 0 {
		for _, c := range j.calls {
			m := uses
			if c.result {
				m = results
			}
			if _, ok := m[c.id]; !ok {
				m[c.id] = c.ref
			}
		}
	}
	for _, l := range j.deferred {
		text := t.Text(l)
		fi, _ := j.fileFor(l, text)
		if !l.ID.Valid() {
			continue
		}
		key := t.Slice(l.ID.Start, l.ID.End)
		done := isSubagentEnd(t.Slice(l.Content, l.TrimEnd))
		var ref Ref
		ok := false
		if done {
			if r, found := results[hashBytes(key)]; found {
				ref, ok = r, true
			} else if r, found := j.file(fi).take(ToolResult, callID(l, text)); found {
				ref, ok = Ref{int32(fi), r}, true
			}
		} else if r, found := uses[hashBytes(key)]; found {
			ref, ok = r, true
		} else if r, found := j.file(fi).take(ToolUse, callID(l, text)); found {
			ref, ok = Ref{int32(fi), r}, true
		}
		if ok {
			j.p.links = append(j.p.links, link{line: int32(l.Num), ref: ref})
			j.also = append(j.also, int32(l.Num))
		}
		j.subagentFile(l, text, ref, ok)
	}
	slices.SortFunc(j.p.links, func(a, b link) int { return int(a.line - b.line) })
	j.p.links = slices.CompactFunc(j.p.links, func(a, b link) bool { return a.line == b.line })
	j.p.lineOf = make([][]int32, len(j.s.Files))
	for f, ix := range j.s.Files {
		j.p.lineOf[f] = slices.Repeat([]int32{-1}, ix.Len())
	}
	// The t!: and o: lines first: an x: line gets a record only no other
	// line has.
	slices.Sort(j.also)
	for _, also := range []bool{false, true} {
		for _, l := range j.p.links {
			if _, isX := slices.BinarySearch(j.also, l.line); isX != also {
				continue
			}
			if at := &j.p.lineOf[l.ref.File][l.ref.Rec]; *at < 0 {
				*at = l.line
			}
		}
	}
	j.onlyInRecord()
	j.unreadable()
	slices.SortStableFunc(j.p.findings, func(a, b Finding) int { return a.Span.Start - b.Span.Start })
}

// subagentFile finds the file of the subagent an x: line names: its
// tid= (Claude Code agent id) or its id (the autopilot's NAME.sub-ID.jsonl),
// else the agent id the Task result names.
func (j *joiner) subagentFile(l grammar.Line, text []byte, ref Ref, joined bool) {
	var ids []string
	if v, ok := grammar.ValueOf(text, "tid", l.Content-l.Start); ok {
		ids = append(ids, string(bytes.Trim(text[v.Start:v.End], `"`)))
	}
	ids = append(ids, string(j.t.Slice(l.ID.Start, l.ID.End)))
	if joined {
		ix := j.s.Files[ref.File]
		if a := ix.AgentID(int(ref.Rec)); a != "" {
			ids = append(ids, a)
		}
	}
	for _, id := range ids {
		if p, ok := j.s.Subagents[id]; ok && id != "" {
			j.p.subagents = append(j.p.subagents, subagentLink{line: int32(l.Num), path: p})
			return
		}
	}
}

// isSubagentEnd reports whether an x: line's content says the subagent
// ended ([done] or [error]).
func isSubagentEnd(content []byte) bool {
	i := bytes.Index(content, []byte("→"))
	if i < 0 {
		return false
	}
	rest := bytes.TrimSpace(content[i+len("→"):])
	return bytes.HasPrefix(rest, []byte("[done]")) || bytes.HasPrefix(rest, []byte("[error]"))
}

// onlyInRecord reports the calls of the companion the log does not have,
// and the results the companion has for calls whose result line the log
// lacks.
func (j *joiner) onlyInRecord() {
	main := j.s.Main()
	if main.Len() == 0 && main.BadLines == 0 {
		if j.callLines > 0 {
			j.add(CodeNotInRecord, j.anchor(), fmt.Sprintf("%s has no events yet: no line of this log has its full record", filepath.Base(main.Path)))
		}
		return
	}
	useLine := map[uint64]int{} // id hash -> line of the joined call
	for f, lines := range j.p.lineOf {
		for r, n := range lines {
			if rec := j.s.Files[f].Record(r); n >= 0 && rec.Kind == ToolUse {
				useLine[rec.hash] = int(n)
			}
		}
	}
	for fi, fl := range j.files {
		if fl == nil || !fl.referenced {
			continue
		}
		ix := fl.ix
		name := filepath.Base(ix.Path)
		last := -1 // the line of the last joined record so far
		for r := range ix.Len() {
			if n := j.p.lineOf[fi][r]; n >= 0 {
				last = int(n)
				continue
			}
			if fl.used[r] {
				continue
			}
			rec := ix.Record(r)
			place := FilePlace{Path: ix.Path, Place: Place{Off: rec.Off, Len: int64(rec.Len), Line: int(rec.Line)}}
			switch rec.Kind {
			case ToolUse:
				span := j.anchor()
				if last >= 0 {
					ll := j.t.Line(last)
					span = grammar.Span{Start: ll.Start, End: ll.TrimEnd}
				}
				place.Message = "the call"
				j.add(CodeNotInLog, span, fmt.Sprintf("%s has a call the log does not have after this line: %s (line %d)",
					name, rec.describeID(), rec.Line+1), place)
			case ToolResult:
				n, ok := useLine[rec.hash]
				if !ok {
					continue // its call is missing too, and reported
				}
				l := j.t.Line(n)
				place.Message = "the result"
				j.add(CodeNotInLog, l.ID, fmt.Sprintf("%s has this call's result (line %d); the log has no o: line for it", name, rec.Line+1), place)
			}
		}
	}
}

// describeID shows a call id as far as the index keeps it.
func (r *Record) describeID() string {
	if r.keyLen <= 16 {
		return string(r.key[:min(int(r.keyLen), 16)])
	}
	return string(r.key[:8]) + "…" + string(r.key[8:])
}

// unreadable reports the lines of the companion files that could not be
// read.
func (j *joiner) unreadable() {
	for _, ix := range j.s.Files {
		for _, pr := range ix.AllProblems() {
			j.add(CodeUnreadable, j.anchor(), fmt.Sprintf("Line %d of %s cannot be read: %s", pr.Line+1, filepath.Base(ix.Path), pr.Why),
				FilePlace{Path: ix.Path, Place: pr.Place, Message: pr.Why})
		}
		if more := ix.BadLines - len(ix.Problems); more > 0 {
			j.add(CodeUnreadable, j.anchor(), fmt.Sprintf("%d more lines of %s cannot be read", more, filepath.Base(ix.Path)))
		}
	}
}

// anchor is where findings about the whole pair point: the header's id
// value, or the header.
func (j *joiner) anchor() grammar.Span {
	h := j.t.Header()
	for _, f := range h.Fields {
		if f.Key == "id" {
			if f.ValueSpan.Valid() {
				return f.ValueSpan
			}
			return f.KeySpan
		}
	}
	l := j.t.Line(max(j.t.Region().HeaderStart, 0))
	return grammar.Span{Start: l.Start, End: l.TrimEnd}
}

func (j *joiner) add(code analysis.Code, span grammar.Span, msg string, in ...FilePlace) {
	r, _ := analysis.RuleFor(code)
	j.p.findings = append(j.p.findings, Finding{
		Finding: analysis.Finding{Code: code, Severity: r.Severity, Span: span, Line: j.t.LineAt(span.Start), Message: msg},
		In:      in,
	})
}

// Links yields each joined line and its record, in line order (an x: line
// and the t!: or o: line of its Task share a record).
func (p *Pairing) Links() iter.Seq2[int, Ref] {
	return func(yield func(int, Ref) bool) {
		for _, l := range p.links {
			if !yield(int(l.line), l.ref) {
				return
			}
		}
	}
}

// Subagents yields each x: line whose subagent has its own file, and the
// file.
func (p *Pairing) Subagents() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for _, s := range p.subagents {
			if !yield(int(s.line), s.path) {
				return
			}
		}
	}
}

// ActionCounts are what APM is computed from, as the companion has them:
// its user and agent messages and its tool calls over all its files, and
// the time its main file spans. Statistics take them instead of the log's,
// which truncation makes unreliable for counting.
func (s *Snapshot) ActionCounts() analysis.ActionCounts {
	m, c := s.Counts()
	main := s.Main()
	return analysis.ActionCounts{Source: main.Path, Messages: m, ToolCalls: c, Start: main.Start, End: main.End}
}

// Load finds the companion of the log at path, reads it, and joins the
// log to it; ok is false when the log has none (or it cannot be read).
// For one-off uses (the command line); the editor keeps a Companion.
func Load(path string, t *grammar.Tree) (*Pairing, bool) {
	files, ok := Locate(path)
	if !ok {
		return nil, false
	}
	s, err := Open(files).Current()
	if err != nil {
		return nil, false
	}
	return Join(t, s), true
}

// SessionOptions are the options of the session statistics of the log at
// path, whose tree is t: APM counted from its companion when it has one
// that is of the same session (the whole record, where the log is
// truncated), else from the log. For one-off uses, as Load.
func SessionOptions(path string, t *grammar.Tree) analysis.SessionOptions {
	logID, _ := t.Header().Get("id")
	return SessionOptionsOf(path, logID)
}

// SessionOptionsOf is SessionOptions for the log at path whose header's id
// is logID: whether the companion is of the same session depends on the
// ids alone, so the log itself need not be read (`rlog-ls stats` reads it
// a window at a time).
func SessionOptionsOf(path, logID string) analysis.SessionOptions {
	opts := analysis.SessionOptions{}
	files, ok := Locate(path)
	if !ok {
		return opts
	}
	s, err := Open(files).Current()
	if err != nil || !sameSession(logID, s.Main().SessionID) {
		return opts
	}
	counts := s.ActionCounts()
	opts.Companion = &counts
	return opts
}
