package prophet

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// unixTimeByFmt is unixTime as it was written first, with fmt: the
// reference FuzzUnixTime holds unixTime to.
func unixTimeByFmt(ts string) string {
	if ts == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(t.Unix(), 10) + "." + fmt.Sprintf("%06d", t.Nanosecond()/1000)
}

func FuzzUnixTime(f *testing.F) {
	for _, ts := range []string{"", "2025-12-19T20:29:02Z", "2025-12-19T20:29:02.5Z", "2025-12-19T20:29:02.123456789+02:00",
		"1969-12-31T23:59:59.999999Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.000001Z", "not a time"} {
		f.Add(ts)
	}
	f.Fuzz(func(t *testing.T, ts string) {
		if got, want := unixTime(ts), unixTimeByFmt(ts); got != want {
			t.Fatalf("unixTime(%q) = %q, want %q", ts, got, want)
		}
	})
}

// The remembered timestamp gives what unixTime and rfc3339 give, for
// each timestamp asked in turn, again or not.
func TestTimesRemembered(t *testing.T) {
	var c times
	for _, ts := range []string{"", "2025-12-19T20:29:02.000Z", "2025-12-19T20:29:02.000Z", "2025-12-19T20:29:02Z", "", "x", "2025-12-19T20:29:02.123456Z"} {
		if got := c.unix(ts); string(got) != unixTime(ts) {
			t.Errorf("unix(%q) = %q, want %q", ts, got, unixTime(ts))
		}
		if got, want := c.readBack(ts), rfc3339([]byte(unixTime(ts))) == ts; got != want {
			t.Errorf("readBack(%q) = %v, want %v", ts, got, want)
		}
	}
}

// FuzzUnixTimeUTC holds unixTimeUTC, the digits-only reading of the
// common form, to unixTime and to rfc3339 reading its result back.
func FuzzUnixTimeUTC(f *testing.F) {
	for _, ts := range []string{"2025-12-19T20:29:02Z", "2025-12-19T20:29:02.5Z", "2025-12-19T20:29:02.123Z", "2025-12-19T20:29:02.123000Z",
		"2025-12-19T20:29:02.123456Z", "2025-12-19T20:29:02.123456789Z", "2024-02-29T00:00:00.000Z", "2023-02-29T00:00:00.000Z",
		"1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999999Z", "2025-12-19T24:00:00Z", "2025-12-19T20:29:02.Z",
		"2025-12-19T20:29:02.1234567890Z", "2025-12-19t20:29:02Z", "2025-12-19T20:29:02+00:00", "+025-12-19T20:29:02Z"} {
		f.Add(ts)
	}
	f.Fuzz(func(t *testing.T, ts string) {
		text, back, ok := unixTimeUTC([]byte("kept:"), ts)
		if !ok {
			return
		}
		if string(text[:5]) != "kept:" {
			t.Fatalf("unixTimeUTC(%q) wrote over what it appends to: %q", ts, text)
		}
		text = text[5:]
		if want := unixTime(ts); string(text) != want {
			t.Fatalf("unixTimeUTC(%q) = %q, unixTime %q", ts, text, want)
		}
		if want := rfc3339(text) == ts; back != want {
			t.Fatalf("unixTimeUTC(%q) reads back %v, rfc3339 says %v (%q)", ts, back, want, rfc3339(text))
		}
	})
}

// FuzzRFC3339 holds rfc3339, which writes the common form from its
// digits, to rfc3339ByTime, which goes through strconv and time.Format,
// on any input.
func FuzzRFC3339(f *testing.F) {
	for _, v := range []string{"1734640142.123", "1734640142.123456", "1734640142.123456789", "1734640142.5", "1734640142",
		"1734640142.", "0", "0.000001", "0.0000001", "951782400", "951696000.1", "1709164800", "4107542400.25", "253402300799.999999999",
		"253402300800", "999999999999", "0001734640142", ".5", "1734640142.1234567891", "-1", "+5", "1e9", "1734640142.12a",
		"1734640142.-1", `"1734640142.123"`, ""} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if got, want := rfc3339(v), rfc3339ByTime(v); got != want {
			t.Fatalf("rfc3339(%q) = %q, through time %q", v, got, want)
		}
	})
}
