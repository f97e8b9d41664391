package secretrules

import (
	"bytes"
	"math"
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The prefix conditions are necessary, the shortest runs derived from the
// rules' expressions included: every match of a rule that has a prefix
// holds a word start where PrefixCandidate is true. The matches are made
// from each expression as short as it allows, with a blank or a quote
// wherever it allows one (a run then ends as soon as it can), many times
// for each rule; a match glued to the word before it is left out, as the
// line scan leaves it (analysis's tests say so).
func TestPrefixCandidatesNecessary(t *testing.T) {
	c := load()
	n := 0
	for i := range c.rules {
		r := &c.rules[i]
		if !appliesEverywhere(*r.Rule) || r.assignment {
			continue
		}
		switch r.ID {
		case "azure-ad-client-secret", "facebook-access-token", "maxmind-license-key", "sidekiq-sensitive-url":
			continue // found at their separator, or elsewhere (see candidates.go)
		}
		re, err := syntax.Parse(r.Regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for _, s := range generatedLines(i, re, 300, false) {
			line := "x " + s + " x"
			for _, m := range r.re().FindAllStringIndex(line, -1) {
				match := line[m[0]:m[1]]
				if strings.ContainsAny(match, "\n\r") || m[0] > 0 && isWordByte(line[m[0]-1]) {
					continue // over several lines, or glued to a word: not the line scan's
				}
				matched++
				if r.ID == "sourcegraph-access-token" && !strings.Contains(strings.ToLower(match), "sgp_") {
					continue // its 40 hex digits are left to redact
				}
				if !candidateIn([]byte(line), m[0], m[1]) {
					t.Errorf("%s: no word start of %q is a candidate", r.ID, match)
					break
				}
			}
		}
		if matched == 0 {
			t.Errorf("%s: no match made from its expression", r.ID)
		}
		n++
	}
	if n < 100 {
		t.Errorf("only %d prefix rules checked", n)
	}
}

// candidateIn reports whether a word start in text[from:to] is a prefix
// candidate.
func candidateIn(text []byte, from, to int) bool {
	for q := from; q < to; q++ {
		if (q == 0 || !isWordByte(text[q-1])) && PrefixCandidate(text, q) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

// generatedLines are n strings that re matches (generateShort), the
// random choices seeded with the rule's index and each string's.
func generatedLines(rule int, re *syntax.Regexp, n uint64, longTail bool) []string {
	var out []string
	for seed := range n {
		rnd := rand.New(rand.NewPCG(uint64(rule), seed))
		var sb strings.Builder
		generateShort(&sb, re, rnd, longTail)
		out = append(out, sb.String())
	}
	return out
}

// checkAssignmentLine requires a candidate, and a finding of Find, in a
// line where the rule id finds something, and returns 1 for such a line
// (0 for one where the rule's entropy or allowlist leaves it).
func checkAssignmentLine(t *testing.T, id string, line []byte) int {
	t.Helper()
	if bytes.ContainsAny(line, "\n\r") || !slices.ContainsFunc(FindLine(nil, line), func(f Finding) bool { return f.RuleID == id }) {
		return 0
	}
	cand := candidateIn(line, 0, len(line)) // ATATT3... of atlassian-api-token
	for q := range line {
		cand = cand || IsSeparator(line[q]) && SeparatorCandidate(line, q)
	}
	if !cand {
		t.Fatalf("%s: no separator of %q is a candidate", id, line)
	}
	if len(Find(line)) == 0 {
		t.Fatalf("%s: Find finds nothing in %q", id, line)
	}
	return 1
}

// generateShort writes a short random string that re matches: the fewest
// repetitions, optional parts left out half the time, and a blank or a
// quote wherever re allows one, half the time. With longTail, a repeat
// of at most 20 (a key's tail, the blanks around a separator) is written
// as long as it may be.
func generateShort(sb *strings.Builder, re *syntax.Regexp, rnd *rand.Rand, longTail bool) {
	switch re.Op {
	case syntax.OpLiteral:
		upper := rnd.IntN(2) == 0
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && 'a' <= c|0x20 && c|0x20 <= 'z' {
				c |= 0x20
				if upper {
					c &^= 0x20
				}
			}
			sb.WriteRune(c)
		}
	case syntax.OpCharClass:
		sb.WriteRune(pickShort(re.Rune, rnd))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		sb.WriteByte(" \".x"[rnd.IntN(4)])
	case syntax.OpCapture:
		generateShort(sb, re.Sub[0], rnd, longTail)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			generateShort(sb, s, rnd, longTail)
		}
	case syntax.OpAlternate:
		generateShort(sb, re.Sub[rnd.IntN(len(re.Sub))], rnd, longTail)
	case syntax.OpStar, syntax.OpQuest:
		if rnd.IntN(2) == 0 {
			generateShort(sb, re.Sub[0], rnd, longTail)
		}
	case syntax.OpPlus:
		for range 1 + rnd.IntN(2) {
			generateShort(sb, re.Sub[0], rnd, longTail)
		}
	case syntax.OpRepeat:
		n := re.Min
		if longTail && re.Max > re.Min && re.Max <= 20 {
			n = re.Max
		} else if rnd.IntN(4) == 0 && (re.Max < 0 || re.Max > re.Min) {
			n++
		}
		for range n {
			generateShort(sb, re.Sub[0], rnd, longTail)
		}
	}
}

// pickShort chooses a byte of a class (pairs of bounds): half the time a
// blank or a quote when it has one, else a printable byte, else its first.
func pickShort(ranges []rune, rnd *rand.Rand) rune {
	in := func(c rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= c && c <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	if rnd.IntN(2) == 0 {
		for _, c := range " \t\"'`" {
			if in(c) {
				return c
			}
		}
	}
	var good []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := max(ranges[i], ' '+1); c <= ranges[i+1] && c < 0x7f; c++ {
			good = append(good, c)
		}
	}
	if len(good) > 0 {
		return good[rnd.IntN(len(good))]
	}
	return ranges[0]
}

// keywordsBeforeByAutomaton is keywordsBefore as a pass of an automaton
// over the whole stretch where a keyword may start: the key's run of
// [ \t\w.-], as far back as a keyword ending 20 bytes before k reaches.
func keywordsBeforeByAutomaton(text []byte, k int) uint8 {
	from := k
	for from > 0 && k-from < 20+cands.maxKeyword && keyBytes[text[from-1]] {
		from--
	}
	keyAutomatonOnce.Do(func() { keyAutomaton = newMatcher(cands.keyWords) })
	m := keyAutomaton
	s, ends := int32(0), uint8(0)
	for q := from; q < k; q++ {
		s = m.next[int(s)*m.classes+int(m.class[text[q]])]
		if q+1 >= k-20 {
			for _, w := range m.out[s] {
				if cands.keyGeneric[w] {
					ends |= 2
				} else {
					ends |= 1
				}
			}
		}
	}
	return ends
}

var (
	keyAutomatonOnce sync.Once
	keyAutomaton     *matcher
)

var keywordSeeds = []string{
	"api_key", "x my-secret-token", "adafruit key  ", "ADOBE_CLIENT.ID", "tokens_in", "the password of", "credential",
	"a b c d e f g h i j k l m n o p q r s t u v w x y z secret",
	"1password_thing_that_is_long_enough_to_pass_the_limit__", "yandex api key for", "\nNEW_RELIC_key",
}

// keywordsBefore, reading back from each place a keyword may end, finds
// what the automaton finds over the key, at every end of the seeds.
func TestKeywordsBefore(t *testing.T) {
	n := 0
	for _, s := range keywordSeeds {
		for k := range len(s) + 1 {
			checkKeywordsBefore(t, []byte(s), k)
			n++
		}
	}
	for _, w := range cands.keyWords {
		for _, s := range []string{w, "x_" + w + "_y", w + strings.Repeat("z", 19), w + strings.Repeat(" ", 21), strings.ToUpper(w) + ".id"} {
			for k := range len(s) + 1 {
				checkKeywordsBefore(t, []byte(s), k)
			}
		}
	}
}

func FuzzKeywordsBefore(f *testing.F) {
	for _, s := range keywordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		for k := range len(text) + 1 {
			checkKeywordsBefore(t, text, k)
		}
	})
}

