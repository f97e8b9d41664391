package analysis

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rlog-ls/rlog-ls/analysis/secretrules"
)

// Secrets: values in a log that look like credentials (rule S001). Agent
// logs are shared (attached to issues, uploaded as replays), and a key
// pasted into a prompt or echoed by a tool ends up in them. The detector is
// deliberately narrow: a value is reported only when its shape says
// "credential" (a vendor prefix, a JWT, a PEM private key header, a bearer
// or basic Authorization value, a password in a URL) or when it is assigned
// to a credential-named key (password=, api_key:, "client_secret": ...) and
// looks random. Ordinary rlog metadata (tokens_in=, sig=, id=, sha256=)
// never qualifies, and placeholders ($TOKEN, <key>, [redacted:x], ***, the
// vendors' documented EXAMPLE keys) are left alone.
//
// FindSecrets and AppendSecrets work on one line's bytes, with no state and
// no allocation beyond the result, in one pass: every trigger's look-ahead
// stops at a byte that cannot start another candidate inside it, so a 10 MB
// line costs time in proportion to its length. Redact applies them to a
// whole document.

// SecretMatch is one credential-like value: its kind and its byte span. The
// span covers only the secret (the token after "Bearer ", the value after
// "password="), which is what a redaction replaces.
type SecretMatch struct {
	// Kind is the label of [redacted:<kind>]: letters and underscores, so
	// the rlog/1 validator's `\[redacted:\w+\]` counts the redaction.
	Kind string
	// Start and End are byte offsets: into the line for FindSecrets and
	// AppendSecrets, into the document for Redact.
	Start, End int
}

// The kinds, with how a message names them.
var secretKinds = map[string]string{
	"anthropic_key":  "an Anthropic API key",
	"openai_key":     "an OpenAI API key",
	"github_token":   "a GitHub token",
	"gitlab_token":   "a GitLab token",
	"aws_access_key": "an AWS access key id",
	"slack_token":    "a Slack token",
	"google_api_key": "a Google API key",
	"stripe_key":     "a Stripe secret key",
	"npm_token":      "an npm token",
	"jwt":            "a JSON Web Token",
	"private_key":    "a private key",
	"bearer_token":   "a bearer token",
	"basic_auth":     "HTTP basic credentials",
	"url_password":   "a password in a URL",
	"password":       "a password",
	"api_key":        "an API key",
	"token":          "a token",
	"secret":         "a secret",
}

// Describe names a kind for a message: "an Anthropic API key".
func (m SecretMatch) Describe() string {
	if d, ok := secretKinds[m.Kind]; ok {
		return d
	}
	return "a credential"
}

// Message is the S001 diagnostic's message for m.
func (m SecretMatch) Message() string {
	return "This looks like " + m.Describe() + ". Logs get shared: rotate it if it is real, " +
		"and share a redacted copy (" + RedactionMarker(m.Kind) + ")."
}

// RedactionMarker is what a redaction of kind writes: [redacted:kind].
func RedactionMarker(kind string) string { return "[redacted:" + kind + "]" }

// FindSecrets returns the credential-like values in one line (without its
// line break; a trailing CR is fine), in order, not overlapping. nil when
// there is none.
func FindSecrets(line []byte) []SecretMatch { return AppendSecrets(nil, line) }

// AppendSecrets appends the matches of line to dst and returns it: with a
// reused dst, scanning a clean line allocates nothing.
//
// line may also be several lines joined by '\n' (no CR): the result is
// then the matches of each line, in order, with offsets into the whole.
// No match and no look-ahead or look-back crosses a '\n', which is in no
// class and ends every run, so a chunk of a document is scanned in one
// call instead of one per line. FuzzSecretScanLinesAtOnce holds the two
// equal.
//
// The scan goes word by word: a vendor shape can only start a run of word
// bytes ([A-Za-z0-9_-]) and is at least 10 bytes long, or is the word
// Bearer, or mysql's -p option; everything else (Basic credentials too)
// is looked at only at a separator. Every line of a document goes through
// here, so the loop looks at eight bytes at a time (stopIndex) and stops
// only where something can start: a word start whose first two bytes can
// begin a shape of ours or a gitleaks prefix, a JSON escape's letter
// before one, or a separator.
func AppendSecrets(dst []SecretMatch, line []byte) []SecretMatch {
	base := len(dst)
	var candBuf [4]candLine
	cand := candBuf[:0] // the lines where a gitleaks rule may match
	var stops stopIndex
	fresh := 0 // where the last match ended: a word starts there whatever precedes it
	done := 0  // the stops before done are looked at, or inside a word or a match read
scan:
	for i := 0; i < len(line); {
		next, n := stops.index(line, i, fresh)
		// The stops, in order: most are turned down by a check inlined
		// here, without a call (index turns down the commonest already).
		for _, p := range stops.at[:n] {
			if p < done {
				continue // in a word already read
			}
			valueTested := false // ShortValueAt and NoKeyAt tested at the separator p, both false
			if c := line[p]; secretClass[c]&clsSep != 0 {
				ours := (c == '=' || c == ':') && mayBeKeyEnd(line, p) || c == ':' && urlAt(line, p)
				// Not ShortValueSoon: index let p through, so short of ours
				// the value is long, but near a text's end, where index
				// does not ask it (tokens_cached=9000 ending a line). Away
				// from the end NoKeyAt first: it turns down the commonest
				// of what is left, a line's kind before a value with no
				// blank in its first ten bytes (o: id=8nwWhhSk).
				if !ours {
					if p+13 > len(line) {
						if secretrules.ShortValueAt(line, p) || secretrules.NoKeyAt(line, p) {
							continue // no value or no rule's key, no credential key ends before, no URL
						}
					} else if secretrules.NoKeyAt(line, p) || secretrules.ShortValueAt(line, p) || secretrules.NoValueAfter(line, p) {
						continue // and a log's time (ts=2025-12-19T20:29:03Z after a blank)
					}
				}
				valueTested = !ours
			} else if p != fresh && wordByte[line[p-1]] {
				// Not a word start (the light path stops at bytes):
				// maybe right after a JSON escape (\n-----BEGIN), which
				// is where the scan stops.
				if p-1 < done || p < 2 || line[p-2] != '\\' || !isEscapeLetter(line[p-1]) {
					continue
				}
				p--
			} else if line[p-min(p, 1)] != '\\' && !mayStartWord(line, p) {
				continue
			}
			var matched bool
			dst, cand, done, matched = scanStop(dst, cand, line, p, valueTested)
			if matched {
				i, fresh = done, done
				continue scan
			}
		}
		i = max(next, done)
	}
	if len(cand) > 0 {
		dst = addRuleFindings(dst, base, line, cand)
	}
	return dst
}

// stopIndex holds the places where the scan may have to stop, found eight
// bytes at a time, for AppendSecrets to look at in order.
type stopIndex struct {
	at [stopBatch + 16]int
}

// stopBatch is about how many stops index finds before it returns.
const stopBatch = 16

