package analysis

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis/secretrules"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// appendSecretsWordByWord is the straightforward form of AppendSecrets
// (word run by word run, every byte tested in a branch), which the
// class-table loop must match exactly.
func appendSecretsWordByWord(dst []SecretMatch, line []byte) []SecretMatch {
	base := len(dst)
	var cand []candLine
	for i := 0; i < len(line); {
		c := line[i]
		if wordByte[c] {
			if secretrules.PrefixCandidate(line, i) || i > 0 && line[i-1] == '\\' && isEscapeLetter(c) && secretrules.PrefixCandidate(line, i+1) {
				cand = markLine(cand, line, i)
			}
			if m, ok := mysqlOptionPassword(line, i); ok {
				dst = append(dst, m)
				i = m.End
				continue
			}
			j := i + 1
			for j < len(line) && wordByte[line[j]] {
				j++
			}
			if m, ok := wordSecret(line, i, j); ok {
				dst = append(dst, m)
				i = m.End
				continue
			}
			if i > 0 && line[i-1] == '\\' && isEscapeLetter(c) {
				if m, ok := wordSecret(line, i+1, j); ok {
					dst = append(dst, m)
					i = m.End
					continue
				}
			}
			i = j
			continue
		}
		if secretrules.IsSeparator(c) {
			if secretrules.SeparatorCandidate(line, i) {
				cand = markLine(cand, line, i)
			}
			var m SecretMatch
			var ok bool
			if c == '=' || c == ':' {
				m, ok = assignedSecret(line, i)
			}
			if !ok && c == ':' {
				m, ok = urlPassword(line, i)
			}
			if !ok && (c == '=' || c == ':') {
				m, ok = basicAfter(line, i)
			}
			if ok {
				dst = append(dst, m)
				i = m.End
				continue
			}
		}
		i++
	}
	if len(cand) > 0 {
		dst = addRuleFindings(dst, base, line, cand)
	}
	return dst
}

func checkSameSecrets(t *testing.T, line []byte) {
	t.Helper()
	got, want := FindSecrets(line), appendSecretsWordByWord(nil, line)
	if !slices.Equal(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
	}
}

var secretScanSeeds = []string{
	"u: " + anthropicKey,
	`{"a":"\n` + anthropicKey + `","b":"\tpassword=Tr0ub4dor3xK"}`,
	`\bBearer ` + jwtToken,
	"x=sk-ant-" + "AbC123dEf456GhI789jKl0" + "=sk-proj-AbC123dEf456GhI789jKl0mno",
	"Authorization: Basic dXNlcjpwYXNzd29yZA==",
	"postgres://admin:S3cr3tPw@db:5432/x -----BEGIN RSA PRIVATE KEY----- MIIEow",
	"ghp_0123456789abcdefghijABCDEFGHIJ0123456789 AKIAIOSFODNN7EXAMPLQ xoxb-1234567890-abcdefghij",
	`\\nsk-ant-AbC123dEf456GhI789jKl0 \fbasic \rrk_live_0123456789abcdefgh`,
	"api_key: 7f3a9c2e1b8d4f6a0c5e npm_0123456789abcdefghijABCDEFGHIJ012345 AIzaSyA-0123456789abcdefghijklmnopqrstu",
}

// The class-table scan finds exactly what the word-by-word scan finds: on
// the seeds, every line of a generated session, of the fixtures and of
// the corpus.
func TestSecretScanMatchesWordByWord(t *testing.T) {
	for _, s := range secretScanSeeds {
		checkSameSecrets(t, []byte(s))
	}
	for _, line := range bytes.Split(generatedSession(t, 1<<20, 7), []byte("\n")) {
		checkSameSecrets(t, line)
	}
	n := 0
	eachLine(t, "../testdata", func(_ string, _ int, line []byte) {
		checkSameSecrets(t, line)
		n++
	})
	t.Logf("compared %d lines of the fixtures", n)
	root, ok := corpus.Sweep(t)
	if !ok {
		return
	}
	n = 0
	eachLine(t, root, func(_ string, _ int, line []byte) {
		checkSameSecrets(t, line)
		n++
	})
	t.Logf("compared %d corpus lines", n)
}

