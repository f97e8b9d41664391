package companion

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Index is one companion file indexed: its records in file order, where
// the session id is, and the lines that could not be read. It is
// immutable. A File keeps the latest Index of a path and extends it when
// the file grows.
type Index struct {
	// Path is the file, Format what it holds, as convert names it ("" while
	// a JSONL file is still empty).
	Path   string
	Format convert.Format
	// SessionID is the session the file records, "" when it does not say
	// (yet); SessionAt is where it says it.
	SessionID string
	SessionAt Place
	// Size and ModTime are the file's when it was indexed.
	Size    int64
	ModTime time.Time
	// Start and End are the earliest and the latest time the file gives
	// (line timestamps; a trajectory's started_at and ended_at).
	Start, End time.Time
	// document is set for a single JSON document indexed through its
	// reader (a Gemini CLI session of the older form): its records are
	// its messages, not lines.
	document bool
	// Problems are the lines that could not be read, the first
	// MaxProblems of them; BadLines counts them all.
	Problems []Problem
	BadLines int

	// recs are the records of the complete lines. Later indexes of a
	// growing file append to the same array, beyond this index's length,
	// so what this index sees never changes.
	recs []Record
	// tail holds the records of a last line that has no line end yet (a
	// session still writing it); the next pass reads that line again.
	tail []Record
	// agents names the sub-agent transcript of Claude Code Task results
	// (toolUseResult.agentId), by record position; shared like recs.
	agents     []agentRef
	tailAgents []agentRef

	// Where the next pass over a growing JSONL file starts: the offset
	// after the last complete line and its number, and the bytes before
	// that offset, which tell growth from a rewrite.
	done     int64
	lines    int
	seam     []byte
	firstTS  string
	lastTS   string
	tailTS   string
	tailProb *Problem
}

// Place is a span of a companion file: its first byte, its length and the
// 0-based line it starts on.
type Place struct {
	Off  int64
	Len  int64
	Line int
}

// Problem is a line of a companion that could not be read.
type Problem struct {
	Place
	Why string
}

// MaxProblems is how many unreadable lines an Index lists.
const MaxProblems = 100

type agentRef struct {
	rec int32
	id  string
}

// Len is the number of records.
func (ix *Index) Len() int { return len(ix.recs) + len(ix.tail) }

// Record returns record i (0 ≤ i < Len), in file order.
func (ix *Index) Record(i int) Record {
	if i < len(ix.recs) {
		return ix.recs[i]
	}
	return ix.tail[i-len(ix.recs)]
}

// At returns the record whose span holds byte off, or the last one that
// starts before it; ok is false before the first record.
func (ix *Index) At(off int64) (int, bool) {
	lo, hi := 0, ix.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if r := ix.Record(mid); r.Off <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0, false
	}
	// Records nest nowhere, but a content block starts inside its line:
	// the last record starting at or before off is the one.
	return lo - 1, true
}

