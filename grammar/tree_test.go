package grammar

import (
	"bytes"
	"fmt"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const sample = `---
format: rlog/1
id: sess_demo
repo_sha: abc123
---

@start id=sess_demo ts=2025-12-19T20:29:02Z
u: Can you check auth?
t!:Read id=call_1 file_path=src/auth.rs → [running]
o: id=call_1 → [ok] 186 lines
@end
`

func kinds(t *Tree) []Kind {
	var out []Kind
	for l := range t.Lines() {
		out = append(out, l.Kind)
	}
	return out
}

func TestRegionAndKinds(t *testing.T) {
	tr := Parse([]byte(sample))
	want := []Kind{HeaderDelimiter, HeaderLine, HeaderLine, HeaderLine, HeaderDelimiter, Empty, Lifecycle, User, ToolStart, Observation, Lifecycle, Empty}
	if got := kinds(tr); !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds %v\nwant  %v", got, want)
	}
	if r := tr.Region(); r != (Region{HeaderStart: 0, HeaderEnd: 4, BodyStart: 5}) {
		t.Fatalf("region %+v", r)
	}
	if n := tr.BodyLineCount(); n != 6 {
		t.Fatalf("body lines %d, want 6 (no line after the final newline)", n)
	}
	h := tr.Header()
	if v, _ := h.Get("id"); v != "sess_demo" {
		t.Fatalf("id %q", v)
	}
	f := h.Field("repo_sha")
	if got := sample[f.ValueSpan.Start:f.ValueSpan.End]; got != "abc123" {
		t.Fatalf("repo_sha span %q", got)
	}
	if got := sample[f.KeySpan.Start:f.KeySpan.End]; got != "repo_sha" {
		t.Fatalf("repo_sha key span %q", got)
	}
	l := tr.Line(8)
	if got := sample[l.ID.Start:l.ID.End]; got != "call_1" {
		t.Fatalf("id span %q", got)
	}
	if got := sample[l.Result.Start:l.Result.End]; got != "[running]" {
		t.Fatalf("result %q", got)
	}
}

func TestHeaderVariants(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want Region
		kind []Kind
	}{
		{"preamble before the header", "notes\n---\nformat: rlog/1\n---\nu: hi", Region{1, 3, 4},
			[]Kind{Preamble, HeaderDelimiter, HeaderLine, HeaderDelimiter, User}},
		{"no header", "u: hi\na: there", Region{-1, -1, 0}, []Kind{User, Agent}},
		{"unterminated header ends at the first body line", "---\nformat: rlog/1\nid: x\n\nu: hi", Region{0, -1, 3},
			[]Kind{HeaderDelimiter, HeaderLine, HeaderLine, Empty, User}},
		{"unterminated header ends at a recognised line", "---\nformat: rlog/1\n@start\nu: hi", Region{0, -1, 2},
			[]Kind{HeaderDelimiter, HeaderLine, Lifecycle, User}},
		{"a later --- is an unknown body line", "---\nid: x\n---\n---\n", Region{0, 2, 3},
			[]Kind{HeaderDelimiter, HeaderLine, HeaderDelimiter, Unknown, Empty}},
		{"indented delimiters count (trim)", " ---\nid: x\n--- \nu: y", Region{0, 2, 3},
			[]Kind{HeaderDelimiter, HeaderLine, HeaderDelimiter, User}},
		{"BOM before the header", "\uFEFF---\nid: x\n---\nu: y", Region{0, 2, 3},
			[]Kind{HeaderDelimiter, HeaderLine, HeaderDelimiter, User}},
		{"empty document", "", Region{-1, -1, 0}, []Kind{Empty}},
	}
	for _, c := range cases {
		tr := Parse([]byte(c.src))
		if tr.Region() != c.want {
			t.Errorf("%s: region %+v, want %+v", c.name, tr.Region(), c.want)
		}
		if got := kinds(tr); !reflect.DeepEqual(got, c.kind) {
			t.Errorf("%s: kinds %v, want %v", c.name, got, c.kind)
		}
	}
}

