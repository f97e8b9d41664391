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
	full := Parse(bytes.Clone(src))
	if len(ws) == 0 {
		t.Fatalf("%s: no window", context)
	}
	ci, line := 0, 0
	var text []byte
	var usage []Usage
	for k, w := range ws {
		if w.Region() != full.Region() {
			t.Fatalf("%s: window %d: region %+v, Parse %+v", context, k, w.Region(), full.Region())
		}
		if w.Header() != ws[0].Header() {
			t.Fatalf("%s: window %d has a header of its own", context, k)
		}
		for i := range w.ChunkCount() {
			c, first, start := w.ChunkAt(i)
			fc, ffirst, fstart := full.ChunkAt(ci)
			if !bytes.Equal(c.Text(), fc.Text()) || first != ffirst || start != fstart {
				t.Fatalf("%s: window %d chunk %d (chunk %d of the document): %q at line %d, byte %d; Parse: %q at line %d, byte %d",
					context, k, i, ci, c.Text(), first, start, fc.Text(), ffirst, fstart)
			}
			ci++
		}
		for l := range w.LinesFrom(line) {
			fl := full.Line(l.Num)
			if l != fl || !bytes.Equal(w.Text(l), full.Text(fl)) {
				t.Fatalf("%s: window %d line %d\n window %+v %q\n Parse  %+v %q", context, k, l.Num, l, w.Text(l), fl, full.Text(fl))
			}
			if l.Num != line {
				t.Fatalf("%s: window %d: line %d after line %d", context, k, l.Num, line-1)
			}
			line++
		}
		text = append(text, w.Bytes()...)
		for u := range w.Usage() {
			usage = append(usage, u)
		}
	}
	if ci != full.ChunkCount() || line != full.LineCount() {
		t.Fatalf("%s: %d chunks and %d lines, Parse %d and %d", context, ci, line, full.ChunkCount(), full.LineCount())
	}
	if !bytes.Equal(text, src) {
		t.Fatalf("%s: the windows' text differs from the document", context)
	}
	if !reflect.DeepEqual(ws[0].Header(), full.Header()) {
		t.Fatalf("%s: header\n stream %+v\n Parse  %+v", context, ws[0].Header(), full.Header())
	}
	var fullUsage []Usage
	for u := range full.Usage() {
		fullUsage = append(fullUsage, u)
	}
	if !reflect.DeepEqual(usage, fullUsage) {
		t.Fatalf("%s: usage differs", context)
	}
	last := ws[len(ws)-1]
	if last.Len() != full.Len() || last.LineCount() != full.LineCount() || last.BodyLineCount() != full.BodyLineCount() ||
		last.EditorLineCount() != full.EditorLineCount() {
		t.Fatalf("%s: the last window ends at %d bytes, %d lines, %d body lines, %d editor lines; Parse at %d, %d, %d, %d", context,
			last.Len(), last.LineCount(), last.BodyLineCount(), last.EditorLineCount(), full.Len(), full.LineCount(), full.BodyLineCount(), full.EditorLineCount())
	}
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
					assertWindowsAreTheParse(t, ws, []byte(doc), fmt.Sprintf("tiny chunks %v, document %d, %s reader, window %d", tiny, d, name, window))
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
	})
}
