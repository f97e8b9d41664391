package claude

import (
	"fmt"
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

// claudeTimeForm takes a day exactly when time.Date keeps it: every day
// from 0 to 32 of every month of common and leap years, centuries among
// them, and the first and last years of four digits.
func TestClaudeTimeFormDays(t *testing.T) {
	for _, y := range []int{0, 1, 4, 100, 1900, 2000, 2023, 2024, 2100, 2400, 9999} {
		for mo := 1; mo <= 12; mo++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02dT12:34:56Z", y, mo, d)
				_, ok := claudeTimeForm(s)
				want := d >= 1 && time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Day() == d
				if ok != want {
					t.Fatalf("claudeTimeForm(%q) ok = %v, want %v", s, ok, want)
				}
			}
		}
	}
}

// A byte that is not a digit in place of any digit of the date and time
// is not taken (the bytes next to '0' and '9' among them).
func TestClaudeTimeFormDigits(t *testing.T) {
	for _, base := range []string{"2024-02-29T23:59:59Z", "2024-02-29T23:59:59.999Z"} {
		for i := range len(base) {
			if base[i] < '0' || base[i] > '9' {
				continue
			}
			for _, c := range []byte{'/', ':', 'a', ' ', 0, 0xff, '0' - 1, '9' + 1} {
				s := base[:i] + string(c) + base[i+1:]
				if _, ok := claudeTimeForm(s); ok {
					t.Fatalf("claudeTimeForm(%q) is ok", s)
				}
			}
		}
		if _, ok := claudeTimeForm(base); !ok {
			t.Fatalf("claudeTimeForm(%q) is not ok", base)
		}
	}
}
