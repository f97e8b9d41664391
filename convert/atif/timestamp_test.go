package atif

import (
	"bytes"
	"strconv"
	"testing"
)

// validTimestampPlain is ValidTimestamp as it was written first, with
// closures and strconv.Atoi per field: the reference the fast one is held
// to.
func validTimestampPlain(s string) bool {
	b := []byte(s)
	digits := func(i, n int) bool {
		if i+n > len(b) {
			return false
		}
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	num := func(i, n int) int { v, _ := strconv.Atoi(string(b[i : i+n])); return v }
	if !digits(0, 4) || len(b) < 10 || b[4] != '-' || !digits(5, 2) || b[7] != '-' || !digits(8, 2) {
		return false
	}
	if m, d := num(5, 2), num(8, 2); m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	if len(b) == 10 {
		return true
	}
	if b[10] != 'T' && b[10] != ' ' {
		return false
	}
	i := 11
	if !digits(i, 2) || i+2 >= len(b) || b[i+2] != ':' || !digits(i+3, 2) {
		return false
	}
	if num(i, 2) > 23 || num(i+3, 2) > 59 {
		return false
	}
	i += 5
	if i < len(b) && b[i] == ':' {
		if !digits(i+1, 2) || num(i+1, 2) > 59 {
			return false
		}
		i += 3
		if i < len(b) && (b[i] == '.' || b[i] == ',') {
			j := i + 1
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			if j == i+1 {
				return false
			}
			i = j
		}
	}
	rest := b[i:]
	switch {
	case len(rest) == 0, bytes.Equal(rest, []byte("Z")):
		return true
	case rest[0] == '+' || rest[0] == '-':
		r := rest[1:]
		if len(r) != 5 && len(r) != 8 && len(r) != 4 {
			return false
		}
		if len(r) == 4 {
			return digits(i+1, 4)
		}
		return digits(i+1, 2) && r[2] == ':' && digits(i+4, 2)
	}
	return false
}

// timestampSeeds are times at every edge ValidTimestamp has: each form,
// each field at its bounds and one past, every separator, offsets of each
// length, fractions, and bytes that are not digits (a slash, a colon,
// letters, invalid UTF-8, an emoji).
var timestampSeeds = []string{
	"", "2025", "2025-01-01", "2025-01-01T", "2025-01-01 10:00", "2025-01-01T10:00",
	"2026-02-09T20:41:09.682063+00:00", "2025-12-11T22:17:50.071Z", "2025-12-11T22:17:50Z",
	"2025-13-01T00:00:00Z", "2025-00-01", "2025-12-00", "2025-12-31", "2025-12-32",
	"2025-01-01T25:00:00Z", "2025-01-01T23:59:59Z", "2025-01-01T24:00", "2025-01-01T23:60",
	"2025-01-01T23:59:60", "2025-01-01T10:00:00.Z", "2025-01-01T10:00:00,5", "2025-01-01T10:00:00.",
	"2025-01-01T10:00:00+0", "2025-01-01T10:00:00+0000", "2025-01-01T10:00:00-05:30",
	"2025-01-01T10:00:00+05:30:15", "2025-01-01T10:00:00+05:30xyz", "2025-01-01T10:00:00+05:3",
	"2025-01-01T10:00+05:30", "2025-01-01T10:00Z", "2025-01-01T10:00:0", "2025-01-01T10:00:",
	"2025-01-01T10:00:00ZZ", "2025-01-01t10:00:00Z", "2025/01/01", "202a-01-01", "2025-0a-01",
	"2025-01-0a", "2025-01-01T1a:00", "2025-01-01T10:0a", "2025-01-01T10:00:0a", "2025-01-01T10:00:00.123456789Z",
	"2025-01-01T10:00:00+0a:00", "2025-01-01T10:00:00+00:0a", "2025-01-01T10:00:00+00000",
	"2025-01-01T10:00:00\xff", "2025-01-01T10:00:00😀", "２025-01-01", "2025-01-01T10:00:00+00:00\r\n",
	"/025-01-01", ":025-01-01", "2025-01-01T1:00", "2025-01-01T10:00:00+00;00",
}

// TestValidTimestampMatchesPlain holds ValidTimestamp to
// validTimestampPlain on every seed and every prefix of each (every
// length from 0), and with each byte of each seed replaced by the bytes
// around a digit ('/', '0', '9', ':').
func TestValidTimestampMatchesPlain(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := ValidTimestamp(s), validTimestampPlain(s); got != want {
			t.Errorf("ValidTimestamp(%q) = %v, the plain one %v", s, got, want)
		}
	}
	for _, s := range timestampSeeds {
		for n := 0; n <= len(s); n++ {
			check(s[:n])
		}
		for i := range len(s) {
			for _, c := range []byte{'/', '0', '9', ':', '.', '+', '-', 'Z', 'T', ' '} {
				b := []byte(s)
				b[i] = c
				check(string(b))
			}
		}
	}
}

// FuzzValidTimestamp holds ValidTimestamp to validTimestampPlain for any
// string.
func FuzzValidTimestamp(f *testing.F) {
	for _, s := range timestampSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidTimestamp(s), validTimestampPlain(s); got != want {
			t.Fatalf("ValidTimestamp(%q) = %v, the plain one %v", s, got, want)
		}
	})
}
