package grammar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// windows reads src with a Stream and returns its windows.
func windows(t testing.TB, r io.Reader, opts StreamOptions) []*Tree {
	t.Helper()
	var out []*Tree
	if err := NewStream(r, opts).Each(func(w *Tree) { out = append(out, w) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertWindowsAreTheParse checks that the windows hold, in order, the
// chunks Parse makes of src, at the same places, and that each answers
// about its lines as the whole tree does.
func assertWindowsAreTheParse(t testing.TB, ws []*Tree, src []byte, context string) {
	t.Helper()
	m := newParseMatch(src, context)
	if len(ws) == 0 {
		t.Fatalf("%s: no window", context)
	}
	for _, w := range ws {
		m.window(t, w)
	}
	m.end(t, ws[len(ws)-1])
}

// parseMatch compares a stream's windows, one at a time as they are read,
// with the chunks and lines Parse makes of the whole document.
type parseMatch struct {
	src      []byte
	full     *Tree
	context  string
	header   *Header // the first window's
	k        int     // windows compared
	ci, line int
	text     []byte
	usage    []Usage
}

func newParseMatch(src []byte, context string) *parseMatch {
	return &parseMatch{src: src, full: Parse(bytes.Clone(src)), context: context}
}

// window compares the next window, w.
func (m *parseMatch) window(t testing.TB, w *Tree) {
	t.Helper()
	context, full, k := m.context, m.full, m.k
	if k == 0 {
		m.header = w.Header()
	}
	m.k++
	if w.Region() != full.Region() {
		t.Fatalf("%s: window %d: region %+v, Parse %+v", context, k, w.Region(), full.Region())
	}
	if w.Header() != m.header {
		t.Fatalf("%s: window %d has a header of its own", context, k)
	}
	for i := range w.ChunkCount() {
		c, first, start := w.ChunkAt(i)
		fc, ffirst, fstart := full.ChunkAt(m.ci)
		if !bytes.Equal(c.Text(), fc.Text()) || first != ffirst || start != fstart {
			t.Fatalf("%s: window %d chunk %d (chunk %d of the document): %q at line %d, byte %d; Parse: %q at line %d, byte %d",
				context, k, i, m.ci, c.Text(), first, start, fc.Text(), ffirst, fstart)
		}
		m.ci++
	}
	for l := range w.LinesFrom(m.line) {
		fl := full.Line(l.Num)
		if l != fl || !bytes.Equal(w.Text(l), full.Text(fl)) {
			t.Fatalf("%s: window %d line %d\n window %+v %q\n Parse  %+v %q", context, k, l.Num, l, w.Text(l), fl, full.Text(fl))
		}
		if l.Num != m.line {
			t.Fatalf("%s: window %d: line %d after line %d", context, k, l.Num, m.line-1)
		}
		m.line++
	}
	m.text = append(m.text, w.Bytes()...)
	for u := range w.Usage() {
		m.usage = append(m.usage, u)
	}
}

// end checks that the windows compared, of which last is the last, held
// the whole document.
func (m *parseMatch) end(t testing.TB, last *Tree) {
	t.Helper()
	context, full := m.context, m.full
	if m.ci != full.ChunkCount() || m.line != full.LineCount() {
		t.Fatalf("%s: %d chunks and %d lines, Parse %d and %d", context, m.ci, m.line, full.ChunkCount(), full.LineCount())
	}
	if !bytes.Equal(m.text, m.src) {
		t.Fatalf("%s: the windows' text differs from the document", context)
	}
	if !reflect.DeepEqual(m.header, full.Header()) {
		t.Fatalf("%s: header\n stream %+v\n Parse  %+v", context, m.header, full.Header())
	}
	var fullUsage []Usage
	for u := range full.Usage() {
		fullUsage = append(fullUsage, u)
	}
	if !reflect.DeepEqual(m.usage, fullUsage) {
		t.Fatalf("%s: usage differs", context)
	}
	if last.Len() != full.Len() || last.LineCount() != full.LineCount() || last.BodyLineCount() != full.BodyLineCount() ||
		last.EditorLineCount() != full.EditorLineCount() {
		t.Fatalf("%s: the last window ends at %d bytes, %d lines, %d body lines, %d editor lines; Parse at %d, %d, %d, %d", context,
			last.Len(), last.LineCount(), last.BodyLineCount(), last.EditorLineCount(), full.Len(), full.LineCount(), full.BodyLineCount(), full.EditorLineCount())
	}
}

// assertRecycledWindowsAreTheParse reads src as `rlog-ls check` does, each
// window handed back (Recycle) once the two after it are read (one read
// ahead, one waiting), and compares each with the parse just before it is
// handed back, and the first again at the end: a buffer read into while a
// window still held it would show. It returns how many windows were read
// into a buffer handed back.
func assertRecycledWindowsAreTheParse(t testing.TB, r io.Reader, opts StreamOptions, src []byte, context string) (reused int) {
	t.Helper()
	m := newParseMatch(src, context+", recycled")
	s := NewStream(r, opts)
	handedBack := map[*byte]bool{}
	var first, last *Tree
	var pending []*Tree
	for {
		w, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = w
			if w.buf != nil {
				t.Fatalf("%s: the first window can be recycled", context)
			}
		}
		if w.buf != nil && handedBack[&w.buf[:1][0]] {
			reused++
		}
		last = w
		pending = append(pending, w)
		if len(pending) > 2 {
			m.window(t, pending[0])
			if b := pending[0].buf; b != nil {
				handedBack[&b[:1][0]] = true
			}
			s.Recycle(pending[0])
			s.Recycle(pending[0]) // twice is once
			pending = pending[1:]
		}
	}
	for _, w := range pending {
		m.window(t, w)
	}
	m.end(t, last)
	again := newParseMatch(src, context+", the first window at the end")
	again.window(t, first)
	return reused
}

// streamDocs are documents whose regions and last lines differ.
var streamDocs = []string{
	"", "\n", "\r\n", "x", "---", "---\n", "---\n---", "---\n---\n", sample, "\uFEFF" + sample,
	strings.ReplaceAll(sample, "\n", "\r\n"), "a\rb\r\nc\n\rd\r",
	"u: no header\nt!:Read id=a → [running]\n\n",
	"preamble\nmore preamble\n---\nid: x\n---\nu: hi\n",
	"---\nid: x\nnot yaml\n\nu: the body of an unclosed header\n",
	"---\nid: x\nstill header\nmore\n",
	"u: a body\n" + strings.Repeat("a: line\n", 300) + "---\nid: late\n---\nu: after\n",
	"---\nid: x\n" + strings.Repeat("key: value\n", 300) + "---\nu: a long header\n",
	"---\nid: x\n---\n" + strings.Repeat("u: "+strings.Repeat("long ", 5000)+"\n", 3),
}

func TestStreamEqualsParse(t *testing.T) {
	docs := append([]string{string(generated(3000))}, streamDocs...)
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data+EOF": iotest.DataErrReader,
	}
	for _, tiny := range []bool{false, true} {
		if tiny {
			t.Cleanup(SetChunkLimitsForTest(3, 64))
		}
		for d, doc := range docs {
			for name, wrap := range readers {
				for _, window := range []int{1, 100, 5000, 0} {
					ws := windows(t, wrap(strings.NewReader(doc)), StreamOptions{WindowBytes: window})
					context := fmt.Sprintf("tiny chunks %v, document %d, %s reader, window %d", tiny, d, name, window)
					assertWindowsAreTheParse(t, ws, []byte(doc), context)
					if name != "one byte" { // the slowest, and its reads are the half reader's
						assertRecycledWindowsAreTheParse(t, wrap(strings.NewReader(doc)), StreamOptions{WindowBytes: window}, []byte(doc), context)
					}
				}
			}
		}
	}
}

// TestStreamReadsAheadForTheRegion: a document whose header is never
// closed, or that has none, decides its region at its last line; with
// Reopen the stream reads ahead instead of holding it all, and its first
// window stays small.
func TestStreamReadsAheadForTheRegion(t *testing.T) {
	body := strings.Repeat("u: a line of the body\n", 2000)
	for _, doc := range []string{
		body,                       // no header: every line is body
		"---\nid: x\n\n" + body,    // unclosed: the body starts at the empty line
		body + "---\nid: x\n---\n", // a late header: the lines before it are a preamble
	} {
		src := []byte(doc)
		reopened := 0
		opts := StreamOptions{WindowBytes: 1000, HoldBytes: 5000, Reopen: func() (io.Reader, error) {
			reopened++
			return bytes.NewReader(src), nil
		}}
		ws := windows(t, bytes.NewReader(src), opts)
		assertWindowsAreTheParse(t, ws, src, fmt.Sprintf("%.20q", doc))
		if reopened != 1 {
			t.Errorf("%.20q: reopened %d times, want once", doc, reopened)
		}
		first := ws[0]
		_, _, start := first.ChunkAt(0)
		if held := first.Len() - start; held > 8000 && first.Region().BodyStart < 100 {
			t.Errorf("%.20q: the first window holds %d bytes", doc, held)
		}
		// Without Reopen the stream holds the document until it knows.
		ws = windows(t, bytes.NewReader(src), StreamOptions{WindowBytes: 1000})
		assertWindowsAreTheParse(t, ws, src, fmt.Sprintf("%.20q without reopen", doc))
	}
}

func TestStreamPassesReadErrors(t *testing.T) {
	broken := io.MultiReader(strings.NewReader(sample), iotest.ErrReader(errors.New("disk on fire")))
	s := NewStream(broken, StreamOptions{})
	for {
		_, err := s.Next()
		if err == nil {
			continue
		}
		if err.Error() != "disk on fire" {
			t.Fatalf("err = %v", err)
		}
		return
	}
}

func FuzzStream(f *testing.F) {
	for _, d := range streamDocs {
		f.Add([]byte(d), uint16(7), false)
	}
	f.Add(generated(300), uint16(300), true)
	f.Fuzz(func(t *testing.T, src []byte, window uint16, tiny bool) {
		if tiny {
			withTinyChunks(t)
		}
		ws := windows(t, iotest.HalfReader(bytes.NewReader(src)), StreamOptions{WindowBytes: int(window)})
		assertWindowsAreTheParse(t, ws, src, "fuzz")
		ws = windows(t, bytes.NewReader(src), StreamOptions{WindowBytes: int(window), HoldBytes: int(window) + 1,
			Reopen: func() (io.Reader, error) { return iotest.OneByteReader(bytes.NewReader(src)), nil }})
		assertWindowsAreTheParse(t, ws, src, "fuzz, reading ahead")
		assertRecycledWindowsAreTheParse(t, iotest.HalfReader(bytes.NewReader(src)), StreamOptions{WindowBytes: int(window)}, src, "fuzz")
	})
}

// TestStreamRecyclesWindows: the windows after the first are read into
// the buffers of the windows handed back, and are the parse all the same.
// (A buffer too small for the next window's start, as with windows far
// smaller than firstBuffer, is left to the collector.)
func TestStreamRecyclesWindows(t *testing.T) {
	src := generated(40000)
	for _, window := range []int{firstBuffer, 200 << 10} {
		context := fmt.Sprintf("window %d", window)
		n := len(windows(t, bytes.NewReader(src), StreamOptions{WindowBytes: window}))
		reused := assertRecycledWindowsAreTheParse(t, bytes.NewReader(src), StreamOptions{WindowBytes: window}, src, context)
		// Windows 1 and 2 (after the first) are read before any is handed
		// back, and the last is read into nothing new.
		t.Logf("%s: %d of %d windows read into a buffer handed back", context, reused, n)
		if n < 8 || reused < n-5 {
			t.Errorf("%s: %d of %d windows read into a buffer handed back", context, reused, n)
		}
	}
}