// AgentID returns the sub-agent transcript a Task result names (Claude
// Code's toolUseResult.agentId), or "".
func (ix *Index) AgentID(rec int) string {
	for _, list := range [2][]agentRef{ix.agents, ix.tailAgents} {
		lo, hi := 0, len(list)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if int(list[mid].rec) < rec {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < len(list) && int(list[lo].rec) == rec {
			return list[lo].id
		}
	}
	return ""
}

// Counts returns what APM counts in the file: user and agent messages,
// and tool calls.
func (ix *Index) Counts() (messages, toolCalls int) {
	for i := range ix.Len() {
		switch ix.Record(i).Kind {
		case User, Agent:
			messages++
		case ToolUse:
			toolCalls++
		}
	}
	return messages, toolCalls
}

// Build indexes the file at path. A Codex CLI rollout or a Gemini CLI
// session (either form) is indexed through its reader; else a .json file
// must be a trajectory, a .jsonl file an autopilot JSONL or a Claude Code
// transcript (an empty one is accepted: its format is known once it has a
// line).
func Build(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	ix := &Index{Path: path, Size: info.Size(), ModTime: info.ModTime()}
	if format, err := convert.DetectFile(path); err == nil && byReader(format) {
		ix.Format = format
		if err := ix.readByReader(f); err != nil {
			return nil, err
		}
		return ix, nil
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		ix.Format = convert.Trajectory
		if err := ix.readTrajectory(f); err != nil {
			return nil, err
		}
		return ix, nil
	}
	if err := ix.readJSONL(f, 0); err != nil {
		return nil, err
	}
	return ix, nil
}

// refresh returns the index of the file as it is now: ix itself when it
// has not changed, ix extended by the lines appended to a JSONL file, or
// a new index when the file was rewritten. A File calls it, one at a time.
func (ix *Index) refresh() (*Index, bool, error) {
	info, err := os.Stat(ix.Path)
	if err != nil {
		return nil, false, err
	}
	if info.Size() == ix.Size && info.ModTime().Equal(ix.ModTime) {
		return ix, false, nil
	}
	if ix.Format == convert.Trajectory || ix.Format == "" || byReader(ix.Format) || info.Size() < ix.done || !ix.seamHolds() {
		n, err := Build(ix.Path)
		return n, err == nil, err
	}
	f, err := os.Open(ix.Path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, false, err
	}
	n := *ix
	n.Size, n.ModTime = info.Size(), info.ModTime()
	n.Problems = append([]Problem(nil), ix.Problems...)
	n.tail, n.tailAgents, n.tailProb, n.tailTS = nil, nil, nil, ""
	if err := n.readJSONL(f, ix.done); err != nil {
		return nil, false, err
	}
	return &n, true, nil
}

// seamLen is how many bytes before the resume offset are compared to tell
// an appended file from a rewritten one.
const seamLen = 64

// seamHolds reports whether the bytes before the resume offset are still
// those the index read.
func (ix *Index) seamHolds() bool {
	if len(ix.seam) == 0 {
		return true
	}
	f, err := os.Open(ix.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(ix.seam))
	if _, err := f.ReadAt(b, ix.done-int64(len(b))); err != nil {
		return false
	}
	return bytes.Equal(b, ix.seam)
}

// readJSONL indexes the lines of f from offset from (a line start), which
// is the index's resume point. Complete lines go to recs; a last line
// without a line end goes to tail.
func (ix *Index) readJSONL(f *os.File, from int64) error {
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var buf []byte
	var scan jsonscan.Index
	off := from
	for {
		line, terminated, tooLong, err := readLine(br, &buf)
		if err != nil {
			return err
		}
		if len(line) == 0 && !terminated && !tooLong {
			break // the end
		}
		n := len(line)
		if terminated {
			n++
		}
		start := off
		if off == 0 && bytes.HasPrefix(line, []byte("\xef\xbb\xbf")) {
			line, start = line[3:], 3
		}
		place := Place{Off: start, Len: int64(len(line)), Line: ix.lines}
		if !terminated {
			ix.tailLine(&scan, line, place, tooLong)
			break
		}
		if tooLong {
			ix.problem(Problem{Place: place, Why: fmt.Sprintf("the line is longer than %d MB", jsonl.DefaultMaxLine>>20)})
		} else {
			ix.line(&scan, bytes.TrimRight(line, "\r"), place, false)
		}
		off += int64(n)
		ix.lines++
		ix.done = off
	}
	ix.setSeam(f)
	ix.setTimes()
	return nil
}

// tailLine indexes a last line with no line end. It is read again by the
// next pass; until then it is either whole (valid JSON: its records
// count) or still being written (no records, and a problem that says so).
func (ix *Index) tailLine(scan *jsonscan.Index, line []byte, place Place, tooLong bool) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if tooLong || !jsonscan.Valid(line) {
		ix.tailProb = &Problem{Place: place, Why: "the file ends inside this line (the session may still be writing it)"}
		return
	}
	ix.line(scan, line, place, true)
}

func (ix *Index) problem(p Problem) {
	ix.BadLines++
	if len(ix.Problems) < MaxProblems {
		ix.Problems = append(ix.Problems, p)
	}
}

// AllProblems returns Problems and, when the file ends inside a line, that
// line too.
func (ix *Index) AllProblems() []Problem {
	if ix.tailProb == nil {
		return ix.Problems
	}
	return append(ix.Problems[:len(ix.Problems):len(ix.Problems)], *ix.tailProb)
}