// index finds the stops in the bytes from i, eight at a time, until it
// has about stopBatch of them or reaches the end, and returns where it got
// to and how many it found. fresh is where a word starts whatever precedes
// it.
//
// The light path: a blank in the eight bytes from i+7 leaves no room in
// the eight from i for a candidate that runs on for lightRun bytes or more
// without one, which all but a few do (startRun). What is left starts at a
// separator or at one of a few bytes (lightStop), and most eight bytes of
// text hold none. The last bytes of the text, too few for such a run, take
// the light path too. The full path classifies each byte (bothClasses): a
// word start stops only where its first two bytes can start something.
func (s *stopIndex) index(line []byte, i, fresh int) (int, int) {
	n := 0
	for n < stopBatch && i < len(line) {
		var stops uint64 // bit k: the byte at i+k is a stop
		if i+lightRun > len(line) {
			// The last bytes, from a copy with room to read eight at a time.
			var pad [16]byte
			copy(pad[:], line[i:])
			stops = lightStops((*[8]byte)(pad[0:8])) | lightStops((*[8]byte)(pad[8:16]))<<8
			for ; stops != 0; n++ {
				s.at[n] = i + bits.TrailingZeros64(stops)
				stops &= stops - 1
			}
			return len(line), n
		}
		// The bytes i to i+lightRun as an array: one bounds check for
		// all that the light path reads.
		if w := (*[lightRun]byte)(line[i : i+lightRun]); hasBlank(binary.LittleEndian.Uint64(w[7:])) {
			// The light path, for as long as it goes without a stop:
			// four blocks a step (one bounds check, one test of the
			// loop's end), one a step in the text's last 39 bytes.
			stops = lightStops((*[8]byte)(w[:8]))
			for stops == 0 {
				if i += 8; i+lightRun+24 > len(line) {
					if i+lightRun > len(line) {
						break
					}
					if w = (*[lightRun]byte)(line[i : i+lightRun]); !hasBlank(binary.LittleEndian.Uint64(w[7:])) {
						break
					}
					stops = lightStops((*[8]byte)(w[:8]))
					continue
				}
				w4 := (*[lightRun + 24]byte)(line[i : i+lightRun+24])
				if !hasBlank(binary.LittleEndian.Uint64(w4[7:])) {
					break
				}
				if stops = lightStops((*[8]byte)(w4[:8])); stops != 0 {
					break
				}
				if i += 8; !hasBlank(binary.LittleEndian.Uint64(w4[15:])) {
					break
				}
				if stops = lightStops((*[8]byte)(w4[8:16])); stops != 0 {
					break
				}
				if i += 8; !hasBlank(binary.LittleEndian.Uint64(w4[23:])) {
					break
				}
				if stops = lightStops((*[8]byte)(w4[16:24])); stops != 0 {
					break
				}
				if i += 8; !hasBlank(binary.LittleEndian.Uint64(w4[31:])) {
					break
				}
				stops = lightStops((*[8]byte)(w4[24:32]))
			}
			if stops == 0 {
				continue
			}
		} else if blanks := blankBytes(binary.LittleEndian.Uint64(w[:8])); blanks != 0 {
			// A blank in the eight bytes: what starts before the last
			// one cannot run on for lightRun bytes, so the light path's
			// stops do there, and the bytes after it, on a run without a
			// blank to i+lightRun, are looked at one by one: a word start
			// that begins something, a JSON escape's letter. Most blocks
			// the light path leaves are such (a word, a blank, the first
			// bytes of tokens_cached=18416).
			stops = lightStops((*[8]byte)(w[:8]))
			// The places after the last blank that follow a byte no word
			// holds (the blank itself first): each a word start, which
			// stops when its two bytes begin something.
			after := uint8(nonWordBytes((*[8]byte)(w[:8])) << 1 &^ (1<<(bits.Len64(blanks)/8) - 1))
			for ; after != 0; after &= after - 1 {
				k := bits.TrailingZeros8(after)
				if startRun[int(w[k])<<8|int(w[k+1])] != 0 || w[k-1] == '\\' && isEscapeLetter(w[k]) {
					stops |= 1 << k
				}
			}
		} else {
			// One lookup per byte gives both of its classes: the even
			// bytes' pairs are gathered in one word, the odd bytes' in
			// another, 16 bits each, then sorted into the byte's own class
			// (classes) and its class as the second byte of the byte
			// before it (next).
			b := (*[9]byte)(line[i : i+9])
			prev := uint64(0) // the class of the byte before i; none at a word start
			if i != fresh {
				prev = uint64(secretClass[line[i-1]])
			}
			even := uint64(bothClasses[b[0]]) | uint64(bothClasses[b[2]])<<16 | uint64(bothClasses[b[4]])<<32 | uint64(bothClasses[b[6]])<<48
			odd := uint64(bothClasses[b[1]]) | uint64(bothClasses[b[3]])<<16 | uint64(bothClasses[b[5]])<<32 | uint64(bothClasses[b[7]])<<48
			classes := even&lowBytes | (odd&lowBytes)<<8
			next := (odd>>8)&lowBytes | (even>>16)&(lowBytes<<8) | uint64(secondClass[b[8]])<<56
			before := classes<<8 | prev
			afterWord := (before & (eachByte * clsWord)) * clsGroups
			lanes := classes&next&^afterWord | classes&(eachByte*clsEscape)&(before<<1) | classes&(eachByte*clsSep)
			// A bit for each byte that has one: its high bit, gathered.
			const lows = eachByte * 0x7f
			stops = ((((lanes & lows) + lows) | lanes) & (eachByte * 0x80) >> 7) * 0x0102040810204080 >> 56
		}
		// Each stop, unless the commonest of AppendSecrets' tests turn it
		// down here already (where fewer values are live than in its
		// loop): a separator with a short value and neither a credential
		// key nor a URL before it, a word start that begins nothing.
		for ; stops != 0; stops &= stops - 1 {
			p := i + bits.TrailingZeros64(stops)
			if c := line[p]; secretClass[c]&clsSep != 0 {
				if secretrules.ShortValueSoon(line, p) && (c != '=' && c != ':' || !mayBeKeyEnd(line, p)) && (c != ':' || !urlAt(line, p)) {
					continue
				}
			} else if p+1 < len(line) && (p == fresh || !wordByte[line[p-1]]) && line[p-min(p, 1)] != '\\' && startRun[int(c)<<8|int(line[p+1])] == 0 {
				continue
			}
			s.at[n] = p
			n++
		}
		i += 8
	}
	return i, n
}

// lightStops returns a bit for each of the eight bytes b where the light
// path stops (bit k for b[k]): two bytes a lookup (lightPair).
func lightStops(b *[8]byte) uint64 {
	return uint64(lightPair[binary.LittleEndian.Uint16(b[0:2])]) | uint64(lightPair[binary.LittleEndian.Uint16(b[2:4])])<<2 |
		uint64(lightPair[binary.LittleEndian.Uint16(b[4:6])])<<4 | uint64(lightPair[binary.LittleEndian.Uint16(b[6:8])])<<6
}

// nonWordBytes returns a bit for each of the eight bytes b that no word
// holds (bit k for b[k]: not [A-Za-z0-9_-]): two bytes a lookup
// (nonWordPair).
func nonWordBytes(b *[8]byte) uint64 {
	return uint64(nonWordPair[binary.LittleEndian.Uint16(b[0:2])]) | uint64(nonWordPair[binary.LittleEndian.Uint16(b[2:4])])<<2 |
		uint64(nonWordPair[binary.LittleEndian.Uint16(b[4:6])])<<4 | uint64(nonWordPair[binary.LittleEndian.Uint16(b[6:8])])<<6
}

// nonWordPair[a|b<<8] has bit 0 when a is no word byte, bit 1 when b is
// none (see nonWordBytes). It is built a row of 256 pairs at a time (one b,
// every a), each row a copy of one of two made first: the table is made
// when the package loads, and a pair at a time cost every process about
// 1.4M instructions (TestPairTables holds the rows to the definition).
var nonWordPair = func() (t [1 << 16]uint8) {
	var rows [2][256]uint8 // after a word byte, after one that is none
	for a := range 256 {
		if !wordByte[a] {
			rows[0][a], rows[1][a] = 1, 1
		}
		rows[1][a] |= 2
	}
	for b := range 256 {
		row := (*[256]uint8)(t[b<<8:])
		if wordByte[b] {
			*row = rows[0]
		} else {
			*row = rows[1]
		}
	}
	return t
}()

// mayBeKeyEnd reports whether a credential word, or Authorization, can
// end just before the separator at sep (credentialKey's and
// afterAuthorization's first test, inlined): a blank, a quote or a
// backslash before it leaves the question to them. When it is false,
// neither assignedSecret nor basicAfter can match at sep. One lookup of
// the two bytes before sep (keyEndPair).
func mayBeKeyEnd(line []byte, sep int) bool {
	return sep >= 2 && keyEndPair[binary.LittleEndian.Uint16(line[sep-2:sep])]
}

// keyEndPair[a|b<<8]: the bytes a, b may end a credential key or
// Authorization (mayEndKey; see mayBeKeyEnd).
//
// Only keyEnding and "on" look at a, and only when a and b are both in
// 'A'..'z' (they test a|0x20 and b|0x20 against lower-case letters): any
// other a gives what a of 0 gives. So each row (one b, every a) is set
// from b alone, and mayEndKey is asked only of the 58 × 58 pairs in
// 'A'..'z'; a pair at a time cost every process about 2.1M instructions
// at load (TestPairTables asks every pair).
var keyEndPair = func() (t [1 << 16]bool) {
	for b := range 256 {
		if mayEndKey(0, byte(b)) {
			row := (*[256]bool)(t[b<<8:])
			for a := range row {
				row[a] = true
			}
		}
	}
	for b := 'A'; b <= 'z'; b++ {
		for a := 'A'; a <= 'z'; a++ {
			t[b<<8|a] = mayEndKey(byte(a), byte(b))
		}
	}
	return t
}()

// mayEndKey reports whether a credential key or Authorization may end
// with the bytes a, b before a separator (keyEndPair's definition): b is
// a blank, a quote or a backslash, which credentialKey and
// afterAuthorization step back over, or a, b end a credential word
// (keyEnding) or Authorizati-on.
func mayEndKey(a, b byte) bool {
	return b == ' ' || b == '"' || b == '\'' || b == '\\' || keyEnding(a, b) || a|0x20 == 'o' && b|0x20 == 'n'
}

