package difftest

import (
	"fmt"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// finding is a diagnostic or a check finding in byte offsets, so that the
// two, which count lines and columns differently, can be compared.
type finding struct {
	start, end     int
	severity, code string
	message        string
}

func (f finding) String() string {
	return fmt.Sprintf("[%d,%d) %s %s %q", f.start, f.end, f.severity, f.code, f.message)
}

var severityNames = map[protocol.DiagnosticSeverity]string{
	protocol.DiagnosticSeverityError: "error", protocol.DiagnosticSeverityWarning: "warning",
	protocol.DiagnosticSeverityInformation: "info", protocol.DiagnosticSeverityHint: "hint",
}

// compareWithCheck compares the published diagnostics with check's
// findings for the same text and settings: the same codes, severities,
// messages and places, in the same order (up to the cap, which check does
// not have, and whose last entry must count the rest).
func (ss *session) compareWithCheck(published []protocol.Diagnostic) string {
	found, err := ss.o.Check(ss.text.Bytes(), ss.settings.DisabledCodes)
	if err != nil {
		return fmt.Sprintf("check failed: %v", err)
	}
	want := make([]finding, 0, len(found))
	lines := checkLines(ss.text.Bytes())
	for _, f := range found {
		want = append(want, finding{
			start: checkOffset(ss.text.Bytes(), lines, f.Line, f.Column), end: checkOffset(ss.text.Bytes(), lines, f.EndLine, f.EndColumn),
			severity: f.Severity, code: f.Code, message: f.Message,
		})
	}
	limit := ss.settings.DiagnosticsMax
	if limit > 0 && len(want) > limit {
		if len(published) != limit+1 {
			return fmt.Sprintf("%d findings and a cap of %d, but %d diagnostics published", len(want), limit, len(published))
		}
		note := fmt.Sprintf("%d more diagnostics not shown", len(want)-limit)
		if last := published[limit].Message; len(last) < len(note) || last[:len(note)] != note {
			return fmt.Sprintf("the cap's note says %q, want %q…", last, note)
		}
		published, want = published[:limit], want[:limit]
	}
	if len(published) != len(want) {
		return fmt.Sprintf("%d diagnostics published, check finds %d%s", len(published), len(want), firstExtra(published, want, ss.text))
	}
	for i, d := range published {
		start, end, err := ss.text.Span(d.Range)
		if err != nil {
			return fmt.Sprintf("diagnostic %d: %v", i, err)
		}
		code, _ := d.Code.(string)
		got := finding{start: start, end: end, severity: severityNames[d.Severity], code: code, message: d.Message}
		if got != want[i] {
			return fmt.Sprintf("diagnostic %d:\n  published %v\n  check     %v", i, got, want[i])
		}
	}
	return ""
}

func firstExtra(published []protocol.Diagnostic, want []finding, t *Text) string {
	for i := range max(len(published), len(want)) {
		switch {
		case i >= len(published):
			return fmt.Sprintf("; first not published: %v", want[i])
		case i >= len(want):
			return fmt.Sprintf("; first not found by check: %s %v %q", published[i].Code, published[i].Range, published[i].Message)
		}
		if code, _ := published[i].Code.(string); code != want[i].code {
			return fmt.Sprintf("; first difference at %d: %s %v, check %v", i, code, published[i].Range, want[i])
		}
	}
	return ""
}

// checkLines are where check's lines start: after each "\n" only (a lone
// CR is text in them).
func checkLines(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// checkOffset is the offset of check's 1-based line and column: its
// columns count characters (an invalid byte is one), up to the end of the
// line's text.
func checkOffset(b []byte, lines []int, line, col int) int {
	if line < 1 || line > len(lines) {
		return len(b)
	}
	off := lines[line-1]
	end := len(b)
	if line < len(lines) {
		end = lines[line] - 1
		if end > off && b[end-1] == '\r' {
			end--
		}
	}
	for c := 1; c < col && off < end; c++ {
		_, size := utf8.DecodeRune(b[off:end])
		off += size
	}
	return off
}