func TestHeaderFields(t *testing.T) {
	src := "---\nformat: rlog/1\nid: \nrepo_sha: 560549231\nbranch: ~\nskills: [a, b]\nextra:\n  eval_suite: tb\nclient_version: \"2.0.71\" # quoted\nid: again\n---\n"
	h := Parse([]byte(src)).Header()
	if f := h.Field("id"); f == nil || f.Kind != Null {
		t.Fatalf("empty id should be null: %+v", f)
	}
	if v, ok := h.Get("repo_sha"); !ok || v != "560549231" {
		t.Fatalf("repo_sha read as %q %v", v, ok)
	}
	if f := h.Field("branch"); f.Kind != Null {
		t.Fatalf("~ should be null: %+v", f)
	}
	if f := h.Field("skills"); f.Kind != Sequence || !reflect.DeepEqual(f.Items, []string{"a", "b"}) {
		t.Fatalf("skills %+v", f)
	}
	if f := h.Field("extra"); f.Kind != Mapping {
		t.Fatalf("extra %+v", f)
	}
	f := h.Field("client_version")
	if got := src[f.ValueSpan.Start:f.ValueSpan.End]; got != `"2.0.71"` || f.Value != "2.0.71" {
		t.Fatalf("client_version span %q value %q", got, f.Value)
	}
	if len(h.Errors) != 1 || !strings.Contains(h.Errors[0].Message, "duplicate field `id`") || h.Errors[0].Line != 9 {
		t.Fatalf("errors %+v", h.Errors)
	}
}

func TestHeaderSyntaxError(t *testing.T) {
	src := "---\nformat: rlog/1\nid: x: y\n---\nu: hi\n"
	tr := Parse([]byte(src))
	h := tr.Header()
	if len(h.Errors) != 1 || h.Errors[0].Line != 2 {
		t.Fatalf("errors %+v", h.Errors)
	}
	if got := kinds(tr)[4]; got != User {
		t.Fatalf("body still parsed: %v", got)
	}
}

// An unclosed header whose text is not a mapping (a document marker after
// a byte-order mark) has its error on its own last line, not on the body
// line after it: an edit of that line keeps the header, so an error there
// would keep the line's old extent.
func TestHeaderErrorStaysInTheHeader(t *testing.T) {
	src := "preamble\n---\n\ufeff---\r\na: reply parent=a: reply"
	tr := Parse([]byte(src))
	h := tr.Header()
	if len(h.Errors) != 1 || h.Errors[0].Line != 2 || h.Closed {
		t.Fatalf("header %+v, errors %+v", h, h.Errors)
	}
	at := strings.Index(src, ": reply") + 1
	edited := tr.Edit(at, at, []byte("Z"))
	fresh := Parse(edited.Bytes())
	if got, want := edited.Header().Errors, fresh.Header().Errors; len(got) != 1 || got[0] != want[0] {
		t.Fatalf("edited %+v, fresh %+v", got, want)
	}
}

// TestHeaderNullValueStaysInTheHeader: the empty value of a `? key` on the
// header's last line, which YAML places where the next line starts, is
// placed at the end of that line, so that the header does not change with
// the line after it (an edit there, or where a stream's window ends).
// FuzzStream found the header differing between a stream and Parse.
func TestHeaderNullValueStaysInTheHeader(t *testing.T) {
	for _, src := range []string{
		"--- \n000000: 0000000\n? 000\na:000000000000000000000000000000000000",
		"---\n? key\n---\nu: hi\n",
		"---\r\n? key\r\nu: hi\r\n",
	} {
		tr := Parse([]byte(src))
		h := tr.Header()
		last := h.Fields[len(h.Fields)-1]
		l := tr.Line(last.Line)
		if last.Kind != Null || last.ValueSpan != (Span{l.End, l.End}) {
			t.Errorf("%q: last field %+v, its line %+v", src, last, l)
		}
		next := tr.Line(last.Line + 1)
		if next.Kind == HeaderDelimiter {
			continue // the header's own closing line
		}
		at := next.Start + 1
		edited := tr.Edit(at, at, []byte(": x"))
		if got := edited.Header().Fields; got[len(got)-1].ValueSpan != last.ValueSpan {
			t.Errorf("%q: after an edit of the next line %+v, before %+v", src, got[len(got)-1], last)
		}
	}
}

