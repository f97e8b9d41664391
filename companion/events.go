package companion

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/gemini"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// This file indexes the files of the formats whose records only their
// reader can tell apart (Codex CLI rollouts, Gemini CLI sessions): a
// record's meaning depends on the lines before it (Codex holds a
// response's items until its usage record; Gemini CLI writes a message
// again, same id, when its tool calls finish, and the last write is the
// message). The index runs the format's reader over the file and makes a
// record of each event it reads, at the place of the file the event came
// from: a line of JSONL, an element of the older single document's
// messages. What the view shows of a file is what the same reader reads,
// so the records are the view's lines, in their order.

// byReader reports whether the files of format f are indexed through
// their reader.
func byReader(f convert.Format) bool { return f == convert.Codex || f == convert.Gemini }

// readByReader indexes f, whose format is ix.Format, through the format's
// reader.
func (ix *Index) readByReader(f *os.File) error {
	fi, ok := convert.Lookup(ix.Format)
	if !ok || !fi.CanRead() {
		return fmt.Errorf("%s: no reader for %s", ix.Path, ix.Format)
	}
	var sp spans
	var err error
	if ix.document = ix.Format == convert.Gemini && isDocument(f); ix.document {
		sp, err = documentSpans(f)
	} else {
		sp, err = lineSpans(f)
	}
	if err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	s := &recordSink{ix: ix, sp: &sp, nth: map[nthKey]uint8{}}
	rep := &model.Report{}
	// Read, not ReadNamed: what the file holds, not its sub-agents' files
	// (they are indexed as files of their own), nor links to them.
	if err := fi.Read(bufio.NewReaderSize(f, 64<<10), s, rep); err != nil {
		return err
	}
	// The records in file order (At and RecordAt search them by offset);
	// the events of one place keep the order the reader gave them.
	slices.SortStableFunc(ix.recs, func(a, b Record) int {
		switch {
		case a.Off < b.Off:
			return -1
		case a.Off > b.Off:
			return 1
		}
		return 0
	})
	ix.malformed(rep, &sp)
	ix.done = ix.Size
	return nil
}

// spans are where the records of a file are: the lines' first bytes
// (JSONL), or the messages' places (the single document).
type spans struct {
	starts []int64 // line n (1-based) starts at starts[n-1]; one more at the end
	items  []Place // the document's messages[i]
	// open says the file does not end with a line end: its last line may
	// still be being written.
	open bool
}

// line is the place of line n (1-based), without its line end.
func (sp *spans) line(n int) (Place, bool) {
	if n < 1 || n >= len(sp.starts) {
		return Place{}, false
	}
	off, end := sp.starts[n-1], sp.starts[n]-1 // before the line end
	return Place{Off: off, Len: end - off, Line: n - 1}, true
}

// of is the place an event's location names.
func (sp *spans) of(loc model.Loc) (Place, bool) {
	if sp.items == nil {
		return sp.line(loc.Line)
	}
	i, ok := messageIndex(loc.Path)
	if !ok || i >= len(sp.items) {
		return Place{}, false
	}
	return sp.items[i], true
}

// messageIndex reads i from a location's path "$.messages[i]…".
func messageIndex(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "$.messages[")
	if !ok {
		return 0, false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return 0, false
	}
	i, err := strconv.Atoi(rest[:end])
	return i, err == nil && i >= 0
}

// lineSpans finds where each line of f starts.
func lineSpans(f *os.File) (spans, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return spans{}, err
	}
	sp := spans{starts: []int64{0}}
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		// The first line's record starts after the byte order mark.
		br.Discard(3)
		off, sp.starts[0] = 3, 3
	}
	for {
		chunk, err := br.ReadSlice('\n')
		off += int64(len(chunk))
		if err == nil {
			sp.starts = append(sp.starts, off)
			continue
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !errors.Is(err, io.EOF) {
			return spans{}, err
		}
		break
	}
	if last := sp.starts[len(sp.starts)-1]; last < off {
		sp.starts = append(sp.starts, off+1) // as if it ended with a line end
		sp.open = true
	}
	return sp, nil
}