func (ix *Index) setSeam(f *os.File) {
	ix.seam = nil
	if ix.done == 0 {
		return
	}
	n := min(ix.done, seamLen)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, ix.done-n); err == nil {
		ix.seam = b
	}
}

func (ix *Index) setTimes() {
	last := ix.lastTS
	if ix.tailTS != "" {
		last = ix.tailTS
	}
	if t, ok := parseTime(ix.firstTS); ok {
		ix.Start = t
	}
	if t, ok := parseTime(last); ok {
		ix.End = t
	}
}

func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// readLine reads through the next '\n' into buf (or returns a slice of
// the reader's buffer). A line over the limit is drained and reported as
// too long, with no bytes. At the end it returns an empty, unterminated
// line.
func readLine(br *bufio.Reader, buf *[]byte) (line []byte, terminated, tooLong bool, err error) {
	s, err := br.ReadSlice('\n')
	switch err {
	case nil:
		return s[:len(s)-1], true, false, nil
	case io.EOF:
		return s, false, false, nil
	case bufio.ErrBufferFull:
	default:
		return nil, false, false, err
	}
	*buf = append((*buf)[:0], s...)
	for {
		s, err = br.ReadSlice('\n')
		if !tooLong {
			if len(*buf)+len(s) > jsonl.DefaultMaxLine {
				tooLong = true
				*buf = (*buf)[:0]
			} else {
				*buf = append(*buf, s...)
			}
		}
		switch err {
		case nil:
			if tooLong {
				return nil, true, true, nil
			}
			return (*buf)[:len(*buf)-1], true, false, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if tooLong {
				return nil, false, true, nil
			}
			return *buf, false, false, nil
		default:
			return nil, false, false, err
		}
	}
}

// line indexes one JSONL line: reads its fields, tells the file's format
// by its first record, notes its time, and indexes its records.
func (ix *Index) line(scan *jsonscan.Index, line []byte, place Place, tail bool) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	f, err := claude.ScanEntry(scan, line)
	if err != nil {
		why := err.Error()
		if errors.Is(err, jsonscan.ErrNotObject) {
			why = "the line is JSON but not an object"
		}
		ix.problem(Problem{Place: place, Why: why})
		return
	}
	if !ix.learnFormat(&f, line, place) {
		return
	}
	ix.noteTime(f.Timestamp, tail)
	b := recordBuilder{ix: ix, scan: scan, line: line, at: place, tail: tail}
	if f.SessionID != "" && ix.SessionID == "" && ix.Format == convert.Claude {
		ix.SessionID, ix.SessionAt = f.SessionID, b.place(f.SessionAt)
	}
	b.records(&f)
}

// learnFormat tells the file's format from its first line that says it,
// and reports whether line holds records: a subagent file's header line
// holds its session id only, and a line of neither format is a problem.
func (ix *Index) learnFormat(f *claude.Entry, line []byte, place Place) bool {
	if f.Type == "header" && ix.Format != convert.Claude {
		// The first line of a subagent's own file, as the recorder format
		// describes it: {"type":"header","session_id":"sub-…",…}.
		if ix.Format == "" {
			ix.Format = convert.SDKJSONL
		}
		if ix.SessionID == "" && f.SessionID != "" {
			ix.SessionID, ix.SessionAt = f.SessionID, Place{Off: place.Off + int64(cap(line)-cap(f.SessionAt)), Len: int64(len(f.SessionAt)), Line: place.Line}
		}
		return false
	}
	if ix.Format != "" {
		return true
	}
	format, _ := convert.Detect(ix.Path, append(append([]byte(nil), line...), '\n'))
	switch format {
	case convert.SDKJSONL, convert.Claude:
		ix.Format = format
	default:
		ix.problem(Problem{Place: place, Why: "neither an autopilot JSONL message nor a Claude Code entry"})
		return false
	}
	return true
}