func TestHostileInput(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 10<<20)
	src := []byte("---\r\nformat: rlog/1\r\nid: a\r\nrepo_sha: abcdef\r\n---\r\nu: crlf\r\no: id=\xff\xfe → [ok]\r\na: nul \x00 here\r\na: ")
	src = append(src, big...)
	src = append(src, "\r\nu: last line without newline"...)
	tr := Parse(src)
	if r := tr.Region(); r != (Region{0, 4, 5}) {
		t.Fatalf("region with CRLF %+v", r)
	}
	u := tr.Line(5)
	if u.Kind != User || u.Flags&FlagCR == 0 || string(tr.Text(u)) != "u: crlf" {
		t.Fatalf("crlf line %+v %q", u, tr.Text(u))
	}
	if l := tr.Line(6); l.Flags&FlagInvalidUTF8 == 0 || l.Kind != Observation {
		t.Fatalf("invalid utf8 line %+v", l)
	}
	if l := tr.Line(7); l.Flags&FlagNUL == 0 {
		t.Fatalf("nul line %+v", l)
	}
	if l := tr.Line(8); l.End-l.Start != 3+len(big) || l.Kind != Agent {
		t.Fatalf("10 MB line %+v", l)
	}
	if l := tr.Line(9); string(tr.Text(l)) != "u: last line without newline" || l.Next != tr.Len() {
		t.Fatalf("last line %+v", l)
	}
	if !bytes.Equal(tr.Bytes(), src) {
		t.Fatal("text not preserved")
	}
}

func TestEditorLines(t *testing.T) {
	src := "a\rb\r\nc\n\rd\r"
	tr := Parse([]byte(src))
	// Editors see: "a" | "b" | "c" | "" | "d" | "" (CR, CRLF, LF, CR, CR).
	want := []string{"a", "b", "c", "", "d", ""}
	if tr.EditorLineCount() != len(want) {
		t.Fatalf("editor lines %d, want %d", tr.EditorLineCount(), len(want))
	}
	for i, w := range want {
		s, e := tr.EditorLineStart(i), tr.EditorLineEnd(i)
		if got := src[s:e]; got != w {
			t.Errorf("editor line %d = %q, want %q", i, got, w)
		}
		for off := s; off <= e; off++ {
			if got := tr.EditorLineAt(off); got != i {
				t.Errorf("EditorLineAt(%d) = %d, want %d", off, got, i)
			}
		}
	}
}

// lineView is a Line plus its text, for comparing trees built differently.
type lineView struct {
	Line
	Text string
}

func view(t *Tree) ([]lineView, Region, *Header, []Usage) {
	var out []lineView
	for l := range t.Lines() {
		out = append(out, lineView{l, string(t.Text(l))})
	}
	var us []Usage
	for u := range t.Usage() {
		us = append(us, u)
	}
	return out, t.Region(), t.Header(), us
}

func assertSameAsFullParse(t testing.TB, inc *Tree, src []byte, context string) {
	t.Helper()
	full := Parse(bytes.Clone(src))
	if !bytes.Equal(inc.Bytes(), src) {
		t.Fatalf("%s: text differs", context)
	}
	il, ir, ih, iu := view(inc)
	fl, fr, fh, fu := view(full)
	if ir != fr {
		t.Fatalf("%s: region %+v, full parse %+v", context, ir, fr)
	}
	if len(il) != len(fl) {
		t.Fatalf("%s: %d lines, full parse %d", context, len(il), len(fl))
	}
	for i := range il {
		if il[i] != fl[i] {
			t.Fatalf("%s: line %d\n inc  %+v\n full %+v", context, i, il[i], fl[i])
		}
	}
	if !reflect.DeepEqual(ih, fh) {
		t.Fatalf("%s: header\n inc  %+v\n full %+v", context, ih, fh)
	}
	if !reflect.DeepEqual(iu, fu) {
		t.Fatalf("%s: usage differs", context)
	}
	if inc.EditorLineCount() != full.EditorLineCount() {
		t.Fatalf("%s: editor lines differ", context)
	}
	// Pages shared or rebuilt by edits hold what their chunks hold, and none
	// is empty or over the limit.
	for p, pg := range inc.pages {
		if fresh := newPage(pg.chunks); !slices.Equal(fresh.within, pg.within) || fresh.delims != pg.delims {
			t.Fatalf("%s: page %d's sums differ from its chunks'", context, p)
		}
		if len(pg.chunks) == 0 || len(pg.chunks) > pageMaxChunks {
			t.Fatalf("%s: page %d has %d chunks", context, p, len(pg.chunks))
		}
		for _, c := range pg.chunks {
			if c.HasCR() != bytes.Contains(c.Text(), []byte{'\r'}) {
				t.Fatalf("%s: page %d: a chunk's HasCR is %v for %q", context, p, c.HasCR(), c.Text())
			}
		}
	}
}

