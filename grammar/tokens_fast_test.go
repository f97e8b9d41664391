package grammar

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// trickyLines are lines whose tokens depend on what AppendTokensFast skims
// for: keys inside words and values, arrows and statuses, markers, the
// flag, ASCII arrows, Unicode white space and invalid UTF-8.
var trickyLines = []string{
	sample,
	"u: plain words only, nothing else at all",
	"a: the → cache [ok] value ts=2025-12-19T20:29:02Z step=3",
	"a: x→y=1 then (a=b) and a==b c=  d= e=\"f g\" h={\"i\": [1, 2]} j",
	"a: he said \"hello ts=5\" ok x=\"hello ts=5\" ts=1",
	"o: id=abc → [ok] text text interrupted ts=1 interrupted",
	"o: id=abc → [err: msg k=v] more words k=v",
	"o: id=abc →[ok]x=1",
	"o: id=abc → [redacted:token] x=1 → [error] y",
	"t!:Bash id=a cmd=\"git stash push -m \"x\" && gi...\" → [running] tokens_in=1",
	"t:read file -> [12 lines] ts=1",
	"a: a -> b ->c d-> -> [ok] e->",
	"u: key @blob sha256=abc123g=1 [REDACTED] x=<REDACTED> <REDACTED:a b> y=[redacted:pw] z",
	"u: [REDACTED]k=1 <REDACTED>j=2 @blob  sha256=ff k=@blob sha256=0a",
	"a: uninterrupted interrupted= interrupted=x interruptedx xinterrupted",
	"a: word\u00a0x=1\u2003y=2\u3000z=3 \u2028w=4",
	"a: \xff\xfe x=\xff y=\xe2\x80 \xe2\x80\x80z=1 \xe2\x86\x92 q",
	"a: \xe2\x86\x92[ok] \xe2\x86 \x92 [x]",
	"# comment with k=v and → [ok] status: yes",
	"# system: words interrupted",
	"x:Explore id=abc → [started] summary=\"a b c\"",
	"td: [completed] a b [in_progress] c=d [pending] e",
	"@end tokens_in=5 tokens_out=6 cost_usd=0.1",
	"@phase implement now x=1",
	"c:github.issues id=abc state=open → [3 issues]",
	"  continuation k=v words",
	"\tcontinuation → [ok]",
	"unknown line a=b",
	"s:skill x=1 → [ok]",
	"q: \"what?\" id=1 → [selected: a]",
	"a: .a=1 -b=2 a.b=3 a-b=4 é=5 日本=6 a-=7 _=8",
	"a: k={\"a\":\"}\"} x={unbalanced y=1",
	"a: k=\"unterminated y=1 z",
	"a: k=\"a\"b\" c=\"d\" → e",
	"a: ->",
	"a: x ->",
	"a: →",
	"a: interrupted",
	"a: [redacted:x] [REDACTED]",
	// Each of skim's stops alone after a word of text (skim.next writes
	// its searches out; a stop left out of its least is missed here).
	"a: 0 <REDACTED:>",
	"a: 0 @blob sha256=ab",
	"a: 0 [REDACTED]",
	"a: 0 a->",
	"a: 0 interrupted",
	"a: 0 x→ [ok]",
}

func checkFastTokens(t *testing.T, line []byte) {
	t.Helper()
	li := ScanLine(line)
	want := Tokenize(line, &li)
	got := AppendTokensFast(nil, line, &li)
	if len(want) == 0 && len(got) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("line %q:\n got %v\nwant %v", line, got, want)
	}
}