// noteTime notes a line's timestamp: the first and last of the file as
// read, or the last of its growing tail.
func (ix *Index) noteTime(ts string, tail bool) {
	switch {
	case ts == "":
	case tail:
		ix.tailTS = ts
	default:
		if ix.firstTS == "" {
			ix.firstTS = ts
		}
		ix.lastTS = ts
	}
}

// recordBuilder turns the values of one line into records.
type recordBuilder struct {
	ix   *Index
	scan *jsonscan.Index
	line []byte
	at   Place // the line's
	tail bool
}

// place is where v, a slice of the line, is.
func (b *recordBuilder) place(v []byte) Place {
	return Place{Off: b.at.Off + int64(cap(b.line)-cap(v)), Len: int64(len(v)), Line: b.at.Line}
}

func (b *recordBuilder) add(r Record, v []byte) {
	p := b.place(v)
	r.Off, r.Len, r.Line = p.Off, uint32(min(p.Len, 1<<32-1)), uint32(p.Line)
	if b.tail {
		b.ix.tail = append(b.ix.tail, r)
	} else {
		b.ix.recs = append(b.ix.recs, r)
	}
}

// records indexes the records of a line, by its type.
func (b *recordBuilder) records(f *claude.Entry) {
	switch f.Type {
	case "assistant":
		b.message(f.Message, model.KindAgent)
	case "user":
		first := len(b.ix.recs)
		if b.tail {
			first = len(b.ix.recs) + len(b.ix.tail)
		}
		b.message(f.Message, model.KindUser)
		if len(f.ToolUseResult) > 0 && f.ToolUseResult[0] == '{' {
			b.agent(f.ToolUseResult, first)
		}
	case "system":
		if b.ix.Format == convert.SDKJSONL {
			b.system(f.Message)
		}
	case "result":
		if b.ix.Format == convert.SDKJSONL {
			b.add(Record{Kind: Result}, b.line)
		}
	}
}

// recordKind is the record a block of kind k (what claude.BlockKind says
// it is) makes; ok is false for a block that makes none.
func recordKind(k model.Kind) (Kind, bool) {
	switch k {
	case model.KindUser:
		return User, true
	case model.KindAgent:
		return Agent, true
	case model.KindThinking:
		return Thinking, true
	case model.KindToolCall:
		return ToolUse, true
	case model.KindToolResult:
		return ToolResult, true
	}
	return 0, false
}

// message indexes the content blocks of an assistant or user message
// (role model.KindAgent or model.KindUser).
func (b *recordBuilder) message(msg []byte, role model.Kind) {
	_, content := claude.ScanMessage(b.scan, msg, role, func(blk claude.Block) {
		k, ok := recordKind(blk.Kind)
		if !ok {
			return
		}
		r := Record{Kind: k}
		switch k {
		case ToolUse:
			if s, _ := b.scan.String(blk.Name); s == "Task" {
				r.Flags |= Task
			}
		case ToolResult:
			if blk.IsError {
				r.Flags |= Failed
			}
		}
		switch k {
		case ToolUse, ToolResult:
			s, _ := b.scan.String(blk.ID)
			r.setID([]byte(s))
		default:
			if s, ok := b.scan.String(blk.MessageID); ok {
				r.hash = hashString(s)
			}
			r.keyLen = uint8(textPrefix(blk.Text, &r.key))
		}
		b.add(r, blk.Raw)
	})
	if role == model.KindUser && len(content) > 0 && content[0] == '"' {
		r := Record{Kind: User, Flags: BareString}
		r.keyLen = uint8(textPrefix(content, &r.key))
		b.add(r, content)
	}
}

// agent records the sub-agent a user entry's toolUseResult names, for the
// first tool result of the entry (at record position first).
func (b *recordBuilder) agent(tur []byte, first int) {
	id, _ := claude.ResultAgent(tur)
	if id == "" {
		return
	}
	for i := first; i < b.ix.Len(); i++ {
		if b.ix.Record(i).Kind == ToolResult {
			ref := agentRef{rec: int32(i), id: id}
			if b.tail {
				b.ix.tailAgents = append(b.ix.tailAgents, ref)
			} else {
				b.ix.agents = append(b.ix.agents, ref)
			}
			return
		}
	}
}