var editPieces = []string{
	"", "\n", "\r\n", "\r", "---\n", "---", "u: hi\n", "t!:Read id=a → [running]\n", "o: id=a → [ok]\n",
	"  cont\n", "format: rlog/1\n", "id: x\n", "é", "😀", "\xff", "→", "tokens_in=5 ", "message_id=\"m1\" ",
	"step=3 ", "@start\n", "\uFEFF", "x", " ", "\t", "id=", "#",
}

// generated builds a document large enough to span many chunks.
func generated(lines int) []byte {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: gen\nrepo_sha: abcdef\n---\n")
	for i := range lines {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, "u: question %d ts=2025-12-19T20:%02d:00Z\n", i, i%60)
		case 1:
			fmt.Fprintf(&b, "t!:Read id=c%d file_path=f%d.go → [running] tokens_in=%d tokens_out=1\n", i, i, i%7)
		case 2:
			fmt.Fprintf(&b, "o: id=c%d → [ok] é😀 line\r\n", i-1)
		case 3:
			fmt.Fprintf(&b, "  continuation %d\n", i)
		case 4:
			fmt.Fprintf(&b, "a: answer step=%d message_id=\"m%d\" tokens_in=3\n", i, i/12)
		case 5:
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// withTinyChunks makes every few lines a chunk boundary.
func withTinyChunks(t testing.TB) { t.Cleanup(SetChunkLimitsForTest(3, 64)) }

func TestIncrementalEqualsFullParseTinyChunks(t *testing.T) {
	withTinyChunks(t)
	TestIncrementalEqualsFullParse(t)
}

func TestIncrementalEqualsFullParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, base := range [][]byte{[]byte(sample), generated(3000), {}} {
		src := bytes.Clone(base)
		tr := Parse(bytes.Clone(src))
		for i := range 400 {
			s, e, ins := edittest.Random(r, len(src), editPieces)
			tr = tr.Edit(s, e, bytes.Clone(ins))
			src = edittest.Splice(src, s, e, ins)
			assertSameAsFullParse(t, tr, src, fmt.Sprintf("edit %d [%d,%d) %q", i, s, e, ins))
		}
	}
}

func TestEditKeepsOldSnapshot(t *testing.T) {
	src := generated(2000)
	old := Parse(bytes.Clone(src))
	before, _, _, _ := view(old)
	_ = old.Edit(100, 5000, []byte("u: replaced\n"))
	after, _, _, _ := view(old)
	if !reflect.DeepEqual(before, after) {
		t.Fatal("an edit changed the tree it was applied to")
	}
}

func FuzzIncrementalEdit(f *testing.F) {
	f.Add([]byte(sample), uint16(10), uint16(20), []byte("u: x\n"))
	f.Add([]byte("---\nid: a\n---\n"), uint16(4), uint16(4), []byte("---\n"))
	f.Add(generated(600), uint16(900), uint16(70), []byte("\r"))
	f.Fuzz(func(t *testing.T, src []byte, at, length uint16, ins []byte) {
		if at%2 == 0 {
			withTinyChunks(t)
		}
		s := int(at) % (len(src) + 1)
		e := min(len(src), s+int(length))
		tr := Parse(bytes.Clone(src)).Edit(s, e, bytes.Clone(ins))
		assertSameAsFullParse(t, tr, edittest.Splice(src, s, e, ins), "fuzz")
	})
}

