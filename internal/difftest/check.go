package difftest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
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
// messages and places (check prints them in line order, the editor gets
// them in the analysis's order, so they are compared as sets). Under the
// cap, which check does not have, each one published must be one of
// check's, and the cap's last entry must count the rest.
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
	capped := false
	if limit := ss.settings.DiagnosticsMax; limit > 0 && len(want) > limit {
		if len(published) != limit+1 {
			return fmt.Sprintf("%d findings and a cap of %d, but %d diagnostics published", len(want), limit, len(published))
		}
		note := fmt.Sprintf("%d more diagnostics not shown", len(want)-limit)
		if last := published[limit].Message; !strings.HasPrefix(last, note) {
			return fmt.Sprintf("the cap's note says %q, want %q…", last, note)
		}
		published, capped = published[:limit], true
	}
	got := make([]finding, 0, len(published))
	for i, d := range published {
		start, end, err := ss.text.Span(d.Range)
		if err != nil {
			return fmt.Sprintf("diagnostic %d: %v", i, err)
		}
		code, _ := d.Code.(string)
		got = append(got, finding{start: start, end: end, severity: severityNames[d.Severity], code: code, message: d.Message})
	}
	byPlace := func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end), cmp.Compare(a.code, b.code),
			cmp.Compare(a.severity, b.severity), cmp.Compare(a.message, b.message))
	}
	slices.SortFunc(got, byPlace)
	slices.SortFunc(want, byPlace)
	if capped {
		// Each one published is one of check's (a multiset: walk both).
		j := 0
		for _, g := range got {
			for j < len(want) && byPlace(want[j], g) < 0 {
				j++
			}
			if j == len(want) || want[j] != g {
				return fmt.Sprintf("published under the cap, not found by check: %v", g)
			}
			j++
		}
		return ""
	}
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("%d diagnostics published, check finds %d; first not published: %v", len(got), len(want), want[i])
		case i >= len(want):
			return fmt.Sprintf("%d diagnostics published, check finds %d; first not found by check: %v", len(got), len(want), got[i])
		case got[i] != want[i]:
			return fmt.Sprintf("in place order, diagnostic %d:\n  published %v\n  check     %v", i, got[i], want[i])
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