// system indexes an SDK system message: init (which names the session)
// and status changes.
func (b *recordBuilder) system(msg []byte) {
	if len(msg) == 0 || msg[0] != '{' {
		return
	}
	var subtype, status string
	var session []byte
	hasStatus := false
	b.scan.Members(msg, func(k, v []byte) error {
		switch string(jsonscan.KeyBytes(k)) {
		case "subtype":
			subtype, _ = b.scan.String(v)
		case "session_id":
			session = v
		case "status":
			status, hasStatus = b.scan.String(v)
		}
		return nil
	})
	switch subtype {
	case "init":
		if s, ok := b.scan.String(session); ok && s != "" && b.ix.SessionID == "" {
			b.ix.SessionID, b.ix.SessionAt = s, b.place(session)
		}
		b.add(Record{Kind: Init}, b.line)
	case "status":
		if hasStatus && status != "" {
			r := Record{Kind: Status}
			r.keyLen = uint8(copy(r.key[:], status))
			b.add(r, b.line)
		}
	}
}

// textPrefix decodes the start of the JSON string raw into key: its first
// bytes after leading white space, up to the end of the first line. It
// returns how many bytes it wrote.
func textPrefix(raw []byte, key *[16]byte) int {
	if len(raw) < 2 || raw[0] != '"' {
		return 0
	}
	n := 0
	leading := true
	for i := 1; i < len(raw)-1 && n < len(key); {
		c := raw[i]
		var dec [4]byte
		var d []byte
		if c == '\\' && i+1 < len(raw)-1 {
			switch e := raw[i+1]; e {
			case 'n', 'r':
				if !leading {
					return n
				}
				i += 2
				continue
			case 't':
				d, i = append(dec[:0], '\t'), i+2
			case 'u':
				r, size := unicodeEscape(raw[i:])
				if size == 0 {
					return n
				}
				if r == '\n' || r == '\r' {
					if !leading {
						return n
					}
					i += size
					continue
				}
				d, i = appendRune(dec[:0], r), i+size
			default:
				d, i = append(dec[:0], unescape(e)), i+2
			}
		} else {
			d, i = append(dec[:0], c), i+1
		}
		if leading && (d[0] == ' ' || d[0] == '\t') {
			continue
		}
		leading = false
		for _, x := range d {
			if n == len(key) {
				return n
			}
			key[n] = x
			n++
		}
	}
	return n
}

func unescape(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	}
	return e // " \ /
}