// urlAt: "://" at i, after a letter or a digit (urlPassword's first test).
func urlAt(line []byte, i int) bool {
	return i > 0 && i+2 < len(line) && line[i+1] == '/' && line[i+2] == '/'
}

// mayStartWord reports, cheaply, whether a shape of ours or a gitleaks
// prefix can start at the word start line[p] (not after a backslash):
// its first two bytes begin one, and the bytes after them run on without
// a blank for as long as the shortest match of any that begins so.
func mayStartWord(line []byte, p int) bool {
	if p+1 >= len(line) {
		return false
	}
	need := int(startRun[int(line[p])<<8|int(line[p+1])])
	return need != 0 && runAtLeast(line, p, need)
}

// runAtLeast reports whether line[p:p+need] has no blank (a byte up to
// ' '); for need over 16, only its first and last eight bytes are read
// (a weaker test, which is enough for a filter).
func runAtLeast(line []byte, p, need int) bool {
	if p+need > len(line) {
		return false
	}
	if need >= 8 {
		x := binary.LittleEndian.Uint64(line[p:])
		y := binary.LittleEndian.Uint64(line[p+min(need, 16)-8:])
		return !hasBlank(x) && !hasBlank(y)
	}
	for q := p; q < p+need; q++ {
		if line[q] <= ' ' {
			return false
		}
	}
	return true
}

// lightRun is how long a candidate must run without a blank for the light
// path to leave it to the full one: the light path reads the eight bytes
// from i+7 for a blank, which a run of lightRun bytes from i to i+7 holds
// none of.
const lightRun = 15

// hasBlank reports whether a byte of x is a blank or a control byte (up
// to ' '; bytes of 128 and more are not).
func hasBlank(x uint64) bool { return (x-eachByte*0x21)&^x&(eachByte*0x80) != 0 }

// blankBytes returns the high bit of each byte of x that is a blank or a
// control byte, exactly (hasBlank's test may also flag a byte after one):
// a byte's low seven bits plus 0x5f reach its high bit from 0x21 on.
func blankBytes(x uint64) uint64 {
	return ^((x & (eachByte * 0x7f)) + eachByte*0x5f | x) & (eachByte * 0x80)
}

// scanStop looks at the stop at line[p] (a separator, a word start, or a
// JSON escape's letter) and returns where the scan goes on, and whether
// it found a match there (which ends where it goes on). valueTested: p is
// a separator where secretrules.ShortValueAt and NoKeyAt are false, which
// SeparatorCandidate need not test again.
func scanStop(dst []SecretMatch, cand []candLine, line []byte, p int, valueTested bool) ([]SecretMatch, []candLine, int, bool) {
	c := line[p]
	if secretClass[c]&clsSep != 0 {
		if valueTested && secretrules.SeparatorCandidateRest(line, p) || !valueTested && secretrules.SeparatorCandidate(line, p) {
			cand = markLine(cand, line, p)
		}
		// Ours: a credential key or Authorization before '=' or ':'
		// (mayBeKeyEnd is the first test of both), a URL at "://".
		var m SecretMatch
		var ok bool
		if (c == '=' || c == ':') && mayBeKeyEnd(line, p) {
			if m, ok = assignedSecret(line, p); !ok {
				m, ok = basicAfter(line, p)
			}
		}
		if !ok && c == ':' && urlAt(line, p) {
			m, ok = urlPassword(line, p)
		}
		if ok {
			return append(dst, m), cand, m.End, true
		}
		return dst, cand, p + 1, false
	}
	// A word start: a gitleaks rule's prefix, and ours. Every shape of
	// ours is five bytes or longer: a shorter word is skipped without
	// looking further.
	escape := p > 0 && line[p-1] == '\\' && isEscapeLetter(c)
	if p+1 < len(line) && secretrules.PrefixPair(c, line[p+1]) && secretrules.PrefixCandidate(line, p) ||
		escape && secretrules.PrefixCandidate(line, p+1) {
		cand = markLine(cand, line, p)
	}
	if c == '-' {
		if m, ok := mysqlOptionPassword(line, p); ok {
			return append(dst, m), cand, m.End, true
		}
	}
	if wordRange[c][1] == 0 && !escape {
		// A first byte of gitleaks' prefixes only: no shape of ours to
		// read the word for; the filter skips the rest of it.
		return dst, cand, p + 1, false
	}
	j := p + 1
	for j < len(line) && wordByte[line[j]] {
		j++
		if j == p+5 {
			for j < len(line) && wordByte[line[j]] {
				j++
			}
			break
		}
	}
	if j-p >= 5 {
		if m, ok := wordSecret(line, p, j); ok {
			return append(dst, m), cand, m.End, true
		}
		// In JSON text a value often follows an escape: "...\nsk-ant-...".
		if escape {
			if m, ok := wordSecret(line, p+1, j); ok {
				return append(dst, m), cand, m.End, true
			}
		}
	}
	return dst, cand, j, false
}

// candLine is a line's bytes in a scanned text.
type candLine struct{ start, end int }

// markLine adds the line of text that holds i to cand, once.
func markLine(cand []candLine, text []byte, i int) []candLine {
	if n := len(cand); n > 0 && cand[n-1].start <= i && i < cand[n-1].end {
		return cand
	}
	start := bytes.LastIndexByte(text[:i], '\n') + 1
	end := len(text)
	if k := bytes.IndexByte(text[i:], '\n'); k >= 0 {
		end = i + k
	}
	return append(cand, candLine{start, end})
}

// addRuleFindings runs gitleaks' rules on the candidate lines and merges
// what they find into dst[base:] (in order, not overlapping): a finding
// that overlaps one of ours widens it, so that a redaction of the match
// leaves no part of either.
func addRuleFindings(dst []SecretMatch, base int, text []byte, cand []candLine) []SecretMatch {
	var extra []SecretMatch
	var fs []secretrules.Finding
	for _, l := range cand {
		fs = secretrules.FindLine(fs[:0], text[l.start:l.end])
		for _, f := range fs {
			extra = append(extra, SecretMatch{Kind: f.Kind(), Start: l.start + f.Start, End: l.start + f.End})
		}
	}
	if len(extra) == 0 {
		return dst
	}
	merged := mergeSpans(append(slices.Clone(dst[base:]), extra...))
	return append(dst[:base], merged...)
}

