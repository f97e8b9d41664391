package secretrules

import (
	"bytes"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Finding is what a gitleaks rule reports in a text.
type Finding struct {
	RuleID string
	// Start and End are the secret's bytes in the text: what a redaction
	// replaces. MatchStart and MatchEnd are the whole match's (its line is
	// the line gitleaks reports).
	Start, End           int
	MatchStart, MatchEnd int
}

// Kind is the finding's redaction kind (see Kind).
func (f Finding) Kind() string { return Kind(f.RuleID) }

// Find returns what gitleaks' default rules report in text, ordered by the
// secret's start. See the package comment for where it goes beyond
// gitleaks; it does not decode (see Decoded).
func Find(text []byte) []Finding {
	c := load()
	raw := string(text)
	found := c.keywords.present([]byte(strings.ToLower(raw)), nil)
	lines := newlines(raw)
	var out []Finding
	var windows []window
	for i := range c.rules {
		r := &c.rules[i]
		if r.re == nil || !c.keywordPresent(r, found) {
			continue
		}
		if !r.assignment {
			out = c.appendMatches(out, r, raw, 0, len(raw), lines)
			continue
		}
		// An assignment rule's expression is slow (generic-api-key reads
		// 3 MB a second): it runs around the separators where one of the
		// assignment rules can match (the line scan's condition, line
		// breaks allowed in the blanks), which hold all of its matches.
		if windows == nil {
			windows = assignmentWindows(text)
		}
		ruleWindows := windows
		if !appliesEverywhere(*r.Rule) {
			// A rule limited to some files' paths (hashicorp-tf-password,
			// whose quoted value may be eight bytes) is not one the
			// candidates describe: it runs around the separators that one
			// of its own keywords comes close enough before.
			ruleWindows = keywordWindows(text, r.Keywords)
		}
		if r.ID == "atlassian-api-token" {
			// Its expression is also a prefix rule, \b(ATATT3...) in any
			// case: it runs where that prefix is too.
			ruleWindows = append(prefixWindows(text, "atatt3", 6+186+2), ruleWindows...)
		}
		seen := map[[2]int]bool{}
		for _, w := range ruleWindows {
			for _, mi := range r.re().FindAllStringIndex(raw[w.start:w.end], -1) {
				at := [2]int{w.start + mi[0], w.start + mi[1]}
				if seen[at] {
					continue
				}
				seen[at] = true
				if f, ok := c.check(r, raw, at[0], at[1], lines); ok {
					out = append(out, f)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

type window struct{ start, end int }

// assignmentWindows returns, in order and merged, the stretches of text
// around each separator where an assignment rule may match: from as far
// before it as a key reaches ([\w.-]{0,50}? keyword [ \t\w.-]{0,20}
// [\s'"]{0,3}) to past the value, which ends at the first byte that
// cannot be in one.
func assignmentWindows(text []byte) []window {
	return separatorWindows(text, cands.maxKeyword, func(i int) bool { return separatorCandidate(text, i, true) })
}

// keywordWindows are the windows of an assignment rule with keywords kws
// around every separator that one of them ends at most 26 bytes before
// (the key's [ \t\w.-]{0,20} and [\s'"]{0,3}, and a separator's other
// bytes), in any case, as the rule's (?i) reads them. (?i) also folds
// ſ and K, two and three bytes long, to s and k: a separator with one of
// them within three times a keyword's length before it is taken too.
func keywordWindows(text []byte, kws []string) []window {
	longest := 0
	for _, k := range kws {
		longest = max(longest, len(k))
	}
	return separatorWindows(text, 3*longest, func(i int) bool {
		if foldsToKeyword(text[max(0, i-26-3*longest):i]) {
			return true
		}
		for _, k := range kws {
			for j := max(0, i-26-len(k)); j+len(k) <= i; j++ {
				if bytes.EqualFold(text[j:j+len(k)], []byte(k)) {
					return true
				}
			}
		}
		return false
	})
}

// separatorWindows returns the windows around the separators candidate
// accepts, for keys whose keyword is at most keyword bytes long.
func separatorWindows(text []byte, keyword int, candidate func(i int) bool) []window {
	var out []window
	for i, c := range text {
		if c != '=' && c != ':' && c != '>' && c != ',' && c != '|' {
			continue
		}
		if !candidate(i) {
			continue
		}
		start := max(0, i-(50+keyword+20+3+3))
		end := i + 1
		for n := 0; end < len(text) && n < 16 && isSkip(text[end]); n++ {
			end++
		}
		for end < len(text) && end-i < 4096 && text[end] > ' ' && text[end] != '"' && text[end] != '\'' && text[end] != '`' {
			end++
		}
		end = min(len(text), end+2)
		if n := len(out); n > 0 && start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, end)
			continue
		}
		out = append(out, window{start, end})
	}
	return out
}

// prefixWindows are the stretches from the byte before each place where
// the lower-case word w starts, in any case, to n bytes after it.
func prefixWindows(text []byte, w string, n int) []window {
	var out []window
	for i := 0; i+len(w) <= len(text); i++ {
		if hasFoldPrefix(text[i:], w) {
			out = append(out, window{max(0, i-1), min(len(text), i+n)})
		}
	}
	return out
}

func isSkip(c byte) bool {
	switch c {
	case '`', '\'', '"', ' ', '\t', '\r', '\n', '\f', '\v', '=', ':', '>', '|', '?', ',':
		return true
	}
	return false
}

func (c *compiled) keywordPresent(r *rule, found []bool) bool {
	if len(r.keywords) == 0 {
		return true
	}
	for _, k := range r.keywords {
		if found[k] {
			return true
		}
	}
	return false
}

// appendMatches appends the findings of rule r in raw[from:to] (a whole
// text, or a window of it; lines has raw's line breaks).
func (c *compiled) appendMatches(out []Finding, r *rule, raw string, from, to int, lines []int) []Finding {
	return c.appendMatchesOf(out, r, r.re(), raw, from, to, lines)
}

func (c *compiled) appendMatchesOf(out []Finding, r *rule, re *regexp.Regexp, raw string, from, to int, lines []int) []Finding {
	for _, mi := range re.FindAllStringIndex(raw[from:to], -1) {
		if f, ok := c.check(r, raw, from+mi[0], from+mi[1], lines); ok {
			out = append(out, f)
		}
	}
	return out
}

// check applies what gitleaks applies to a match at raw[start:end]: the
// secret group, the entropy, gitleaks:allow and the allowlists.
func (c *compiled) check(r *rule, raw string, start, end int, lines []int) (Finding, bool) {
	full := raw[start:end]
	match := strings.Trim(full, "\n")
	lead := len(full) - len(strings.TrimLeft(full, "\n"))
	f := Finding{RuleID: r.ID, MatchStart: start + lead, MatchEnd: start + lead + len(match)}
	f.Start, f.End = f.MatchStart, f.MatchEnd
	secret := match
	if idx := r.re().FindStringSubmatchIndex(match); len(idx) >= 4 {
		groups := len(idx)/2 - 1
		if r.SecretGroup > 0 {
			if groups < r.SecretGroup {
				return Finding{}, false
			}
			g := r.SecretGroup
			secret = ""
			if idx[2*g] >= 0 {
				secret = match[idx[2*g]:idx[2*g+1]]
				f.Start, f.End = f.MatchStart+idx[2*g], f.MatchStart+idx[2*g+1]
			}
		} else {
			for g := 1; g <= groups; g++ {
				if idx[2*g] >= 0 && idx[2*g+1] > idx[2*g] {
					secret = match[idx[2*g]:idx[2*g+1]]
					f.Start, f.End = f.MatchStart+idx[2*g], f.MatchStart+idx[2*g+1]
					break
				}
			}
		}
	}
	if r.Entropy != 0 && shannonEntropy(secret) <= r.Entropy {
		return Finding{}, false
	}
	// Gitleaks' line: from the line break before the match's first byte
	// (a match that starts at a line break starts on the next line) to
	// the line break after its last line.
	lineStart, lineEnd := lineSpan(raw, lines, start, start+len(match))
	line := raw[lineStart:lineEnd]
	if strings.Contains(line, "gitleaks:allow") {
		return Finding{}, false
	}
	if allowed(c.global(), secret, match, line) || allowed(r.allow(), secret, match, line) {
		return Finding{}, false
	}
	if f.Start == f.End { // an empty secret: the match is what is there
		f.Start, f.End = f.MatchStart, f.MatchEnd
	}
	return f, true
}

// allowed is gitleaks' checkFindingAllowed for a file whose path is not
// known: an allowlist's paths never match.
func allowed(lists []allowlist, secret, match, line string) bool {
	for _, a := range lists {
		target := secret
		switch a.target {
		case "match":
			target = match
		case "line":
			target = line
		}
		regexOK := a.regexes != nil && target != "" && a.regexes.MatchString(target)
		stopOK := a.stopwords != nil && secret != "" && a.stopwords.any(strings.ToLower(secret))
		if a.all {
			ok := true
			if a.paths != nil {
				ok = false
			}
			if a.regexes != nil {
				ok = ok && regexOK
			}
			if a.stopwords != nil {
				ok = ok && stopOK
			}
			if ok {
				return true
			}
			continue
		}
		if regexOK || stopOK {
			return true
		}
	}
	return false
}

// newlines returns the offsets of raw's line breaks.
func newlines(raw string) []int {
	var out []int
	for i := 0; ; {
		j := strings.IndexByte(raw[i:], '\n')
		if j < 0 {
			return out
		}
		out = append(out, i+j)
		i += j + 1
	}
}

// lineSpan is gitleaks' location: the line of the match's start runs from
// the line break before it (that break included: a match that starts at a
// break starts on the next line), the match's last line to the line break
// after it (or, on the last line, to a CR or the end). Gitleaks counts the
// end from the untrimmed start, and takes the whole text before the last
// line break as the line of a match after it; that only hides findings,
// so it is not copied.
func lineSpan(raw string, lines []int, start, end int) (int, int) {
	k := sort.SearchInts(lines, start+1) // line breaks at or before start
	lineStart := 0
	if k > 0 {
		lineStart = lines[k-1]
	}
	e := sort.SearchInts(lines, end) // first line break at or after end
	if e < len(lines) {
		return lineStart, lines[e]
	}
	i := end
	for i < len(raw) && raw[i] != '\n' && raw[i] != '\r' {
		i++
	}
	return lineStart, i
}

// shannonEntropy is gitleaks' entropy: counts of runes over the length in
// bytes.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	inv := 1.0 / float64(len(s))
	h := 0.0
	for _, n := range counts {
		p := float64(n) * inv
		h -= p * math.Log2(p)
	}
	return h
}

// LineOf returns the 1-based line gitleaks reports for a match starting at
// start in text: a match that starts at a line break is on the next line.
func LineOf(text []byte, start int) int {
	n := 1
	for _, c := range text[:min(start, len(text))] {
		if c == '\n' {
			n++
		}
	}
	if start < len(text) && text[start] == '\n' {
		n++
	}
	return n
}
