package rlogfmt

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// The writer's fast paths held to what the writer did before them
// (round thirteen of #28): each reference below is the old code.

// wordlessReference is wordless without its printable-ASCII path.
func wordlessReference(s string) string {
	s = sanitize(s)
	if strings.ContainsAny(s, " \t") {
		return strings.Join(strings.Fields(s), "_")
	}
	return s
}

// toolNameReference is toolName without its word-byte path: every name
// read back by the parser's line scan.
func toolNameReference(s string) string {
	s = wordlessReference(s)
	if s == "" {
		return "tool"
	}
	li := grammar.ScanLine([]byte(grammar.ToolStart.Prefix() + s))
	if li.Kind != grammar.ToolStart {
		return "tool_" + s
	}
	return s
}

// textLinesReference is the lines of an rlog source's text as the writer
// split them: strings.Split, each line sanitized, the empty ones after the
// first dropped and the others trimmed.
func textLinesReference(s string) (string, []string) {
	s = validUTF8(s)
	if strings.IndexByte(s, '\n') < 0 {
		return sanitize(s), nil
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = sanitize(lines[i])
	}
	var cont []string
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) != "" {
			cont = append(cont, strings.TrimSpace(l))
		}
	}
	return lines[0], cont
}

var writerEdges = []string{
	"", " ", "\t", "a", "Read", "mcp__server__tool", "2026-11-28T10:00:00Z",
	"claude-sonnet-4", "a b", " a", "a ", "a\tb", "a\x00b", "a\rb", "a\nb",
	"a\r\n", "\n", "\n\n", "a\n\nb\n", "a\n  \n b \n", "x\xffy", "\xff",
	"é", "日本", "😀", "a😀b\nc😀", "~x", "-x", ".x", "\x7f", "a\x7fb",
	"\x1b[31mred", "a\u00a0b", "\u2028", "é\n", "a=b\nc=d", "-", "_x",
	"1", strings.Repeat("x", 100), strings.Repeat("é\n", 20),
	// printableASCII's eight bytes at once: every stop at each place.
	"0123456 89abcdef", "01234567\xc3\xa9", "0123456\x7f", "01234567!~",
	"0123456\x00", "01234567\t", "012345678901234\x80", "ab cdefgh",
}

// FuzzWordless: printable ASCII is its own wordless value, and a name
// that starts with an ASCII word byte is a tool start for the parser's
// line scan (toolName).
func FuzzWordless(f *testing.F) {
	for _, s := range writerEdges {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := wordless(s), wordlessReference(s); got != want {
			t.Fatalf("wordless(%q) = %q, reference %q", s, got, want)
		}
		if got, want := toolName(s), toolNameReference(s); got != want {
			t.Fatalf("toolName(%q) = %q, reference %q", s, got, want)
		}
	})
}

// FuzzTextLines: an rlog source's text split into its first line and
// continuation lines in one walk, in the writer's reused list, is what
// strings.Split and a second list made.
func FuzzTextLines(f *testing.F) {
	for _, s := range writerEdges {
		f.Add(s, s)
	}
	wr := &writer{same: true}
	f.Fuzz(func(t *testing.T, s, s2 string) {
		e := &model.Event{Kind: model.KindAgent}
		for _, in := range []string{s, s2} { // the list reused
			first, cont := wr.text(in, LimitAgent, "agent text", e)
			wfirst, wcont := textLinesReference(in)
			if first != wfirst || !slices.Equal(cont, wcont) {
				t.Fatalf("text(%q) = %q %q, reference %q %q", in, first, cont, wfirst, wcont)
			}
		}
	})
}

// TestTextLinesEdges holds the same at every edge of the walk: no line
// break, one at the start or the end, empty and white lines between.
func TestTextLinesEdges(t *testing.T) {
	wr := &writer{same: true}
	e := &model.Event{Kind: model.KindAgent}
	for _, s := range append(writerEdges, "\na", "a\n", "\n \n\t\n", "a\r\nb\r\n", "a\n\x00\nb", "\xff\n\xfe") {
		first, cont := wr.text(s, LimitAgent, "agent text", e)
		wfirst, wcont := textLinesReference(s)
		if first != wfirst || !slices.Equal(cont, wcont) {
			t.Errorf("text(%q) = %q %q, reference %q %q", s, first, cont, wfirst, wcont)
		}
	}
}

// openCallsReference is the open calls as the writer kept them before:
// a list per source id, oldest first.
type openCallsReference map[string][]string

func (o openCallsReference) add(src, id string) { o[src] = append(o[src], id) }

func (o openCallsReference) answerOldest(src string) (string, bool) {
	q := o[src]
	if len(q) == 0 {
		return "", false
	}
	if len(q) > 1 {
		o[src] = q[1:]
	} else {
		delete(o, src)
	}
	return q[0], true
}

func (o openCallsReference) answerNewest(src string) {
	if q := o[src]; len(q) > 1 {
		o[src] = q[:len(q)-1]
	} else {
		delete(o, src)
	}
}

// FuzzOpenCalls: the first open call of a source id kept in the map's
// value and the others in a list answer calls as one list per id did.
// Each byte of ops is an operation (its low two bits) on one of four
// source ids.
func FuzzOpenCalls(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1})
	f.Add([]byte{0, 4, 8, 1, 2, 5, 0, 0, 0, 2, 1, 1, 1})
	f.Add([]byte{2, 1, 0, 2, 0, 0, 2, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		wr := &writer{open: map[string]openCalls{}}
		ref := openCallsReference{}
		for i, op := range ops {
			src := string(rune('a' + op>>2&3))
			switch op & 3 {
			case 0, 3:
				id := src + strings.Repeat("_", i)
				wr.addOpen(src, id)
				ref.add(src, id)
			case 1:
				id, ok := wr.answerOldest(src)
				wid, wok := ref.answerOldest(src)
				if id != wid || ok != wok {
					t.Fatalf("op %d: answerOldest(%q) = %q %v, reference %q %v", i, src, id, ok, wid, wok)
				}
			case 2:
				wr.answerNewest(src)
				ref.answerNewest(src)
			}
			if len(wr.open) != len(ref) {
				t.Fatalf("op %d: %d source ids open, reference %d", i, len(wr.open), len(ref))
			}
			for src, q := range ref {
				got := wr.open[src]
				if !slices.Equal(append([]string{got.first}, got.more...), q) {
					t.Fatalf("op %d: open calls of %q = %q %q, reference %q", i, src, got.first, got.more, q)
				}
			}
		}
	})
}

// TestAddResult: a result's arrow, status and text as the strings the
// writer joined before ("→ " + "[status] text", or "[status]" alone).
func TestAddResult(t *testing.T) {
	for _, c := range []struct{ prefix, status, text string }{
		{"o:", "ok", "done"}, {"o:", "error", ""}, {"", "ok", "x"}, {"", "ok", ""},
		{"t: Read id=a", "ok", "é 😀"},
	} {
		var l line
		l.b = append(l.b, c.prefix...)
		l.addResult(c.status, c.text)
		want := "[" + c.status + "]"
		if c.text != "" {
			want += " " + c.text
		}
		var ref line
		ref.b = append(ref.b, c.prefix...)
		ref.add("→ " + want)
		if string(l.b) != string(ref.b) {
			t.Errorf("addResult(%q, %q) after %q = %q, joined: %q", c.status, c.text, c.prefix, l.b, ref.b)
		}
	}
}
