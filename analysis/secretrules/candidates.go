package secretrules

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
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

// The candidates' tables are made when the package is loaded, so that the
// line scan's checks, which run at every word start and separator it
// stops at, are plain lookups. What they are made from is what the rules'
// expressions say (their keywords, prefixes and values' lengths), and
// reading it out of them (readCandidateRules: about 200 expressions
// parsed) cost every process 34M instructions before it read a byte. It
// depends only on the rules, so it is generated with them:
// candidates_table.go holds it as literals, written by TestCandidateTables
// (go generate runs it after gen), which fails when the file is not what
// the expressions give. What is made at load from it (indexCandidates) is
// lookups only.
func init() { indexCandidates(&generatedCandidates) }

// cands is what the triggers need, made from generatedCandidates.
var cands struct {
	// assignment keywords, and the shortest value and the bytes a value
	// of an assignment rule may hold.
	// keyKeywords are the keywords of the assignment rules that stand in
	// their key, generic-api-key's flagged.
	keyKeywords *suffixTrie
	keyWords    []string // keyKeywords' words, and which are generic-api-key's
	keyGeneric  []bool
	// punctKeys are the forms of a vendor's key that end with a byte no
	// key holds (new-york-times,), lower case, and punctLast their last
	// bytes: such a form ends where the key's tail starts.
	punctKeys []string
	punctLast [256]bool
	// keyPairs: what two bytes of a key say of the place after them
	// (keywordsBefore).
	keyPairs *[1 << 16]uint8
	// valueKeywords: the keywords that start an assignment rule's value
	// (NRJS- of new-relic-browser-api-token), not in its key.
	valueKeywords []string
	valueFirst    [256]bool   // the first bytes of valueKeywords, both cases
	anyValueByte  [256]bool   // a byte of any assignment rule's value
	valueEnds     [256]uint64 // what each byte ends, for noValueAt (valueEndsVendor...)
	skipByte      [256]bool   // what may stand between a separator and its value
	readBack      [256]bool   // what separatorCandidate reads back over from a separator to its key
	noKeyClass    [256]uint8  // NoKeyAt's facts of each byte (noKeyKeyByte...), from the tables above
	maxKeyword    int
	minValue      int
	valueByte     [256]bool
	// prefixes of the other rules, lower case, by their first two bytes
	// (folded); pairIndex[a<<8|b] is 1 + the index in byPair of the
	// prefixes that start with a, b (in any case), 0 for none: the line scan
	// asks at every word start it stops at, and a map lookup cost a quarter
	// of its time.
	pairIndex [1 << 16]uint16
	byPair    [][]prefix
}

// candidateRules is what the candidates take from the rules'
// expressions: readCandidateRules reads it, candidates_table.go holds it.
type candidateRules struct {
	// keyWords: the keywords that stand in an assignment rule's key, and
	// the forms of its key; keyGeneric flags generic-api-key's.
	keyWords   []string
	keyGeneric []bool
	// punctKeys, valueKeywords, minValue, valueByte: as in cands.
	punctKeys     []string
	valueKeywords []string
	minValue      int
	valueByte     [256]bool
	// prefixes of the other rules, ordered by their first two bytes
	// (lower case), then as the rules added them.
	prefixes []prefix
}

type prefix struct {
	text string
	fold bool
	// min is the fewest bytes without a blank or a quote that a match
	// starting with the prefix runs on for.
	min int
	// context, when set, is what must also hold around the prefix (the
	// curl before a curl command's -H).
	context func(text []byte, i int) bool
}

// assignmentSkeleton is how gitleaks' generator writes a key, a separator
// and a value; a rule whose expression holds it is an assignment rule.
const assignmentSkeleton = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// ruleReader is readCandidateRules at work: the prefixes gathered by
// their first two bytes.
type ruleReader struct {
	candidateRules
	prefixes map[[2]byte][]prefix
}

// readCandidateRules reads the candidates out of the rules' expressions.
// Only TestCandidateTables runs it (to write and to check
// candidates_table.go): a process loads the table.
func readCandidateRules() candidateRules {
	b := ruleReader{prefixes: map[[2]byte][]prefix{}}
	b.minValue = 1 << 30
	for _, r := range gitleaksRules {
		if !appliesEverywhere(r) {
			continue
		}
		re, err := syntax.Parse(r.Regex, syntax.Perl)
		if err != nil {
			panic(r.ID + ": " + err.Error())
		}
		if strings.Contains(r.Regex, assignmentSkeleton) {
			b.addAssignmentRule(r, re)
			continue
		}
		b.addPrefixRule(r, re)
	}
	for _, k := range slices.SortedFunc(maps.Keys(b.prefixes), func(x, y [2]byte) int { return bytes.Compare(x[:], y[:]) }) {
		b.candidateRules.prefixes = append(b.candidateRules.prefixes, b.prefixes[k]...)
	}
	return b.candidateRules
}