func checkKeywordsBefore(t *testing.T, text []byte, k int) {
	t.Helper()
	if got, _ := keywordsBefore(text, k); got != keywordsBeforeByAutomaton(text, k) {
		t.Fatalf("%q before %d: %02b, the automaton %02b", text, k, got, keywordsBeforeByAutomaton(text, k))
	}
}

// FuzzKeywordsBeforeTail holds where keywordsBefore stops reading back,
// short of both kinds of keyword (where a form of punctKeys is looked
// for): 20 bytes back, or after the first byte back from k that no key
// holds; and separatorCandidate's use of it: where that byte is ASCII, no
// ſ or K is in the key (foldInKeyByWalk).
func FuzzKeywordsBeforeTail(f *testing.F) {
	for _, s := range append(foldSeeds, keywordSeeds...) {
		f.Add([]byte(s))
	}
	f.Add([]byte("o: id=pF2VNvgH file_path"))
	f.Add([]byte("th: value token agent ſig"))
	f.Fuzz(func(t *testing.T, text []byte) {
		for k := range len(text) + 1 {
			ends, tail := keywordsBefore(text, k)
			if ends == 3 {
				continue
			}
			want := k
			for want > max(k-20, 1) && keyBytes[text[want-1]] {
				want--
			}
			if tail != want {
				t.Fatalf("%q before %d: stopped at %d, want %d", text, k, tail, want)
			}
			if tail > 0 && !keyBytes[text[tail-1]] && text[tail-1] < 0x80 && foldInKeyByWalk(text, k) {
				t.Fatalf("%q before %d: a ſ or K in the key past the ASCII byte at %d", text, k, tail-1)
			}
		}
	})
}

