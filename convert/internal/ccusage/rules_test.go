package ccusage

import (
	"os"
	"strings"
	"testing"
)

// The totals real ccusage 20.0.24 reports for each fixture (checked with
// TestRealCcusageAgreesOnFixtures when RLOG_CCUSAGE is set).
func TestCountFixtures(t *testing.T) {
	for _, c := range []struct {
		file string
		want Totals
	}{
		// Repeated usage lines count once per message (the larger copy),
		// lines without a message id each count, missing keys and allowed
		// nulls are fine, keys ccusage does not read may repeat or hold
		// invalid UTF-8.
		{"counted.jsonl", Totals{Input: 41, Output: 40, CacheCreate: 100, CacheRead: 1000, Entries: 9}},
		// One line per rule: nothing counts.
		{"skipped.jsonl", Totals{}},
		// Request ids split a message id; a main-chain line wins over a
		// sidechain copy; cache_creation buckets replace the flat count.
		{"dedupe.jsonl", Totals{Input: 33, Output: 43, CacheCreate: 10, Entries: 6}},
	} {
		f, err := os.Open("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		got, skips, err := Count(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: got %v, want %v (skipped %v)", c.file, got, c.want, skips)
		}
	}
}

// TestSkipRules: each line of skipped.jsonl is skipped for its own rule.
func TestSkipRules(t *testing.T) {
	f, err := os.Open("testdata/skipped.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, skips, err := Count(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`line 2: version: "rlog-ls-import"`,
		`line 3: empty-string: sessionId`,
		`line 4: empty-string: message.model`,
		`line 5: empty-string: message.id`,
		`line 6: empty-string: requestId`,
		`line 7: timestamp: "2025-06-01T10:00:00.123456Z"`,
		`line 8: timestamp: "2025-06-01T10:00:00.1Z"`,
		`line 9: timestamp: "2025-06-01T10:00:00"`,
		`line 10: shape: no timestamp`,
		`line 11: null-field: "cwd":null`,
		`line 12: null-field: "id":null`,
		`line 13: shape: message.usage.input_tokens is not an unsigned integer`,
		`line 14: shape: message.usage.input_tokens is not an unsigned integer`,
		`line 15: shape: message.usage lacks input_tokens or output_tokens`,
		`line 16: shape: costUSD is not a number`,
		`line 17: timestamp: "2025-02-30T10:00:00.000Z"`,
		`line 18: shape: message.usage.speed is not standard or fast`,
		`line 19: shape: version is not a string`,
		`line 20: usage-not-compact: "usage" object not written as "usage":{`,
		`line 21: shape: duplicate field sessionId`,
		`line 22: shape: message.model is not a string`,
		`line 23: shape: invalid JSON at byte 38: unexpected end of input`,
	}
	var got []string
	for _, s := range skips {
		got = append(got, s.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("skips:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCountProject: sessions and sub-agent transcripts of one project
// folder, with messages repeated across files.
func TestCountProject(t *testing.T) {
	got, err := CountProject("testdata/project")
	if err != nil {
		t.Fatal(err)
	}
	// msg_1 once across three files (same request id), msg_2 once in S1
	// (main file and its sub-agent, no request id, same session) and once
	// in S2, msg_3 once.
	want := Totals{Input: 23, Output: 23, Entries: 4}
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestValidTimestamp(t *testing.T) {
	for ts, want := range map[string]bool{
		"2025-06-01T10:00:00.000Z":      true,
		"2025-06-01T10:00:00Z":          true,
		"2025-06-01T10:00:00+02:00":     true,
		"2025-06-01T10:00:00.123-05:30": true,
		"2024-02-29T00:00:00Z":          true,
		"2025-06-01T10:00:00.12Z":       false,
		"2025-06-01T10:00:00.123456Z":   false,
		"2025-06-01T10:00:00.000000Z":   false,
		"2025-06-01T10:00:00":           false,
		"2025-06-01 10:00:00Z":          false,
		"2025-06-01T24:00:00Z":          false,
		"2025-06-01T10:00:60Z":          false,
		"2023-02-29T00:00:00Z":          false,
		"2025-13-01T00:00:00Z":          false,
		"2025-06-01T10:00:00+0200":      false,
		"":                              false,
	} {
		if got := ValidTimestamp(ts); got != want {
			t.Errorf("ValidTimestamp(%q) = %v, want %v", ts, got, want)
		}
	}
}

func TestValidVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"1.0.30": true, "2.0.65-beta": true, "10.20.3x": true,
		"rlog-ls-import": false, "1.0": false, "1..0": false, "v1.0.0": false, "": false, "1.0.": false,
	} {
		if got := ValidVersion(v); got != want {
			t.Errorf("ValidVersion(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestNullField(t *testing.T) {
	for line, want := range map[string]string{
		`{"a":null,"usage":{}}`:                 "",
		`{"message":{"model":null}}`:            "model",
		`{"toolUseResult":{"id":null}}`:         "id",
		`{"stop_sequence":null,"costUSD":null}`: "costUSD",
		`{"text":"\"version\":null in prose"}`:  "", // the word before :null is version\
		`{"x":"id","y" :null}`:                  "",
		`{"cache_read_input_tokens": null}`:     "",
		`:null`:                                 "",
	} {
		if got := nullField([]byte(line)); got != want {
			t.Errorf("nullField(%s) = %q, want %q", line, got, want)
		}
	}
}