// TestAppendTokensFast: the fast tokenizer gives Tokenize's tokens, on
// tricky lines and on every line of a generated session.
func TestAppendTokensFast(t *testing.T) {
	for _, s := range trickyLines {
		for _, line := range bytes.Split([]byte(s), []byte("\n")) {
			checkFastTokens(t, line)
		}
	}
	var b bytes.Buffer
	if err := gen.Write(&b, gen.Options{Bytes: 1 << 20, FindingRate: 0.05, Seed: 3, Timed: true}); err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(b.Bytes(), []byte("\n")) {
		checkFastTokens(t, line)
	}
	// Appends to what dst holds.
	line := []byte("a: x y=1")
	li := ScanLine(line)
	dst := []Token{{Kind: TokText}}
	if got := AppendTokensFast(dst, line, &li); len(got) != 1+len(Tokenize(line, &li)) || got[0] != dst[0] {
		t.Fatalf("AppendTokensFast did not append: %v", got)
	}
}

func FuzzAppendTokensFast(f *testing.F) {
	for _, s := range trickyLines {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		checkFastTokens(t, line)
	})
}

func BenchmarkAppendTokens(b *testing.B) {
	var src bytes.Buffer
	if err := gen.Write(&src, gen.Options{Bytes: 4 << 20, FindingRate: 0.01, Seed: 1, Timed: true}); err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(src.Bytes(), []byte("\n"))
	infos := make([]LineInfo, len(lines))
	for i, l := range lines {
		infos[i] = ScanLine(l)
	}
	for _, bench := range []struct {
		name string
		fn   func([]Token, []byte, *LineInfo) []Token
	}{{"words", AppendTokens}, {"skim", AppendTokensFast}} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(int64(src.Len()))
			var toks []Token
			for b.Loop() {
				for i, l := range lines {
					toks = bench.fn(toks[:0], l, &infos[i])
				}
			}
		})
	}
}

// FuzzKeyAtASCII: keyAtASCII finds the key keyAt finds, at every offset.
func FuzzKeyAtASCII(f *testing.F) {
	for _, s := range []string{"id=1", "a.b-c=x", "-x=1", "é=1", "ké=1 z=2", "key", "k=", "tool_use_id=x", "a\u00b2=b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			s1, e1, ok1 := keyAt(b, i)
			s2, e2, ok2 := keyAtASCII(b, i)
			if s1 != s2 || e1 != e2 || ok1 != ok2 {
				t.Fatalf("%q at %d: keyAtASCII %d %d %v, keyAt %d %d %v", b, i, s2, e2, ok2, s1, e1, ok1)
			}
		}
	})
}

// checkReadLine holds LineTokens.Read, the one pass, to the two it
// replaces: ClassifyLine, then AppendTokensFast, and KeyOf of each key.
func checkReadLine(t *testing.T, lt *LineTokens, line []byte) {
	t.Helper()
	li := ClassifyLine(line)
	want := AppendTokensFast(nil, line, &li)
	lt.Read(line)
	if lt.Info != li {
		t.Fatalf("line %q:\n got %+v\nwant %+v", line, lt.Info, li)
	}
	got, ok := pairTokens(lt)
	if !ok || len(want) != len(got) || len(want) > 0 && !reflect.DeepEqual(got, want) {
		t.Fatalf("line %q:\n got %v (pairs %v)\nwant %v", line, lt.Tokens, lt.Pairs, want)
	}
	var keys []Key
	for _, tok := range want {
		if tok.Kind == TokKey {
			k, ok := KeyOf(line[tok.Span.Start:tok.Span.End])
			if !ok {
				k = numKeys
			}
			keys = append(keys, k)
		}
	}
	for i, k := range keys {
		if lt.Pairs[i].K != k {
			t.Fatalf("line %q: pair %d's key %v, want %v", line, i, lt.Pairs[i].K, k)
		}
	}
}