// foldSeeds are keys that spell a keyword with ſ or K, or have either
// near them without holding it.
var foldSeeds = []string{
	"paſſword", "to\u212aen ", "ſecret\t", "\u212aey_x", "pass\u212a\u212a\u212a\u212a\u212a\u212a\u212a", "naïve ts",
	"ſecret: x", "ſecret\nid", "x ſ y", "\u212a!key", "ſ" + strings.Repeat("a", 56), "ſ" + strings.Repeat("a", 57), "\xe2\xc5\xbfkey", "\xc5\xe2\x84\xaa",
}

// foldInKeyByWalk is foldInKey's reference: it walks back from k over
// the characters a key can hold from its keyword on (ASCII key bytes, ſ,
// K), as many as a key holds, and reports whether it met ſ or K.
func foldInKeyByWalk(text []byte, k int) bool {
	for e, n := k, 0; e > 0 && n < foldReach(); n++ {
		switch s := string(text[:e]); {
		case strings.HasSuffix(s, "\u017f"), strings.HasSuffix(s, "\u212a"):
			return true
		case keyBytes[text[e-1]]:
			e--
		default:
			return false
		}
	}
	return false
}

func checkFoldInKey(t *testing.T, text []byte, k int) {
	t.Helper()
	if got := foldInKey(text, k); foldInKeyByWalk(text, k) && !got {
		t.Fatalf("%q before %d: the walk over the key meets ſ or K, foldInKey does not", text, k)
	}
}