func FuzzSecretScanMatchesWordByWord(f *testing.F) {
	for _, s := range secretScanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkSameSecrets(t, line) })
}

// checkLinesAtOnce requires one scan of text (several lines, no CR) to find
// what a scan of each line finds, at the same offsets.
func checkLinesAtOnce(t *testing.T, text []byte) {
	t.Helper()
	if bytes.IndexByte(text, '\r') >= 0 {
		return // the summaries scan chunks with a CR line by line
	}
	var want []SecretMatch
	for start := 0; start <= len(text); {
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		for _, m := range FindSecrets(text[start:end]) {
			want = append(want, SecretMatch{Kind: m.Kind, Start: start + m.Start, End: start + m.End})
		}
		start = end + 1
	}
	if got := FindSecrets(text); !slices.Equal(got, want) {
		t.Fatalf("%q:\n at once %+v\nby line %+v", text, got, want)
	}
}

// linesAtOnceSeeds are texts whose lines hold what a look-ahead or a
// look-back could carry into the next or the previous line.
var linesAtOnceSeeds = []string{
	strings.Join(secretScanSeeds, "\n"),
	// A key of 64 bytes is read at a line's start, not after a blank.
	"x\n" + strings.Repeat("k", 58) + "_token=Zx9vQ2mL7pR4tY8u\n " + strings.Repeat("k", 58) + "_token=Zx9vQ2mL7pR4tY8u",
	// A private key's header ending its line, the END on the next one.
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
	"-----BEGIN RSA PRIVATE KEY-----\n \n",
	"Authorization:\nBasic dXNlcjpwYXNzd29yZA==\npassword\n=Tr0ub4dor3xK\nhttps:\n//u:p4ssw0rd@h",
	"sk-ant-AbC123dEf456GhI789jKl0\nBearer\n" + jwtToken + "\nbearer " + jwtToken,
}

func TestSecretScanLinesAtOnce(t *testing.T) {
	for _, s := range linesAtOnceSeeds {
		checkLinesAtOnce(t, []byte(s))
	}
	for text := generatedSession(t, 1<<20, 7); len(text) > 0; text = text[min(len(text), 16<<10):] {
		checkLinesAtOnce(t, text[:min(len(text), 16<<10)])
	}
}

func FuzzSecretScanLinesAtOnce(f *testing.F) {
	for _, s := range append(linesAtOnceSeeds, secretScanSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkLinesAtOnce(t, text) })
}

// The summaries scan a chunk's credentials in one call: Check reports, on
// every line, header and body, what FindSecrets finds in that line alone,
// in documents with secrets in every kind of line, chunks with and without
// a CR, and after an edit re-summarises a chunk.
func TestS001ChunkScanMatchesEachLine(t *testing.T) {
	// A credential every 37 lines, in lines of every kind.
	lines := bytes.SplitAfter(generatedSession(t, 256<<10, 11), []byte("\n"))
	var src []byte
	for i, line := range lines {
		if i%37 == 36 {
			line = slices.Concat(bytes.TrimSuffix(line, []byte("\n")), []byte(" password=Tr0ub4dor3xK "+anthropicKey+"\n"))
		}
		src = append(src, line...)
	}
	// Credentials in the header, on a non-body delimiter's neighbours, and
	// in a chunk with a CRLF line further down.
	src = bytes.Replace(src, []byte("\n---\n"), []byte("\napi_key: "+anthropicKey+"\n---\n"), 1)
	mid := bytes.IndexByte(src[len(src)/2:], '\n') + len(src)/2 + 1
	src = slices.Concat(src[:mid], []byte("u: Bearer "+jwtToken+"\r\no: token="+anthropicKey+"\n"), src[mid:])
	for _, doc := range [][]byte{src, bytes.ReplaceAll(src, []byte("\r"), nil)} {
		tree := grammar.Parse(doc)
		check := func(findings []Finding) {
			t.Helper()
			var got, want []grammar.Span
			for _, f := range findings {
				if f.Code == "S001" {
					got = append(got, f.Span)
				}
			}
			for l := range tree.Lines() {
				for _, m := range FindSecrets(tree.Text(l)) {
					want = append(want, grammar.Span{Start: l.Start + m.Start, End: l.Start + m.End})
				}
			}
			if len(want) < 10 {
				t.Fatalf("only %d secrets in the test document", len(want))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("S001 spans differ:\n got %v\nwant %v", got, want)
			}
		}
		check(Check(tree, Config{}))
		l := tree.Line(tree.LineCount() / 3)
		tree = tree.Edit(l.Start, l.End, []byte("a: now with secret="+anthropicKey))
		check(Check(tree, Config{}))
	}
}