// pairTokens is lt's tokens with each pair's '=' and value tokens after
// its key, as AppendTokensFast gives them; ok false when the key tokens
// and the pairs do not match one to one.
func pairTokens(lt *LineTokens) (out []Token, ok bool) {
	n := 0
	for _, tok := range lt.Tokens {
		out = append(out, tok)
		if tok.Kind != TokKey {
			continue
		}
		if n >= len(lt.Pairs) || lt.Pairs[n].Key != tok.Span {
			return nil, false
		}
		kv := lt.Pairs[n]
		n++
		out = append(out, Token{Kind: TokEquals, Span: Span{kv.Key.End, kv.Key.End + 1}})
		if kv.Value.Valid() {
			out = append(out, Token{Kind: kv.Kind, Span: kv.Value, Key: kv.Key})
		}
	}
	return out, n == len(lt.Pairs)
}

// TestReadLine: the one pass gives what the classifier and the tokenizer
// give, on tricky lines and every line of a generated session, with one
// LineTokens reused for all of them.
func TestReadLine(t *testing.T) {
	var lt LineTokens
	for _, s := range trickyLines {
		for _, line := range bytes.Split([]byte(s), []byte("\n")) {
			checkReadLine(t, &lt, line)
		}
	}
	var b bytes.Buffer
	if err := gen.Write(&b, gen.Options{Bytes: 1 << 20, FindingRate: 0.05, Seed: 3, Timed: true}); err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(b.Bytes(), []byte("\n")) {
		checkReadLine(t, &lt, line)
	}
}

// FuzzReadLine holds the one pass to the classifier and the tokenizer on
// any line.
func FuzzReadLine(f *testing.F) {
	for _, s := range trickyLines {
		f.Add([]byte(s))
	}
	for _, s := range []string{"t!:a=tokens_in=1 id=1 → x", "t:x\u00e9id=1 (tokens_out=2) a.step=3 b-ts=4 → q", "u:tokens_in=1", "@phase  x model=m", "o: x=\"a → b\" → [ok] id=c"} {
		f.Add([]byte(s))
	}
	var lt LineTokens
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // a line has no line break
		}
		checkReadLine(t, &lt, line)
	})
}

// BenchmarkReadLine reads every line of a generated session in one pass
// (LineTokens.Read); BenchmarkClassifyThenTokens with the two passes it
// replaced. MB/s is of the session.
func BenchmarkReadLine(b *testing.B) {
	lines, size := generatedLines(b)
	b.SetBytes(size)
	var lt LineTokens
	for b.Loop() {
		for _, line := range lines {
			lt.Read(line)
		}
	}
}

func BenchmarkClassifyThenTokens(b *testing.B) {
	lines, size := generatedLines(b)
	b.SetBytes(size)
	var toks []Token
	for b.Loop() {
		for _, line := range lines {
			li := ClassifyLine(line)
			toks = AppendTokensFast(toks[:0], line, &li)
		}
	}
}

// generatedLines are the lines of a generated 1 MB session with times.
func generatedLines(b *testing.B) ([][]byte, int64) {
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: 1 << 20, FindingRate: 0.01, Seed: 1, Timed: true}); err != nil {
		b.Fatal(err)
	}
	return bytes.Split(buf.Bytes(), []byte("\n")), int64(buf.Len())
}

// FuzzIndexAt holds indexAt to bytes.Index, for each of skim's strings
// with its anchor and for any pattern with any anchor.
func FuzzIndexAt(f *testing.F) {
	for _, s := range []string{"", "interrupted", "xinterrupted", "interruptedinterrupted", "interrupte", "p", "interrupped interrupted", "uninterruptedp", "a -> b", "2025-12-19 ->", ">", "-", "→->"} {
		f.Add([]byte(s), []byte("ab"), uint8(1))
	}
	f.Fuzz(func(t *testing.T, s, pat []byte, anchor uint8) {
		for i, p := range skimStrings {
			if got, want := indexAt(s, p, skimAnchors[i]), bytes.Index(s, p); got != want {
				t.Fatalf("indexAt(%q, %q, %d) = %d, want %d", s, p, skimAnchors[i], got, want)
			}
		}
		if len(pat) == 0 {
			return
		}
		a := int(anchor) % len(pat)
		if got, want := indexAt(s, pat, a), bytes.Index(s, pat); got != want {
			t.Fatalf("indexAt(%q, %q, %d) = %d, want %d", s, pat, a, got, want)
		}
	})
}