// foldInKey is true wherever a walk over the key finds ſ or K, and
// false where the key is ASCII or ends at a character that is neither.
func TestFoldInKey(t *testing.T) {
	for _, s := range foldSeeds {
		for k := range len(s) + 1 {
			checkFoldInKey(t, []byte(s), k)
		}
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"paſſword", true}, {"to\u212aen  ", true}, {"naïve ts", false}, {"ſecret\nid", false}, {"\u212a!key", false},
		{"ſ" + strings.Repeat("a", 56), true}, {"ſ" + strings.Repeat("a", 130), false}, {"password", false},
	} {
		if got := foldInKey([]byte(c.text), len(c.text)); got != c.want {
			t.Errorf("foldInKey(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func FuzzFoldInKey(f *testing.F) {
	for _, s := range append(foldSeeds, keywordSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		for k := range len(text) + 1 {
			checkFoldInKey(t, text, k)
		}
	})
}

// The separator conditions are necessary for every assignment rule, with
// a key's tail as long as the rule allows: where a rule finds something
// in a line made from its expression, a separator of the line is a
// candidate and Find finds it. The key's name may run on past its
// keyword (sonar[_.-]?(login|token), MailchimpSDK.initialize,
// new-york-times,), which the tail of 20 then follows.
func TestAssignmentCandidatesNecessary(t *testing.T) {
	c := load()
	n := 0
	for i := range c.rules {
		r := &c.rules[i]
		if !appliesEverywhere(*r.Rule) || !r.assignment {
			continue
		}
		re, err := syntax.Parse(r.Regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		seeds := uint64(200)
		if testing.Short() {
			seeds = 40
		}
		found := 0
		for _, s := range generatedLines(i, re, seeds, true) {
			found += checkAssignmentLine(t, r.ID, []byte(s))
		}
		if found == 0 {
			t.Errorf("%s: no finding in a line made from its expression", r.ID)
		}
		n++
	}
	if n < 90 {
		t.Errorf("only %d assignment rules checked", n)
	}
}

// noKeySeeds are separators after short keys, with values that start a
// value keyword or not, and keys that only look short.
var noKeySeeds = []string{
	"o: id=qnJKpCfyZx9vQ2mL7pR4tY8u", "t!:Bash id=toolu_01ABCdef234GHIjkl567", "\nth: Zx9vQ2mL7pR4tY8uK3wq",
	"x: NRJS-0123456789abcdef0123", "ab=\"live_Zx9vQ2mL7pR4tY8uK3wq\"", "new-york-times,x=Zx9vQ2mL7pR4tY8uK3wqZx9vQ2mL",
	"key:Zx9vQ2mL7pR4tY8uK3wq", "ſK=Zx9vQ2mL7pR4tY8uK3wq", "a\u212a: Zx9vQ2mL7pR4tY8uK3wq", "api :Zx9vQ2mL7pR4tY8uK3wq",
}

func checkNoKeyAt(t *testing.T, text []byte) {
	t.Helper()
	for i, c := range text {
		if (c == '=' || c == ':') && NoKeyAt(text, i) && (separatorCandidate(text, i, false) || separatorCandidate(text, i, true)) {
			t.Fatalf("%q at %d: NoKeyAt, but a candidate", text, i)
		}
	}
}

// NoKeyAt is false wherever a separator is a candidate.
func TestNoKeyAt(t *testing.T) {
	for _, s := range append(noKeySeeds, keywordSeeds...) {
		checkNoKeyAt(t, []byte(s))
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"o: id=qnJKpCfyZx9vQ2mL7pR4tY8u", true}, {"\nth: Zx9vQ2mL7pR4tY8uK3wq", true}, {"x: NRJS-0123456789abcdef0123", false},
		{"key:Zx9vQ2mL7pR4tY8uK3wq", false}, {"new-york-times,x=Zx9vQ2mL7pR4tY8uK3wqZx9vQ2mL", false},
	} {
		i := strings.IndexAny(c.text, "=:")
		if got := NoKeyAt([]byte(c.text), i); got != c.want {
			t.Errorf("NoKeyAt(%q, %d) = %v, want %v", c.text, i, got, c.want)
		}
	}
}

func FuzzNoKeyAt(f *testing.F) {
	for _, s := range append(noKeySeeds, keywordSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkNoKeyAt(t, text) })
}