// mergeSpans sorts matches by start and joins the ones that overlap; the
// joined span keeps the kind of its first part.
func mergeSpans(ms []SecretMatch) []SecretMatch {
	slices.SortStableFunc(ms, func(a, b SecretMatch) int { return cmp.Compare(a.Start, b.Start) })
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			out[n-1].End = max(out[n-1].End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

// eachByte times a class is that class in every byte of a uint64.
const eachByte = 0x0101010101010101

// lowBytes are the low bytes of a uint64's four 16-bit halves.
const lowBytes = 0x00ff00ff00ff00ff

// Byte classes of the secret scan. The bits are placed so that the class of
// the previous byte shifted left by one masks clsFirst when that byte is a
// word byte and unmasks clsEscape when it is a backslash.
const (
	clsWord      = 1 << iota // [A-Za-z0-9_-]
	clsFirst                 // can start a vendor shape
	clsBackslash             // '\\'
	clsEscape                // a JSON escape letter: n t r b f
	clsSep                   // a separator (secretrules.IsSeparator): = : > , | ~ %
	// Eight bytes at a time, a shape's start is also checked against the
	// byte after it: a first byte of group k (in secretClass) must be
	// followed by a second byte of group k (in secondClass).
	clsGroup1
	clsGroup2
	clsGroup3

	clsGroups = clsGroup1 | clsGroup2 | clsGroup3
)

// ownFilterGroups split the first bytes of the shapes (ours and gitleaks'
// prefixes) in three groups for the eight-byte filter: a word start stops
// it when its second byte is the second byte of some shape whose first
// byte is in the same group. The split was chosen (a local search over
// the bigrams at word starts of the corpus of real logs and a generated
// session) to let through as few ordinary words as it can: four times
// fewer than one group for all but s, r and b. A first byte in none of
// them is in the second group.
var ownFilterGroups = [3]string{"-ABEHSW_begilmow", "4DPXdfhpsx", "CFGLNZacnrtv"}

// The scan's tables, built from vendorShapes: the classes of each byte and
// of each byte as a shape's second byte, the shapes by first byte, and the
// length of the word run each first byte's shapes need.
var (
	secretClass, secondClass [256]uint8
	bothClasses              [256]uint16 // secretClass | secondClass<<8
	// lightStop[c] is 0x80 for the bytes where the light path stops: the
	// separators, and the first bytes of what may run for fewer than
	// lightRun bytes without a blank (startRun).
	lightStop [256]uint8
	// lightPair[a|b<<8] has bit 0 when the light path stops at a, bit 1
	// when it stops at b: it reads two bytes with one lookup, and each
	// byte's neighbour in the pair narrows its test (a stops only when
	// a, b may start a short candidate; b only after a byte that is not
	// a word's, or a JSON escape's letter).
	lightPair     [1 << 16]uint8
	shapesByFirst [256][]*vendorShape
	wordRange     [256][2]int // [min, max] word run at a shape's start; max 0: no shape
	// startRun[a<<8|b] is the fewest bytes without a blank that a shape
	// of ours or a gitleaks prefix starting with a, b runs on for (at
	// most 64); 0 when none starts so.
	startRun [1 << 16]uint8
)

func init() {
	for c := range 256 {
		b := byte(c)
		if wordByte[b] {
			secretClass[c] |= clsWord
		}
		if isEscapeLetter(b) {
			secretClass[c] |= clsEscape
		}
	}
	secretClass['\\'] |= clsBackslash
	for c := range 256 {
		if secretrules.IsSeparator(byte(c)) {
			secretClass[c] |= clsSep
		}
	}
	group := func(first byte) uint8 {
		for g, bytes := range ownFilterGroups {
			if strings.IndexByte(bytes, first) >= 0 {
				return []uint8{clsGroup1, clsGroup2, clsGroup3}[g]
			}
		}
		return clsGroup2
	}
	for i := range vendorShapes {
		sh := &vendorShapes[i]
		lo, hi := sh.minWord, sh.maxWord
		if sh.match == nil {
			lo, hi = len(sh.prefix)+sh.minTail, 1<<30
		}
		for _, first := range sh.cases(0) {
			shapesByFirst[first] = append(shapesByFirst[first], sh)
			secretClass[first] |= clsFirst | group(first)
			for _, second := range sh.cases(1) {
				secondClass[second] |= group(first)
			}
			r := &wordRange[first]
			if r[1] == 0 {
				*r = [2]int{lo, hi}
			} else {
				*r = [2]int{min(r[0], lo), max(r[1], hi)}
			}
		}
	}
	addStart := func(a, b byte, run int) {
		k := int(a)<<8 | int(b)
		if old := int(startRun[k]); old == 0 || run < old {
			startRun[k] = uint8(min(run, 64))
		}
		if v := startRun[k]; v != 0 && v < lightRun {
			lightStop[a] = 0x80 // a may start a short candidate
		}
	}
	for i := range vendorShapes {
		sh := &vendorShapes[i]
		run := sh.minRun
		if sh.match == nil {
			run = len(sh.prefix) + sh.minTail // a run of word bytes
		}
		for _, a := range sh.cases(0) {
			for _, b := range sh.cases(1) {
				addStart(a, b, run)
			}
		}
	}
	// -pSECRET in a mysql command (mysqlOptionPassword): four bytes at least.
	addStart('-', 'p', 6)
	secretClass['-'] |= clsFirst | group('-')
	secondClass['p'] |= group('-')
	// The prefixes of gitleaks' rules stop the filter too (their length
	// is not bounded by wordRange: gitleaks' own rules decide).
	for _, p := range secretrules.PrefixStarts() {
		secretClass[p.First] |= clsFirst | group(p.First)
		secondClass[p.Second] |= group(p.First)
		addStart(p.First, p.Second, p.MinRun)
	}
	for c := range 256 {
		bothClasses[c] = uint16(secretClass[c]) | uint16(secondClass[c])<<8
		if secretClass[c]&clsSep != 0 {
			lightStop[c] = 0x80
		}
	}
	buildLightPair()
}

// buildLightPair fills lightPair from the classes and startRun. For a
// pair a, b: bit 0 when a is a separator, or what may start a short
// candidate with b after it (a startRun under lightRun); bit 1 when b is
// a separator, or what may start one (lightStop) at a word start or after
// a JSON escape's letter (see AppendSecrets).
//
// It is built by rows (one b, every a), not a pair at a time (2.0M
// instructions at every process's start): bit 1 and the separators' bit
// 0 depend on a's classes and on which of three kinds b is (a separator,
// another light stop, neither), so each row is a copy of one of three
// made first; the short candidates' bit 0 is then set from the rows of
// startRun of the few bytes a that start one. TestPairTables holds the
// table to the rule above, every pair.
func buildLightPair() {
	var rows [3][256]uint8 // b neither, a separator, another light stop
	for a := range 256 {
		var first uint8
		if secretClass[a]&clsSep != 0 {
			first = 1
		}
		rows[0][a], rows[1][a], rows[2][a] = first, first|2, first
		if !wordByte[a] || isEscapeLetter(byte(a)) {
			rows[2][a] |= 2
		}
	}
	for b := range 256 {
		kind := 0
		if secretClass[b]&clsSep != 0 {
			kind = 1
		} else if lightStop[b] != 0 {
			kind = 2
		}
		*(*[256]uint8)(lightPair[b<<8:]) = rows[kind]
	}
	for a := range 256 {
		if lightStop[a] == 0 {
			continue // no short candidate starts with a
		}
		for b, run := range startRun[a<<8 : a<<8+256] {
			if run != 0 && run < lightRun {
				lightPair[a|b<<8] |= 1
			}
		}
	}
}

// wordSecret tries the vendor shapes on the word run [i, j).
func wordSecret(line []byte, i, j int) (SecretMatch, bool) {
	if i >= j {
		return SecretMatch{}, false
	}
	if mayStartShape(line[i], j-i) {
		return prefixedSecret(line, i)
	}
	return SecretMatch{}, false
}

// mayStartShape reports whether a word run of n bytes starting with c can
// hold a vendor shape: checked inline for every word, so most words cost
// no call at all.
func mayStartShape(c byte, n int) bool {
	r := &wordRange[c]
	return n >= r[0] && n <= r[1]
}

// isEscapeLetter: the letters of the JSON escapes \n \t \r \b \f.
func isEscapeLetter(c byte) bool { return c == 'n' || c == 't' || c == 'r' || c == 'b' || c == 'f' }

var wordByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c))
	}
	return t
}()

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isWordByte: the bytes a vendor token is made of; a prefix counts only
// where the byte before it is not one of them.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func isB64URL(c byte) bool { return isAlnum(c) || c == '_' || c == '-' }