// addAssignmentRule takes what an assignment rule (a key, a separator,
// a value) adds to the candidates: its keywords, to keyWords when they stand
// in the key and to the value keywords when they start the value, and
// the bytes and the shortest length of a vendor's value.
func (b *ruleReader) addAssignmentRule(r Rule, re *syntax.Regexp) {
	// A keyword the key's expression holds or matches stands in
	// the key (sonar of sonar[_.-]?(login|token); linkedin of
	// linked[_-]?in); the others start the value.
	keyExpr := r.Regex[:strings.Index(r.Regex, assignmentSkeleton)]
	var key *regexp.Regexp // compiled only for a keyword the text of the key does not hold
	inKey := func(k string) bool {
		if strings.Contains(strings.ToLower(keyExpr), k) {
			return true
		}
		if key == nil {
			key = regexp.MustCompile(keyExpr)
		}
		return key.MatchString(k) || key.MatchString(strings.ToUpper(k))
	}
	keyed := false
	for _, k := range r.Keywords {
		if inKey(k) {
			b.keyWords, b.keyGeneric, keyed = append(b.keyWords, k), append(b.keyGeneric, r.ID == "generic-api-key"), true
		} else if r.ID != "atlassian-api-token" {
			b.valueKeywords = append(b.valueKeywords, k)
		}
	}
	if keyed {
		// The key's tail of 20 follows the whole of what the rule's
		// key names, which may run on past its keyword
		// (sonar[_.-]?(login|token), MailchimpSDK.initialize,
		// new-york-times,): each form of it is a keyword too, or
		// what follows its last byte no key holds (initialize, after
		// the any byte of its '.'), or, ended by such a byte, a form
		// looked for where the tail starts (punctKeys). A rule whose
		// keywords are none in its key (lob: test_, live_) is found
		// by its value's.
		for _, f := range keyForms(r.ID, keyExpr) {
			cut := strings.LastIndexFunc(f, func(c rune) bool { return c >= 0x80 || !keyBytes[c] })
			switch {
			case cut < 0 && !slices.Contains(b.keyWords, f):
				b.keyWords, b.keyGeneric = append(b.keyWords, f), append(b.keyGeneric, r.ID == "generic-api-key")
			case cut >= 0 && cut+1 < len(f) && !slices.Contains(b.keyWords, f[cut+1:]):
				b.keyWords, b.keyGeneric = append(b.keyWords, f[cut+1:]), append(b.keyGeneric, r.ID == "generic-api-key")
			case cut == len(f)-1 && !slices.Contains(b.punctKeys, f):
				if r.ID == "generic-api-key" || strings.IndexByte(f, 0) >= 0 {
					panic(r.ID + ": a key form " + f + " ended by a byte no key holds: give it a check of its own")
				}
				b.punctKeys = append(b.punctKeys, f)
			}
		}
	}
	if r.ID == "atlassian-api-token" {
		// Its expression is also a prefix rule: ...|\b(ATATT3...),
		// in any case, as the whole expression is (?i).
		n, _ := minRun(re.Sub[len(re.Sub)-1])
		b.addPrefixMin("ATATT3", true, n)
	}
	g := r.SecretGroup
	if g == 0 {
		g = 1
	}
	if v := group(re, g); v != nil && r.ID != "generic-api-key" {
		// The vendors' values (generic-api-key's has its own check,
		// genericValue): how short one can be, and what bytes it
		// holds but ':', which only the two below have, after a
		// run of digits or hex.
		b.minValue = min(b.minValue, minLen(v))
		var bs [256]bool
		addBytes(&bs, v)
		if bs[':'] && r.ID != "telegram-bot-api-token" && r.ID != "sidekiq-secret" {
			panic(r.ID + ": a value with a colon: give it a check of its own")
		}
		bs[':'] = false
		for c, ok := range bs {
			b.valueByte[c] = b.valueByte[c] || ok
		}
	}
}

// addPrefixRule adds the prefixes that start every match of a rule
// that is no assignment, each with the shortest run that follows it.
func (b *ruleReader) addPrefixRule(r Rule, re *syntax.Regexp) {
	switch r.ID {
	case "azure-ad-client-secret", "facebook-access-token", "maxmind-license-key":
		return // see above
	case "sourcegraph-access-token":
		// sgp_...; its other form, 40 hex digits (a commit's id)
		// where the file names Sourcegraph, is left to redact.
		n, _ := minRun(re)
		b.addPrefixMin("sgp_", true, n)
		return
	case "hashicorp-tf-api-token":
		// 14 letters or digits, then .atlasv1. (a word start).
		b.addPrefixMin("atlasv1", false, runFromLiteral(re, "atlasv1"))
		return
	case "microsoft-teams-webhook":
		// https://...: the part after the host's first dot is rarer.
		b.addPrefixMin("webhook", true, runFromLiteral(re, "webhook"))
		return
	case "slack-webhook-url":
		// (https://)?hooks.slack.com/(services|workflows|triggers)/...,
		// each dot any byte (a blank too): the word after com/ is a
		// word start whatever the dots are, hooks.slack.com/ before it.
		elems := concatElems(re)
		for k, e := range elems {
			if e.Op != syntax.OpAlternate {
				continue
			}
			for _, w := range e.Sub {
				b.addContextPrefix(string(w.Rune)+"/", false, len(w.Rune)+runAfter(elems, k), slackHooksBefore)
			}
		}
		return
	case "slack-config-access-token":
		// xoxe, any byte, xox[bp]-...: the run from xoxe goes on
		// through that byte unless it is a blank or a quote, and then
		// xoxb- or xoxp- starts a word.
		elems := concatElems(re)
		for k, e := range elems {
			if e.Op == syntax.OpAnyCharNotNL {
				b.addPrefixMin("xoxe", true, 4+1+runAfter(elems, k))
				ps, _ := literals(&syntax.Regexp{Op: syntax.OpConcat, Sub: elems[k+1:], Flags: syntax.FoldCase})
				for _, p := range ps {
					b.addPrefixMin(p.text, true, runAfter(elems, k))
				}
			}
		}
		return
	case "curl-auth-header", "curl-auth-user":
		// \bcurl\b ... [ \t](-H|--header) or (-u|--user), on one line:
		// the option after curl is a word start; curl, a common word
		// in logs, is not the candidate.
		for _, o := range map[string][]string{"curl-auth-header": {"-H", "--header"}, "curl-auth-user": {"-u", "--user"}}[r.ID] {
			b.addContextPrefix(o, false, len(o), curlBefore)
		}
		return
	case "sidekiq-sensitive-url":
		// https://user:pass@gems.contribsys.com: S001's own URL
		// password rule flags the user:pass@ of every URL.
		return
	}
	ps, ok := literalPrefixes(re.Simplify())
	if !ok {
		panic(r.ID + ": no literal prefix: give it a trigger of its own")
	}
	// Every match starts with one of the prefixes, and runs on
	// without a blank or a quote for at least m bytes.
	m, _ := minRun(re)
	for _, p := range ps {
		b.addPrefixMin(p.text, p.fold, max(m, len(p.text)))
	}
}