// isDocument reports whether f is a Gemini CLI session of the
// single-JSON form.
func isDocument(f *os.File) bool {
	head := make([]byte, 64<<10)
	n, _ := f.ReadAt(head, 0)
	return gemini.Document(head[:n])
}

// documentSpans finds the places of a document's messages.
func documentSpans(f *os.File) (spans, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return spans{}, err
	}
	sp := spans{items: []Place{}}
	w := jsonscan.NewWalker(bufio.NewReaderSize(f, 64<<10), true)
	err := w.Object(func(key []byte, _ jsonscan.Pos) error {
		if string(key) != "messages" {
			return w.Skip()
		}
		err := w.Array(func(_ int, v []byte, at jsonscan.Pos) error {
			sp.items = append(sp.items, Place{Off: at.Offset, Len: int64(len(v)), Line: at.Line - 1})
			return nil
		})
		if errors.Is(err, jsonscan.ErrNotArray) {
			return nil
		}
		return err
	})
	var se *jsonscan.SyntaxError
	if err != nil && !errors.As(err, &se) && !errors.Is(err, jsonscan.ErrNotObject) {
		return spans{}, err
	}
	// A document that cannot be read whole keeps the messages before the
	// error; the reader reports the error.
	return sp, nil
}

// recordSink makes the index's records of the events a reader gives.
type recordSink struct {
	ix  *Index
	sp  *spans
	nth map[nthKey]uint8
}

type nthKey struct {
	off  int64
	kind Kind
}

// BorrowsEvents implements model.Borrower: a record keeps strings and
// numbers.
func (*recordSink) BorrowsEvents() bool { return true }

func (s *recordSink) Event(_ *model.Header, e *model.Event) error {
	if e.Loc.File != "" {
		return nil // another file's (a sub-agent's, spliced in)
	}
	r, ok := recordOf(e)
	if !ok {
		return nil
	}
	p, ok := s.sp.of(e.Loc)
	if !ok {
		return nil
	}
	r.Off, r.Len, r.Line = p.Off, uint32(min(p.Len, 1<<32-1)), uint32(p.Line)
	k := nthKey{p.Off, r.Kind}
	r.nth = s.nth[k]
	if r.nth < 255 {
		s.nth[k]++
	}
	s.ix.recs = append(s.ix.recs, r)
	return nil
}

func (s *recordSink) End(h *model.Header) error {
	ix := s.ix
	if ix.SessionID == "" {
		ix.SessionID = h.ID
		if p, ok := s.sp.line(1); ok && !ix.document {
			ix.SessionAt = p
		}
	}
	ix.firstTS, ix.lastTS = h.Started, h.Ended
	ix.setTimes()
	return nil
}

// recordOf is the record an event makes, without its place; ok is false
// for an event no line of a view is joined to.
func recordOf(e *model.Event) (Record, bool) {
	var r Record
	switch e.Kind {
	case model.KindUser:
		r.Kind = User
	case model.KindAgent:
		r.Kind = Agent
	case model.KindThinking:
		r.Kind = Thinking
	case model.KindInit:
		r.Kind = Init
		return r, true
	case model.KindToolCall:
		if e.Call == nil {
			return r, false
		}
		r.Kind = ToolUse
		r.setID([]byte(e.Call.ID))
		return r, true
	case model.KindToolResult:
		if e.Result == nil {
			return r, false
		}
		r.Kind = ToolResult
		if e.Result.IsError {
			r.Flags |= Failed
		}
		r.setID([]byte(e.Result.CallID))
		return r, true
	case model.KindSubagent:
		if e.Subagent == nil {
			return r, false
		}
		r.Kind = Subagent
		r.Flags |= subagentFlags(e.Subagent.Status)
		r.setID([]byte(e.Subagent.ID))
		return r, true
	default:
		return r, false
	}
	r.hash = hashString(e.MessageID)
	r.keyLen = uint8(textKey(e.Text, &r.key))
	return r, true
}

