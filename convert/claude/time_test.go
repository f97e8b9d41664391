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

// timeForm, after a timestamp it took, answers as claudeTimeForm for
// every byte (each of 0 to 255) at every place of a timestamp of the same
// minute, of both forms, and for those shortened and lengthened: what
// follows the minute is checked again, and a timestamp of another
// minute, or one not taken, is checked whole.
func TestTimeFormAsClaudeTimeForm(t *testing.T) {
	for _, base := range []string{"2024-02-29T23:59:59Z", "2024-02-29T23:59:59.999Z", "2023-02-28T00:00:00.000Z"} {
		var variants []string
		for i := range len(base) {
			for c := range 256 {
				variants = append(variants, base[:i]+string(byte(c))+base[i+1:])
			}
		}
		for n := range len(base) + 4 {
			variants = append(variants, (base + "Z.00")[:n])
		}
		for _, v := range variants {
			wr := &Writer{}
			checkTimeForm(t, wr, base)
			checkTimeForm(t, wr, v)
			checkTimeForm(t, wr, base[:17]+"00Z")
		}
	}
}

// FuzzTimeFormAsClaudeTimeForm holds timeForm to claudeTimeForm over
// three timestamps in turn, twice.
func FuzzTimeFormAsClaudeTimeForm(f *testing.F) {
	f.Add("2025-12-19T20:29:02Z", "2025-12-19T20:29:59.123Z", "2025-12-19T20:29:60Z")
	f.Add("2023-02-28T10:00:00Z", "2023-02-29T10:00:00Z", "2023-02-28T10:00:0xZ")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		wr := &Writer{}
		for range 2 {
			for _, s := range []string{a, b, c} {
				checkTimeForm(t, wr, s)
			}
		}
	})
}

func checkTimeForm(t *testing.T, wr *Writer, s string) {
	t.Helper()
	frac, ok := wr.timeForm(s)
	if wantFrac, wantOK := claudeTimeForm(s); frac != wantFrac || ok != wantOK {
		t.Fatalf("timeForm(%q) = %v, %v after %q; claudeTimeForm: %v, %v", s, frac, ok, wr.minuteIn, wantFrac, wantOK)
	}
}