// TestArrowAt: arrowAt is bytes.HasPrefix of the arrow at every offset of
// lines with whole, cut and look-alike arrows.
func TestArrowAt(t *testing.T) {
	for _, s := range []string{"", "→", "a → b", "x\xe2\x86", "\xe2\x86\x93 ↓ ← →→", "\xe2", "é→"} {
		b := []byte(s)
		for i := 0; i <= len(b); i++ {
			if got, want := arrowAt(b, i), bytes.HasPrefix(b[i:], arrow); got != want {
				t.Fatalf("arrowAt(%q, %d) = %v, want %v", s, i, got, want)
			}
		}
	}
}

// TestMarkerByte: a byte markerByte does not have starts no marker, so the
// tokenizers that test it before markerAt make the same tokens.
func TestMarkerByte(t *testing.T) {
	for c := range 256 {
		for _, rest := range []string{"blob sha256=0123abcd", "redacted:key]", "REDACTED]", "REDACTED>", "REDACTED:x>", ""} {
			b := append([]byte{byte(c)}, rest...)
			if _, ok := markerAt(b, 0); ok && !markerByte[byte(c)] {
				t.Fatalf("markerAt(%q) finds a marker, markerByte[%#x] is false", b, c)
			}
		}
	}
}

// TestSkipSpaceInline: skimRest passes the white space before a token
// without calling skipSpace where t[i] is a printable ASCII byte (none to
// pass) or a space before one (one to pass); skipSpace agrees for every
// such byte.
func TestSkipSpaceInline(t *testing.T) {
	for c := range 256 {
		b := byte(c)
		if b-'!' >= 0x80-'!' {
			continue // skimRest calls skipSpace
		}
		if got := skipSpace([]byte{b, ' '}, 0); got != 0 {
			t.Fatalf("skipSpace(%q) = %d, skimRest takes 0", []byte{b, ' '}, got)
		}
		if got := skipSpace([]byte{' ', b}, 0); got != 1 {
			t.Fatalf("skipSpace(%q) = %d, skimRest takes 1", []byte{' ', b}, got)
		}
	}
}

// TestNonSpaceAt: where nonSpaceAt says a byte beyond ASCII starts no
// white space, skipSpace passes nothing there, for every first byte and
// second byte (and a third that completes or breaks the character); and
// it says so for the arrow and for characters the generated logs hold.
func TestNonSpaceAt(t *testing.T) {
	for c := range 256 {
		for d := range 257 { // 256: the line ends after c
			for _, e := range []byte{0x80, 0x85, 0xBF, 'x'} {
				b := []byte{byte(c)}
				if d < 256 {
					b = append(b, byte(d), e, ' ')
				}
				if nonSpaceAt(b, 0) && skipSpace(b, 0) != 0 {
					t.Fatalf("nonSpaceAt(%q) but skipSpace passes %d bytes", b, skipSpace(b, 0))
				}
			}
		}
	}
	for _, s := range []string{"→", "é", "日", "😀", "\xff"} {
		if !nonSpaceAt([]byte(s+" "), 0) {
			t.Errorf("nonSpaceAt(%q) false", s)
		}
	}
	for _, s := range []string{"\u00a0", "\u0085", "\u1680", "\u2000", "\u200a", "\u2028", "\u202f", "\u205f", "\u3000", "a"} {
		if nonSpaceAt([]byte(s+"x"), 0) {
			t.Errorf("nonSpaceAt(%q) true", s)
		}
	}
}