// checkNoKeyAtByByte: NoKeyAt, which reads the bytes around the separator
// as one array and their facts from one table, is noKeyAtByByte at every
// place of text, and at every place of text cut short at each end (the
// text's first three and last two bytes, where NoKeyAt hands over).
func checkNoKeyAtByByte(t *testing.T, text []byte) {
	t.Helper()
	for from := range min(len(text), 4) + 1 {
		for to := max(from, len(text)-3); to <= len(text); to++ {
			s := text[from:to]
			for i := range len(s) + 1 {
				if got, want := NoKeyAt(s, i), noKeyAtByByte(s, i); got != want {
					t.Fatalf("NoKeyAt(%q, %d) = %v, byte by byte %v", s, i, got, want)
				}
			}
		}
	}
}

// NoKeyAt equals its byte-by-byte reading at its edges: every stop of its
// read-back (a key of zero to three bytes, after the text's start, a byte
// no key holds, one above ASCII, the last byte of a punctKeys form, a
// byte read back over), every skip after the separator, a value keyword's
// first byte or not, CRLF, invalid UTF-8, an emoji.
func TestNoKeyAtByByte(t *testing.T) {
	var texts []string
	for _, key := range []string{"", "o", "th", "key", "\n", "é", "\xff", "🔑", "times,", "a,", "x\"", "x'", "a:", "a?", "a|", "a>", "a ", "a\t", "\r\n"} {
		for _, sep := range []string{"=", ":"} {
			for _, value := range []string{"", "x", "Zx9", " Zx9", "\"Zx9", "  Zx9", "\t\"Zx9", "NRJS-0123", " live_0123", "=Zx9", "\r\n", "\xff\xfe", "🔑x"} {
				for _, before := range []string{"", "\n", " ", "-", "ab"} {
					texts = append(texts, before+key+sep+value)
				}
			}
		}
	}
	for _, s := range append(append(texts, noKeySeeds...), keywordSeeds...) {
		checkNoKeyAtByByte(t, []byte(s))
	}
}

func FuzzNoKeyAtByByte(f *testing.F) {
	for _, s := range append(noKeySeeds, keywordSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkNoKeyAtByByte(t, text) })
}

// checkVendorValueAt: vendorValueAt is valueRun's count at every place of
// text, and of text cut short at its end (the places within
// vendorValueBytes of it, where it counts with valueRun).
func checkVendorValueAt(t *testing.T, text []byte) {
	t.Helper()
	for to := max(0, len(text)-vendorValueBytes-1); to <= len(text); to++ {
		s := text[:to]
		for p := range len(s) + 1 {
			if got, want := vendorValueAt(s, p), valueRun(s, p) >= cands.minValue; got != want {
				t.Fatalf("vendorValueAt(%q, %d) = %v, valueRun %d", s, p, got, valueRun(s, p))
			}
		}
	}
}

// vendorValueAt equals valueRun's count: values of every length around a
// vendor's shortest, ended by each kind of byte, and the rules' own
// shortest value is the length it reads as an array.
func TestVendorValueAt(t *testing.T) {
	if cands.minValue != vendorValueBytes {
		t.Logf("the rules' shortest vendor's value is %d bytes, vendorValueAt reads %d: it counts with valueRun", cands.minValue, vendorValueBytes)
	}
	for n := range 2*vendorValueBytes + 1 {
		for _, end := range []string{"", " ", "\"", ":", "\n", "\r\n", "\xff", "é", "🔑", ",", "="} {
			checkVendorValueAt(t, []byte("k="+strings.Repeat("Zx9vQ2mL7pR4tY8uK3wq"[:10], 3)[:n]+end+"tail"))
		}
	}
	for _, s := range append(noKeySeeds, keywordSeeds...) {
		checkVendorValueAt(t, []byte(s))
	}
}

func FuzzVendorValueAt(f *testing.F) {
	for _, s := range append(noKeySeeds, keywordSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkVendorValueAt(t, text) })
}

