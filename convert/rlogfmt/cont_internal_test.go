package rlogfmt

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// continuedLog makes an rlog log of the lines ops chooses, each op a
// byte: its low four bits the kind of line (a line that takes continued
// text, one that takes none, a continuation line with or without
// trailing metadata, white space or an empty line), the next two the
// piece of text it holds (text cut at each '|': anything, CR, invalid
// UTF-8 and emoji included), the top two the line's end (CRLF for one in
// four) and, for the header, its end too.
func continuedLog(ops []byte, text string) []byte {
	pieces := strings.Split(text, "|")
	var b bytes.Buffer
	end := "\n"
	if len(ops) > 0 && ops[0]>>6 == 3 {
		end = "\r\n"
	}
	b.WriteString("---" + end + "format: rlog/1" + end + "id: s" + end + "---" + end)
	for i, op := range ops {
		piece := pieces[(i+int(op>>4&3))%len(pieces)]
		end := "\n"
		if op>>6 == 3 {
			end = "\r\n"
		}
		switch op & 15 {
		case 0:
			fmt.Fprintf(&b, "u: %s", piece)
		case 1:
			fmt.Fprintf(&b, "a: %s ts=2025-12-24T00:11:59Z", piece)
		case 2:
			fmt.Fprintf(&b, "th: %s sig=abc tokens_in=5", piece)
		case 3:
			fmt.Fprintf(&b, "t:Read id=r%d file=/x → [ok] %s latency_ms=5", i, piece)
		case 4:
			fmt.Fprintf(&b, "o: id=r%d → [error] %s", i-1, piece)
		case 5:
			fmt.Fprintf(&b, "# status: %s ts=2025-12-24T00:11:58Z", piece)
		case 6:
			fmt.Fprintf(&b, "# %s", piece)
		case 7:
			fmt.Fprintf(&b, "@phase %s", piece) // takes no continued text
		case 8:
			fmt.Fprintf(&b, "t~:Edit id=r%d %s", i, piece) // passed through
		case 9:
			fmt.Fprintf(&b, "x:Explore id=t%d → [done] %s", i, piece)
		case 10, 11, 12:
			fmt.Fprintf(&b, "  %s", piece)
		case 13:
			fmt.Fprintf(&b, "\t%s tokens_out=6 ts=2025-12-24T00:12:00Z", piece)
		case 14:
			fmt.Fprintf(&b, "    %s   ", piece)
		case 15:
			if op&16 != 0 {
				b.WriteString("  ")
			}
		}
		b.WriteString(end)
	}
	return b.Bytes()
}

// readContinuedBoth reads in as Read does and as the tests' reference
// does (lineParts.copies: each string a copy of its own, and a continued
// text made again at each of its lines, text + "\n" + line, as before the
// buffer), both with the one pass, and fails when the sessions or the
// reports differ.
func readContinuedBoth(t *testing.T, in []byte) {
	t.Helper()
	var fast, ref model.Collector
	var fastRep, refRep model.Report
	fastErr := read(bytes.NewReader(in), &fast, &fastRep, (*grammar.LineTokens).Read, false)
	refErr := read(bytes.NewReader(in), &ref, &refRep, (*grammar.LineTokens).Read, true)
	if (fastErr == nil) != (refErr == nil) {
		t.Fatalf("error %v, reference %v", fastErr, refErr)
	}
	if !reflect.DeepEqual(fast.Session, ref.Session) {
		for i := range min(len(fast.Session.Events), len(ref.Session.Events)) {
			if f, r := fast.Session.Events[i], ref.Session.Events[i]; !reflect.DeepEqual(f, r) {
				t.Fatalf("%q\nevent %d\n      read %+v\n reference %+v", in, i, f, r)
			}
		}
		t.Fatalf("%q: sessions differ (header or number of events)", in)
	}
	if fastRep.Text() != refRep.Text() {
		t.Fatalf("%q: report\n%s\nreference\n%s", in, fastRep.Text(), refRep.Text())
	}
}