// unicodeEscape decodes the \uXXXX escape (or surrogate pair) at the start
// of b; size is 0 when it is not one.
func unicodeEscape(b []byte) (r rune, size int) {
	hex := func(b []byte) (rune, bool) {
		if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
			return 0, false
		}
		var v rune
		for _, c := range b[2:6] {
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				v = v<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return v, true
	}
	r, ok := hex(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex(b[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

func appendRune(b []byte, r rune) []byte { return utf8.AppendRune(b, r) }

// readTrajectory indexes a trajectory document one step at a time.
func (ix *Index) readTrajectory(f *os.File) error {
	w := jsonscan.NewWalker(bufio.NewReaderSize(f, 64<<10), true)
	var started, ended, firstStep, lastStep string
	var scan jsonscan.Index
	err := w.Object(func(key []byte, _ jsonscan.Pos) error {
		switch string(key) {
		case "session_id":
			v, at, err := w.Value()
			if err != nil {
				return err
			}
			if s, ok := jsonscan.String(v); ok {
				ix.SessionID = s
				ix.SessionAt = Place{Off: at.Offset, Len: int64(len(v)), Line: at.Line - 1}
			}
		case "started_at", "ended_at":
			v, _, err := w.Value()
			if err != nil {
				return err
			}
			s, _ := jsonscan.String(v)
			if string(key) == "started_at" {
				started = s
			} else {
				ended = s
			}
		case "steps":
			err := w.Array(func(_ int, v []byte, at jsonscan.Pos) error {
				ts := ix.step(&scan, v, Place{Off: at.Offset, Len: int64(len(v)), Line: at.Line - 1})
				if ts != "" {
					if firstStep == "" {
						firstStep = ts
					}
					lastStep = ts
				}
				return nil
			})
			if errors.Is(err, jsonscan.ErrNotArray) {
				return nil // no steps: nothing to join
			}
			return err
		}
		return nil
	})
	if err == nil {
		err = w.End()
	}
	var se *jsonscan.SyntaxError
	switch {
	case errors.As(err, &se):
		// The steps before the error stay indexed.
		ix.problem(Problem{Place: Place{Off: int64(se.Offset), Line: lineOfOffset(f, int64(se.Offset))}, Why: se.Error()})
	case errors.Is(err, jsonscan.ErrNotObject):
		return fmt.Errorf("%s is not a trajectory: the document is not a JSON object", ix.Path)
	case err != nil:
		return err
	}
	ix.firstTS, ix.lastTS = cmpOr(started, firstStep), cmpOr(ended, lastStep)
	ix.setTimes()
	ix.done = ix.Size
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// lineOfOffset counts the lines of f before off (for an error's place).
func lineOfOffset(f *os.File, off int64) int {
	n := 0
	buf := make([]byte, 64<<10)
	for pos := int64(0); pos < off; {
		m, err := f.ReadAt(buf[:min(int64(len(buf)), off-pos)], pos)
		n += bytes.Count(buf[:m], []byte{'\n'})
		pos += int64(m)
		if err != nil || m == 0 {
			break
		}
	}
	return n
}

// step indexes one trajectory step and returns its timestamp.
func (ix *Index) step(scan *jsonscan.Index, v []byte, place Place) string {
	if len(v) == 0 || v[0] != '{' {
		ix.problem(Problem{Place: place, Why: "a step that is not an object"})
		return ""
	}
	var typ, ts, status string
	var id, text []byte
	success := true
	scan.Object(v, func(k, val []byte) error {
		switch string(jsonscan.KeyBytes(k)) {
		case "type":
			typ, _ = scan.String(val)
		case "timestamp":
			ts, _ = scan.String(val)
		case "tool_id", "agent_id":
			id = val
		case "content":
			text = val
		case "tool":
			if s, _ := scan.String(val); s == "Task" {
				status = "task"
			}
		case "status":
			if s, ok := scan.String(val); ok {
				status = s
			}
		case "success":
			success, _ = jsonscan.Bool(val)
		}
		return nil
	})
	r := Record{Off: place.Off, Len: uint32(min(place.Len, 1<<32-1)), Line: uint32(place.Line)}
	switch typ {
	case "user":
		r.Kind = User
	case "assistant":
		r.Kind = Agent
	case "thinking":
		r.Kind = Thinking
	case "tool_call":
		r.Kind = ToolUse
		if status == "task" {
			r.Flags |= Task
		}
	case "tool_result":
		r.Kind = ToolResult
		if !success {
			r.Flags |= Failed
		}
	case "system_init":
		r.Kind = Init
	case "system_status":
		if status == "" {
			return ts
		}
		r.Kind = Status
		r.keyLen = uint8(copy(r.key[:], status))
	case "subagent":
		r.Kind = Subagent
		r.Flags |= subagentFlags(status)
	default:
		return ts
	}
	switch r.Kind {
	case ToolUse, ToolResult, Subagent:
		s, _ := scan.String(id)
		r.setID([]byte(s))
	case User, Agent, Thinking:
		r.keyLen = uint8(textPrefix(text, &r.key))
	}
	ix.recs = append(ix.recs, r)
	return ts
}

// RecordAt returns the record a place of the file belongs to: the one
// whose span holds off, or, for a cursor elsewhere on a JSONL line (its
// type and timestamp), the line's first record. ok is false where no
// record is.
func (ix *Index) RecordAt(off int64, line int) (int, bool) {
	if i, ok := ix.At(off); ok {
		if r := ix.Record(i); off < r.End() {
			return i, true
		}
	}
	if ix.Format == convert.Trajectory || ix.document {
		return 0, false
	}
	lo, hi := 0, ix.Len()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(ix.Record(mid).Line) < line {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < ix.Len() && int(ix.Record(lo).Line) == line {
		return lo, true
	}
	return 0, false
}
