// Package analysis turns a parsed rlog/1 document into findings, statistics,
// a symbol index and an outline. It is pure: no LSP types, no I/O, byte
// offsets in and out.
package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// Severity follows the LSP numbering, so the server maps it one to one.
type Severity uint8

const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
	Hint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	case Hint:
		return "hint"
	}
	return "unknown"
}

// ParseSeverity reads "error", "warning", "info" or "hint".
func ParseSeverity(s string) (Severity, bool) {
	switch strings.ToLower(s) {
	case "error":
		return Error, true
	case "warning", "warn":
		return Warning, true
	case "info", "information":
		return Info, true
	case "hint":
		return Hint, true
	}
	return 0, false
}

// Rule describes one diagnostic code.
type Rule struct {
	Code     string
	Severity Severity
	Title    string
	// Reference is true for the codes the reference validator has.
	Reference bool
}

// Rules lists every code rlog-ls reports, in report order. docs/diagnostics.md
// documents each one (a test keeps the two in step).
var Rules = []Rule{
	{"E001", Error, "Missing header start", false},
	{"E002", Error, "Missing header end", false},
	{"E003", Error, "Header is not valid YAML", false},
	{"E004", Error, "Missing required header field", false},
	{"E005", Error, "Invalid format", false},
	{"E006", Error, "Header field has the wrong type", false},
	{"E007", Error, "Binary file", false},
	{"W008", Warning, "Unknown format version", true},
	{"W009", Warning, "Unusual repo_sha", true},
	{"I003", Info, "Auto mode without sandbox_id", true},
	{"I004", Info, "No runner", true},
	{"W001", Warning, "Tool progress references an unknown call id", true},
	{"W002", Warning, "Observation references an unknown call id", true},
	{"W003", Warning, "Unknown line format", true},
	{"W004", Warning, "Step number decreases", true},
	{"W005", Warning, "Invalid timestamp", true},
	{"W006", Warning, "Blob sha256 too short", true},
	{"W007", Warning, "Tool start without completion", true},
	{"W010", Warning, "Call id started twice", false},
	{"W011", Warning, "ASCII arrow where the result arrow was meant", false},
	{"W012", Warning, "Invalid UTF-8", false},
	{"W013", Warning, "NUL byte", false},
	{"W014", Warning, "Companion of another session", false},
	{"W015", Warning, "Companion line cannot be read", false},
	{"H001", Hint, "Unknown lifecycle event", false},
	{"H002", Hint, "Non-standard redaction marker", false},
	{"S001", Error, "Possible credential in the log", false},
	{"I001", Info, "Long session without @start", true},
	{"I002", Info, "@start without @end", true},
	{"I005", Info, "Not in the companion", false},
	{"I006", Info, "Only in the companion", false},
}

// RuleFor returns the rule for a code.
func RuleFor(code string) (Rule, bool) {
	for _, r := range Rules {
		if r.Code == code {
			return r, true
		}
	}
	return Rule{}, false
}

// Config selects which rules run and how severe their findings are.
type Config struct {
	// Disabled codes are not reported.
	Disabled map[string]bool
	// Severities overrides the severity of the codes it names.
	Severities map[string]Severity
}

// DisableCodes returns a Config with the given codes disabled; it reports
// codes it does not know so callers can tell the user.
func DisableCodes(codes []string) (Config, []string) {
	cfg := Config{Disabled: map[string]bool{}}
	var unknown []string
	for _, c := range codes {
		c = strings.ToUpper(strings.TrimSpace(c))
		if c == "" {
			continue
		}
		if _, ok := RuleFor(c); !ok {
			unknown = append(unknown, c)
			continue
		}
		cfg.Disabled[c] = true
	}
	return cfg, unknown
}

func (c Config) enabled(code string) bool { return !c.Disabled[code] }

// Apply returns f as this configuration reports it: with its code's
// severity, or ok false when the code is disabled. For findings made
// outside the rules (the companion's).
func (c Config) Apply(f Finding) (Finding, bool) {
	if !c.enabled(f.Code) {
		return f, false
	}
	r, _ := RuleFor(f.Code)
	f.Severity = c.severity(f.Code, r.Severity)
	return f, true
}

// severity is the severity a finding of code is reported with.
func (c Config) severity(code string, def Severity) Severity {
	if s, ok := c.Severities[code]; ok {
		return s
	}
	return def
}

// SetSeverities returns c with the severities of levels (code → level
// name, as users write them: {"S001": "warning"}) set over its own. It
// reports each entry it cannot use, unknown codes and levels alike, and
// keeps the others.
func (c Config) SetSeverities(levels map[string]string) (Config, []string) {
	out := c
	out.Severities = make(map[string]Severity, len(c.Severities)+len(levels))
	for code, s := range c.Severities {
		out.Severities[code] = s
	}
	codes := make([]string, 0, len(levels))
	for code := range levels {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	var problems []string
	for _, raw := range codes {
		code := strings.ToUpper(strings.TrimSpace(raw))
		if _, ok := RuleFor(code); !ok {
			problems = append(problems, fmt.Sprintf("unknown code %q", raw))
			continue
		}
		sev, ok := ParseSeverity(strings.TrimSpace(levels[raw]))
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: unknown severity %q (error, warning, info or hint)", code, levels[raw]))
			continue
		}
		out.Severities[code] = sev
	}
	return out, problems
}

// Finding is one diagnostic with its exact place in the document.
type Finding struct {
	Code     string
	Severity Severity
	Span     grammar.Span // byte range; may be empty (a point)
	Line     int          // 0-based line of Span.Start
	Message  string
	Related  []Related

	// startedTwice is, on a W010 finding until it is emitted, the call id:
	// the message names the line of the id's first start, which edits
	// above it move, so it is written when the findings are listed.
	startedTwice string
}

// Related points at another place that explains a finding.
type Related struct {
	Span    grammar.Span
	Line    int
	Message string
}

func isKnownVerb(v string) bool {
	_, ok := grammar.VerbNamed(v)
	return ok
}

// closestVerb suggests a known verb for a misspelt one.
func closestVerb(v string) string {
	best, bestDist := "", 3
	for _, verb := range grammar.Verbs {
		k := verb.Name
		if strings.HasPrefix(v, k) || strings.HasPrefix(k, v) {
			return k
		}
		if d := editDistance(v, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
