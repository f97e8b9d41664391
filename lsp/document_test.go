package lsp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func TestApplyChanges(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		changes []ContentChange
		want    string
	}{
		{"insert", "hello world", []ContentChange{{Range: rng(0, 5, 0, 5), Text: jsonString(",")}}, "hello, world"},
		{"delete across lines", "ab\r\ncd\nef", []ContentChange{{Range: rng(0, 1, 2, 1), Text: jsonString("")}}, "af"},
		{"whole document (no range) replaces, never inserts", "old", []ContentChange{{Text: jsonString("new")}}, "new"},
		{"ranged changes apply in order, each on the previous result", "abc",
			[]ContentChange{{Range: rng(0, 0, 0, 1), Text: jsonString("xy")}, {Range: rng(0, 1, 0, 2), Text: jsonString("")}}, "xbc"},
		{"the last whole change wins over everything before it", "abc",
			[]ContentChange{{Range: rng(0, 0, 0, 0), Text: jsonString("1")}, {Text: jsonString("full")}, {Range: rng(0, 4, 0, 4), Text: jsonString("!")}, {Text: jsonString("last")}, {Range: rng(0, 0, 0, 0), Text: jsonString(">")}}, ">last"},
		{"utf-16 columns after an astral character", "😀x", []ContentChange{{Range: rng(0, 2, 0, 3), Text: jsonString("y")}}, "😀y"},
		{"a range past the end clamps", "ab\ncd", []ContentChange{{Range: rng(1, 1, 9, 9), Text: jsonString("!")}}, "ab\nc!"},
		{"a reversed range covers the same text", "abcd", []ContentChange{{Range: rng(0, 3, 0, 1), Text: jsonString("-")}}, "a-d"},
		{"an empty batch leaves the text", "same", nil, "same"},
	} {
		got, _ := applyChanges(newPlainText([]byte(tc.text)), tc.changes, UTF16, parsePlain)
		if got.String() != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestStore(t *testing.T) {
	s := NewStore(parsePlain)
	open := func(uri protocol.DocumentURI, v int32, text string) (*Document[*plainText], *Document[*plainText]) {
		return s.Open(uri, "rlog", v, []byte(text))
	}
	a1, replaced := open("untitled:Untitled-1", 1, "one")
	if replaced != nil {
		t.Fatal("first open replaced something")
	}
	a2, replaced := open("untitled:Untitled-1", 5, "two")
	if replaced != a1 || s.Get("untitled:Untitled-1") != a2 {
		t.Fatal("second open did not replace the first")
	}
	doc, prev, _ := s.Change("untitled:Untitled-1", 6, []ContentChange{{Range: rng(0, 3, 0, 3), Text: jsonString("!")}}, UTF16)
	if prev != a2 || doc.Text.String() != "two!" || doc.Version != 6 || doc.LanguageID != "rlog" {
		t.Fatalf("change: %+v from %+v", doc, prev)
	}
	if a2.Text.String() != "two" || a2.Version != 5 {
		t.Fatal("a change modified the earlier snapshot")
	}
	if doc, prev, _ := s.Change("git:/x?ref", 1, []ContentChange{{Text: jsonString("x")}}, UTF16); doc != nil || prev != nil {
		t.Fatal("change of a document never opened was applied")
	}
	open("file:///b.rlog", 1, "b")
	if all := s.All(); len(all) != 2 || all[0].URI != "file:///b.rlog" {
		t.Fatalf("All = %v", all)
	}
	if !s.Close("untitled:Untitled-1") || s.Close("untitled:Untitled-1") {
		t.Fatal("Close reports wrongly")
	}
	if s.Get("untitled:Untitled-1") != nil || s.Len() != 1 {
		t.Fatal("closed document still held")
	}
}

// countingParse is parsePlain counting its calls, to tell an edit from a
// parse.
func countingParse(n *int) func([]byte) *plainText {
	return func(b []byte) *plainText { *n++; return parsePlain(b) }
}

// A whole-document change that extends the text is applied as an edit of
// the end, not a parse, and says it appended; other whole changes keep
// what did not change, or are parsed when little is kept.
func TestWholeDocumentChangeIsAnEdit(t *testing.T) {
	const log = "---\nid: s\n---\nu: hi\n"
	for _, tc := range []struct {
		name, old, new string
		parsed         bool
		sum            ChangeSummary
	}{
		{"a line appended", log, log + "a: 😀 ok\n", false, ChangeSummary{Whole: 1, Inserted: 11, Appended: true}},
		{"two lines appended", log, log + "a: x\r\n@end\n", false, ChangeSummary{Whole: 1, Inserted: 11, Appended: true}},
		{"a line's end appended", log[:len(log)-3], log, false, ChangeSummary{Whole: 1, Inserted: 3}},
		{"text without a line end appended", log, log + "a: typing", false, ChangeSummary{Whole: 1, Inserted: 9}},
		{"a line replaced in the middle", log, strings.Replace(log, "id: s", "id: t", 1), false, ChangeSummary{Whole: 1, Replaced: 1, Inserted: 1}},
		{"unchanged", log, log, false, ChangeSummary{Whole: 1}},
		{"truncated to nothing", log, "", true, ChangeSummary{Whole: 1, Replaced: len(log)}},
		{"replaced by other text", log, "something else entirely\n", true, ChangeSummary{Whole: 1, Replaced: len(log) - 1, Inserted: len("something else entirely")}},
		{"from empty", "", log, true, ChangeSummary{Whole: 1, Inserted: len(log), Appended: true}},
	} {
		parses := 0
		got, sum := applyChanges(newPlainText([]byte(tc.old)), []ContentChange{{Text: jsonString(tc.new)}}, UTF16, countingParse(&parses))
		if got.String() != tc.new {
			t.Errorf("%s: text %q, want %q", tc.name, got, tc.new)
		}
		if parsed := parses > 0; parsed != tc.parsed {
			t.Errorf("%s: parsed %v, want %v", tc.name, parsed, tc.parsed)
		}
		if sum != tc.sum {
			t.Errorf("%s: summary %+v, want %+v", tc.name, sum, tc.sum)
		}
	}
	// Ranged changes that add whole lines at the end append too; one that
	// does not makes the batch an ordinary edit.
	text := newPlainText([]byte("a\n"))
	if _, sum := applyChanges(text, []ContentChange{{Range: rng(1, 0, 1, 0), Text: jsonString("b\n")}, {Range: rng(2, 0, 2, 0), Text: jsonString("c\n")}}, UTF16, parsePlain); !sum.Appended || sum.Ranged != 2 {
		t.Errorf("ranged appends: %+v", sum)
	}
	if _, sum := applyChanges(text, []ContentChange{{Range: rng(1, 0, 1, 0), Text: jsonString("b\n")}, {Range: rng(0, 0, 0, 0), Text: jsonString("#")}}, UTF16, parsePlain); sum.Appended {
		t.Errorf("an edit at the start counted as an append: %+v", sum)
	}
	if _, sum := applyChanges(newPlainText([]byte("a")), []ContentChange{{Range: rng(0, 1, 0, 1), Text: jsonString("b\n")}}, UTF16, parsePlain); sum.Appended {
		t.Errorf("the end of an unfinished line counted as whole lines: %+v", sum)
	}
}

// A document closed and opened again at once (Neovim's reload) is an edit
// of the closed one; after the reopen window it is parsed anew, and it is
// not kept any longer.
func TestStoreReopen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parses := 0
		s := NewStore(countingParse(&parses))
		const uri = "file:///grow.rlog"
		s.Open(uri, "rlog", 0, []byte("u: one\n"))
		s.Close(uri)
		doc, _ := s.Open(uri, "rlog", 0, []byte("u: one\nu: two\n"))
		if parses != 1 || doc.Text.String() != "u: one\nu: two\n" {
			t.Fatalf("reopen: %d parses, text %q", parses, doc.Text)
		}
		// Another document's reopen does not use it.
		s.Close(uri)
		s.Open("file:///other.rlog", "rlog", 0, []byte("u: one\nu: two\nu: three\n"))
		if parses != 2 {
			t.Fatalf("another document reused the closed one: %d parses", parses)
		}
		s.Open(uri, "rlog", 0, []byte("u: one\nu: two\n"))
		if parses != 3 {
			t.Fatalf("the closed document was kept past the next open: %d parses", parses)
		}
		s.Close(uri)
		time.Sleep(reopenWindow)
		synctest.Wait()
		s.mu.RLock()
		kept := s.closed
		s.mu.RUnlock()
		if kept != nil {
			t.Fatal("the closed document is still held after the reopen window")
		}
		s.Open(uri, "rlog", 0, []byte("u: one\nu: two\n"))
		if parses != 4 {
			t.Fatalf("reopen after the window: %d parses", parses)
		}
	})
}

