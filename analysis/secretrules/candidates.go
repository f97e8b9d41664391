package secretrules

import (
	"regexp/syntax"
	"strings"
	"sync"
)

// A line scan (analysis.AppendSecrets, which every line of an open log
// goes through) cannot run 200 expressions on every line. It asks, at the
// few places its eight-byte filter stops, whether a rule could match
// there, and runs FindLine only on the lines where one could. The
// conditions below are necessary: a rule that matches on a line matches
// where one of them holds, so the lines FindLine is run on hold every
// finding of gitleaks that lies within one line, starts at a word
// boundary and is not encoded (see analysis's docs for the exceptions).
//
//   - Assignment rules (key, separator, value: generic-api-key and the
//     ~120 vendor rules built like it) need a separator (= : > , and the
//     | of ||) followed, after at most a few quotes and blanks, by a value
//     at least as long as the shortest value of any of them, and one of
//     their keywords in the key before it or in that value.
//   - The other rules start with a literal (ghp_, xoxb-, AKIA, -----BEGIN
//     ...), in any case where the rule folds case: it must be at a word
//     start (gitleaks' \b, or a rule without one seen at a word start).
//   - Three do not: azure-ad-client-secret (a digit, then Q~), and
//     facebook-access-token (15 or 16 digits, then | or %), checked at
//     their separator; maxmind-license-key is only found when an
//     assignment on its line makes it a candidate.

var candidatesOnce sync.Once

// cands is what the triggers need, built from the table on first use.
var cands struct {
	// assignment keywords, and the shortest value and the bytes a value
	// of an assignment rule may hold.
	assignKeywords *matcher
	maxKeyword     int
	minValue       int
	valueByte      [256]bool
	// prefixes of the other rules, lower case, by their first two bytes
	// (folded).
	prefixes map[[2]byte][]prefix
}

type prefix struct {
	text string
	fold bool
}

// assignmentSkeleton is how gitleaks' generator writes a key, a separator
// and a value; a rule whose expression holds it is an assignment rule.
const assignmentSkeleton = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

func buildCandidates() {
	candidatesOnce.Do(func() {
		cands.minValue = 1 << 30
		cands.prefixes = map[[2]byte][]prefix{}
		var kws []string
		for _, r := range gitleaksRules {
			if !appliesEverywhere(r) {
				continue
			}
			re, err := syntax.Parse(r.Regex, syntax.Perl)
			if err != nil {
				panic(r.ID + ": " + err.Error())
			}
			if strings.Contains(r.Regex, assignmentSkeleton) {
				kws = append(kws, r.Keywords...)
				g := r.SecretGroup
				if g == 0 {
					g = 1
				}
				if v := group(re, g); v != nil {
					cands.minValue = min(cands.minValue, minLen(v))
					addBytes(&cands.valueByte, v)
				}
				continue
			}
			switch r.ID {
			case "azure-ad-client-secret", "facebook-access-token", "maxmind-license-key":
				continue // see above
			case "sourcegraph-access-token":
				// 40 hex digits, anywhere, on a line that names it.
				addPrefix("sgp_", true)
				addPrefix("sourcegraph", true)
				continue
			case "hashicorp-tf-api-token":
				// 14 letters or digits, then .atlasv1. (a word start).
				addPrefix("atlasv1", false)
				continue
			case "slack-webhook-url":
				// (https://)?hooks.slack.com/...: hooks is a word start either way.
				addPrefix("hooks", false)
				continue
			case "microsoft-teams-webhook":
				// https://...: the part after the host's first dot is rarer.
				addPrefix("webhook", true)
				continue
			case "sidekiq-sensitive-url":
				// https://user:pass@gems.contribsys.com: at the host.
				addPrefix("gems", true)
				addPrefix("enterprise", true)
				continue
			}
			ps, ok := literalPrefixes(re.Simplify())
			if !ok {
				panic(r.ID + ": no literal prefix: give it a trigger of its own")
			}
			for _, p := range ps {
				addPrefix(p.text, p.fold)
			}
		}
		cands.assignKeywords = newMatcher(kws)
		for _, k := range kws {
			cands.maxKeyword = max(cands.maxKeyword, len(k))
		}
	})
}