// quotedEndReference is quotedEnd as it was before it passed over an
// arrow without asking keyAt, and asked keyAt rather than keyAtASCII.
func quotedEndReference(t []byte, q, to int) int {
	closesAt := func(i int) bool {
		return i+1 == to || i+1 < to && (t[i+1] == ' ' || t[i+1] == '\t' || bytes.HasPrefix(t[i+1:], arrow))
	}
	end := -1
	for i := q + 1; i < to; i++ {
		if t[i] == '\\' {
			i++
			continue
		}
		if t[i] == '"' && closesAt(i) {
			end = i + 1
			break
		}
	}
	if end < 0 {
		return to
	}
	limit := to
	for i := end; i < to; i++ {
		if bytes.HasPrefix(t[i:], arrow) {
			limit = i
			break
		}
		if (t[i] == ' ' || t[i] == '\t') && i+1 < to {
			if _, _, ok := keyAt(t, i+1); ok {
				limit = i
				break
			}
		}
	}
	for i := limit - 1; i >= end; i-- {
		if t[i] == '"' && closesAt(i) {
			return i + 1
		}
	}
	return end
}

// FuzzQuotedEnd holds quotedEnd to quotedEndReference for every quote of
// the input and every end of the line to read up to.
func FuzzQuotedEnd(f *testing.F) {
	for _, s := range []string{
		`t!:Bash id=a cmd="go test ./x -run y" → [running] tokens_in=3`,
		`cmd="git stash push -m "x" && gi..." path="a b" → [ok] n=1`,
		`q="a" →b="c" → x= "d" \t e="f"` + "\t" + `g=h "i" ünï="x" 日="y" →`,
		`v="a\" b" c=d`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for q := range len(line) {
			if line[q] != '"' {
				continue
			}
			for _, to := range []int{len(line), (q + len(line)) / 2, q + 1} {
				if got, want := quotedEnd(line, q, to), quotedEndReference(line, q, to); got != want {
					t.Fatalf("%q from %d to %d: %d, reference %d", line, q, to, got, want)
				}
			}
		}
	})
}

// TestArrowNoWord: quotedEnd passes over an arrow without asking keyAt,
// which finds no key there: the arrow is no word character.
func TestArrowNoWord(t *testing.T) {
	if ok, _ := wordAt(arrow, 0); ok {
		t.Fatal("the arrow is a word character")
	}
}

// TestKeyOfInPlace: the one pass finds a pair's key in the table
// (lineMeta.key compares its name in the words before the '=') as KeyOf
// does, for every key's name and names one byte off (a byte changed, one
// more or one fewer at either end), after 0 to 20 bytes of text (a key
// within 16 bytes of the line's start is compared as keyOf compares it).
func TestKeyOfInPlace(t *testing.T) {
	var names []string
	for k := range numKeys {
		name := keySpecs[k].name
		names = append(names, name, name[1:], name[:len(name)-1], "x"+name, name+"x", "_"+name)
		for i := range len(name) {
			b := []byte(name)
			b[i] ^= 0x20 // the other case, or '_' made '\x7f'
			names = append(names, string(b))
			b[i] = 'q'
			names = append(names, string(b))
		}
	}
	var lt LineTokens
	for _, name := range names {
		for pre := range 21 {
			for _, v := range []string{"1", "x y", `"a b"`, ""} {
				line := []byte("a: " + strings.Repeat("w", pre) + " " + name + "=" + v + " z")
				if pre == 0 && v == "1" {
					checkReadLine(t, &lt, []byte(name+"="+v)) // at the line's start
				}
				checkReadLine(t, &lt, line)
				lt.Read(line)
				ke := bytes.IndexByte(line, '=')
				if len(lt.Pairs) == 0 {
					continue // no key (a name of a byte that is no word's)
				}
				want, ok := KeyOf(line[lt.Pairs[0].Key.Start:ke])
				if !ok {
					want = numKeys
				}
				if lt.Pairs[0].K != want {
					t.Fatalf("line %q: key %v, want %v", line, lt.Pairs[0].K, want)
				}
			}
		}
	}
}