// Random edit batches, applied through positions in each encoding, give the
// same text as a naive model that works on runes and UTF-16 units.
func TestApplyChangesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, enc := range []PositionEncoding{UTF16, UTF8, UTF32} {
		text := newPlainText(randomText(r, 40))
		model := string(text.b)
		for range 400 {
			var batch []ContentChange
			for range 1 + r.IntN(3) {
				ch, next := randomChange(r, model, enc, randomText)
				batch = append(batch, ch)
				model = next
			}
			text, _ = applyChanges(text, batch, enc, parsePlain)
			if text.String() != model {
				t.Fatalf("enc %v: got %q, want %q (batch %+v)", enc, text, model, batch)
			}
		}
	}
}

// randomChange picks a random edit of model, expressed as a ContentChange
// whose positions are computed by the naive model, and returns the model
// text after it. Start and end sit on character boundaries.
func randomChange(r *rand.Rand, model string, enc PositionEncoding, gen func(*rand.Rand, int) []byte) (ContentChange, string) {
	if r.IntN(20) == 0 {
		next := string(gen(r, 30))
		return ContentChange{Text: jsonString(next)}, next
	}
	bounds := charBoundaries(model)
	a, b := bounds[r.IntN(len(bounds))], bounds[r.IntN(len(bounds))]
	if a > b {
		a, b = b, a
	}
	insert := string(gen(r, 6))
	return ContentChange{
		Range: &protocol.Range{Start: modelPosition(model, a, enc), End: modelPosition(model, b, enc)},
		Text:  jsonString(insert),
	}, model[:a] + insert + model[b:]
}

// charBoundaries lists the offsets where an editor could put the cursor: not
// inside a character, and not between the \r and \n of a CRLF.
func charBoundaries(s string) []int {
	var out []int
	for i := 0; ; {
		out = append(out, i)
		if i == len(s) {
			return out
		}
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i += 2
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
}

// modelPosition computes the position of offset off the slow way.
func modelPosition(s string, off int, enc PositionEncoding) protocol.Position {
	var line, col uint32
	for i := 0; i < off; {
		if s[i] == '\n' || s[i] == '\r' {
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			i++
			line, col = line+1, 0
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case enc == UTF8:
			col += uint32(size)
		case enc == UTF32 || (r == utf8.RuneError && size == 1):
			col++
		default:
			col += uint32(len(utf16.Encode([]rune{r})))
		}
		i += size
	}
	return protocol.Position{Line: line, Character: col}
}
