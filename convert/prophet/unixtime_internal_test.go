package prophet

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
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

// unixTimeByDateTime is unixTimeUTC as it was before it remembered a
// minute: every time read whole (grammar.ReadDateTime, Valid), its
// fraction checked by strings.Trim and made a number. FuzzUnixTimeUTC
// holds unixTimeUTC to it.
func unixTimeByDateTime(dst []byte, ts string) (text []byte, readBack, ok bool) {
	n := len(ts)
	if n < len("2006-01-02T15:04:05Z") || ts[n-1] != 'Z' {
		return nil, false, false
	}
	dt, shaped := grammar.ReadDateTime([]byte(ts[:19]))
	if !shaped || dt.Year < 1970 || !dt.Valid() {
		return nil, false, false
	}
	frac := ts[19 : n-1]
	if frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 || strings.Trim(frac[1:], "0123456789") != "" {
			return nil, false, false
		}
		frac = frac[1:]
	}
	micros := 0
	for i := range 6 {
		micros *= 10
		if i < len(frac) {
			micros += int(frac[i] - '0')
		}
	}
	unix := (daysFromCivil(dt.Year, dt.Month, dt.Day)*24+int64(dt.Hour))*3600 + int64(dt.Minute)*60 + int64(dt.Second)
	b := append(strconv.AppendInt(dst, unix, 10), '.')
	b = append(b, byte('0'+micros/100000), byte('0'+micros/10000%10), byte('0'+micros/1000%10),
		byte('0'+micros/100%10), byte('0'+micros/10%10), byte('0'+micros%10))
	readBack = len(frac) == 3 || len(frac) == 6 && micros%1000 != 0
	return b, readBack, true
}

// unixTimeSeeds are times at unixTimeUTC's edges: every length of
// fraction, leap days and days that are not, the ends of the range, each
// field out of range, other shapes, offsets other than Z.
var unixTimeSeeds = []string{"2025-12-19T20:29:02Z", "2025-12-19T20:29:02.5Z", "2025-12-19T20:29:02.123Z", "2025-12-19T20:29:02.123000Z",
	"2025-12-19T20:29:02.123456Z", "2025-12-19T20:29:02.123456789Z", "2024-02-29T00:00:00.000Z", "2023-02-29T00:00:00.000Z",
	"2000-02-29T12:00:00Z", "1900-02-29T12:00:00Z", "2100-02-29T12:00:00Z", "2025-04-31T00:00:00Z", "2025-13-01T00:00:00Z",
	"2025-00-01T00:00:00Z", "2025-01-00T00:00:00Z", "2025-12-19T23:59:59.999999999Z", "2025-12-19T20:60:00Z", "2025-12-19T20:29:60Z",
	"2025-12-19T20:29:5aZ", "2025-12-19T20:29:/0Z", "2025-12-19T20:29:02.12a4Z", "2025-12-19T20:29:02.Z", "2025-12-19T20:29:02..1Z",
	"1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999999Z", "2025-12-19T24:00:00Z",
	"2025-12-19T20:29:02.1234567890Z", "2025-12-19t20:29:02Z", "2025-12-19T20:29:02+00:00", "+025-12-19T20:29:02Z",
	"2025-12-19T20:29:02.12345Z", "2025-12-19T20:29:02.1234567Z", "2025-12-19T20:29:02.000001Z", "2025-12-19T20:29:02.000Z",
	"2025-12-19T20:29:02.100000Z", "2025-12-19T20:29:02.100000000Z", "2025-12-19T20:29:02λZ", "2025-12-19T20:29:02\xffZ", ""}

// FuzzUnixTimeUTC holds unixTimeUTC, the digits-only reading of the
// common form, to unixTimeByDateTime (what it was, as it says ok too),
// to unixTime and to rfc3339 reading its result back: for a time read
// after another (the same minute or not, remembered or not) and read
// first.
func FuzzUnixTimeUTC(f *testing.F) {
	for i, ts := range unixTimeSeeds {
		f.Add(unixTimeSeeds[(i+1)%len(unixTimeSeeds)], ts)
		f.Add(ts, ts)
	}
	f.Add("2025-12-19T20:29:02Z", "2025-12-19T20:29:59.5Z")
	f.Add("2025-12-19T20:29:02Z", "2025-12-19T20:29:60Z")
	f.Add("2025-12-19T20:29:02Z", "2025-12-19T20:29:0xZ")
	f.Fuzz(func(t *testing.T, before, ts string) {
		var c times
		c.unixTimeUTC(nil, before)
		checkUnixTimeUTC(t, &c, ts)
		checkUnixTimeUTC(t, &times{}, ts)
	})
}

// checkUnixTimeUTC fails t unless c.unixTimeUTC(ts) is what
// unixTimeByDateTime, unixTime and rfc3339 say.
func checkUnixTimeUTC(t *testing.T, c *times, ts string) {
	t.Helper()
	text, back, ok := c.unixTimeUTC([]byte("kept:"), ts)
	wantText, wantBack, wantOK := unixTimeByDateTime([]byte("kept:"), ts)
	if ok != wantOK || string(text) != string(wantText) || back != wantBack {
		t.Fatalf("unixTimeUTC(%q) = %q, %v, %v; read whole %q, %v, %v", ts, text, back, ok, wantText, wantBack, wantOK)
	}
	if !ok {
		return
	}
	text = text[5:]
	if want := unixTime(ts); string(text) != want {
		t.Fatalf("unixTimeUTC(%q) = %q, unixTime %q", ts, text, want)
	}
	if want := rfc3339(text) == ts; back != want {
		t.Fatalf("unixTimeUTC(%q) reads back %v, rfc3339 says %v (%q)", ts, back, want, rfc3339(text))
	}
}

// TestUnixTimeUTCEdges reads every seed after every seed, and each
// second and fraction length of one minute after each other.
func TestUnixTimeUTCEdges(t *testing.T) {
	for _, before := range unixTimeSeeds {
		for _, ts := range unixTimeSeeds {
			var c times
			c.unixTimeUTC(nil, before)
			checkUnixTimeUTC(t, &c, ts)
		}
	}
	var c times
	for sec := range 61 {
		for digits := range 11 {
			ts := fmt.Sprintf("2024-02-29T23:59:%02d", sec)
			if digits > 0 {
				ts += "." + "9876543210"[:digits]
			}
			checkUnixTimeUTC(t, &c, ts+"Z")
		}
	}
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

// TestAppendSeconds holds appendSeconds to strconv.AppendInt for numbers
// read one after another: each hundred's numbers in turn and back, every
// number up to 1000, the powers of ten and their neighbours (a hundred
// of one more digit), jumps forth and back, and the largest a time of
// four-digit years has.
func TestAppendSeconds(t *testing.T) {
	var secs []int64
	for n := int64(0); n <= 1000; n++ {
		secs = append(secs, n)
	}
	for n := int64(1000); n >= 0; n -= 7 {
		secs = append(secs, n)
	}
	for p := int64(100); p <= 1e12; p *= 10 {
		secs = append(secs, p-101, p-1, p, p+1, p-100, p+99, p+100, 1766176142, p)
	}
	secs = append(secs, maxDigitsUnix-1, maxDigitsUnix-2, 0, 99, 100, 99)
	var c times
	for _, sec := range secs {
		got := c.appendSeconds([]byte("kept:"), sec)
		if want := strconv.AppendInt([]byte("kept:"), sec, 10); string(got) != string(want) {
			t.Fatalf("appendSeconds(%d) = %s, want %s", sec, got, want)
		}
	}
}