// A key's expression read as a list of words has the forms its parse
// spells out, for every assignment rule read so.
func TestLiteralKeyForms(t *testing.T) {
	n := 0
	for _, r := range gitleaksRules {
		if !appliesEverywhere(r) || !strings.Contains(r.Regex, assignmentSkeleton) {
			continue
		}
		keyExpr := r.Regex[:strings.Index(r.Regex, assignmentSkeleton)]
		forms, ok := literalKeyForms(keyExpr)
		if !ok {
			continue
		}
		n++
		if want := parsedKeyForms(r.ID, keyExpr); !slices.Equal(forms, want) {
			t.Errorf("%s: %q read as %q, parsed %q", r.ID, keyExpr, forms, want)
		}
	}
	if n < 60 {
		t.Errorf("only %d keys read as lists of words", n)
	}
}

// checkGenericEntropy: wherever generic-api-key's value has its entropy
// after a separator, it has its shape (genericValue with entropy tests one
// thing more), which separatorCandidate counts on when it tests the shape
// only where a vendor's value is not there.
func checkGenericEntropy(t *testing.T, text []byte) {
	t.Helper()
	for p := range len(text) {
		for _, multiline := range []bool{false, true} {
			if genericValue(text, p, multiline, true) && !genericValue(text, p, multiline, false) {
				t.Fatalf("%q at %d (multiline %v): the value has the entropy, not the shape", text, p, multiline)
			}
		}
	}
}

func FuzzGenericValueEntropyHasShape(f *testing.F) {
	for _, s := range append(keywordSeeds, "x=Zx9vQ2mL7pR4tY8uK3wq ", "k: '\t\"Zx9v+Q2mL/7pR4tY8uK3==\"", "a=\n\nZx9vQ2mL.7pR4tY8uK3wq\\n") {
		f.Add([]byte(s))
	}
	f.Fuzz(checkGenericEntropy)
}

// checkNoValueAt: wherever noValueAt is true, no vendor's value, no
// colonValue and, where text[p] is no byte genericValue skips, no
// generic-api-key's value (with line breaks skipped or not) starts at p;
// wherever NoValueAfter is, the separator is no candidate: at every place
// of text and of text cut at each length.
func checkNoValueAt(t *testing.T, text []byte) {
	t.Helper()
	for n := range len(text) + 1 {
		cut := text[:n]
		for p := range n {
			if NoValueAfter(cut, p) && (separatorCandidate(cut, p, false) || separatorCandidate(cut, p, true)) {
				t.Fatalf("NoValueAfter(%q, %d), but a candidate", cut, p)
			}
			if !noValueAt(cut, p) {
				continue
			}
			if vendorValueAt(cut, p) || colonValue(cut, p) {
				t.Fatalf("noValueAt(%q, %d): a vendor's value (%v) or colonValue's (%v) starts there", cut, p, vendorValueAt(cut, p), colonValue(cut, p))
			}
			if cands.skipByte[cut[p]] {
				continue
			}
			for _, multiline := range []bool{false, true} {
				if genericValue(cut, p, multiline, false) {
					t.Fatalf("noValueAt(%q, %d): generic-api-key's value starts there (multiline %v)", cut, p, multiline)
				}
			}
		}
	}
}