// indexCandidates makes the lookups the scan reads from what the rules
// say (r): the key keywords' trie and pairs, the first bytes of value
// keywords, the byte classes and the prefixes' pair index.
func indexCandidates(r *candidateRules) {
	for _, k := range r.keyWords {
		if len(k) < 3 {
			panic("keyword " + k + " is shorter than the three bytes NoKeyAt reads back")
		}
		for i := range len(k) {
			if !keyBytes[k[i]] {
				panic("keyword " + k + " has a byte a key cannot: separatorCandidate would not read back over it")
			}
		}
	}
	cands.keyKeywords = newSuffixTrie(r.keyWords, r.keyGeneric)
	cands.keyPairs = newKeyPairs(cands.keyKeywords)
	cands.keyWords, cands.keyGeneric = r.keyWords, r.keyGeneric
	cands.punctKeys = r.punctKeys
	for _, f := range r.punctKeys {
		cands.punctLast[f[len(f)-1]] = true
	}
	cands.valueKeywords, cands.minValue, cands.valueByte = r.valueKeywords, r.minValue, r.valueByte
	for _, k := range cands.valueKeywords {
		for _, c := range cases(k[0], true) {
			cands.valueFirst[c] = true
		}
	}
	for c := range 256 {
		cands.anyValueByte[c] = cands.valueByte[c] || genericA[c] || genericB[c] || c == ':'
		var ends uint64
		if !cands.valueByte[c] {
			ends |= valueEndsVendor
		}
		if x := byte(c); !('0' <= x && x <= '9' || 'a' <= lower(x) && lower(x) <= 'f') {
			ends |= valueEndsColon
		}
		if !genericA[c] && !genericB[c] {
			ends |= valueEndsGeneric
		}
		cands.valueEnds[c] = ends
		cands.skipByte[c] = strings.IndexByte("`'\" \t\r\n\f\v=:>|?", byte(c)) >= 0
		cands.readBack[c] = strings.IndexByte(":?=|> \t\"'\r\f\n", byte(c)) >= 0
	}
	for c := range 256 {
		var k uint8
		if keyBytes[c] {
			k |= noKeyKeyByte
		} else if c < 0x80 && !cands.punctLast[c] {
			k |= noKeyRunStart
		}
		if cands.readBack[c] {
			k |= noKeyReadBack
		}
		if cands.skipByte[c] {
			k |= noKeySkip
		}
		if cands.valueFirst[c] {
			k |= noKeyValueFirst
		}
		cands.noKeyClass[c] = k
	}
	if cands.minValue < 10 {
		panic("a vendor's value is shorter than the ten bytes the separator check reads")
	}
	// pairIndex is read with the text's own bytes: every case of a
	// pair leads to the prefixes of its lower case.
	for i := 0; i < len(r.prefixes); {
		a, b := lower(r.prefixes[i].text[0]), lower(r.prefixes[i].text[1])
		j := i + 1
		for j < len(r.prefixes) && lower(r.prefixes[j].text[0]) == a && lower(r.prefixes[j].text[1]) == b {
			j++
		}
		cands.byPair = append(cands.byPair, r.prefixes[i:j:j])
		for _, ca := range cases(a, true) {
			for _, cb := range cases(b, true) {
				cands.pairIndex[int(ca)<<8|int(cb)] = uint16(len(cands.byPair))
			}
		}
		i = j
	}
	for _, k := range r.keyWords {
		cands.maxKeyword = max(cands.maxKeyword, len(k))
	}
	for _, k := range r.valueKeywords {
		cands.maxKeyword = max(cands.maxKeyword, len(k))
	}
}

// keyForms returns every text, lower case, that the part of an
// assignment rule's key between its [\w.-]{0,50}? and its tail
// ([ \t\w.-]{0,20}[\s'"]{0,3}) can be: the key's expression, those
// repeats left out, spelled out. Most keys are a list of words
// ((?:jfrog|artifactory|bintray|xray)), read as they are written
// (literalKeyForms): parsing every key's expression cost a third more to
// read the tables (when every process read them at load).
func keyForms(id, keyExpr string) []string {
	if forms, ok := literalKeyForms(keyExpr); ok {
		return forms
	}
	return parsedKeyForms(id, keyExpr)
}

// literalKeyForms reads a key's expression written by gitleaks'
// generator around a list of words, (?i)[\w.-]{0,50}?(?:a|b)(?:[ \t\w.-]{0,20})[\s'"]{0,3},
// whose words hold letters, digits, '_' and '-' only.
func literalKeyForms(keyExpr string) ([]string, bool) {
	const before, after = `(?i)[\w.-]{0,50}?(?:`, `)(?:[ \t\w.-]{0,20})[\s'"]{0,3}`
	words, okBefore := strings.CutPrefix(keyExpr, before)
	words, okAfter := strings.CutSuffix(words, after)
	if !okBefore || !okAfter || words == "" {
		return nil, false
	}
	for _, c := range []byte(words) {
		if !(isAlnum(c) || c == '_' || c == '-' || c == '|') {
			return nil, false
		}
	}
	forms := strings.Split(strings.ToLower(words), "|")
	slices.Sort(forms)
	return slices.Compact(forms), true
}

// parsedKeyForms is keyForms of any key's expression, parsed.
func parsedKeyForms(id, keyExpr string) []string {
	re, err := syntax.Parse(keyExpr, syntax.Perl)
	if err != nil {
		panic(id + ": " + err.Error())
	}
	var elems []*syntax.Regexp
	var flatten func(*syntax.Regexp)
	flatten = func(re *syntax.Regexp) {
		switch {
		case re.Op == syntax.OpConcat:
			for _, s := range re.Sub {
				flatten(s)
			}
		case re.Op == syntax.OpRepeat && re.Min == 0 && re.Max >= 3 && re.Sub[0].Op == syntax.OpCharClass:
			// [\w.-]{0,50}?, the tail and the blanks before the separator
		default:
			elems = append(elems, re)
		}
	}
	flatten(re)
	var spell func(*syntax.Regexp) []string
	spell = func(re *syntax.Regexp) []string {
		var out []string
		switch re.Op {
		case syntax.OpLiteral:
			return []string{strings.ToLower(string(re.Rune))}
		case syntax.OpEmptyMatch:
			return []string{""}
		case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
			return []string{"\x00"} // any byte, one no key holds among them (the . of MailchimpSDK.initialize)
		case syntax.OpCapture:
			return spell(re.Sub[0])
		case syntax.OpCharClass:
			if classSize(re) > 16 {
				panic(id + ": a class of many bytes in the key's name: give it a check of its own")
			}
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
					out = append(out, strings.ToLower(string(c)))
				}
			}
		case syntax.OpQuest:
			out = append([]string{""}, spell(re.Sub[0])...)
		case syntax.OpAlternate:
			for _, s := range re.Sub {
				out = append(out, spell(s)...)
			}
		case syntax.OpConcat:
			out = []string{""}
			for _, s := range re.Sub {
				var next []string
				for _, a := range out {
					for _, b := range spell(s) {
						next = append(next, a+b)
					}
				}
				out = next
			}
		default:
			panic(id + ": the key's name is not a finite set of texts: give it a check of its own")
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	forms := spell(&syntax.Regexp{Op: syntax.OpConcat, Sub: elems})
	if len(forms) > 256 {
		panic(id + ": too many forms of the key's name")
	}
	return forms
}

// appliesEverywhere: the rules a line scan runs (not those of a file name).
func appliesEverywhere(r Rule) bool { return r.Regex != "" && r.Path == "" }

func (b *ruleReader) addPrefixMin(text string, fold bool, minMatch int) {
	b.addContextPrefix(text, fold, minMatch, nil)
}