// textKey is textPrefix of a decoded text: its first bytes after leading
// white space and line ends, up to the end of its first line.
func textKey(s string, key *[16]byte) int {
	s = strings.TrimLeft(s, " \t\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return copy(key[:], s)
}

// malformed notes the places the reader could not read as the index's
// problems: those of a last line without a line end as the file's growing
// tail.
func (ix *Index) malformed(rep *model.Report, sp *spans) {
	for _, l := range rep.Losses {
		if l.Kind != model.LossMalformed {
			continue
		}
		placed := 0
		for _, loc := range l.Locations {
			if loc.File != "" {
				continue
			}
			p, ok := sp.of(loc)
			if !ok {
				p = Place{}
			}
			placed++
			if sp.open && sp.items == nil && loc.Line == len(sp.starts)-1 {
				ix.tailProb = &Problem{Place: p, Why: "the file ends inside this line (the session may still be writing it)"}
				continue
			}
			ix.problem(Problem{Place: p, Why: l.Detail})
		}
		if more := l.Count - len(l.Locations); more > 0 && placed > 0 {
			ix.BadLines += more
		}
	}
}

// readerEvent reads the event of record rec, whose bytes are b, with its
// file's reader: the place read alone, and the nth event of the record's
// kind it gives. An event the reader makes of a line together with the
// lines before it (Codex CLI's result of a call its turn's abort left
// without output) is read with them: the file up to the line's end.
func readerEvent(ix *Index, rec Record, b []byte) (*model.Event, error) {
	fi, _ := convert.Lookup(ix.Format)
	in := make([]byte, 0, len(b)+32)
	if ix.document {
		in = append(append(append(in, "{\"messages\": [\n"...), b...), "\n]}"...)
	} else {
		in = append(append(in, b...), '\n')
	}
	var c model.Collector
	if err := fi.Read(bytes.NewReader(in), &c, &model.Report{}); err != nil {
		return nil, err
	}
	if e, ok := nthEvent(c.Session.Events, rec, func(model.Loc) bool { return true }); ok {
		return e, nil
	}
	if ix.document {
		return nil, ErrChanged
	}
	f, err := os.Open(ix.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c = model.Collector{}
	if err := fi.Read(io.LimitReader(f, rec.End()), &c, &model.Report{}); err != nil {
		return nil, err
	}
	if e, ok := nthEvent(c.Session.Events, rec, func(l model.Loc) bool { return l.Line == int(rec.Line)+1 }); ok {
		return e, nil
	}
	return nil, ErrChanged
}

// nthEvent is the nth event of rec's kind among the events at the place
// that at accepts.
func nthEvent(events []model.Event, rec Record, at func(model.Loc) bool) (*model.Event, bool) {
	n := 0
	for i := range events {
		e := &events[i]
		r, ok := recordOf(e)
		if !ok || e.Loc.File != "" || r.Kind != rec.Kind || !at(e.Loc) {
			continue
		}
		if n == int(rec.nth) {
			return e, true
		}
		n++
	}
	return nil, false
}

// linkedRollouts are the rollouts of the sub-agents a Codex CLI rollout
// spawned (convert.Subagents), by thread id, which its x: lines name as
// tid=: the files their Go to Definition and links open. They are not
// indexed: the rollout's view does not show their lines.
func (ix *Index) linkedRollouts() map[string]string {
	if ix.Format != convert.Codex {
		return nil
	}
	links, _ := convert.Subagents(ix.Path)
	if len(links) == 0 {
		return nil
	}
	out := make(map[string]string, len(links))
	for _, l := range links {
		out[l.AgentID] = l.Path
	}
	return out
}