// blankBytes flags exactly the bytes up to ' ', whatever their
// neighbours: every byte value in every lane, between bytes of every
// value.
func TestBlankBytes(t *testing.T) {
	for c := range 256 {
		for _, fill := range []byte{0, ' ', '!', 'a', 0x7f, 0x80, 0xff} {
			for lane := range 8 {
				var b [8]byte
				for k := range b {
					b[k] = fill
				}
				b[lane] = byte(c)
				var want uint64
				for k, x := range b {
					if x <= ' ' {
						want |= 0x80 << (8 * k)
					}
				}
				if got := blankBytes(binary.LittleEndian.Uint64(b[:])); got != want {
					t.Fatalf("%q: %016x, want %016x", b, got, want)
				}
			}
		}
	}
}

// checkStopsBlockByBlock requires the stops index finds in text, called
// as AppendSecrets calls it (from where the last call got to), to be the
// stops it finds when it starts afresh at every block of eight (each block
// is then the first of its call, which the light path tests alone, one
// block a step, while the light path's loop after it goes several blocks
// a step), and the stops of each block found byte by byte
// (appendBlockStopsByByte). Both start at fresh, where a word starts whatever precedes it,
// as AppendSecrets goes on after a match.
func checkStopsBlockByBlock(t *testing.T, text []byte, fresh int) {
	t.Helper()
	fresh = min(fresh, len(text))
	var s stopIndex
	var got, want []int
	for i := fresh; i < len(text); {
		next, n := s.index(text, i, fresh)
		got = append(got, s.at[:n]...)
		i = next
	}
	for i := fresh; i < len(text); i += 8 {
		_, n := s.index(text, i, fresh)
		for _, p := range s.at[:n] {
			if p < i+8 || i+lightRun > len(text) {
				want = append(want, p)
			}
		}
		if i+lightRun > len(text) {
			break // the last bytes, all in one step
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%q (fresh %d):\nin calls %v\nby block %v", text, fresh, got, want)
	}
	var byByte []int
	for i := fresh; i < len(text); i += 8 {
		byByte = appendBlockStopsByByte(byByte, text, i, fresh)
		if i+lightRun > len(text) {
			break
		}
	}
	if !slices.Equal(got, byByte) {
		k := 0
		for k < min(len(got), len(byByte)) && got[k] == byByte[k] {
			k++
		}
		q := slices.Min(append(slices.Clone(got[k:k+min(1, len(got)-k)]), byByte[k:k+min(1, len(byByte)-k)]...))
		t.Fatalf("%q (fresh %d): index and the bytes differ at %d (%q, the block at %d: %q):\n   index %v\nby bytes %v", text, fresh, q, text[q:min(len(text), q+8)], q-(q-fresh)%8, text[q-(q-fresh)%8:min(len(text), q-(q-fresh)%8+lightRun)], got, byByte)
	}
}

// appendBlockStopsByByte appends the stops index finds in the block of
// eight bytes at i (all the bytes left when fewer than lightRun are), each
// byte's test made on its own: the light path's pair rule, a byte's
// classes on the full path, and on a block with a blank and a run after
// it, the light path's rule and the word starts after the last blank
// (index finds those from a mask of the bytes no word holds).
func appendBlockStopsByByte(dst []int, text []byte, i, fresh int) []int {
	at := func(q int) byte { // the text, then zeros, as index's last bytes
		if q < len(text) {
			return text[q]
		}
		return 0
	}
	blank := func(q int) bool { return q < len(text) && text[q] <= ' ' }
	// light is the light path's rule at i+k: a byte first in its pair
	// (k even) stops by what it is and the byte after it, a second one
	// by what it is and the byte before.
	light := func(k int) bool {
		if k%2 == 0 {
			a, b := at(i+k), at(i+k+1)
			run := startRun[int(a)<<8|int(b)]
			return secretClass[a]&clsSep != 0 || run != 0 && run < lightRun
		}
		a, b := at(i+k-1), at(i+k)
		return secretClass[b]&clsSep != 0 || lightStop[b] != 0 && (!wordByte[a] || isEscapeLetter(a))
	}
	var cand []int
	switch {
	case i+lightRun > len(text):
		for k := 0; k < 16; k++ {
			if light(k) {
				dst = append(dst, i+k)
			}
		}
		return dst // the last bytes' stops, all of them
	case slices.ContainsFunc(text[i+7:i+lightRun], func(c byte) bool { return c <= ' ' }):
		for k := range 8 {
			if light(k) {
				cand = append(cand, i+k)
			}
		}
	case slices.ContainsFunc(text[i:i+8], func(c byte) bool { return c <= ' ' }):
		last := i + 7
		for !blank(last) {
			last--
		}
		for q := i; q < i+8; q++ {
			before := text[q-min(q, 1)]
			if light(q-i) || q > last && !wordByte[before] && (startRun[int(text[q])<<8|int(text[q+1])] != 0 || before == '\\' && isEscapeLetter(text[q])) {
				cand = append(cand, q)
			}
		}
	default:
		for q := i; q < i+8; q++ {
			c, prev := secretClass[text[q]], uint8(0)
			if q != fresh {
				prev = secretClass[text[q-1]]
			}
			if c&clsSep != 0 || c&secondClass[text[q+1]]&clsGroups != 0 && prev&clsWord == 0 || c&clsEscape != 0 && prev&clsBackslash != 0 {
				cand = append(cand, q)
			}
		}
	}
	// What index turns down itself: a separator with a short value and
	// no credential key or URL before it, a word start that begins nothing.
	for _, p := range cand {
		c := text[p]
		if secretClass[c]&clsSep != 0 {
			short := secretrules.ShortValueSoon(text, p)
			key := (c == '=' || c == ':') && mayBeKeyEnd(text, p)
			url := c == ':' && urlAt(text, p)
			if short && !key && !url {
				continue
			}
		} else if p+1 < len(text) {
			wordStart := p == fresh || !wordByte[text[p-1]]
			if wordStart && (p == 0 || text[p-1] != '\\') && startRun[int(c)<<8|int(text[p+1])] == 0 {
				continue
			}
		}
		dst = append(dst, p)
	}
	return dst
}

// stopTextBytes maps a fuzzer's bytes onto text like a log's: mostly
// lowercase words and blanks, the separators and the bytes the light path
// stops at, a backslash and its escape letters.
const stopTextBytes = "    \tabcdefghiklmnoprstuvxyzeeetttaaoooBEXZ0123456789_-=:>,|~%/.\\\"'\n"

func TestStopsBlockByBlock(t *testing.T) {
	for _, s := range append(linesAtOnceSeeds, secretScanSeeds...) {
		checkStopsBlockByBlock(t, []byte(s), 0)
	}
	text := generatedSession(t, 256<<10, 5)
	checkStopsBlockByBlock(t, text, 0)
	checkStopsBlockByBlock(t, text[3:], 8)
}

func FuzzStopsBlockByBlock(f *testing.F) {
	for _, s := range append(linesAtOnceSeeds, secretScanSeeds...) {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text []byte, fresh uint8) {
		// The blocks are restarted one by one, each call reading on to
		// the text's end when it holds few stops: a few KB are enough.
		text = text[:min(len(text), 4<<10)]
		checkStopsBlockByBlock(t, text, int(fresh))
		mapped := make([]byte, len(text))
		for k, c := range text {
			mapped[k] = stopTextBytes[int(c)%len(stopTextBytes)]
		}
		checkStopsBlockByBlock(t, mapped, int(fresh))
	})
}
