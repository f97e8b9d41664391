package secretrules

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Gitleaks also decodes: it replaces what looks percent-, unicode-, hex-
// or base64-encoded with what it decodes to (when that is printable
// ASCII), runs its rules again on the result, up to five times, and
// reports a finding that lies in decoded text at the encoded text it came
// from. FindDecoded does the same, with encodings found by the same
// expressions and decoded by the same rules, so that a redaction can
// remove the encoded text (the whole of it: the part that holds the secret
// cannot be cut out of base64).

// maxDecodeDepth is gitleaks' default --max-decode-depth.
const maxDecodeDepth = 5

// encodingPatterns are gitleaks' four, in order of precedence (an earlier
// one wins where two overlap).
var encodingPatterns = []struct {
	pattern string
	decode  func(string) string
}{
	{`%[0-9A-Fa-f]{2}(?:.*%[0-9A-Fa-f]{2})?`, decodePercent},
	{`(?:(?:U\+[a-fA-F0-9]{4}(?:\s|$))+|(?i)(?:\\{1,2}u[a-fA-F0-9]{4})+)`, decodeUnicode},
	{`[0-9A-Fa-f]{32,}`, decodeHex},
	{`[\w\/+-]{16,}={0,2}`, decodeBase64},
}

// encodingsRe and unicodeEscapes are compiled on first use: only
// FindDecoded (redact) runs them, and compiling them when the package
// loaded cost every process 2M instructions.
var encodingsRe = sync.OnceValue(func() *regexp.Regexp {
	var parts []string
	for _, e := range encodingPatterns {
		parts = append(parts, "("+e.pattern+")")
	}
	return regexp.MustCompile(strings.Join(parts, "|"))
})

// segment is encoded text replaced by what it decodes to: enc in the text
// before, dec in the text after.
type segment struct {
	enc, dec window
}

// FindDecoded returns the findings that only decoding shows: each one's
// span (Start, End and the Match ones) is the encoded text in text that
// holds it.
func FindDecoded(text []byte) []Finding {
	var out []Finding
	seen := map[window]bool{}
	current := string(text)
	var levels [][]segment // levels[d] maps the text of depth d+1 to that of depth d
	for depth := 1; depth <= maxDecodeDepth; depth++ {
		decoded, segs := decodeOnce(current)
		if len(segs) == 0 {
			break
		}
		levels = append(levels, segs)
		for _, f := range Find([]byte(decoded)) {
			w, ok := decodedPart(segs, window{f.MatchStart, f.MatchEnd})
			if !ok {
				continue // there before this decoding: found already
			}
			for d := len(levels) - 1; d >= 0; d-- {
				w = mapBack(levels[d], w)
			}
			if seen[w] {
				continue
			}
			seen[w] = true
			out = append(out, Finding{RuleID: f.RuleID, Start: w.start, End: w.end, MatchStart: w.start, MatchEnd: w.end})
		}
		current = decoded
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// decodeOnce replaces every encoded stretch of text that decodes to
// printable text, and returns the result and the segments.
func decodeOnce(text string) (string, []segment) {
	var b strings.Builder
	var segs []segment
	last, shift := 0, 0
	for _, m := range encodingsRe().FindAllStringSubmatchIndex(text, -1) {
		k := 0
		for m[2+2*k] < 0 {
			k++
		}
		start, end := m[2+2*k], m[3+2*k]
		dec := encodingPatterns[k].decode(text[start:end])
		if dec == "" {
			continue
		}
		b.WriteString(text[last:start])
		b.WriteString(dec)
		segs = append(segs, segment{enc: window{start, end}, dec: window{start + shift, start + shift + len(dec)}})
		shift += len(dec) - (end - start)
		last = end
	}
	b.WriteString(text[last:])
	return b.String(), segs
}

// decodedPart returns the decoded segments a match overlaps, joined (the
// text around them was there before decoding, and is not the secret's),
// and false when it overlaps none.
func decodedPart(segs []segment, w window) (window, bool) {
	out, found := window{}, false
	for _, s := range segs {
		if s.dec.start < w.end && w.start < s.dec.end {
			if !found {
				out, found = s.dec, true
			}
			out.end = s.dec.end
		}
	}
	return out, found
}

// mapBack maps a span of a decoded text to the text it was decoded from:
// an end inside decoded text goes to the end of the encoded text it came
// from, an end outside moves by the change in length of the segments
// before it.
func mapBack(segs []segment, w window) window {
	pos := func(p int, isEnd bool) int {
		shift := 0
		for _, s := range segs {
			inside := s.dec.start <= p && p < s.dec.end
			if isEnd {
				inside = s.dec.start < p && p <= s.dec.end
			}
			switch {
			case inside && isEnd:
				return s.enc.end
			case inside:
				return s.enc.start
			case p < s.dec.start || isEnd && p == s.dec.start:
				return p - shift
			}
			shift = s.dec.end - s.enc.end
		}
		return p - shift
	}
	return window{pos(w.start, false), pos(w.end, true)}
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c <= '\x08' || c >= '\x7f' {
			return false
		}
	}
	return true
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func decodePercent(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			a, ok1 := hexValue(s[i+1])
			b, ok2 := hexValue(s[i+2])
			if ok1 && ok2 {
				c := a<<4 | b
				if !printableASCII([]byte{c}) {
					return ""
				}
				out = append(out, c)
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}

func decodeHex(s string) string {
	if len(s)%2 != 0 || !strings.ContainsAny(s, "0123456789") {
		return ""
	}
	out := make([]byte, len(s)/2)
	for i := 0; i < len(s); i += 2 {
		a, ok1 := hexValue(s[i])
		b, ok2 := hexValue(s[i+1])
		if !ok1 || !ok2 {
			return ""
		}
		out[i/2] = a<<4 | b
	}
	if !printableASCII(out) {
		return ""
	}
	return string(out)
}

func decodeBase64(s string) string {
	if !strings.ContainsAny(s, "0123456789+/-_") {
		return ""
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && printableASCII(b) {
		return string(b)
	}
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil && printableASCII(b) {
		return string(b)
	}
	return ""
}

// unicodeEscapes: U+XXXX, then \uXXXX.
var unicodeEscapes = sync.OnceValue(func() [2]*regexp.Regexp {
	return [2]*regexp.Regexp{
		regexp.MustCompile(`U\+([a-fA-F0-9]{4})\s?`),
		regexp.MustCompile(`(?i)\\{1,2}u([a-fA-F0-9]{4})`),
	}
})

// decodeUnicode decodes U+XXXX and \uXXXX sequences (what gitleaks' does
// with them, more simply: every one of them, in place).
func decodeUnicode(s string) string {
	out := s
	for _, re := range unicodeEscapes() {
		out = re.ReplaceAllStringFunc(out, func(m string) string {
			sub := re.FindStringSubmatch(m)
			n, err := strconv.ParseUint(sub[1], 16, 32)
			if err != nil {
				return m
			}
			var buf [utf8.UTFMax]byte
			return string(buf[:utf8.EncodeRune(buf[:], rune(n))])
		})
	}
	if out == s || bytes.ContainsRune([]byte(out), utf8.RuneError) {
		return ""
	}
	return out
}