func isUpperAlnum(c byte) bool { return 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

// maxSecretScan bounds every look-ahead: no credential is longer.
const maxSecretScan = 4096

// run returns the end of the run of bytes satisfying ok from i, at most
// maxSecretScan long.
func run(line []byte, i int, ok func(byte) bool) int {
	limit := min(len(line), i+maxSecretScan)
	for i < limit && ok(line[i]) {
		i++
	}
	return i
}

func hasPrefixAt(line []byte, i int, prefix string) bool {
	return len(line)-i >= len(prefix) && string(line[i:i+len(prefix)]) == prefix
}

func hasFoldPrefixAt(line []byte, i int, prefix string) bool {
	return len(line)-i >= len(prefix) && bytes.EqualFold(line[i:i+len(prefix)], []byte(prefix))
}

// mixed reports whether b has both a letter and a digit: every real key
// does, and words, paths and type names mostly do not.
func mixed(b []byte) bool {
	var letter, digit bool
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

// placeholder reports values that stand for a secret rather than being one.
func placeholder(b []byte) bool {
	for _, w := range placeholderWords {
		if containsFold(b, w) {
			return true
		}
	}
	return false
}

var placeholderWords = []string{"example", "redacted", "xxxxx", "*****", "placeholder", "your_", "your-", "dummy", "changeme", "replace"}

func containsFold(b []byte, w string) bool {
	n := len(w)
	for i := 0; i+n <= len(b); i++ {
		if bytes.EqualFold(b[i:i+n], []byte(w)) {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of b in bits per byte.
func entropy(b []byte) float64 {
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, k := range counts {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// vendorShape is a credential recognised by its shape at a word start: a
// prefix and a tail of minTail to maxTail bytes (0: no limit) that has
// both letters and digits, or, for the shapes that are not a prefix and a
// tail, a matcher and the length of the word run it starts.
type vendorShape struct {
	prefix           string
	fold             bool // the prefix in any case
	tail             func(byte) bool
	minTail, maxTail int
	kind             string
	// wholeWord: the token must not run on into more letters or digits
	// (an AWS key id is exactly 20 characters).
	wholeWord bool

	match            func(line []byte, i int) (SecretMatch, bool)
	minWord, maxWord int // with match: the word run at a start
	// minRun, with match: the fewest bytes without a blank that a match
	// starting here runs on for (the line scan's filter needs it).
	minRun int
}

// vendorShapes are the credentials recognised by their form alone. Shapes
// with the same first byte are tried in this order: a longer prefix before
// a shorter one it starts with (sk-ant- before sk-).
var vendorShapes = []vendorShape{
	{prefix: "sk-ant-", tail: isWordByte, minTail: 20, kind: "anthropic_key"},
	{prefix: "sk_live_", tail: isAlnum, minTail: 16, kind: "stripe_key"},
	{prefix: "sk-", tail: isWordByte, minTail: 20, kind: "openai_key"},
	{prefix: "rk_live_", tail: isAlnum, minTail: 16, kind: "stripe_key"},
	{prefix: "ghp_", tail: isAlnum, minTail: 30, maxTail: 255, kind: "github_token"},
	{prefix: "gho_", tail: isAlnum, minTail: 30, maxTail: 255, kind: "github_token"},
	{prefix: "ghu_", tail: isAlnum, minTail: 30, maxTail: 255, kind: "github_token"},
	{prefix: "ghs_", tail: isAlnum, minTail: 30, maxTail: 255, kind: "github_token"},
	{prefix: "ghr_", tail: isAlnum, minTail: 30, maxTail: 255, kind: "github_token"},
	{prefix: "github_pat_", tail: func(c byte) bool { return isAlnum(c) || c == '_' }, minTail: 22, kind: "github_token"},
	{prefix: "glpat-", tail: isWordByte, minTail: 20, kind: "gitlab_token"},
	{prefix: "AKIA", tail: isUpperAlnum, minTail: 16, maxTail: 16, kind: "aws_access_key", wholeWord: true},
	{prefix: "ASIA", tail: isUpperAlnum, minTail: 16, maxTail: 16, kind: "aws_access_key", wholeWord: true},
	{prefix: "AIza", tail: isB64URL, minTail: 35, maxTail: 35, kind: "google_api_key"},
	{prefix: "xoxa-", tail: isWordByte, minTail: 10, kind: "slack_token"},
	{prefix: "xoxb-", tail: isWordByte, minTail: 10, kind: "slack_token"},
	{prefix: "xoxp-", tail: isWordByte, minTail: 10, kind: "slack_token"},
	{prefix: "xoxr-", tail: isWordByte, minTail: 10, kind: "slack_token"},
	{prefix: "xoxs-", tail: isWordByte, minTail: 10, kind: "slack_token"},
	{prefix: "xoxe-", tail: isWordByte, minTail: 10, kind: "slack_token"},
	{prefix: "npm_", tail: isAlnum, minTail: 36, maxTail: 36, kind: "npm_token"},
	// header.payload.signature, each part at least 10 bytes.
	{prefix: "eyJ", kind: "jwt", match: jwtAt, minWord: 10, maxWord: 1 << 30, minRun: 32},
	{prefix: "-----BEGIN ", kind: "private_key", match: privateKeyAt, minWord: 10, maxWord: 10, minRun: 10},
	// Bearer <token>; Basic <base64> is found at the separator after
	// Authorization (basicAfter), mysql's -pSECRET at the option
	// (mysqlOptionPassword).
	{prefix: "bearer ", fold: true, kind: "bearer_token", match: authorizationValue, minWord: 6, maxWord: 6, minRun: 6},
}

// mysqlOptionPassword matches the password of -pVALUE (or -p'VALUE') at
// i, an option after a blank in a mysql or mariadb command: mysql,
// mysqldump, mariadb-dump, ... is a word earlier in the same command (no
// line break, ; | & " or ` between).
func mysqlOptionPassword(line []byte, i int) (SecretMatch, bool) {
	if i == 0 || line[i-1] != ' ' || i+2 >= len(line) || line[i] != '-' || line[i+1] != 'p' {
		return SecretMatch{}, false
	}
	p := i + 2
	var m SecretMatch
	switch c := line[p]; {
	case c == '\'' || c == '"':
		end, ok := closingQuote(line, p+1, string(c))
		if !ok || end-p-1 < 4 || placeholder(line[p+1:end]) || line[p+1] == '$' {
			return SecretMatch{}, false
		}
		m = SecretMatch{Kind: "password", Start: p + 1, End: end}
	case c <= ' ' || c == '-' || c == '$' || c == '<' || c == '\\':
		return SecretMatch{}, false // -p alone asks for the password; a variable or a template is not one
	default:
		end := run(line, p, func(c byte) bool { return c > ' ' && c != '"' && c != '\'' && c != '`' && c != '\\' && c != ';' })
		if v := line[p:end]; len(v) < 4 || placeholder(v) {
			return SecretMatch{}, false
		}
		m = SecretMatch{Kind: "password", Start: p, End: end}
	}
	// The command: a word mysql... or mariadb... before, in the same command.
	for q := i - 1; q >= 0 && i-q < maxSecretScan; q-- {
		switch line[q] {
		case '\n', ';', '|', '&', '"', '`':
			return SecretMatch{}, false
		case 'm':
			if wordStartAt(line, q) && (hasPrefixAt(line, q, "mysql") || hasPrefixAt(line, q, "mariadb")) {
				if n := run(line, q, isWordByte) - q; n <= 14 {
					return m, true
				}
			}
		}
	}
	return SecretMatch{}, false
}

// wordStartAt: a word starts at line[q] (at the line's start, after a byte
// that is not a word byte, or right after a JSON escape such as \n).
func wordStartAt(line []byte, q int) bool {
	return q == 0 || !wordByte[line[q-1]] || q >= 2 && line[q-2] == '\\' && isEscapeLetter(line[q-1])
}

// basicAfter matches Basic <base64> after the separator at sep (an
// Authorization header's ':' or '='), past blanks, quotes and escapes'
// backslashes.
func basicAfter(line []byte, sep int) (SecretMatch, bool) {
	q := sep + 1
	for q < len(line) && (line[q] == ' ' || line[q] == '"' || line[q] == '\'' || line[q] == '\\') {
		q++
	}
	if !hasFoldPrefixAt(line, q, "basic ") {
		return SecretMatch{}, false
	}
	return authorizationValue(line, q)
}

// cases returns the bytes the shape's prefix may have at i: both cases
// when it folds.
func (sh *vendorShape) cases(i int) []byte {
	c := sh.prefix[i]
	if sh.fold && c|0x20 >= 'a' && c|0x20 <= 'z' {
		return []byte{c | 0x20, c &^ 0x20}
	}
	return []byte{c}
}

// prefixedSecret recognises a credential that starts at i by its shape.
func prefixedSecret(line []byte, i int) (SecretMatch, bool) {
	for _, sh := range shapesByFirst[line[i]] {
		if sh.fold && !hasFoldPrefixAt(line, i, sh.prefix) || !sh.fold && !hasPrefixAt(line, i, sh.prefix) {
			continue
		}
		if sh.match != nil {
			if m, ok := sh.match(line, i); ok {
				return m, true
			}
			continue
		}
		start := i + len(sh.prefix)
		end := run(line, start, sh.tail)
		tail := line[start:end]
		if len(tail) < sh.minTail || (sh.maxTail > 0 && len(tail) > sh.maxTail) || !mixed(tail) || placeholder(tail) ||
			sh.wholeWord && end < len(line) && isAlnum(line[end]) {
			continue
		}
		return SecretMatch{Kind: sh.kind, Start: i, End: end}, true
	}
	return SecretMatch{}, false
}

// jwtAt recognises header.payload.signature, the first two being base64url
// JSON objects ("eyJ" is `{"`).
func jwtAt(line []byte, i int) (SecretMatch, bool) {
	p := i
	for seg := 0; seg < 3; seg++ {
		if seg < 2 && !hasPrefixAt(line, p, "eyJ") {
			return SecretMatch{}, false
		}
		end := run(line, p, isB64URL)
		if end-p < 10 {
			return SecretMatch{}, false
		}
		p = end
		if seg < 2 {
			if p >= len(line) || line[p] != '.' {
				return SecretMatch{}, false
			}
			p++
		}
	}
	return SecretMatch{Kind: "jwt", Start: i, End: p}, true
}

// privateKeyAt recognises "-----BEGIN ... PRIVATE KEY-----" followed by a
// key: the match runs to the matching END line when it is on the same line
// (keys in JSON strings, with \n escapes), else over the base64 body that
// follows, else, when the header ends the line, to the end of the line (the
// body is on the lines below; Redact takes care of those).
func privateKeyAt(line []byte, i int) (SecretMatch, bool) {
	const begin, suffix = "-----BEGIN ", "PRIVATE KEY-----"
	if !hasPrefixAt(line, i, begin) {
		return SecretMatch{}, false
	}
	if nl := bytes.IndexByte(line[i:], '\n'); nl >= 0 {
		line = line[:i+nl] // several lines at once: this one only
	}
	p := i + len(begin)
	label := run(line, p, func(c byte) bool { return 'A' <= c && c <= 'Z' || c == ' ' })
	if label-p > 40 || !bytes.HasSuffix(line[p:label], []byte("PRIVATE KEY")) || !hasPrefixAt(line, label, "-----") {
		return SecretMatch{}, false
	}
	p = label + len("-----")
	window := line[p:min(len(line), p+4*maxSecretScan)]
	if j := bytes.Index(window, []byte("-----END ")); j >= 0 {
		if k := bytes.Index(window[j:], []byte(suffix)); k >= 0 {
			return SecretMatch{Kind: "private_key", Start: i, End: p + j + k + len(suffix)}, true
		}
	}
	body := pemBodyEnd(line, p)
	if body-p >= 16 || restIsBlank(line[body:]) {
		return SecretMatch{Kind: "private_key", Start: i, End: body}, true
	}
	return SecretMatch{}, false
}

// pemBodyEnd skips base64, blanks and \n escapes from p; it never passes a
// quote, so a key inside a JSON string is cut inside the string.
func pemBodyEnd(line []byte, p int) int {
	limit := min(len(line), p+4*maxSecretScan)
	for p < limit {
		c := line[p]
		switch {
		case isAlnum(c) || c == '+' || c == '/' || c == '=' || c == ' ' || c == '\t':
			p++
		case c == '\\' && p+1 < len(line) && (line[p+1] == 'n' || line[p+1] == 'r'):
			p += 2
		default:
			return trimRightBlank(line, p)
		}
	}
	return trimRightBlank(line, p)
}

func trimRightBlank(line []byte, p int) int {
	for p > 0 && (line[p-1] == ' ' || line[p-1] == '\t') {
		p--
	}
	return p
}

func restIsBlank(b []byte) bool {
	return len(bytes.Trim(b, " \t\r")) == 0
}

// authorizationValue recognises "Bearer <token>" and, after an
// Authorization header name, "Basic <base64>" (see basicAfter). Only the
// credential is matched.
func authorizationValue(line []byte, i int) (SecretMatch, bool) {
	var kind string
	var p int
	switch {
	case hasFoldPrefixAt(line, i, "bearer "):
		kind, p = "bearer_token", i+len("bearer ")
	case hasFoldPrefixAt(line, i, "basic ") && afterAuthorization(line, i):
		kind, p = "basic_auth", i+len("basic ")
	default:
		return SecretMatch{}, false
	}
	for p < len(line) && line[p] == ' ' {
		p++
	}
	end := run(line, p, func(c byte) bool {
		return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
	})
	tok := line[p:end]
	minLen := 16
	if kind == "basic_auth" {
		minLen = 8
	}
	if len(tok) < minLen || placeholder(tok) || (kind == "bearer_token" && !mixed(tok)) {
		return SecretMatch{}, false
	}
	return SecretMatch{Kind: kind, Start: p, End: end}, true
}

// afterAuthorization reports whether "Authorization" (any case, then ':' or
// '=' and quotes or blanks) comes right before i.
func afterAuthorization(line []byte, i int) bool {
	p := i
	for p > 0 && (line[p-1] == ' ' || line[p-1] == '"' || line[p-1] == '\'' || line[p-1] == '\\') {
		p--
	}
	if p == 0 || (line[p-1] != ':' && line[p-1] != '=') {
		return false
	}
	p--
	for p > 0 && (line[p-1] == ' ' || line[p-1] == '"' || line[p-1] == '\'' || line[p-1] == '\\') {
		p--
	}
	const name = "authorization"
	return p >= len(name) && bytes.EqualFold(line[p-len(name):p], []byte(name))
}

// urlPassword recognises scheme://user:password@host at the ':' of the
// scheme, and matches the password.
func urlPassword(line []byte, i int) (SecretMatch, bool) {
	if !hasPrefixAt(line, i, "://") || i == 0 || !isAlnum(line[i-1]) {
		return SecretMatch{}, false
	}
	p := i + 3
	limit := min(len(line), p+256)
	colon := -1
	for q := p; q < limit; q++ {
		switch c := line[q]; c {
		case ':':
			if colon < 0 {
				colon = q
			}
		case '@':
			if colon < 0 || q-colon < 2 {
				return SecretMatch{}, false
			}
			if bytes.Contains(line[p:q], []byte("[redacted:")) {
				return SecretMatch{}, false // already redacted: the marker's colon is not a password's
			}
			pw := line[colon+1 : q]
			if pw[0] == '$' || pw[0] == '<' || pw[0] == '{' || pw[0] == '%' || placeholder(pw) || allSame(pw) {
				return SecretMatch{}, false
			}
			return SecretMatch{Kind: "url_password", Start: colon + 1, End: q}, true
		case '/', '?', '#', ' ', '\t', '"', '\'', '\\', '<', '>', '`', '\r', '\n':
			return SecretMatch{}, false
		}
	}
	return SecretMatch{}, false
}

func allSame(b []byte) bool {
	for _, c := range b {
		if c != b[0] {
			return false
		}
	}
	return true
}

// assignedSecret recognises key=value or key: value (quotes allowed around
// either, JSON-escaped quotes too) where the key names a credential and the
// value looks like one. The value's own shape, when it has one (sk-...),
// gives the kind.
func assignedSecret(line []byte, sep int) (SecretMatch, bool) {
	kind := credentialKey(line, sep)
	if kind == "" {
		return SecretMatch{}, false
	}
	p := sep + 1
	for p < len(line) && (line[p] == ' ' || line[p] == '\t') {
		p++
	}
	quote := ""
	if p < len(line) && line[p] == '\\' && p+1 < len(line) && line[p+1] == '"' {
		p, quote = p+2, `\"`
	} else if p < len(line) && (line[p] == '"' || line[p] == '\'') {
		p, quote = p+1, string(line[p])
	}
	if p >= len(line) {
		return SecretMatch{}, false
	}
	if m, ok := prefixedSecret(line, p); ok && m.Start == p {
		return m, true
	}
	switch line[p] {
	case '$', '<', '{', '[', '%', '*', '(', '&':
		return SecretMatch{}, false // a variable, a template, a marker, an expression
	}
	// A quoted value is the whole of what the quotes hold: a password
	// such as Tr0ub4dor&3horse is redacted whole, not up to its '&'.
	if quote != "" {
		if end, ok := closingQuote(line, p, quote); ok {
			v := line[p:end]
			if kind == "password" && plausiblePassword(v) ||
				!bytes.ContainsAny(v, " \t") && len(v) >= 8 && mixed(v) && !placeholder(v) && entropy(v) >= 2.5 {
				return SecretMatch{Kind: kind, Start: p, End: end}, true
			}
			return SecretMatch{}, false
		}
	}
	end := run(line, p, isValueByte)
	for end < len(line) && end-p < maxSecretScan && line[end] == '=' {
		end++ // base64 padding
	}
	v := line[p:end]
	if kind == "password" && len(v) >= 7 && mixed(v) && !placeholder(v) {
		return SecretMatch{Kind: kind, Start: p, End: end}, true
	}
	if len(v) < 8 || !mixed(v) || placeholder(v) || entropy(v) < 2.5 {
		return SecretMatch{}, false
	}
	return SecretMatch{Kind: kind, Start: p, End: end}, true
}

// closingQuote finds the end of a value quoted with quote (" ' or \")
// that starts at p, on the same line and within maxSecretScan.
func closingQuote(line []byte, p int, quote string) (int, bool) {
	limit := min(len(line), p+maxSecretScan)
	for q := p; q < limit; q++ {
		switch c := line[q]; {
		case c == '\n':
			return 0, false
		case quote == `\"` && c == '\\' && q+1 < limit && line[q+1] == '"':
			return q, q > p
		case quote != `\"` && c == '\\':
			q++ // an escaped byte
		case quote != `\"` && c == quote[0]:
			return q, q > p
		}
	}
	return 0, false
}

// plausiblePassword: a quoted value given to a password key is a password
// whatever its shape (correct horse battery staple), unless it is empty,
// a placeholder, a template or a word that names a type or a state.
func plausiblePassword(v []byte) bool {
	if len(v) < 6 || placeholder(v) || allSame(v) || bytes.Contains(v, []byte("${")) || bytes.Contains(v, []byte("{{")) {
		return false
	}
	switch strings.ToLower(string(v)) {
	case "password", "string", "required", "optional", "undefined", "secret", "hidden", "invalid", "unknown", "missing":
		return false
	}
	return true
}

// isValueByte: what an assigned secret may contain. It stops at blanks,
// quotes, escapes, separators and brackets, and at '=' and ':' (so that a
// chain of assignments is read one at a time; '=' padding is added after).
func isValueByte(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	switch c {
	case '"', '\'', '\\', ',', ';', '&', '(', ')', '[', ']', '{', '}', '<', '>', '`', '=', ':':
		return false
	}
	return true
}

// credentialKey reads the key that ends just before the separator at sep
// and returns the kind of secret it names, or "".
func credentialKey(line []byte, sep int) string {
	p := sep
	for p > 0 && line[p-1] == ' ' && line[sep] == ':' {
		p--
	}
	if p > 0 && (line[p-1] == '"' || line[p-1] == '\'') {
		p--
		if p > 0 && line[p-1] == '\\' {
			p--
		}
	}
	end := p
	if end < 3 || !keyWordEnd(line[end-3], line[end-2], line[end-1]) {
		return "" // no credential word ends so: the common case (th:, file_path=)
	}
	for p > 0 && end-p < 64 && (isAlnum(line[p-1]) || line[p-1] == '_' || line[p-1] == '-' || line[p-1] == '.') {
		p--
	}
	if p == end || (p > 0 && line[p-1] != '\n' && end-p == 64) {
		return "" // too long for a key (a line's start, or a line break, bounds one)
	}
	if p > 0 && line[p-1] == '\\' && isEscapeLetter(line[p]) && end-p > 1 {
		p++ // "...\npassword=": the key follows a JSON escape
	}
	return keyKind(line[p:end])
}

// keyEnding reports whether a credential word can end with the bytes a, b
// (any case): passwo-rd, passw-d, p-wd, passphra-se, secr-et, tok-en,
// (api)k-ey, credenti-al, credentia-ls, au-th.
func keyEnding(a, b byte) bool {
	switch uint16(a|0x20)<<8 | uint16(b|0x20) {
	case 'r'<<8 | 'd', 'w'<<8 | 'd', 's'<<8 | 'e', 'e'<<8 | 't', 'e'<<8 | 'n', 'e'<<8 | 'y', 'a'<<8 | 'l', 'l'<<8 | 's', 't'<<8 | 'h':
		return true
	}
	return false
}

// keyWordEnd reports whether a credential word that keyKind names can end
// with the bytes a, b, c (any case): passwo-rd, pass-wd, pwd, passphr-ase,
// sec-ret, to-ken, (api)key, credent-ial, credenti-als, a-uth. Each is
// three bytes or more and is the key's last word, so its last three bytes
// are the key's: credentialKey asks this before it reads the key back
// (keyEnding, two bytes, is the separator's table's coarser test, which
// the line kind th: and file_path= pass for auth).
// TestKeyWordEnd holds it true for every word keyKind names.
func keyWordEnd(a, b, c byte) bool {
	switch uint32(a|0x20)<<16 | uint32(b|0x20)<<8 | uint32(c|0x20) {
	case 'o'<<16 | 'r'<<8 | 'd', 's'<<16 | 'w'<<8 | 'd', 'p'<<16 | 'w'<<8 | 'd', 'a'<<16 | 's'<<8 | 'e', 'r'<<16 | 'e'<<8 | 't',
		'k'<<16 | 'e'<<8 | 'n', 'k'<<16 | 'e'<<8 | 'y', 'i'<<16 | 'a'<<8 | 'l', 'a'<<16 | 'l'<<8 | 's', 'u'<<16 | 't'<<8 | 'h':
		return true
	}
	return false
}

// keyKind classifies a key by its last word (snake, kebab, dotted or camel
// case): password, passwd, pwd, passphrase; secret; token; key after api,
// access, secret, private, signing, encryption, master, client or auth;
// apikey; credential(s); and the bare key "auth". It runs for every '='
// and ':' of a log, so it looks at the last word only, and at the one
// before only for "key".
func keyKind(key []byte) string {
	last, rest := lastWord(key)
	switch {
	case lowerEq(last, "password"), lowerEq(last, "passwd"), lowerEq(last, "pwd"), lowerEq(last, "passphrase"),
		hasLowerSuffix(last, "password"), hasLowerSuffix(last, "passwd"): // PGPASSWORD, DBPASSWD
		return "password"
	case lowerEq(last, "secret"):
		return "secret"
	case lowerEq(last, "token"):
		return "token"
	case lowerEq(last, "apikey"):
		return "api_key"
	case lowerEq(last, "credential"), lowerEq(last, "credentials"):
		return "secret"
	case lowerEq(last, "auth"):
		if len(rest) == 0 {
			return "secret"
		}
	case lowerEq(last, "key"):
		prev, _ := lastWord(rest)
		switch {
		case lowerEq(prev, "api"):
			return "api_key"
		case lowerEq(prev, "access"), lowerEq(prev, "secret"), lowerEq(prev, "private"), lowerEq(prev, "signing"),
			lowerEq(prev, "encryption"), lowerEq(prev, "master"), lowerEq(prev, "client"), lowerEq(prev, "auth"):
			return "secret"
		}
	}
	return ""
}

// lastWord splits the last word off key: after the last '_', '-' or '.',
// or at the last lower-to-upper case change (apiKey).
func lastWord(key []byte) (last, rest []byte) {
	for len(key) > 0 && isKeySep(key[len(key)-1]) {
		key = key[:len(key)-1]
	}
	for i := len(key) - 1; i > 0; i-- {
		if isKeySep(key[i-1]) {
			return key[i:], key[:i-1]
		}
		if 'A' <= key[i] && key[i] <= 'Z' && 'a' <= key[i-1] && key[i-1] <= 'z' {
			return key[i:], key[:i]
		}
	}
	return key, nil
}

func isKeySep(c byte) bool { return c == '_' || c == '-' || c == '.' }

// hasLowerSuffix reports whether b ends with the lowercase ASCII word w in
// any case.
func hasLowerSuffix(b []byte, w string) bool {
	return len(b) >= len(w) && lowerEq(b[len(b)-len(w):], w)
}

// lowerEq reports whether b is the lowercase ASCII word w in any case.
func lowerEq(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range len(b) {
		if b[i]|0x20 != w[i] {
			return false
		}
	}
	return true
}

// Redact returns src with every secret replaced by [redacted:<kind>], and
// the values it replaced, one match per value, their spans in src (a
// private key's span runs over its lines). It works on any text (an rlog
// file, but also JSONL: no replacement spans a quote, so JSON stays
// valid), and keeps the line structure: the same number of lines, in the
// same order; a value over several lines is replaced line by line, each
// line's part after its indentation.
//
// What it replaces is the union of two scans, overlaps joined so that no
// part of a value is left: S001's line by line (AppendSecrets; a private
// key whose header ends its line has its body on the lines below, up to
// and including the END line), and gitleaks' rules on the whole text
// (secretrules.Find, thorough rather than fast: gitleaks reads the copy
// people share, and must find nothing in it), in it as it is and decoded
// as gitleaks decodes it (secretrules.FindDecoded: the encoded text that
// holds a secret is replaced whole). When nothing is found, src itself is
// returned.
//
// A text longer than redactPiece is redacted piece by piece (RedactTo),
// as gitleaks reads a large file in chunks.
func Redact(src []byte) ([]byte, []SecretMatch) {
	if len(src) <= redactPiece {
		out, values, _ := redactWhole(src)
		return out, values
	}
	var out bytes.Buffer
	out.Grow(len(src))
	values, _ := RedactTo(src, func(b []byte) error { out.Write(b); return nil })
	if len(values) == 0 {
		return src, nil
	}
	return out.Bytes(), values
}

// redactPiece and redactLookahead size RedactTo's pieces: each piece is
// scanned with what follows it up to redactLookahead past its end, so
// that a value that starts near its end is seen whole (gitleaks reads a
// file in chunks of 100 kB and peeks up to 25 kB further for a safe
// boundary; a match longer than that is not one it reports either).
const (
	redactPiece     = 1 << 20
	redactLookahead = 64 << 10
)

// RedactTo is Redact for a writer: it passes the redacted text to emit a
// piece at a time (each piece whole lines), so that the first bytes are
// out after the first megabyte is scanned, and returns the values, their
// spans in src. It stops at the first error emit returns.
//
// A piece ends at a line break about redactPiece bytes on, moved past any
// value that runs over it; values that start in the lookahead are left to
// the next piece, which starts where this one ends.
func RedactTo(src []byte, emit func([]byte) error) ([]SecretMatch, error) {
	return redactTo(src, redactPiece, redactLookahead, emit)
}

func redactTo(src []byte, piece, lookahead int, emit func([]byte) error) ([]SecretMatch, error) {
	var all []SecretMatch
	for start := 0; start < len(src); {
		cut := lineEndAfter(src, start+piece)
		look := lineEndAfter(src, cut+lookahead)
		out, values, pieces := redactWhole(src[start:look])
		for {
			// values are sorted and apart: one pass moves cut past each
			// that runs over it.
			for _, v := range values {
				if v.Start < cut-start && v.End > cut-start {
					cut = lineEndAfter(src, start+v.End)
				}
			}
			if cut < look || look == len(src) {
				break
			}
			// A value reaches the end of the lookahead: it may go on.
			look = lineEndAfter(src, look+lookahead)
			out, values, pieces = redactWhole(src[start:look])
		}
		// The output up to cut: cut's place in out is shifted by the
		// markers of the pieces before it (none runs over it).
		at := cut - start
		for _, p := range pieces {
			if p.End > cut-start {
				break
			}
			at += len(RedactionMarker(p.Kind)) - (p.End - p.Start)
		}
		if err := emit(out[:at]); err != nil {
			return all, err
		}
		for _, v := range values {
			if v.Start < cut-start {
				all = append(all, SecretMatch{Kind: v.Kind, Start: start + v.Start, End: start + v.End})
			}
		}
		start = cut
	}
	return all, nil
}

// lineEndAfter is the offset just past the first line break at or after
// i in src, or len(src).
func lineEndAfter(src []byte, i int) int {
	if i >= len(src) {
		return len(src)
	}
	if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
		return i + k + 1
	}
	return len(src)
}

// redactWhole is Redact on all of src at once; it also returns the pieces
// it replaced, sorted and not overlapping.
func redactWhole(src []byte) ([]byte, []SecretMatch, []SecretMatch) {
	values, pieces := redactionSpans(src)
	if len(values) == 0 {
		return src, nil, nil
	}
	values, pieces = mergeSpans(values), mergeSpans(pieces)
	out := replacePieces(src, pieces)
	// A replacement can make a value visible that was not before (the key
	// in x.password=..., too long with the secret before it, is short with
	// a marker there): scan the copy again, and redact in src what it
	// finds, until it finds nothing.
	for range 4 {
		more, morePieces := redactionSpans(out)
		if len(more) == 0 {
			break
		}
		replaced := slices.Clone(pieces) // what made out
		for _, m := range more {
			values = append(values, toSource(replaced, m))
		}
		for _, m := range morePieces {
			pieces = append(pieces, toSource(replaced, m))
		}
		values, pieces = mergeSpans(values), mergeSpans(pieces)
		out = replacePieces(src, pieces)
	}
	return out, values, pieces
}

// replacePieces writes src with each piece replaced by its marker.
func replacePieces(src []byte, pieces []SecretMatch) []byte {
	var out bytes.Buffer
	out.Grow(len(src))
	prev := 0
	for _, m := range pieces {
		out.Write(src[prev:m.Start])
		out.WriteString(RedactionMarker(m.Kind))
		prev = m.End
	}
	out.Write(src[prev:])
	return out.Bytes()
}

// toSource maps a span of replacePieces(src, pieces) back to src: an end
// inside a marker goes to the end of what the marker replaced.
func toSource(pieces []SecretMatch, m SecretMatch) SecretMatch {
	pos := func(q int, isEnd bool) int {
		shift := 0
		for _, p := range pieces {
			start := p.Start + shift // the marker's start in the copy
			end := start + len(RedactionMarker(p.Kind))
			switch {
			case q < start || isEnd && q == start:
				return q - shift
			case q < end || isEnd && q == end:
				if isEnd {
					return p.End
				}
				return p.Start
			}
			shift = end - p.End
		}
		return q - shift
	}
	return SecretMatch{Kind: m.Kind, Start: pos(m.Start, false), End: pos(m.End, true)}
}

// redactionSpans finds what Redact replaces in src: the values, and the
// pieces of them each line holds (see Redact).
func redactionSpans(src []byte) (values, pieces []SecretMatch) {
	var lineMatches []SecretMatch
	inKey := false
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		line := src[start:end]
		if inKey {
			if m, more, ok := pemBodyLine(line); ok {
				m = SecretMatch{Kind: m.Kind, Start: start + m.Start, End: start + m.End}
				pieces = append(pieces, m)
				values[len(values)-1].End = m.End // the key goes on
				inKey = more
				start = end + 1
				continue
			}
			inKey = false
		}
		lineMatches = AppendSecrets(lineMatches[:0], line)
		for _, m := range lineMatches {
			// A match may hold a quote: a rule's finding that widened one
			// of ours (-----BEGIN … PRIVATE KEY----- with a '"' inside);
			// its pieces stop at it, as a whole-text finding's do.
			m = SecretMatch{Kind: m.Kind, Start: start + m.Start, End: start + m.End}
			pieces, values = appendLinePieces(pieces, src, m.Kind, m.Start, m.End), append(values, m)
		}
		if n := len(lineMatches); n > 0 {
			last := lineMatches[n-1]
			inKey = last.Kind == "private_key" && restIsBlank(line[last.End:]) &&
				!bytes.Contains(line[last.Start:last.End], []byte("-----END "))
		}
		start = end + 1
	}
	for _, f := range append(secretrules.Find(src), secretrules.FindDecoded(src)...) {
		values = append(values, SecretMatch{Kind: f.Kind(), Start: f.Start, End: f.End})
		pieces = appendLinePieces(pieces, src, f.Kind(), f.Start, f.End)
	}
	return values, pieces
}

// appendLinePieces appends the parts of src[start:end] on each of its
// lines: a line's part starts after its indentation, and leaves out the
// CR before the line break. Quotes are kept too (the pieces stop at
// them), so that a redacted JSON string is still one.
func appendLinePieces(pieces []SecretMatch, src []byte, kind string, start, end int) []SecretMatch {
	for start < end {
		stop := end
		if k := bytes.IndexAny(src[start:end], "\n\""); k >= 0 {
			stop = start + k
		}
		s, e := start, stop
		for s < e && (src[s] == ' ' || src[s] == '\t') && (s == 0 || src[s-1] == '\n' || src[s-1] == ' ' || src[s-1] == '\t') {
			s++
		}
		for e > s && src[e-1] == '\r' {
			e--
		}
		if e > s {
			pieces = append(pieces, SecretMatch{Kind: kind, Start: s, End: e})
		}
		start = stop + 1
	}
	return pieces
}

// pemBodyLine matches one line of a private key's body (base64, or a PEM
// header such as Proc-Type:) after its indentation, and reports whether the
// key goes on (the END line not reached). A line that is not part of a key
// body ends the key without a match.
func pemBodyLine(line []byte) (m SecretMatch, more, ok bool) {
	content := bytes.TrimRight(line, "\r")
	p := 0
	for p < len(content) && (content[p] == ' ' || content[p] == '\t') {
		p++
	}
	body := content[p:]
	if len(body) == 0 {
		return SecretMatch{}, false, false
	}
	if bytes.HasPrefix(body, []byte("-----END ")) {
		if k := bytes.Index(body, []byte("PRIVATE KEY-----")); k >= 0 {
			return SecretMatch{Kind: "private_key", Start: p, End: p + k + len("PRIVATE KEY-----")}, false, true
		}
		return SecretMatch{}, false, false
	}
	if bytes.HasPrefix(body, []byte("Proc-Type:")) || bytes.HasPrefix(body, []byte("DEK-Info:")) {
		return SecretMatch{Kind: "private_key", Start: p, End: len(content)}, true, true
	}
	for _, c := range body {
		if !(isAlnum(c) || c == '+' || c == '/' || c == '=') {
			return SecretMatch{}, false, false
		}
	}
	return SecretMatch{Kind: "private_key", Start: p, End: len(content)}, true, true
}

// RedactionSummary says what a redaction replaced, most frequent kind
// first (then by name): "3 values redacted (2 openai_key, 1 password)".
func RedactionSummary(matches []SecretMatch) string {
	counts := map[string]int{}
	for _, m := range matches {
		counts[m.Kind]++
	}
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	// The most frequent kinds only: a file can hold hundreds of kinds,
	// and the summary is one line.
	const shown = 8
	parts := make([]string, 0, min(len(kinds), shown)+1)
	rest := 0
	for i, k := range kinds {
		if i < shown {
			parts = append(parts, strconv.Itoa(counts[k])+" "+k)
		} else {
			rest += counts[k]
		}
	}
	if rest > 0 {
		parts = append(parts, strconv.Itoa(rest)+" of "+plural(len(kinds)-shown, "other kind"))
	}
	return plural(len(matches), "value") + " redacted (" + strings.Join(parts, ", ") + ")"
}

// RedactedName is the name of the redacted copy of a file: ".redacted"
// before the extension (s.rlog gives s.redacted.rlog).
func RedactedName(name string) string {
	ext := path.Ext(name)
	if ext == name || ext == "" {
		return name + ".redacted"
	}
	return strings.TrimSuffix(name, ext) + ".redacted" + ext
}
