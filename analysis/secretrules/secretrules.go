// Package secretrules is gitleaks' default rules as data, and the detector
// that applies them as gitleaks does. rlog-ls's own credential scan
// (analysis.AppendSecrets, rule S001) uses it to confirm what its fast
// filter lets through; `rlog-ls redact` uses Find to remove everything
// gitleaks would report.
//
// The table (gitleaks_rules.go) is generated from the gitleaks release that
// gen/go.mod pins, by gen, which reads gitleaks' configuration with
// gitleaks' own loader; gitleaks is MIT-licensed and the table carries its
// license. Nothing of gitleaks is linked into rlog-ls: only this data and
// the standard library's regexp, which is the engine gitleaks builds with
// by default, so a rule matches here exactly what it matches there.
//
// Find follows gitleaks' detector (detect.detectRule of the pinned
// version) for one file: the keyword prefilter, every match of a rule's
// expression, its secret group, the entropy threshold, the global and the
// rule's allowlists (targets secret, match and line; stopwords; AND and OR
// conditions) and the gitleaks:allow comment. Where it differs, it finds
// more, never less: the whole text is one fragment (gitleaks reads 100 KB
// at a time), and the rules that gitleaks limits to some file names
// (*.tf, *.yaml, nuget.config, ...) and the allowlists of file names are
// applied to every text, since a redaction that removes more is still one
// gitleaks has nothing to say about.
package secretrules

import (
	"regexp"
	"strings"
	"sync"
)

// Rule is one gitleaks rule, as its configuration states it.
type Rule struct {
	ID, Description string
	// Regex finds the match; SecretGroup (0: the first non-empty group, or
	// the whole match when there is no group) is the secret in it.
	Regex       string
	SecretGroup int
	// Entropy: a secret whose Shannon entropy is not above it is dropped.
	Entropy float64
	// Path limits the rule to files whose path matches; a rule with a
	// path and no Regex reports the file itself.
	Path string
	// Keywords: the rule runs on a text only when one of them (lower
	// case) is in the lower-cased text.
	Keywords   []string
	Allowlists []Allowlist
}

// Allowlist drops a finding when its regexes match the target (the secret,
// the match or the line) or a stopword is in the secret; with All, only when
// every check it has passes.
type Allowlist struct {
	Description string
	All         bool
	RegexTarget string // "" (the secret), "match" or "line"
	Paths       []string
	Regexes     []string
	StopWords   []string
}

// Rules returns the table, in gitleaks' order.
func Rules() []Rule { return gitleaksRules }

// Kind is the redaction kind of rule id: the id with '_' for '-'
// (slack-webhook-url gives slack_webhook_url), a word as a marker needs.
func Kind(id string) string { return strings.ReplaceAll(id, "-", "_") }

// compiled is the table ready to run.
type compiled struct {
	rules []rule
	byID  map[string]int
	// global is gitleaks' global allowlist, compiled on its first call
	// (see rule.allow).
	global func() []allowlist
	// keywords of all rules, and for each rule its keywords' indexes.
	keywords *matcher
}

type rule struct {
	*Rule
	// re is the rule's expression (nil for a rule with none), compiled on
	// its first call like loose: a run meets the keywords of a few rules,
	// and compiling all of them made most of the table's cost (about 60M
	// instructions, and 5 MB that every collection then marked).
	re func() *regexp.Regexp
	// loose finds every match of re and a few more, much faster: the line
	// scan runs it (see loosen).
	loose func() *regexp.Regexp
	path  *regexp.Regexp
	// allow is the rule's allowlists, compiled on its first call: only a
	// match of the rule's expression asks for them (check), and a log's
	// first lines near a secret seldom hold one. generic-api-key's
	// stopwords' automaton alone was 5.5M of the 8.9M instructions load
	// took at a process's first line near a secret.
	allow    func() []allowlist
	keywords []int
	// assignment: a key, a separator and a value (see assignmentSkeleton).
	assignment bool
}

type allowlist struct {
	all       bool
	target    string
	paths     *regexp.Regexp
	regexes   *regexp.Regexp
	stopwords *matcher
}

var (
	compileOnce sync.Once
	table       *compiled
)