// appliesEverywhere: the rules a line scan runs (not those of a file name).
func appliesEverywhere(r Rule) bool { return r.Regex != "" && r.Path == "" }

func addPrefix(text string, fold bool) {
	if c := text[0]; !(c == '_' || c == '-' || 'a' <= lower(c) && lower(c) <= 'z' || '0' <= c && c <= '9') {
		panic("prefix " + text + " does not start a word: the line scan would not stop at it")
	}
	if fold {
		text = strings.ToLower(text)
	}
	k := [2]byte{lower(text[0]), lower(text[1])}
	for _, p := range cands.prefixes[k] {
		if p.text == text && p.fold == fold {
			return
		}
	}
	cands.prefixes[k] = append(cands.prefixes[k], prefix{text, fold})
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// PrefixPairs returns the first two bytes of every rule prefix, in each
// case a text may have them in: the pairs a word start must begin with to
// be a candidate (the line scan builds its byte filter from them).
func PrefixPairs() [][2]byte {
	buildCandidates()
	var out [][2]byte
	for _, ps := range cands.prefixes {
		for _, p := range ps {
			for _, a := range cases(p.text[0], p.fold) {
				for _, b := range cases(p.text[1], p.fold) {
					out = append(out, [2]byte{a, b})
				}
			}
		}
	}
	return out
}

func cases(c byte, fold bool) []byte {
	if fold && 'a' <= c && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// PrefixCandidate reports whether a rule's literal prefix starts at text[i]
// (a word start).
func PrefixCandidate(text []byte, i int) bool {
	buildCandidates()
	if i+1 >= len(text) {
		return false
	}
	for _, p := range cands.prefixes[[2]byte{lower(text[i]), lower(text[i+1])}] {
		if len(text)-i < len(p.text) {
			continue
		}
		w := text[i : i+len(p.text)]
		if p.fold && strings.EqualFold(string(w), p.text) || !p.fold && string(w) == p.text {
			return true
		}
	}
	return false
}

// SeparatorCandidate reports whether a rule could match with its separator
// at text[i], one of = : > , | ~ % (the bytes of IsSeparator).
func SeparatorCandidate(text []byte, i int) bool {
	buildCandidates()
	switch text[i] {
	case '~': // azure-ad-client-secret: ...\dQ~...
		return i >= 2 && text[i-1] == 'Q' && '0' <= text[i-2] && text[i-2] <= '9'
	case '%':
		return facebookAt(text, i)
	case '|':
		if facebookAt(text, i) {
			return true
		}
	}
	// The value: after at most a few quotes, blanks and separator bytes.
	p := i + 1
	for k := 0; k < 8 && p < len(text); k++ {
		switch text[p] {
		case '`', '\'', '"', ' ', '\t', '\r', '\f', '\v', '=', ':', '>', '|', '?':
			p++
			continue
		}
		break
	}
	v := p
	for v < len(text) && cands.valueByte[text[v]] && v-p < cands.maxKeyword+cands.minValue {
		v++
	}
	if v-p < cands.minValue {
		return false
	}
	// A keyword in the key before the separator or in the value.
	from := max(0, i-26-cands.maxKeyword)
	for k := i - 1; k >= from; k-- {
		if text[k] == '\n' {
			from = k + 1
			break
		}
	}
	return cands.assignKeywords.any(string(text[from:i])) || cands.assignKeywords.any(string(text[p:v]))
}

// IsSeparator reports the bytes SeparatorCandidate looks at.
func IsSeparator(c byte) bool {
	switch c {
	case '=', ':', '>', ',', '|', '~', '%':
		return true
	}
	return false
}

// facebookAt: 15 or 16 digits before the | or % at i.
func facebookAt(text []byte, i int) bool {
	n := 0
	for k := i - 1; k >= 0 && '0' <= text[k] && text[k] <= '9' && n < 16; k-- {
		n++
	}
	return n >= 15
}

// FindLine returns the findings of every rule in one line (a text of its
// own, without its line break), gitleaks' keyword prefilter run on the line.
func FindLine(dst []Finding, line []byte) []Finding {
	c := load()
	var found []bool
	raw := string(line)
	found = c.keywords.present(line, found)
	for i := range c.rules {
		r := &c.rules[i]
		if r.re == nil || r.path != nil || !c.keywordPresent(r, found) {
			continue
		}
		dst = c.appendMatches(dst, r, raw, 0, len(raw), nil)
	}
	return dst
}

// group finds capture group n of re.
func group(re *syntax.Regexp, n int) *syntax.Regexp {
	if re.Op == syntax.OpCapture && re.Cap == n {
		return re
	}
	for _, s := range re.Sub {
		if g := group(s, n); g != nil {
			return g
		}
	}
	return nil
}

// minLen is the fewest bytes re matches (ASCII).
func minLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture:
		return minLen(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			n += minLen(s)
		}
		return n
	case syntax.OpAlternate:
		n := 1 << 30
		for _, s := range re.Sub {
			n = min(n, minLen(s))
		}
		return n
	case syntax.OpPlus:
		return minLen(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLen(re.Sub[0])
	}
	return 0
}

// addBytes marks every byte re can match.
func addBytes(set *[256]bool, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if c < 256 {
				set[c] = true
				if re.Flags&syntax.FoldCase != 0 && c < 128 {
					set[lower(byte(c))] = true
					set[strings.ToUpper(string(rune(c)))[0]] = true
				}
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1] && c < 256; c++ {
				set[c] = true
			}
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		for c := range 256 {
			set[c] = c != '\n'
		}
	}
	for _, s := range re.Sub {
		addBytes(set, s)
	}
}

