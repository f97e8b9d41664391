package analysis

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// Check runs every enabled rule over a document and returns the findings in
// report order: header findings, then line findings in file order, then the
// session-level I001 and I002. To follow a document through edits, keep an
// Analyzer instead.
func Check(t *grammar.Tree, cfg Config) []Finding {
	return NewAnalyzer(t).Findings(cfg)
}

type checker struct {
	t   *grammar.Tree
	cfg Config
	out []Finding
}

func (c *checker) add(code Code, span grammar.Span, msg string, related ...Related) *Finding {
	if !c.cfg.enabled(code) {
		return nil
	}
	r, _ := RuleFor(code)
	c.out = append(c.out, Finding{
		Code: code, Severity: c.cfg.severity(code, r.Severity), Span: span, Line: c.t.LineAt(span.Start), Message: msg, Related: related,
	})
	return &c.out[len(c.out)-1]
}

// headerAnchor is where findings about the whole header or session point:
// the opening "---", or the first line when there is no header.
func (c *checker) headerAnchor() grammar.Span {
	n := max(c.t.Region().HeaderStart, 0)
	l := c.t.Line(n)
	li, _ := c.t.Info(n) // the trimmed line: a byte order mark is not text
	return grammar.Span{Start: l.Start + li.Trim.Start, End: l.TrimEnd}
}

func (c *checker) header() {
	c.headerChecks()
	c.headerSecrets()
}

// headerSecrets reports credential-like values before the body (header
// fields, preamble notes); the chunk summaries cover the body.
func (c *checker) headerSecrets() {
	var matches []SecretMatch
	for l := range c.t.Lines() {
		if l.Num >= c.t.Region().BodyStart {
			break
		}
		matches = AppendSecrets(matches[:0], c.t.Text(l))
		for _, m := range matches {
			c.add(S001, grammar.Span{Start: l.Start + m.Start, End: l.Start + m.End}, m.Message())
		}
	}
}

func (c *checker) headerChecks() {
	h := c.t.Header()
	if !h.Present {
		c.add(E001, c.headerAnchor(), "Missing header start '---'")
		return
	}
	if !h.Closed {
		c.add(E002, c.headerAnchor(), "Missing header end '---'")
	}
	for _, e := range h.Errors {
		c.add(E003, e.Span, "YAML error: "+e.Message)
	}
	if len(h.Fields) == 0 && len(h.Errors) > 0 {
		return // the YAML could not be read: field checks would only repeat that
	}
	for _, key := range grammar.RequiredFields() {
		f := h.Field(key)
		var missing *Finding
		switch {
		case f == nil:
			missing = c.add(E004, c.headerAnchor(), "Missing required header field: "+key)
		case f.Kind == grammar.Null || f.Kind == grammar.Scalar && strings.TrimSpace(f.Value) == "":
			missing = c.add(E004, f.KeySpan, fmt.Sprintf("Missing required header field: %s (the value is empty)", key))
		}
		if missing != nil {
			missing.Field = key
		}
	}
	c.fieldTypes(h)
	if format, ok := h.Get("format"); ok && format != "" {
		f := h.Field("format")
		if version, isRlog := strings.CutPrefix(format, "rlog/"); !isRlog {
			c.add(E005, f.ValueSpan, "Invalid format version: "+format)
		} else if version != "1" && version != "1.0" {
			c.add(W008, f.ValueSpan, fmt.Sprintf("Unknown format version: %s (expected rlog/1)", format))
		}
	}
	if sha, ok := h.Get("repo_sha"); ok && sha != "" {
		f := h.Field("repo_sha")
		if len(sha) < 6 || len(sha) > 40 {
			c.add(W009, f.ValueSpan, fmt.Sprintf("repo_sha '%s' has unusual length (expected 6-40 hex chars)", sha))
		} else if !isHex(sha) {
			c.add(W009, f.ValueSpan, fmt.Sprintf("repo_sha '%s' contains non-hex characters (expected 6-40 hex chars)", sha))
		}
	}
	if mode, _ := h.Get("mode"); mode == "auto" {
		if v, ok := h.Get("sandbox_id"); !ok || v == "" {
			c.add(I003, h.Field("mode").ValueSpan, "Auto mode session without sandbox_id")
		}
	}
	if _, ok := h.Get("runner"); !ok {
		c.add(I004, c.headerAnchor(), "No runner specified (recommended for replay)")
	}
}