// load compiles the table once, on first use: a program that never meets
// a candidate never pays for it. The rules' 200 expressions are compiled
// later still, each when a rule's keyword is first found (compileOnUse),
// and the allowlists when a rule first matches (compileAllowlistsOnUse).
func load() *compiled {
	compileOnce.Do(func() {
		c := &compiled{byID: map[string]int{}}
		kwIndex := map[string]int{}
		var kws []string
		for i := range gitleaksRules {
			r := rule{Rule: &gitleaksRules[i]}
			if r.Rule.Regex != "" {
				r.re, r.loose = compileOnUse(r.Rule.Regex)
				r.assignment = strings.Contains(r.Rule.Regex, assignmentSkeleton)
			}
			if r.Path != "" {
				r.path = regexp.MustCompile(r.Path)
			}
			r.allow = compileAllowlistsOnUse(r.Allowlists)
			for _, k := range r.Keywords {
				n, ok := kwIndex[k]
				if !ok {
					n = len(kws)
					kwIndex[k] = n
					kws = append(kws, k)
				}
				r.keywords = append(r.keywords, n)
			}
			c.byID[r.ID] = len(c.rules)
			c.rules = append(c.rules, r)
		}
		c.global = compileAllowlistsOnUse(gitleaksGlobalAllowlists)
		c.keywords = newMatcher(kws)
		table = c
	})
	return table
}

// compileOnUse returns a rule's expression and its loosened form, each
// compiled on its first call (by whichever goroutine calls first).
func compileOnUse(expr string) (re, loose func() *regexp.Regexp) {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) }),
		sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(loosen(expr)) })
}

// compileAllowlistsOnUse returns lists compiled on the first call (by
// whichever goroutine calls first).
func compileAllowlistsOnUse(lists []Allowlist) func() []allowlist {
	if len(lists) == 0 {
		return noAllowlists
	}
	return sync.OnceValue(func() []allowlist {
		out := make([]allowlist, len(lists))
		for i, a := range lists {
			out[i] = compileAllowlist(a)
		}
		return out
	})
}

func noAllowlists() []allowlist { return nil }

func compileAllowlist(a Allowlist) allowlist {
	out := allowlist{all: a.All, target: a.RegexTarget}
	if len(a.Paths) > 0 {
		out.paths = joinRegexOr(a.Paths)
	}
	if len(a.Regexes) > 0 {
		out.regexes = joinRegexOr(a.Regexes)
	}
	if len(a.StopWords) > 0 {
		out.stopwords = newMatcher(a.StopWords)
	}
	return out
}

// longRepeat is a counted repetition with a large upper bound, compiled
// on the first call (by loosen, when a first rule is): not at every
// process's start.
var longRepeat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{(\d+),(\d{2,})\}`) })

// loosen returns an expression that matches wherever expr does, with the
// same groups, whose program is a fraction of the size: the leading
// [\w.-]{0,50}? of the assignment rules goes (a match starts at the key's
// keyword instead, with the same secret) and a repetition of more than 40
// loses its upper bound. Go's matcher costs the program's size times the
// text's length, and generic-api-key's program is large: 400 µs on a line
// of 200 bytes, against a tenth of that loosened.
func loosen(expr string) string {
	expr = strings.Replace(expr, `[\w.-]{0,50}?`, "", 1)
	return longRepeat().ReplaceAllStringFunc(expr, func(m string) string {
		sub := longRepeat().FindStringSubmatch(m)
		if len(sub[2]) > 2 || sub[2] > "40" {
			return "{" + sub[1] + ",}"
		}
		return m
	})
}

// joinRegexOr joins expressions as gitleaks does, into one group: a flag
// set inside one of them, (?i) say, goes on for the ones after it in the
// group, and that is what gitleaks runs.
func joinRegexOr(res []string) *regexp.Regexp {
	return regexp.MustCompile("(?:" + strings.Join(res, "|") + ")")
}

//go:generate sh -c "cd gen && go run . -o ../gitleaks_rules.go"

// The line scan's candidates, read out of the rules' expressions
// (candidates_table.go; see readCandidateRules), after the rules.
//go:generate go test -run ^TestCandidateTables$ -update .