// FuzzReadContinued holds the texts of events continued by any lines (the
// continued-text buffer, made one string when the event is sent) to the
// reference's, made again at each line, over logs of every kind of line
// with continuation lines after them, CRLF, invalid UTF-8, emoji and
// trailing metadata.
func FuzzReadContinued(f *testing.F) {
	f.Add([]byte{1, 10, 10, 0, 11, 13, 3, 12, 14, 2, 10, 5, 10, 7, 10, 8, 10, 4, 10, 9, 10, 6, 10}, "text|é→ü 😀|a \xff b|x=\"q\"|")
	f.Add([]byte{0xc1, 0xca, 0xcd, 0x1f, 0x0a, 0x3a, 0xc0, 0xce, 0x2f, 0x2a}, "one\rtwo|\xf0\x9f\x98|tokens_in=3|\u2028")
	f.Add([]byte{10, 10, 1, 15, 10, 31, 10, 3, 13, 13, 4, 13}, "|  |\t|→ [ok] x")
	f.Fuzz(func(t *testing.T, ops []byte, text string) {
		if len(ops) > 512 {
			ops = ops[:512]
		}
		readContinuedBoth(t, continuedLog(ops, text))
	})
}

// TestReadContinuedEdges reads each kind of line continued by each kind
// of continuation line, with each piece, as FuzzReadContinued does.
func TestReadContinuedEdges(t *testing.T) {
	text := "plain|é→ü 😀|a \xff b|tail ts=2025-12-24T00:11:59Z|"
	for first := range 16 {
		for cont := range 16 {
			for _, end := range []byte{0, 0xc0} {
				ops := []byte{byte(first) | end, byte(cont) | end, byte(cont) | 0x10 | end, byte(cont) | 0x20, 1}
				readContinuedBoth(t, continuedLog(ops, text))
			}
		}
	}
}

// TestBuffersLetGo reads a text continued past maxKeptBuffer, then a short
// one, and a passed-through line longer than maxKeptBuffer, then a short
// one: the reader's buffer for each keeps no more than maxKeptBuffer once
// the event it was made for is sent, and the events hold their texts.
func TestBuffersLetGo(t *testing.T) {
	var rd *reader
	var texts []string
	var conts, raws []int // cap(rd.cont), cap(rd.raw) as each event is sent
	sink := sinkFunc(func(e *model.Event) {
		if e.Kind == model.KindPassthrough {
			texts = append(texts, string(e.Raw))
		} else {
			texts = append(texts, e.Text)
		}
		conts, raws = append(conts, cap(rd.cont)), append(raws, cap(rd.raw))
	})
	// As read makes it.
	rd = &reader{sink: sink, rep: &model.Report{}, h: &model.Header{SourceFormat: Name}, readLine: (*grammar.LineTokens).Read}
	rd.parts.ids, rd.parts.lines = idRoom(), lineRoom()
	long := strings.Repeat("x", 99)
	lines := []string{"a: huge"}
	for range 1000 { // about 100 KB
		lines = append(lines, "  "+long)
	}
	huge := "t~:Edit id=r1 " + strings.Repeat("y", 70<<10)
	lines = append(lines, "a: short", "  more", huge, "t~:Edit id=r2 small", "u: end")
	for i, l := range lines {
		if err := rd.bodyLine([]byte(l), i+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := rd.end(); err != nil {
		t.Fatal(err)
	}
	want := []string{"huge" + strings.Repeat("\n"+long, 1000), "short\nmore", `"` + huge + `"`, `"t~:Edit id=r2 small"`, "end"}
	if !reflect.DeepEqual(texts, want) {
		t.Fatalf("texts differ: %d events, want %d", len(texts), len(want))
	}
	// An event is sent when the next line is read: the huge text when
	// "a: short" is (its buffer let go), the short text when the huge
	// line is (the short text's buffer kept, the huge line's JSON made
	// and its buffer let go), the huge line when the short line is (the
	// short line's JSON made in a buffer kept).
	if conts[0] != 0 || conts[1] == 0 || conts[1] > maxKeptBuffer {
		t.Errorf("continued text's buffer when the huge text and the short one are sent: %d, %d bytes; want 0, then up to %d", conts[0], conts[1], maxKeptBuffer)
	}
	if raws[1] != 0 || raws[2] == 0 || raws[2] > maxKeptBuffer {
		t.Errorf("passed-through line's buffer after the huge line and the short one: %d, %d bytes; want 0, then up to %d", raws[1], raws[2], maxKeptBuffer)
	}
	if cap(rd.cont) > maxKeptBuffer || cap(rd.raw) > maxKeptBuffer {
		t.Errorf("buffers at the end: %d and %d bytes, want up to %d", cap(rd.cont), cap(rd.raw), maxKeptBuffer)
	}
}

// sinkFunc is a sink that calls itself with each event.
type sinkFunc func(*model.Event)

func (f sinkFunc) Event(_ *model.Header, e *model.Event) error { f(e); return nil }
func (sinkFunc) End(*model.Header) error                       { return nil }