// fieldTypes checks the named header fields' values against their types
// (E006); fields rlog/1 does not name may hold anything.
func (c *checker) fieldTypes(h *grammar.Header) {
	for _, f := range h.Fields {
		spec, named := grammar.FieldSpecNamed(f.Key)
		if f.Kind == grammar.Null || !named {
			continue
		}
		var bad bool
		switch spec.Type {
		case grammar.FieldBool:
			bad = f.Tag != "!!bool"
		case grammar.FieldList:
			bad = f.Kind != grammar.Sequence
		case grammar.FieldCount:
			_, err := strconv.ParseUint(f.Value, 10, 64)
			bad = f.Kind != grammar.Scalar || err != nil
		case grammar.FieldString:
			bad = f.Kind != grammar.Scalar
		}
		if bad {
			c.add(E006, f.ValueSpan, fmt.Sprintf("Header field %s must be %s, not %s", f.Key, fieldTypeNames[spec.Type], describe(f)))
		}
	}
}

// fieldTypeNames say what a field's type wants, in E006's message.
var fieldTypeNames = map[grammar.FieldType]string{grammar.FieldBool: "a boolean (true or false)", grammar.FieldList: "a list",
	grammar.FieldCount: "a whole number", grammar.FieldString: "a single value"}

func describe(f grammar.HeaderField) string {
	switch f.Kind {
	case grammar.Sequence:
		return "a list"
	case grammar.Mapping:
		return "a mapping"
	}
	return fmt.Sprintf("%q", f.Value)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// verbSpan is the event name after @, hyphens included (@wait-approval).
func verbSpan(text []byte, l grammar.Line) grammar.Span {
	end := l.Name.End - l.Start
	for end+1 < len(text) && text[end] == '-' {
		e := end + 1
		for e < len(text) && (text[e] == '_' || text[e] == '-' || text[e] >= 'a' && text[e] <= 'z' ||
			text[e] >= 'A' && text[e] <= 'Z' || text[e] >= '0' && text[e] <= '9') {
			e++
		}
		if e == end+1 {
			break
		}
		end = e
	}
	return grammar.Span{Start: l.Name.Start, End: l.Start + end}
}

// cut shortens a line the way the reference's W003 message does: at most 50
// characters, else the first 47 and "...".
func cut(b []byte, n int) string {
	if utf8.RuneCount(b) <= n {
		return string(b)
	}
	i, k := 0, 0
	for ; k < n-3; k++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return string(b[:i]) + "..."
}

func invalidUTF8Span(b []byte) grammar.Span {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return grammar.Span{Start: i, End: i + 1}
		}
		i += size
	}
	return grammar.Span{}
}

// ValidTimestamp accepts RFC 3339 timestamps, with a Z or a numeric offset,
// and the reference's zone-less form; the date and time must exist.
func ValidTimestamp(b []byte) bool {
	if valid, ok := referenceTimestamp(b); ok {
		return valid
	}
	_, err := time.Parse(time.RFC3339Nano, string(b))
	return err == nil
}

// referenceTimestamp reads the form the reference validator accepts,
// \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z? (RFC 3339 in UTC, the Z
// optional), and reports whether that date and time exist; ok is false when
// b has another form. It reads the bytes in place: every ts= of a document
// comes through here.
func referenceTimestamp(b []byte) (valid, ok bool) {
	dt, shaped := grammar.ReadDateTime(b)
	if !shaped {
		return false, false
	}
	rest := b[len("YYYY-MM-DDTHH:MM:SS"):]
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return false, false
		}
		rest = rest[n:]
	}
	if len(rest) > 0 && rest[0] == 'Z' {
		rest = rest[1:]
	}
	if len(rest) > 0 {
		return false, false
	}
	return dt.Valid(), true
}

// Timestamp reads a timestamp as the session numbers read ts= values
// (timestampValue), for the exports that place events in time.
func Timestamp(s string) (time.Time, bool) { return timestampValue([]byte(s)) }

// timestampValue reads a ts= value ValidTimestamp accepts: the reference
// form (UTC, the Z optional) directly from the bytes, anything else as RFC
// 3339.
func timestampValue(b []byte) (time.Time, bool) {
	valid, ok := referenceTimestamp(b)
	if !ok {
		t, err := time.Parse(time.RFC3339Nano, string(b))
		return t, err == nil
	}
	if !valid {
		return time.Time{}, false
	}
	dt, _ := grammar.ReadDateTime(b)
	nsec := 0
	if len(b) > 19 && b[19] == '.' {
		scale := 100_000_000
		for _, c := range b[20:] {
			if c < '0' || c > '9' {
				break
			}
			nsec += int(c-'0') * scale
			scale /= 10
		}
	}
	return time.Date(dt.Year, time.Month(dt.Month), dt.Day, dt.Hour, dt.Minute, dt.Second, nsec, time.UTC), true
}