func (b *ruleReader) addContextPrefix(text string, fold bool, minMatch int, context func([]byte, int) bool) {
	if c := text[0]; !(c == '_' || c == '-' || 'a' <= lower(c) && lower(c) <= 'z' || '0' <= c && c <= '9') {
		panic("prefix " + text + " does not start a word: the line scan would not stop at it")
	}
	if fold {
		text = strings.ToLower(text)
	}
	k := [2]byte{lower(text[0]), lower(text[1])}
	for i, p := range b.prefixes[k] {
		if p.text == text && p.fold == fold && context == nil && p.context == nil {
			b.prefixes[k][i].min = min(p.min, minMatch)
			return
		}
	}
	b.prefixes[k] = append(b.prefixes[k], prefix{text, fold, max(minMatch, len(text)), context})
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// PrefixStart is where a rule's prefix can start a candidate: its first two
// bytes, in one of the cases a text may have them in, and the fewest bytes
// without a blank or a quote a match that starts with them runs on for.
type PrefixStart struct {
	First, Second byte
	MinRun        int
}

// PrefixStarts returns the starts of every rule prefix: what a word start
// must begin with, and how long its run must be, to be a candidate (the
// line scan builds its byte filter from them).
func PrefixStarts() []PrefixStart {
	var out []PrefixStart
	for _, ps := range cands.byPair {
		for _, p := range ps {
			for _, a := range cases(p.text[0], p.fold) {
				for _, b := range cases(p.text[1], p.fold) {
					out = append(out, PrefixStart{a, b, min(p.min, 64)})
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

// PrefixPair reports whether a rule's prefix starts with the bytes a, b:
// small enough to be inlined, for the line scan to call before
// PrefixCandidate.
func PrefixPair(a, b byte) bool { return cands.pairIndex[int(a)<<8|int(b)] != 0 }

// PrefixCandidate reports whether a rule's literal prefix starts at text[i]
// (a word start).
func PrefixCandidate(text []byte, i int) bool {
	if i+1 >= len(text) {
		return false
	}
	n := cands.pairIndex[int(text[i])<<8|int(text[i+1])]
	return n != 0 && prefixAt(text, i, cands.byPair[n-1])
}

func prefixAt(text []byte, i int, ps []prefix) bool {
	for _, p := range ps {
		if len(text)-i < len(p.text) || !(p.fold && hasFoldPrefix(text[i:], p.text) || !p.fold && string(text[i:i+len(p.text)]) == p.text) ||
			p.context != nil && !p.context(text, i) {
			continue
		}
		// The match runs on without a blank or a quote for at least the
		// shortest match of the rule (path is not an Airtable token,
		// whose prefix is pat).
		run, need := i, min(p.min, 64)
		for run < len(text) && run-i < need && text[run] > ' ' && text[run] != '"' && text[run] != '\'' && text[run] != '`' {
			run++
		}
		if run-i >= need {
			return true
		}
	}
	return false
}

// SeparatorCandidate reports whether a rule could match with its separator
// at text[i], one of = : > , | ~ % (the bytes of IsSeparator).
func SeparatorCandidate(text []byte, i int) bool {
	if ShortValueAt(text, i) || NoKeyAt(text, i) {
		return false
	}
	return separatorCandidate(text, i, false)
}

// SeparatorCandidateRest is SeparatorCandidate at a separator where the
// caller has found ShortValueAt and NoKeyAt false: the rest of its tests.
func SeparatorCandidateRest(text []byte, i int) bool { return separatorCandidate(text, i, false) }

// NoKeyAt reports, cheaply, that no rule can match with its separator at
// text[i], a '=' or a ':', because no key before it can hold a keyword
// and its value starts with none: the most common separator in a log is
// the ':' of a line's kind at its start (o:, t!:, th:), after a key of
// two bytes or less. What holds it (separatorCandidate's steps):
//
//   - the byte before i is none that separatorCandidate reads back over
//     (a separator's other bytes, blanks, quotes), so the key ends at i;
//   - at most two key bytes, ASCII, end there, after a byte no key
//     holds, ASCII too, or the text's start: every keyword is three
//     bytes or more (indexCandidates checks), so none ends in so short
//     a run (keywordsBefore), and the run holds no ſ or K (foldInKey);
//   - that byte ends no form of punctKeys (new-york-times,), which ends
//     where the key's run starts;
//   - the value, after at most one blank, quote or separator byte,
//     starts with no byte a value keyword starts with (NRJS-).
//
// FuzzNoKeyAt holds it false wherever separatorCandidate is true.
func NoKeyAt(text []byte, i int) bool {
	if i < 3 || i+3 > len(text) {
		return noKeyAtByByte(text, i) // the text's first and last bytes
	}
	// The three bytes before i to the two after it as one array (one
	// bounds check), each byte's facts from one lookup (noKeyClass).
	w, t := (*[6]byte)(text[i-3:i+3]), &cands.noKeyClass
	if w[3] != '=' && w[3] != ':' {
		return false
	}
	k := t[w[2]]
	if k&noKeyReadBack != 0 {
		return false
	}
	// The first byte back from i that no key holds, within three.
	if k&noKeyKeyByte != 0 {
		if k = t[w[1]]; k&noKeyKeyByte != 0 {
			if k = t[w[0]]; k&noKeyKeyByte != 0 {
				return false // three key bytes or more
			}
		}
	}
	if k&noKeyRunStart == 0 {
		return false // above ASCII, or the last byte of a form of punctKeys
	}
	v := t[w[4]]
	if v&noKeySkip != 0 {
		if v = t[w[5]]; v&noKeySkip != 0 {
			return false
		}
	}
	return v&noKeyValueFirst == 0
}

// noKeyAtByByte is NoKeyAt read byte by byte, the way its comment says:
// what NoKeyAt does within three bytes of the text's start or two of its
// end, and its reference (FuzzNoKeyAtByByte holds the two equal).
func noKeyAtByByte(text []byte, i int) bool {
	if i+3 > len(text) || text[i] != '=' && text[i] != ':' || i > 0 && cands.readBack[text[i-1]] {
		return false
	}
	for r := 0; r < 3; r++ {
		if i-r == 0 {
			break // the text's start
		}
		if c := text[i-r-1]; !keyBytes[c] {
			if c >= 0x80 || cands.punctLast[c] {
				return false
			}
			break
		}
		if r == 2 {
			return false // three key bytes or more
		}
	}
	p := i + 1
	if cands.skipByte[text[p]] {
		if p++; cands.skipByte[text[p]] {
			return false
		}
	}
	return !cands.valueFirst[text[p]]
}

// The bits of noKeyClass: what NoKeyAt asks of a byte, one lookup each.
const (
	noKeyKeyByte    = 1 << iota // keyBytes
	noKeyRunStart               // no key's byte, ASCII, and ends no form of punctKeys: a short key may start after it
	noKeyReadBack               // cands.readBack
	noKeySkip                   // cands.skipByte
	noKeyValueFirst             // cands.valueFirst
)

// ShortValueAt reports, cheaply, that no rule's value follows the
// separator at text[i]: most separators are followed at once (tokens_in=12)
// or after one blank or quote (", and", ":"text") by a few bytes and a
// blank or a quote, and every rule's value is ten bytes or more. It reads
// those ten bytes as two words of eight.
func ShortValueAt(text []byte, i int) bool {
	skip := &cands.skipByte
	if i+13 > len(text) {
		p := i + 1
		if p < len(text) && skip[text[p]] {
			p++
		}
		if p+10 > len(text) {
			return p >= len(text) || !skip[text[p]] // more blanks or quotes: SeparatorCandidate reads on
		}
		return !skip[text[p]] && blankOrQuote(binary.LittleEndian.Uint64(text[p:]), binary.LittleEndian.Uint64(text[p+2:]))
	}
	v := (*[13]byte)(text[i : i+13])
	s := 1
	if skip[v[1]] {
		if skip[v[2]] {
			return false // more blanks or quotes: SeparatorCandidate reads on
		}
		s = 2
	}
	return blankOrQuote(binary.LittleEndian.Uint64(v[s:]), binary.LittleEndian.Uint64(v[s+2:]))
}

// ShortValueSoon is ShortValueAt's common case, small enough to be inlined
// where the scan stops: true only where ShortValueAt is (the byte after the
// separator's next is no blank or quote, and a blank follows within eight).
func ShortValueSoon(text []byte, i int) bool {
	if i+11 > len(text) {
		return false
	}
	v := (*[11]byte)(text[i : i+11])
	x := binary.LittleEndian.Uint64(v[3:])
	return !cands.skipByte[v[2]] && (x-0x2121212121212121)&^x&0x8080808080808080 != 0
}

// blankOrQuote reports whether a byte of x or y is a blank (up to ' ') or
// a '"'.
func blankOrQuote(x, y uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	bq := func(v uint64) uint64 { return ((v - ones*0x21) | ((v ^ ones*'"') - ones)) &^ v }
	return (bq(x)|bq(y))&highs != 0
}

// separatorCandidate is SeparatorCandidate; multiline lets the blanks
// around the separator hold line breaks, as they may in a whole text.
func separatorCandidate(text []byte, i int, multiline bool) bool {
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
	// The value: after at most a few quotes, blanks and separator bytes
	// (the value keywords are looked for there; genericValue does its own
	// skipping, as generic-api-key does).
	p := i + 1
	for k := 0; k < 8 && p < len(text); k++ {
		switch text[p] {
		case '`', '\'', '"', ' ', '\t', '\r', '\f', '\v', '=', ':', '>', '|', '?':
			p++
			continue
		case '\n':
			if multiline {
				p++
				continue
			}
		}
		break
	}
	// Every value is ten bytes or more (generic-api-key's shortest; the
	// vendors' are longer), of a few classes: most separators (tokens_in=12)
	// end here. One expression over the ten as an array, not a loop: a
	// lookup and a test a byte.
	if p+10 > len(text) {
		return false
	}
	if b, t := (*[10]byte)(text[p:p+10]), &cands.anyValueByte; !(t[b[0]] && t[b[1]] && t[b[2]] && t[b[3]] && t[b[4]] &&
		t[b[5]] && t[b[6]] && t[b[7]] && t[b[8]] && t[b[9]]) {
		return false
	}
	// A value: as long as a vendor's shortest, or generic-api-key's.
	// Looked for before the key, which costs more to read back: most
	// values that pass the test above are no rule's (ts=2025-12-19T20:29).
	// Most that get here right after the separator are a log's times
	// (ts=2025-12-19T20:29:03Z, after a blank, which a rule's key may
	// hold): none of the three, each decided from one reading of the
	// sixteen bytes (noValueAt) instead of one reading each.
	if p == i+1 && noValueAt(text, p) {
		return false
	}
	vendorValue := vendorValueAt(text, p) || colonValue(text, p)
	if !vendorValue && !genericValue(text, i+1, multiline, false) {
		return false
	}
	// A keyword in the key: the rules' keys are [\w.-]{0,50}? KEYWORD
	// [ \t\w.-]{0,20} [\s'"]{0,3}, right before the separator; or one
	// that starts the value (NRJS-).
	k := i
	for n := 0; n < 3 && k > 0 && (text[k-1] == ':' || text[k-1] == '?' || text[k-1] == '=' || text[k-1] == '|' || text[k-1] == '>'); n++ {
		k-- // the separator's other bytes: ?= := ::= || =>
	}
	for n := 0; n < 3 && k > 0 && (text[k-1] == ' ' || text[k-1] == '\t' || text[k-1] == '"' || text[k-1] == '\'' || text[k-1] == '\r' || text[k-1] == '\f' ||
		multiline && text[k-1] == '\n'); n++ {
		k--
	}
	ends, tail := keywordsBefore(text, k)
	if tail > 0 && cands.punctLast[text[tail-1]] && k-tail <= 20 {
		for _, f := range cands.punctKeys {
			if hasFoldSuffix(text[:tail], f) {
				ends |= 1
			}
		}
	}
	if ends != 3 && (tail == 0 || keyBytes[text[tail-1]] || text[tail-1] >= 0x80) && foldInKey(text, k) {
		// The rules read keys with (?i), which folds ſ to s and K to
		// k: a key with one of them may hold a keyword the table of
		// ASCII keywords does not know, of either kind. Where the
		// read-back of keywords stopped at the first byte back from k
		// that no key holds (file_path= after id=…), an ASCII one, the
		// key has neither: foldInKey would stop there too.
		ends = 3
	}
	if ends == 0 && !cands.valueFirst[text[p]] {
		return false // most keys: sig, file_path
	}
	if cands.valueFirst[text[p]] {
		value := text[p : p+valueRun(text, p)]
		for _, kw := range cands.valueKeywords {
			if hasFoldPrefix(value, kw) {
				return true
			}
		}
	}
	// generic-api-key's value with its entropy: a value that has it has
	// the shape too (genericValue with entropy tests one thing more).
	return ends&1 != 0 && vendorValue || ends&2 != 0 && genericValue(text, i+1, multiline, true)
}

// vendorValueAt reports whether a vendor's value, as long as the shortest
// (cands.minValue bytes of cands.valueByte), starts at p: valueRun's
// count, made as one expression over the bytes as an array (a lookup and
// a test a byte, one bounds check) where the rules' shortest value is
// vendorValueBytes long and the text holds that many bytes from p.
// FuzzVendorValueAt holds it equal to valueRun's count.
func vendorValueAt(text []byte, p int) bool {
	if cands.minValue != vendorValueBytes || p+vendorValueBytes > len(text) {
		return valueRun(text, p) >= cands.minValue
	}
	b, t := (*[vendorValueBytes]byte)(text[p:p+vendorValueBytes]), &cands.valueByte
	return t[b[0]] && t[b[1]] && t[b[2]] && t[b[3]] && t[b[4]] && t[b[5]] && t[b[6]] &&
		t[b[7]] && t[b[8]] && t[b[9]] && t[b[10]] && t[b[11]] && t[b[12]] && t[b[13]]
}

// NoValueAfter reports, cheaply, that no rule can match with its
// separator at text[i], a '=' or a ':' followed at once by the value,
// because no rule's value starts there (noValueAt): a log's times,
// ts=2025-12-19T20:29:03Z, which a blank before the key keeps NoKeyAt
// from turning down. FuzzNoValueAt holds it false wherever
// separatorCandidate is true.
func NoValueAfter(text []byte, i int) bool {
	if text[i] != '=' && text[i] != ':' || i+1 >= len(text) || cands.skipByte[text[i+1]] {
		return false
	}
	return noValueAt(text, i+1)
}

// noValueAt reports that no vendor's value (vendorValueAt), no
// colonValue and no generic-api-key's value (genericValue from p, when
// text[p] is no byte genericValue skips) starts at p, from one lookup of
// each of the sixteen bytes from p (cands.valueEnds, a bit for each
// test in a plane of its own): one of the first vendorValueBytes is no
// vendor's value byte; the first byte that ends colonValue's run of hex
// digits is no ':'; and the first that is of neither of
// generic-api-key's forms comes within ten bytes or does not terminate
// (both forms' runs end within the run of bytes either holds, and what
// ends one before that run's end is a byte of the run, none that
// terminates). False where the sixteen bytes cannot tell; FuzzNoValueAt
// holds it true only where the three are false.
func noValueAt(text []byte, p int) bool {
	if cands.minValue != vendorValueBytes || p+16 > len(text) {
		return false
	}
	b, t := (*[16]byte)(text[p:p+16]), &cands.valueEnds
	x := t[b[0]] | t[b[1]]<<1 | t[b[2]]<<2 | t[b[3]]<<3 | t[b[4]]<<4 | t[b[5]]<<5 | t[b[6]]<<6 | t[b[7]]<<7 |
		t[b[8]]<<8 | t[b[9]]<<9 | t[b[10]]<<10 | t[b[11]]<<11 | t[b[12]]<<12 | t[b[13]]<<13 | t[b[14]]<<14 | t[b[15]]<<15
	if x&(valueEndsVendor<<vendorValueBytes-1) == 0 {
		return false // a vendor's value's bytes, as many as the shortest
	}
	colon := x >> 16 & 0xffff
	if colon == 0 || b[bits.TrailingZeros64(colon)] == ':' {
		return false
	}
	generic := x >> 32 & 0xffff
	if generic == 0 {
		return false
	}
	r := bits.TrailingZeros64(generic)
	return r < 10 || !terminates(text, p+r)
}

// The planes of cands.valueEnds: a byte that is no vendor's value byte,
// one that ends colonValue's run of hex digits, one of neither of
// generic-api-key's forms.
const (
	valueEndsVendor  = 1
	valueEndsColon   = 1 << 16
	valueEndsGeneric = 1 << 32
)

// vendorValueBytes is the length of the shortest vendor's value
// (cands.minValue) under gitleaks' rules as generated; should a rules
// update change it, vendorValueAt counts with valueRun.
const vendorValueBytes = 14

// valueRun is how many bytes of a vendor's value (cands.valueByte) start
// at p, counted up to cands.minValue.
func valueRun(text []byte, p int) int {
	v, end := p, min(len(text), p+cands.minValue)
	for v < end && cands.valueByte[text[v]] {
		v++
	}
	return v - p
}

// keywordsBefore tells which keywords of the assignment rules end at most
// 20 bytes of [ \t\w.-] before a key's end k: bit 1, a vendor's; bit 2, a
// generic one. A keyword is made of such bytes too (indexCandidates checks).
// Each place costs one lookup of the two bytes before it (keyPairs), most
// places no more; where a keyword may end with those two, the byte before
// them is asked too (endsWithThree) before the trie is walked from there.
// It also returns where it stopped reading back: after a byte no key holds
// (where a form of punctKeys may end), or 20 bytes back, or where both
// kinds were found. Short of both, the key's bytes from there to k are all
// key bytes, and the byte before, if any, is the first one back from k
// that no key holds (FuzzKeywordsBeforeTail).
func keywordsBefore(text []byte, k int) (uint8, int) {
	text = text[:k]
	ends, pairs, kw := uint8(0), cands.keyPairs, cands.keyKeywords
	// Two places a step, e and e-1: the lookup of the two bytes before e
	// also tells whether the first of them is a key's byte (where e-1
	// ends the key), so the step tests the loop's end, the 20 bytes and
	// the key's bytes once for both; e-1 has a lookup of its own only for
	// a keyword ending there. The place 20 bytes back is an e (k-e is
	// even). The text's first places go one a step.
	e, last := len(text), k-20
	for ; e >= 4; e -= 2 {
		v := pairs[binary.LittleEndian.Uint16(text[e-2:e])]
		if v&pairEndsKeyword != 0 && kw.endsWithThree(text[e-3], text[e-2], text[e-1]) {
			if ends |= kw.endingAt(text, e); ends == 3 {
				return ends, e
			}
		}
		if e == last || v&pairEndsKey != 0 {
			return ends, e
		}
		if pairs[binary.LittleEndian.Uint16(text[e-3:e-1])]&pairEndsKeyword != 0 && kw.endsWithThree(text[e-4], text[e-3], text[e-2]) {
			if ends |= kw.endingAt(text, e-1); ends == 3 {
				return ends, e - 1
			}
		}
		if v&pairFirstNotKey != 0 {
			return ends, e - 1
		}
	}
	for ; e >= 2; e-- {
		v := pairs[binary.LittleEndian.Uint16(text[e-2:e])]
		if v&pairEndsKeyword != 0 && e >= 3 && kw.endsWithThree(text[e-3], text[e-2], text[e-1]) {
			if ends |= kw.endingAt(text, e); ends == 3 {
				break
			}
		}
		if e == last || v&pairEndsKey != 0 {
			break
		}
	}
	return ends, e
}

// foldInKey reports whether the key that ends at k can hold ſ or K (see
// foldsToKeyword). From a keyword to the key's end, a key is made of the
// keyword's characters and [ \t\w.-]{0,20}: ASCII key bytes, or ſ and K,
// which (?i)\w holds too. So a key that holds one of them is a run of key
// bytes back from k to the last byte of a ſ or a K, and that is what is
// looked for: back from k, over words of eight bytes that hold no byte
// above ASCII, no line break and no '=' (which end most keys: a line's
// start, tokens_in=12), then byte by byte to the first byte above ASCII,
// or to a byte no key holds (false). Most keys before a separator are
// ASCII back to where they start (o: at a line's start) or to a character
// above ASCII that is neither (naïve ts=); a search of the whole reach
// for the two characters cost a tenth of the line scan. The reach is
// foldReach bytes: after the last ſ or K of a key come at most the rest
// of its keyword and the 20 characters of its tail, all ASCII then, one
// byte each (and 3 more, as the separator's blanks and quotes are read
// back from it). FuzzFoldInKey holds it true wherever a walk over the
// key's characters finds one.
func foldInKey(text []byte, k int) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	lo, j := max(0, k-foldReach()), k
	for ; j-8 >= lo; j -= 8 {
		x := binary.LittleEndian.Uint64(text[j-8 : j])
		nl, eq := x^ones*'\n', x^ones*'='
		if (x|(nl-ones)&^nl|(eq-ones)&^eq)&highs != 0 {
			break // a byte above ASCII, or maybe a line break or a '='
		}
	}
	for ; j > lo; j-- {
		switch c := text[j-1]; {
		case c >= 0x80:
			if !(c == 0xBF && j >= 2 && text[j-2] == 0xC5 || c == 0xAA && j >= 3 && text[j-3] == 0xE2 && text[j-2] == 0x84) {
				return false
			}
			for _, c := range text[j:k] { // the words skipped hold no byte above ASCII, maybe other bytes no key holds
				if !keyBytes[c] {
					return false
				}
			}
			return true
		case !keyBytes[c]:
			return false
		}
	}
	return false
}

// foldReach is how many characters a key holds from its keyword's first
// one to its end: the longest keyword, a tail of 20 and 3 more.
func foldReach() int { return cands.maxKeyword + 20 + 3 }

// foldsToKeyword reports whether b holds one of the two characters
// above ASCII that the rules' (?i) folds to an ASCII letter: ſ (to s)
// and the Kelvin sign K (to k). No other rune folds to one.
func foldsToKeyword(b []byte) bool {
	return bytes.Contains(b, []byte("\u017f")) || bytes.Contains(b, []byte("\u212a"))
}

// The bits of keyPairs, for the two bytes a, b before a place in a key.
const (
	pairEndsKeyword = 1 << iota // a keyword ends with a, b (most places: none)
	pairEndsKey                 // b is not a key's byte: no keyword ends further back
	pairFirstNotKey             // a is not a key's byte: keywordsBefore's second place ends the key
)

// newKeyPairs builds keyPairs: for each two bytes a, b (a the low byte of
// the index), its bits. Most pairs end no keyword: only the bytes some
// keyword holds are paired for endsWith (about 60 of them; asking all
// 65,536 pairs was most of the start's cost after the table was
// generated). TestKeyPairs holds it to asking every pair.
func newKeyPairs(t *suffixTrie) *[1 << 16]uint8 {
	pairs := new([1 << 16]uint8)
	// A row (one b, every a) is one of two, after a b a key holds or not:
	// copied, not filled a pair at a time (0.7M instructions at load).
	var rows [2][256]uint8
	var inWord []byte
	for c := range 256 {
		if !keyBytes[c] {
			rows[0][c] = pairFirstNotKey // every pair whose a no key holds
		}
		rows[1][c] = rows[0][c] | pairEndsKey // every a before a b no key holds
		if t.class[c] != 0 {
			inWord = append(inWord, byte(c))
		}
	}
	for b := range 256 {
		row := (*[256]uint8)(pairs[b<<8:])
		if keyBytes[b] {
			*row = rows[0]
		} else {
			*row = rows[1]
		}
	}
	for _, b := range inWord {
		for _, a := range inWord {
			if t.endsWith(a, b) {
				pairs[int(b)<<8|int(a)] |= pairEndsKeyword
			}
		}
	}
	return pairs
}

// colonValue: the values of telegram-bot-api-token (5 to 16 digits, :A)
// and sidekiq-secret (8 hex digits, :, 8 more) at p.
func colonValue(text []byte, p int) bool {
	digits, hex := 0, 0
	for q := p; q < len(text) && q-p <= 16; q++ {
		c := text[q]
		switch {
		case c == ':':
			return digits >= 5 && q+1 < len(text) && text[q+1] == 'A' || hex == 8
		case '0' <= c && c <= '9':
			digits++
			hex++
		case 'a' <= lower(c) && lower(c) <= 'f':
			digits = -1 << 10
			hex++
		default:
			return false
		}
	}
	return false
}

// genericValue reports whether generic-api-key's value can follow a
// separator that ends at p: after at most five of [`'"\s=], ten to 150 of
// [\w.=-] or twelve or more of [a-z0-9+/] (any case, then up to three '='),
// then the end, a blank, a quote, ';' or an escaped line break; with
// something else than letters and [_.-] (the rule's allowlist), and, when
// entropy is set (it costs a logarithm a byte), the rule's entropy.
func genericValue(text []byte, p int, multiline, entropy bool) bool {
	for k := 0; k <= 5; k++ {
		if k > 0 {
			if c := text[p+k-1]; !genericSkip[c] && !(multiline && c == '\n') {
				return false
			}
		}
		s := p + k
		if s >= len(text) {
			return false
		}
		if c := text[s]; genericA[c] {
			e, end := s, min(len(text), s+151)
			for e < end && genericA[text[e]] {
				e++
			}
			if e-s >= 10 && e-s <= 150 && terminates(text, e) && plausibleGeneric(text[s:e], entropy) {
				return true
			}
		}
		if c := text[s]; genericB[c] && c != '+' && c != '/' {
			e := s
			for e < len(text) && genericB[text[e]] {
				e++
			}
			for n := 0; n < 3 && e < len(text) && text[e] == '='; n++ {
				e++
			}
			if e-s >= 12 && terminates(text, e) && plausibleGeneric(text[s:e], entropy) {
				return true
			}
		}
	}
	return false
}

// generic-api-key's classes: the blanks and quotes before its value
// (genericSkip, the line break aside), and its two forms of value,
// [\w.=-] (genericA) and [a-z0-9+/] in any case (genericB).
var genericSkip, genericA, genericB = func() (skip, a, b [256]bool) {
	for c := range 256 {
		x := byte(c)
		alnum := '0' <= x && x <= '9' || 'a' <= lower(x) && lower(x) <= 'z'
		skip[c] = strings.IndexByte("`'\"= \t\r\f\v", x) >= 0
		a[c] = alnum || x == '_' || x == '.' || x == '=' || x == '-'
		b[c] = alnum || x == '+' || x == '/'
	}
	return
}()

func terminates(text []byte, e int) bool {
	if e >= len(text) {
		return true
	}
	switch text[e] {
	case '`', '\'', '"', ';', ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	case '\\': // an escaped line break, \N and \R too: generic-api-key ignores case
		return e+1 < len(text) && (lower(text[e+1]) == 'n' || lower(text[e+1]) == 'r')
	}
	return false
}

// plausibleGeneric: a value the generic rule could keep: its entropy is
// above the rule's 3.5 bits, and it is not only letters and [_.-] (the
// rule's allowlist). v is the rule's group for one way of matching.
func plausibleGeneric(v []byte, entropy bool) bool {
	if entropy && asciiEntropy(v) <= 3.5 {
		return false
	}
	for _, c := range v {
		if !allowedGeneric[c] {
			return true // not ^[a-zA-Z_.-]+$
		}
	}
	return false
}

// allowedGeneric: [a-zA-Z_.-], generic-api-key's allowlist of values.
var allowedGeneric = func() (t [256]bool) {
	for c := range 256 {
		b := byte(c)
		t[c] = 'a' <= lower(b) && lower(b) <= 'z' || b == '_' || b == '.' || b == '-'
	}
	return t
}()

// asciiEntropy is shannonEntropy of an ASCII text, without a map: each
// byte's count is summed at its first place in v, and cleared there, so
// that the sum goes over v (generic-api-key's values are 10 to 150 bytes)
// and not over all 256 counts. FuzzASCIIEntropy holds it equal.
func asciiEntropy(v []byte) float64 {
	var counts [256]int32
	for _, c := range v {
		counts[c]++
	}
	h, inv := 0.0, 1.0/float64(len(v))
	for _, c := range v {
		if n := counts[c]; n > 0 {
			counts[c] = 0
			p := float64(n) * inv
			h -= p * math.Log2(p)
		}
	}
	return h
}

func isAlnum(c byte) bool { return '0' <= c && c <= '9' || 'a' <= lower(c) && lower(c) <= 'z' }

// keyBytes: [ \t\w.-], what lies between a rule's keyword and its separator.
var keyBytes = func() (t [256]bool) {
	for c := range 256 {
		b := byte(c)
		t[c] = b == ' ' || b == '\t' || b == '_' || b == '.' || b == '-' || '0' <= b && b <= '9' || 'a' <= lower(b) && lower(b) <= 'z'
	}
	return t
}()

// hasFoldPrefix reports whether b starts with the lower-case word w, in
// any case.
func hasFoldPrefix(b []byte, w string) bool {
	if len(b) < len(w) {
		return false
	}
	for i := range len(w) {
		if lower(b[i]) != w[i] {
			return false
		}
	}
	return true
}

// hasFoldSuffix reports whether b ends with the lower-case word w, in
// any case.
func hasFoldSuffix(b []byte, w string) bool {
	return len(b) >= len(w) && hasFoldPrefix(b[len(b)-len(w):], w)
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
// own, without its line break), gitleaks' keyword prefilter run on the
// line, each rule's expression loosened (see loosen): it finds what
// gitleaks finds on the line, and may find a little more.
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
		dst = c.appendMatchesOf(dst, r, r.loose(), raw, 0, len(raw), nil)
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

// curlBefore: the word curl before i on its line (curl's rules need
// it before the option).
func curlBefore(text []byte, i int) bool {
	for k := i - 1; k >= 4; k-- {
		switch {
		case text[k] == '\n':
			return false
		case text[k] == 'l' && string(text[k-3:k+1]) == "curl" && (k-4 < 0 || !isAlnum(text[k-4])) && (k+1 >= len(text) || !isAlnum(text[k+1])):
			return true
		}
	}
	return i >= 4 && string(text[:4]) == "curl" && (len(text) == 4 || !isAlnum(text[4]))
}

// slackHooksBefore: hooks.slack.com/ right before i, each dot any byte
// but a line break.
func slackHooksBefore(text []byte, i int) bool {
	const before = "hooks.slack.com/"
	if i < len(before) {
		return false
	}
	for k, c := range []byte(before) {
		if b := text[i-len(before)+k]; c == '.' && b == '\n' || c != '.' && b != c {
			return false
		}
	}
	return true
}

// concatElems returns what re, a concatenation (maybe in a group), is a
// concatenation of.
func concatElems(re *syntax.Regexp) []*syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return []*syntax.Regexp{re}
	}
	return re.Sub
}

// runAfter is minRun of what follows elems[k].
func runAfter(elems []*syntax.Regexp, k int) int {
	n, _ := minRun(&syntax.Regexp{Op: syntax.OpConcat, Sub: elems[k+1:]})
	return n
}

// runFromLiteral is the fewest bytes without a blank or a quote from lit,
// in the literal of re's concatenation that holds it, on.
func runFromLiteral(re *syntax.Regexp, lit string) int {
	elems := concatElems(re)
	for k, e := range elems {
		if e.Op != syntax.OpLiteral {
			continue
		}
		if j := strings.Index(string(e.Rune), lit); j >= 0 {
			n, whole := minRun(&syntax.Regexp{Op: syntax.OpLiteral, Rune: e.Rune[j:]})
			if !whole {
				return n
			}
			return n + runAfter(elems, k)
		}
	}
	panic("no literal " + lit)
}

// isRunStop reports the bytes that end a run in prefixAt: blanks, control
// bytes and quotes.
func isRunStop(c rune) bool { return c <= ' ' || c == '"' || c == '\'' || c == '`' }

// minRun is the fewest bytes every match of re starts with before a byte
// that can be a blank or a quote (isRunStop), and whether no match of re
// holds such a byte at all (the run then goes on into what follows). A
// literal prefix's rule needs that many bytes without a blank at a word
// start: path is not an Airtable token (pat, then at least 79 more).
func minRun(re *syntax.Regexp) (n int, whole bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, true
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if isRunStop(c) {
				return n, false
			}
			n += utf8.RuneLen(c)
		}
		return n, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= ' ' {
				return 0, false
			}
			for _, q := range "\"'`" {
				if re.Rune[i] <= q && q <= re.Rune[i+1] {
					return 0, false
				}
			}
		}
		return 1, true
	case syntax.OpCapture:
		return minRun(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			k, w := minRun(s)
			n += k
			if !w {
				return n, false
			}
		}
		return n, true
	case syntax.OpAlternate:
		n, whole = 1<<30, true
		for _, s := range re.Sub {
			k, w := minRun(s)
			n, whole = min(n, k), whole && w
		}
		return n, whole
	case syntax.OpStar, syntax.OpQuest:
		_, w := minRun(re.Sub[0])
		return 0, w
	case syntax.OpPlus:
		return minRun(re.Sub[0])
	case syntax.OpRepeat:
		k, w := minRun(re.Sub[0])
		switch {
		case w:
			return re.Min * k, true
		case re.Min > 0:
			return k, false
		}
		return 0, false
	}
	return 0, false // any byte: a blank too
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
		return []prefix{{text: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCharClass:
		if classSize(re) > 4 {
			return nil, false
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				ps = append(ps, prefix{text: string(c)})
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
		acc := []prefix{{}}
		for k, s := range subs {
			sub, w := literals(s)
			if sub == nil || len(acc)*len(sub) > 64 {
				return acc, false
			}
			var next []prefix
			for _, a := range acc {
				for _, p := range sub {
					next = append(next, prefix{text: a.text + p.text, fold: a.fold || p.fold})
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
