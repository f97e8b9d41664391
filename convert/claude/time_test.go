package claude

import (
	"testing"
	"time"
)

// FuzzClaudeTime holds claudeTime's shortcut to what parsing and
// formatting the time makes of a timestamp.
func FuzzClaudeTime(f *testing.F) {
	for _, s := range []string{"2025-12-19T20:29:02Z", "2025-12-19T20:29:02.123Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
		"2025-12-19T24:00:00Z", "2025-12-19T23:59:60Z", "2025-13-01T00:00:00Z", "0000-01-01T00:00:00Z", "2025-12-19T20:29:02.12xZ",
		"2025-12-19 20:29:02Z", "2025-12-19T20:29:02+01:00", "+025-12-19T20:29:02Z", "2025-1a-19T20:29:02Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := claudeTime(s)
		if !ok {
			return
		}
		pt, pok := parseTime(s)
		if !pok || pt.Nanosecond()%int(time.Millisecond) != 0 {
			t.Fatalf("claudeTime(%q) = %q, but it does not parse to whole milliseconds (%v)", s, got, pok)
		}
		if want := pt.UTC().Format(claudeTimeLayout); got != want {
			t.Fatalf("claudeTime(%q) = %q, want %q", s, got, want)
		}
	})
}