// noValueSeeds are values at the edges of noValueAt's tests: a log's
// times; a vendor's value of 13, 14 and 15 bytes; colonValue's values
// (telegram's digits, :A; sidekiq's hex:hex) and near misses; generic
// values of 9, 10, 11 bytes before each byte that terminates and each that
// does not ('+', '/', ':', '.', '='); an escaped line break, CRLF,
// invalid UTF-8, an emoji.
var noValueSeeds = []string{
	"ts=2025-12-19T20:29:03Z ", "ts=2025-12-19T20:29:03Z", "x=2025-12-19 20:29:03 ", "k=Zx9vQ2mL7pR4t:y ",
	"k=Zx9vQ2mL7pR4tY:y ", "k=Zx9vQ2mL7pR4tYu:y ", "k=123456789:AAbcdefghijk ", "k=123456789:Abcdefghijk ",
	"k=abcdef12:abcdef12xxxxx ", "k=abcdef1:abcdef12xxxxxx ", "k=Zx9vQ2mL7:xxxxxxxxxx ", "k=Zx9vQ2mL7p:xxxxxxxxxx ",
	"k=Zx9vQ2mL7 xxxxxxxxxxxx", "k=Zx9vQ2mL7p xxxxxxxxxxx", "k=Zx9vQ2mL7p\\nxxxxxxxxxx", "k=Zx9vQ2mL7p\\xxxxxxxxxxx",
	"k=Zx9vQ2mL7p\r\nxxxxxxxxx", "k=Zx9vQ2mL7p+Q2mL/7pR4tY ", "k=Zx9vQ2mL7p.Q2mL_7pR4tY ", "k=Zx9vQ2mL7p=:Q2mL_7pR4 ",
	"k=Zx9vQ2mL7p\xffQ2mL7pR4 ", "k=Zx9vQ2mL7p😀Q2mL7pR4 ", "k=Zx9vQ2mL7p;Q2mL7pR4tY ", "k=Zx9vQ2mL7p'Q2mL7pR4tY ",
	"sig=Ep4EpTA2bgzp... tokens_in=415", "file_path=src/tools/handler_test.go ",
}

func TestNoValueAt(t *testing.T) {
	for _, s := range noValueSeeds {
		checkNoValueAt(t, []byte(s))
	}
	if text := []byte("a ts=2025-12-19T20:29:03Z b"); !noValueAt(text, 5) {
		t.Errorf("noValueAt(%q, 5) = false: a log's time is no value", text)
	}
}

func FuzzNoValueAt(f *testing.F) {
	for _, s := range append(keywordSeeds, noValueSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(checkNoValueAt)
}

// asciiEntropy is shannonEntropy, up to the order the terms are summed in.
func checkASCIIEntropy(t *testing.T, v []byte) {
	t.Helper()
	if len(v) == 0 {
		return
	}
	for _, c := range v {
		if c >= 0x80 {
			return // generic-api-key's values are ASCII
		}
	}
	if got, want := asciiEntropy(v), shannonEntropy(string(v)); math.Abs(got-want) > 1e-9 {
		t.Fatalf("%q: %v, shannonEntropy %v", v, got, want)
	}
}

func FuzzASCIIEntropy(f *testing.F) {
	for _, s := range []string{"a", "Zx9vQ2mL7pR4tY8uK3wq", "aaaaaaaaab", strings.Repeat("ab", 200), "Ep4EpTA2bgzp..."} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkASCIIEntropy)
}

// checkShortValueSoon requires ShortValueSoon, at every place of text, to
// be its definition read byte by byte (eleven bytes from the place, the
// second after it no blank, quote or separator, a blank or control byte
// among the eight after that), and true only where ShortValueAt is.
func checkShortValueSoon(t *testing.T, text []byte) {
	t.Helper()
	for i := range text {
		want := i+11 <= len(text) && !cands.skipByte[text[i+2]] &&
			slices.ContainsFunc(text[i+3:i+11], func(c byte) bool { return c <= ' ' })
		if got := ShortValueSoon(text, i); got != want {
			t.Fatalf("ShortValueSoon(%q, %d) = %v, want %v", text, i, got, want)
		}
		if want && !ShortValueAt(text, i) {
			t.Fatalf("ShortValueSoon(%q, %d) without ShortValueAt", text, i)
		}
	}
}

func FuzzShortValueSoon(f *testing.F) {
	for _, s := range append(noKeySeeds, "tokens_in=415 tokens_out=161 ts=2025-12-19T20:29:03Z", "a: b\tc=\"x y\" d=|e ~f", "x=\x00\x01\x1f\x20\x21\x7f\x80\xff end") {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkShortValueSoon(t, text) })
}