func FuzzScanLine(f *testing.F) {
	for _, s := range []string{sample, "t!:a id=1 → x", "c:a.b", "@phase x", "\xff\x00→=", `a: x="y z" q={"a":[1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		li := ScanLine(line)
		check := func(name string, s Span) {
			if s.Valid() && (s.Start < 0 || s.End > len(line)) {
				t.Fatalf("%s span %+v outside line of %d bytes", name, s, len(line))
			}
		}
		check("trim", li.Trim)
		check("name", li.Name)
		check("result", li.Result)
		for k := range li.Meta {
			check(Key(k).String(), li.Meta[k])
		}
		prev := 0
		for _, tok := range Tokenize(line, &li) {
			if tok.Span.Start < prev || tok.Span.End > len(line) || tok.Span.End < tok.Span.Start {
				t.Fatalf("token %+v out of order or bounds", tok)
			}
			prev = tok.Span.End
		}
	})
}

func TestWideUsageSurvivesCompaction(t *testing.T) {
	long := strings.Repeat("m", 70000)
	src := "---\nid: x\n---\n@end tokens_in=5000000000 tokens_cached=7\nth: y message_id=\"" + long + "\" tokens_out=3\na: z message_id=\"m1\" tokens_in=4294967295\n"
	var got []Usage
	for u := range Parse([]byte(src)).Usage() {
		got = append(got, u)
	}
	want := []Usage{
		{Line: 3, In: 5000000000, Cached: 7, HasIn: true, HasCached: true},
		{Line: 4, Out: 3, HasOut: true, MessageID: `"` + long + `"`},
		{Line: 5, In: 4294967295, HasIn: true, MessageID: `"m1"`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("usage %+v", got)
	}
}

// Info, built from what the tree keeps, equals a scan of the line (with
// the metadata keys the tree keeps), on every kind of line.
func TestInfoEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"\n", "\r\n", "\r", " ", "\t", "\u00a0", "\u2003", "---", "format: rlog/1", "id: x", "u: hi", "a: ok", "t!:Read id=c1 step=2 ts=2025-01-01T00:00:00Z file_path=a",
		" → [ok] done", "→", "@phase p", "@start", "x:E id=s → [started]", "  cont", "# c id=1", "wat", "\xff", "\x00", "😀", "tokens_in=4 message_id=m1"}
	docs := [][]byte{[]byte(sample), generated(300), []byte("\uFEFFu: bom first\n"), []byte("\uFEFF   \n"), []byte("\uFEFF---\nid: x\n---\n")}
	for range 200 {
		var b []byte
		if r.IntN(5) == 0 {
			b = append(b, bom...)
		}
		for range r.IntN(40) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		docs = append(docs, b)
	}
	for _, src := range docs {
		tr := Parse(bytes.Clone(src))
		for l := range tr.Lines() {
			got, text := tr.Info(l.Num)
			var want LineInfo
			if l.Num == 0 {
				scanDocLine(text, &want, textLacks{}, searchesOf(text), 0)
			} else {
				scanLine(text, &want, textLacks{}, searchesOf(text), 0)
			}
			if !l.Kind.IsBody() {
				want = LineInfo{Kind: l.Kind, Trim: want.Trim, Content: want.Trim.Start, Flags: want.Flags}
			} else {
				kept := want.Meta
				want.Meta = [numParsedKeys]Span{}
				want.Meta[KeyID], want.Meta[KeyStep], want.Meta[KeyTS] = kept[KeyID], kept[KeyStep], kept[KeyTS]
			}
			if want.Trim.Start == want.Trim.End {
				want.Trim, got.Trim = Span{}, Span{} // a blank line: no bounds to compare
			}
			if got != want {
				t.Fatalf("%q line %d: Info\n got  %+v\n want %+v", src, l.Num, got, want)
			}
		}
	}
}

// A line full of markers, or of their beginnings, is read once: these 1 MB
// lines took minutes to hours to parse or tokenize when each marker looked
// for the next ones (or for its closing '>') in the rest of the line.
func TestLinesFullOfMarkers(t *testing.T) {
	for _, c := range []struct {
		unit  string
		flags Flags
		token TokenKind // of the last token, when the line is tokenized
	}{
		{"<REDACTED: ", 0, TokText},
		{"<REDACTED:x> ", FlagLegacyRedact, TokMarker},
		{"[REDACTED] ", FlagLegacyRedact, TokMarker},
		{"@blob ", 0, TokText},
		{"@blob sha256=ab ", FlagBlob, TokMarker},
		{"[redacted:k] ", FlagRedacted, TokMarker},
		{"→ [", 0, TokText},
	} {
		line := append([]byte("a: x "), bytes.Repeat([]byte(c.unit), (1<<20)/len(c.unit))...)
		tr := Parse(bytes.Clone(line))
		if got := tr.Line(0).Flags & (FlagBlob | FlagRedacted | FlagLegacyRedact); got != c.flags {
			t.Errorf("%q: flags %b, want %b", c.unit, got, c.flags)
		}
		li, text := tr.Info(0)
		toks := Tokenize(text, &li)
		if last := toks[len(toks)-1]; last.Kind != c.token {
			t.Errorf("%q: last token %v, want %v", c.unit, last.Kind, c.token)
		}
		if n := len(RedactionMarkers(text)) + len(BlobMarkers(text)); (c.flags == 0) != (n == 0) {
			t.Errorf("%q: %d markers", c.unit, n)
		}
	}
}

// TestLineColumn: a place as the command line prints it counts characters,
// an invalid byte as one, on lines ended by CRLF alike.
func TestLineColumn(t *testing.T) {
	tr := Parse([]byte("ab\r\n😀x\xffy\nz"))
	for _, tc := range []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 1, 3}, // in the CRLF: after the line's text
		{4, 2, 1}, {8, 2, 2}, {9, 2, 3}, {10, 2, 4}, {11, 2, 5},
		{12, 3, 1}, {13, 3, 2},
	} {
		if l, c := tr.LineColumn(tc.off); l != tc.line || c != tc.col {
			t.Errorf("offset %d: %d:%d, want %d:%d", tc.off, l, c, tc.line, tc.col)
		}
	}
}

// A line longer than 64 KB keeps its spans in its chunk's wide table: the
// tree reads them from there as a short line's from its stored offsets.
func TestLongLineSpans(t *testing.T) {
	long := strings.Repeat("m ", 40000)
	for _, text := range []string{
		"t!:Read id=abc step=3 ts=2025-01-01T00:00:00Z " + long + " → [ok] done",
		"o: " + long + " id=x → " + long,
		"t!:Read id=abc → [running]",
	} {
		src := "u: hi\n" + text + "\nu: bye\n"
		tr := Parse([]byte(src))
		l := tr.Line(1)
		li := ScanLine([]byte(text))
		at := func(s Span) Span { return s.Shift(l.Start) }
		want := Line{Num: 1, Start: 6, End: 6 + len(text), Next: 7 + len(text), Kind: li.Kind, Flags: li.Flags,
			Content: l.Start + li.Content, TrimEnd: l.Start + li.Trim.End, Name: at(li.Name), Arrow: at(li.Arrow),
			Result: at(li.Result), ID: at(li.Meta[KeyID]), Step: at(li.Meta[KeyStep]), TS: at(li.Meta[KeyTS])}
		if l != want {
			t.Fatalf("line of %d bytes\n got %+v\nwant %+v", len(text), l, want)
		}
	}
}

// FuzzStoreLineUsage holds what scanChunk stores of a line's token counts
// (storeLineUsage, which reads them in place) equal to the general way:
// usageOf's Usage, stored by storeUsage.
func FuzzStoreLineUsage(f *testing.F) {
	for _, s := range []string{
		"a: x tokens_in=607 tokens_out=164 tokens_cached=33610",
		"a: tokens_cache_create=12 message_id=msg_01",
		"a: tokens_in=999999999 tokens_out=1000000000 message_id=m",
		"a: tokens_in=4294967296 tokens_out=1",
		"a: tokens_in=4294967296 tokens_cached=18446744073709551615",
		"a: tokens_out=123456789012345678901 tokens_in=5",
		"a: message_id=only",
		"\uFEFFa: tokens_in=7",
		"a: tokens_in= tokens_out=0 tokens_in=3",
	} {
		f.Add([]byte(s), uint16(3), uint16(40))
	}
	f.Fuzz(func(t *testing.T, line []byte, lineNum, lineOff uint16) {
		assertStoredUsageLikeUsageOf(t, line, lineNum, lineOff)
	})
}

// TestNarrowCountEachLength: a count of every length the word's
// conversion reads (1 to 8 digits, each digit 0 to 9 in each place, the
// bytes of the shortest and the longest key before it, and none: 0), as
// usageOf's loop reads it.
func TestNarrowCountEachLength(t *testing.T) {
	for n := 0; n <= maxNarrowDigits; n++ {
		for d := range 10 {
			for _, key := range []string{"tokens_in=", "tokens_cache_create="} {
				digits := make([]byte, n)
				for i := range digits {
					digits[i] = byte('0' + (d+i*7)%10)
				}
				if n > 0 && d%2 == 0 {
					digits[n-1] = '9'
				}
				line := []byte(key + string(digits) + " rest")
				sp := Span{len(key), len(key) + n}
				want := uint32(0)
				for _, c := range digits {
					want = want*10 + uint32(c-'0')
				}
				if got := narrowCount(line, sp); got != want {
					t.Errorf("narrowCount(%q, %v) = %d, want %d", line, sp, got, want)
				}
				if got := narrowCount(line[:sp.End], sp); got != want {
					t.Errorf("narrowCount(%q) at the end = %d, want %d", line[:sp.End], got, want)
				}
			}
		}
	}
}

// TestStoreLineUsageLongMessageID: a message id too long for storedUsage
// (a seed of FuzzStoreLineUsage this long makes the fuzzer crawl).
func TestStoreLineUsageLongMessageID(t *testing.T) {
	assertStoredUsageLikeUsageOf(t, []byte("a: message_id="+strings.Repeat("m", 70000)+" tokens_in=1"), 3, 40)
}

func assertStoredUsageLikeUsageOf(t *testing.T, line []byte, lineNum, lineOff uint16) {
	t.Helper()
	var li LineInfo
	scanDocLine(line, &li, textLacks{}, searchesOf(line), 0)
	fast, general := &Chunk{}, &Chunk{}
	fast.storeLineUsage(int(lineNum), int(lineOff), line, &li)
	if u, ok := usageOf(line, &li); ok {
		general.storeUsage(int(lineNum), int(lineOff), line, u, &li)
	}
	if !reflect.DeepEqual(fast.usage, general.usage) || !reflect.DeepEqual(fast.wideUsage, general.wideUsage) {
		t.Fatalf("%.80q: stored %+v %+v, the general way %+v %+v", line, fast.usage, fast.wideUsage, general.usage, general.wideUsage)
	}
}

// TestChunkLineIntoLikeLines holds ChunkLineInto, which fills one Line the
// caller reuses from line to line, and ChunkLines and Lines, which reuse
// one too, to Line, which makes each line anew: in a preamble, a header
// and a body, in chunks of a few lines.
func TestChunkLineIntoLikeLines(t *testing.T) {
	withTinyChunks(t)
	doc := "preamble\n" + string(generated(60)) + "t!:Read id=a → x\nu: long " + strings.Repeat("é", 40000) + " id=z step=3 → r\nlast"
	tr := Parse([]byte(doc))
	var want []Line
	for l := range tr.Lines() {
		if l != tr.Line(l.Num) {
			t.Fatalf("Lines yields %+v, Line %+v", l, tr.Line(l.Num))
		}
		want = append(want, l)
	}
	l := Line{Num: -1, Arrow: Span{1, 2}, Result: Span{3, 4}, ID: Span{5, 6}, Name: Span{7, 8}, Step: Span{9, 10}, TS: Span{11, 12}} // left by a line before
	n := 0
	for i := range tr.ChunkCount() {
		c, firstLine, start := tr.ChunkAt(i)
		k := 0
		for cl, text := range tr.ChunkLines(i) {
			got := tr.ChunkLineInto(c, firstLine, start, k, &l)
			if l != want[n] || l != cl || !bytes.Equal(got, text) || !bytes.Equal(got, tr.Text(want[n])) {
				t.Fatalf("chunk %d line %d: filled %+v %q, Lines %+v, ChunkLines %+v %q", i, k, l, got, want[n], cl, text)
			}
			k++
			n++
		}
	}
	if n != len(want) {
		t.Fatalf("%d lines filled, Lines yields %d", n, len(want))
	}
}

// FuzzHasCounts holds HasCounts to LineUsage: a line it says has none of
// the four counts has no usage, and a line with usage has one, whether the
// line was read by the parser's scan (ScanLine) or in one pass
// (LineTokens.Read).
func FuzzHasCounts(f *testing.F) {
	for _, s := range []string{
		"a: x tokens_in=607 tokens_out=164 tokens_cached=33610",
		"a: tokens_cache_create=12 message_id=msg_01",
		"a: message_id=only",
		"a: tokens_out=123456789012345678901",
		"a: tokens_in= tokens_out=0 tokens_in=3",
		"u: see tokens_in=5 in the text",
		"t!:Bash cmd=\"x tokens_out=1\" → [running]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var lt LineTokens
		lt.Read(line)
		for _, li := range []LineInfo{ScanLine(line), lt.Info} {
			_, ok := LineUsage(line, &li)
			m := &li.Meta
			some := m[KeyTokensIn].Valid() || m[KeyTokensOut].Valid() || m[KeyTokensCached].Valid() || m[KeyTokensCacheCreate].Valid()
			if has := li.HasCounts(); ok && !has || has != some {
				t.Fatalf("%.80q: HasCounts %v, LineUsage's ok %v, a count's span %v", line, has, ok, some)
			}
		}
	})
}