// literalPrefixes returns the literal texts (at least two bytes) one of
// which every match of re starts with.
func literalPrefixes(re *syntax.Regexp) ([]prefix, bool) {
	ps, _ := literals(re)
	if len(ps) == 0 {
		return nil, false
	}
	for _, p := range ps {
		if len(p.text) < 2 {
			return nil, false
		}
	}
	return ps, true
}

// literals returns the texts every match of re starts with (nil when it
// cannot tell), and whether they are the whole match.
func literals(re *syntax.Regexp) (ps []prefix, whole bool) {
	switch re.Op {
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpLiteral:
		return []prefix{{string(re.Rune), re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCharClass:
		if classSize(re) > 4 {
			return nil, false
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				ps = append(ps, prefix{string(c), false})
			}
		}
		return ps, true
	case syntax.OpAlternate:
		whole = true
		for _, s := range re.Sub {
			sub, w := literals(s)
			if sub == nil {
				return nil, false
			}
			ps, whole = append(ps, sub...), whole && w
		}
		return ps, whole
	case syntax.OpConcat:
		subs := re.Sub
		for len(subs) > 0 && (subs[0].Op == syntax.OpWordBoundary || subs[0].Op == syntax.OpBeginText ||
			subs[0].Op == syntax.OpBeginLine || subs[0].Op == syntax.OpEmptyMatch) {
			subs = subs[1:]
		}
		if len(subs) == 0 {
			return nil, false
		}
		if q := subs[0]; q.Op == syntax.OpQuest {
			// (?:https?://)?hooks...: with the optional part and without.
			with, w1 := literals(&syntax.Regexp{Op: syntax.OpConcat, Sub: append([]*syntax.Regexp{q.Sub[0]}, subs[1:]...)})
			without, w2 := literals(&syntax.Regexp{Op: syntax.OpConcat, Sub: subs[1:]})
			if with == nil || without == nil {
				return nil, false
			}
			return append(with, without...), w1 && w2
		}
		acc := []prefix{{"", false}}
		for k, s := range subs {
			sub, w := literals(s)
			if sub == nil || len(acc)*len(sub) > 64 {
				return acc, false
			}
			var next []prefix
			for _, a := range acc {
				for _, p := range sub {
					next = append(next, prefix{a.text + p.text, a.fold || p.fold})
				}
			}
			acc = next
			if !w {
				return acc, false
			}
			if k == len(subs)-1 {
				return acc, true
			}
		}
		return acc, false
	}
	return nil, false
}

func classSize(re *syntax.Regexp) int {
	n := 0
	for i := 0; i+1 < len(re.Rune); i += 2 {
		n += int(re.Rune[i+1]-re.Rune[i]) + 1
	}
	return n
}
