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

// Code names a diagnostic rule: the letter of its default severity and a
// number (docs/diagnostics.md has a section for each).
type Code string

// The codes, each a Rules entry.
const (
	E001 Code = "E001"
	E002 Code = "E002"
	E003 Code = "E003"
	E004 Code = "E004"
	E005 Code = "E005"
	E006 Code = "E006"
	E007 Code = "E007"
	W001 Code = "W001"
	W002 Code = "W002"
	W003 Code = "W003"
	W004 Code = "W004"
	W005 Code = "W005"
	W006 Code = "W006"
	W007 Code = "W007"
	W008 Code = "W008"
	W009 Code = "W009"
	W010 Code = "W010"
	W011 Code = "W011"
	W012 Code = "W012"
	W013 Code = "W013"
	W014 Code = "W014"
	W015 Code = "W015"
	H001 Code = "H001"
	H002 Code = "H002"
	S001 Code = "S001"
	I001 Code = "I001"
	I002 Code = "I002"
	I003 Code = "I003"
	I004 Code = "I004"
	I005 Code = "I005"
	I006 Code = "I006"
)

// Scope is where a rule is checked: the facts it needs, and so the one
// function that makes its findings.
type Scope uint8

const (
	// InBytes rules read the bytes before they are parsed: CheckBinary
	// (binary.go).
	InBytes Scope = iota + 1
	// InHeader rules read the header: checker.headerChecks (check.go).
	InHeader
	// InLine rules read one line at a time: summarizeChunk (summary.go);
	// a line rule that also reads the header's lines (S001) is called
	// from checker.header too.
	InLine
	// InCalls rules follow a call id across lines: resolveChunk
	// (incremental.go), from each chunk's id facts.
	InCalls
	// InSequence rules compare a line with the lines before it and the
	// session as a whole: within a chunk in summarizeChunk, across chunks
	// in sequenceRules (sequence.go).
	InSequence
	// InCompanion rules join the log to its lossless companion: the
	// companion package's joiner.
	InCompanion
)

// Rule is one diagnostic code: everything about it but the check itself
// (which Scope places) and its documentation (docs/diagnostics.md, with
// its cases in testdata/rules/CODE.txtar).
type Rule struct {
	Code     Code
	Severity Severity // the default; Config changes it
	Title    string
	Scope    Scope
	// Reference is true for the codes the reference validator has.
	Reference bool
	// Provisional findings can be taken back by lines still to come (a
	// call completed later, an @start or @end yet to be written): who
	// follows a growing log reports them when the session is summarised.
	Provisional bool
	// Fix is the rule's quick fix; nil when it has none.
	Fix *QuickFix
}

// Rules lists every code rlog-ls reports, in report order. docs/diagnostics.md
// documents each one (a test keeps the two in step).
var Rules = []Rule{
	{Code: E001, Severity: Error, Title: "Missing header start", Scope: InHeader},
	{Code: E002, Severity: Error, Title: "Missing header end", Scope: InHeader},
	{Code: E003, Severity: Error, Title: "Header is not valid YAML", Scope: InHeader},
	{Code: E004, Severity: Error, Title: "Missing required header field", Scope: InHeader, Fix: &addHeaderFieldFix},
	{Code: E005, Severity: Error, Title: "Invalid format", Scope: InHeader},
	{Code: E006, Severity: Error, Title: "Header field has the wrong type", Scope: InHeader},
	{Code: E007, Severity: Error, Title: "Binary file", Scope: InBytes},
	{Code: W008, Severity: Warning, Title: "Unknown format version", Scope: InHeader, Reference: true},
	{Code: W009, Severity: Warning, Title: "Unusual repo_sha", Scope: InHeader, Reference: true},
	{Code: I003, Severity: Info, Title: "Auto mode without sandbox_id", Scope: InHeader, Reference: true},
	{Code: I004, Severity: Info, Title: "No runner", Scope: InHeader, Reference: true},
	{Code: W001, Severity: Warning, Title: "Tool progress references an unknown call id", Scope: InCalls, Reference: true},
	{Code: W002, Severity: Warning, Title: "Observation references an unknown call id", Scope: InCalls, Reference: true},
	{Code: W003, Severity: Warning, Title: "Unknown line format", Scope: InLine, Reference: true},
	{Code: W004, Severity: Warning, Title: "Step number decreases", Scope: InSequence, Reference: true, Fix: &renumberStepsFix},
	{Code: W005, Severity: Warning, Title: "Invalid timestamp", Scope: InLine, Reference: true},
	{Code: W006, Severity: Warning, Title: "Blob sha256 too short", Scope: InLine, Reference: true},
	{Code: W007, Severity: Warning, Title: "Tool start without completion", Scope: InCalls, Reference: true, Provisional: true},
	{Code: W010, Severity: Warning, Title: "Call id started twice", Scope: InCalls},
	{Code: W011, Severity: Warning, Title: "ASCII arrow where the result arrow was meant", Scope: InLine, Fix: &resultArrowFix},
	{Code: W012, Severity: Warning, Title: "Invalid UTF-8", Scope: InLine},
	{Code: W013, Severity: Warning, Title: "NUL byte", Scope: InLine},
	{Code: W014, Severity: Warning, Title: "Companion of another session", Scope: InCompanion},
	{Code: W015, Severity: Warning, Title: "Companion line cannot be read", Scope: InCompanion},
	{Code: H001, Severity: Hint, Title: "Unknown lifecycle event", Scope: InLine},
	{Code: H002, Severity: Hint, Title: "Non-standard redaction marker", Scope: InLine},
	{Code: S001, Severity: Error, Title: "Possible credential in the log", Scope: InLine},
	{Code: I001, Severity: Info, Title: "Long session without @start", Scope: InSequence, Reference: true, Provisional: true},
	{Code: I002, Severity: Info, Title: "@start without @end", Scope: InSequence, Reference: true, Provisional: true, Fix: &addEndFix},
	{Code: I005, Severity: Info, Title: "Not in the companion", Scope: InCompanion},
	{Code: I006, Severity: Info, Title: "Only in the companion", Scope: InCompanion},
}

// RuleFor returns the rule for a code.
func RuleFor(code Code) (Rule, bool) {
	for _, r := range Rules {
		if r.Code == code {
			return r, true
		}
	}
	return Rule{}, false
}

// Config selects which rules run and how severe their findings are.
type Config struct {
	// Disabled codes are not reported. The keys of both maps are codes as
	// strings, upper case: what users configure.
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
		if _, ok := RuleFor(Code(c)); !ok {
			unknown = append(unknown, c)
			continue
		}
		cfg.Disabled[c] = true
	}
	return cfg, unknown
}

func (c Config) enabled(code Code) bool { return !c.Disabled[string(code)] }

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
func (c Config) severity(code Code, def Severity) Severity {
	if s, ok := c.Severities[string(code)]; ok {
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
		if _, ok := RuleFor(Code(code)); !ok {
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
	Code     Code
	Severity Severity
	Span     grammar.Span // byte range; may be empty (a point)
	Line     int          // 0-based line of Span.Start
	Message  string
	Related  []Related
	// Field is the header field the finding is about, when it is about
	// one (E004: the missing field, which its fix adds).
	Field string

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
