package analysis

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// validTimestampByParsing is ValidTimestamp as the reference's regular
// expression and the time package decide it; the byte reader must agree.
func validTimestampByParsing(s string) bool {
	if regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z?$`).MatchString(s) {
		layout := "2006-01-02T15:04:05"
		if i := strings.IndexByte(s, '.'); i >= 0 {
			layout += "." + strings.Repeat("9", len(strings.TrimSuffix(s[i+1:], "Z")))
		}
		_, err := time.Parse(layout, strings.TrimSuffix(s, "Z"))
		return err == nil
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

var timestampSeeds = []string{
	"2025-12-19T20:29:02Z", "2025-12-19T20:29:02", "2025-12-19T20:29:02.123456789Z", "2025-12-19T20:29:02.1",
	"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
	"2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z", "2025-01-00T00:00:00Z",
	"2025-01-01T24:00:00Z", "2025-01-01T23:60:00Z", "2025-01-01T23:59:60Z", "0000-01-01T00:00:00Z",
	"2025-12-19T20:29:02.Z", "2025-12-19T20:29:02ZZ", "2025-12-19T20:29:02+02:00", "2025-12-19T20:29:02.5-07:30",
	"2025-12-19 20:29:02Z", "2025-12-19t20:29:02z", "２025-12-19T20:29:02Z", "yesterday", "", "2025-12-19T20:29:0",
}

func TestReferenceTimestampMatchesParsing(t *testing.T) {
	for _, s := range timestampSeeds {
		if got, want := ValidTimestamp([]byte(s)), validTimestampByParsing(s); got != want {
			t.Errorf("ValidTimestamp(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzReferenceTimestamp(f *testing.F) {
	for _, s := range timestampSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidTimestamp([]byte(s)), validTimestampByParsing(s); got != want {
			t.Fatalf("ValidTimestamp(%q) = %v, want %v", s, got, want)
		}
	})
}
