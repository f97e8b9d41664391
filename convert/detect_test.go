package convert_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
)

// big is a JSON string of about n bytes, with escapes and multi-byte text
// so that it is no plain run.
func big(n int) string {
	unit := `tool output \"quoted\" naïve → 日本語 \\ path\n`
	return `"` + strings.Repeat(unit, n/len(unit)+1) + `"`
}

// TestDetectLongFirstRecord: a first record of 10 MB, whatever the format
// and wherever its long value sits, is detected from a file. From a
// buffered reader (stdin) detection sees as far as the buffer, which is
// enough when the keys that tell the format come before the long value, as
// every writer of these formats puts them; the two cases marked cut are
// made up so that they do not.
func TestDetectLongFirstRecord(t *testing.T) {
	long := big(10 << 20)
	cases := []struct {
		name, content string
		want          convert.Format
		cut           bool
	}{
		{"s.jsonl", `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.0.65","type":"user","message":{"role":"user","content":` + long + `},"uuid":"u1","timestamp":"2025-12-11T10:00:00.000Z"}` + "\n" +
			`{"parentUuid":"u1","type":"user","message":{"role":"user","content":"x"},"uuid":"u2"}` + "\n", convert.Claude, false},
		{"s.jsonl", `{"type":"user","message":{"role":"user","content":` + long + `},"timestamp":"2025-12-22T14:35:45.1+00:00"}` + "\n", convert.SDKJSONL, false},
		{"t.json", `{"session_id":"s","prompt":` + long + `,"model":"m","cwd":"/","repo_sha":"abc","steps":[]}`, convert.Trajectory, false},
		{"t.json", `{"messages":[{"key":"S0","message":{"role":"system","content":` + long + `}}],"steps":[],"trajectory_format":"mini-prophet-v0.1.10"}`, convert.Prophet, false},
		{"trajectory.json", "{\n  \"schema_version\": \"ATIF-v1.6\",\n  \"session_id\": \"s\",\n  \"agent\": {\"name\": \"a\", \"version\": \"1\", \"extra\": {\"notes\": " + long + "}},\n  \"steps\": []\n}\n", convert.ATIF, false},
		{"x.atif.jsonl", `{"__header__":true,"schema_version":"ATIF-v1.4","session_id":"s","agent":{"name":"a","version":"1","extra":{"n":` + long + `}}}` + "\n", convert.ATIFJSONL, false},
		{"REPLAY.jsonl", `{"created_at":` + long + `,"event":"ReplayHeader","producer":"p","replay_version":1}` + "\n", convert.Replay, true},
		{"m.json", `{"info":{"config":{"system_template":` + long + `}},"messages":[],"trajectory_format":"mini-swe-agent-1"}`, convert.MiniSWE, false},
		{"b.json", `{"version":"1.0","id":"replay_x","created_at":"2025-12-26T12:00:00Z","metadata":{"model":` + long + `},"timeline":[]}`, convert.ReplayBundle, true},
	}
	dir := t.TempDir()
	for i, c := range cases {
		p := filepath.Join(dir, strings.Repeat("x", i)+c.name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := convert.DetectFile(p); err != nil || got != c.want {
			t.Errorf("DetectFile(%s, %.60s…) = %q, %v; want %q", c.name, c.content, got, err, c.want)
		}
		// stdin: no name, a 64 KB buffer, the long value cut by it.
		r := bufio.NewReaderSize(strings.NewReader(c.content), 64<<10)
		if got, err := convert.DetectReader("-", r); c.cut {
			if err == nil {
				t.Errorf("DetectReader(%.60s…) = %q: detected past its buffer?", c.content, got)
			}
		} else if err != nil || got != c.want {
			t.Errorf("DetectReader(%.60s…) = %q, %v; want %q", c.content, got, err, c.want)
		}
		// Nothing was consumed: the reader still starts at the start.
		if b, _ := r.Peek(10); string(b) != c.content[:10] {
			t.Errorf("DetectReader consumed the input: %q", b)
		}
		if err := convert.CheckFromFile(c.want, p); err != nil {
			t.Errorf("CheckFrom(%s, its own format): %v", c.want, err)
		}
	}
}

func TestDetectNamesAndShapes(t *testing.T) {
	cases := []struct {
		name string
		head string
		want convert.Format
	}{
		{"x.rlog", "---\nformat: rlog/1\n", convert.Rlog},
		{"x.txt", "\ufeff---\r\nformat: rlog/1\r\n", convert.Rlog},
		{"notes.txt", "ignored\n---\nformat: rlog/1\nid: x\n---\n", convert.Rlog},
		{"notes.rlog", "u: no header at all\n", convert.Rlog},
		{"REPLAY.jsonl", "", convert.Replay},
		{"a.atif.jsonl", "", convert.ATIFJSONL},
		{"a.claude.jsonl", "\n\n", convert.Claude},
		{"x.jsonl", `{"event":"ReplayHeader","replay_version":1}` + "\n", convert.Replay},
		{"x.jsonl", `{"type":"system","message":{"subtype":"init"},"timestamp":"t"}` + "\n", convert.SDKJSONL},
		{"x.jsonl", `{"type":"summary","summary":"s","leafUuid":"u"}` + "\n", convert.Claude},
		{"x.jsonl", `{"type":"queue-operation","operation":"enqueue","timestamp":"t","content":"c"}` + "\n", convert.Claude},
		{"x.jsonl", `{"type":"session-source","source":{"format":"rlog"}}` + "\n", convert.Claude}, // written from another format
		{"x.jsonl", `{"step_id":1,"source":"user","message":"headerless ATIF-JSONL"}` + "\n", convert.ATIFJSONL},
		{"t.json", `{"messages": [{"key": "S0", "message": {"role": "system"`, convert.Prophet},
		{"t.json", `{"schema_version": "ATIF-v1.5", "session_id": "x", "steps": [`, convert.ATIF},
		{"t.json", `{"schema_version": "1.4", "session_id": "x", "agent": {"model": "m"}, "steps": []}`, convert.ATIF},
		{"t.json", `{"session_id": "x", "prompt": "p", "model": "m"`, convert.Trajectory},
		{"t.json", `{"info": {"mini_version": "1"}, "messages": [{"role": "system", "content": "c"}]}`, convert.MiniSWE},
		{"t.json", `{"trajectory_format": "mini-prophet-v0.1.10", "messages": []}`, convert.Prophet},
		{"sample-replay.json", `{"version":"1.0","id":"replay_x","timeline":[{"t":0}]}`, convert.ReplayBundle},
	}
	for _, c := range cases {
		got, err := convert.Detect(c.name, []byte(c.head))
		if err != nil || got != c.want {
			t.Errorf("Detect(%q, %.30q) = %q, %v; want %q", c.name, c.head, got, err, c.want)
		}
	}
	for _, bad := range []struct{ head, says string }{
		{"", "is empty"},
		{"hello", "does not start with a JSON object or an rlog header"},
		{"[1,2]", "JSON list"},
		{`{"a":1,"b":[2]}`, "JSON of no known shape (keys a, b)"},
		{`{oops`, "is not valid JSON"},
	} {
		got, err := convert.Detect("x.bin", []byte(bad.head))
		if err == nil || !errors.Is(err, convert.ErrUndetected) || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("Detect(%q) = %q, %v; want an error saying %q", bad.head, got, err, bad.says)
		}
	}
}

// TestCheckFrom: a --from that does not fit is an error naming what the
// input is; one that fits, or input that cannot be told, passes.
func TestCheckFrom(t *testing.T) {
	atifDoc := `{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1"},"steps":[]}`
	bundle := `{"version":"1.0","id":"replay_x","created_at":"2025-12-26T12:00:00Z","metadata":{},"timeline":[],"receipts":{}}`
	for _, c := range []struct {
		from    convert.Format
		name    string
		content string
		says    string // "" when it fits
	}{
		{convert.Trajectory, "t.json", atifDoc, "--from trajectory does not fit t.json, which is atif"},
		{convert.Replay, "sample-replay.json", bundle, "which is replay-bundle"},
		{convert.Rlog, "t.json", atifDoc, "which is atif"},
		{convert.Claude, "x.rlog", "---\nformat: rlog/1\n---\n", "which is rlog"},
		{convert.ATIF, "odd.json", `{"a": 1}`, ""},               // cannot be told: the reader says what it cannot read
		{convert.Claude, "c.jsonl", "{broken\n", ""},             // a first line that is not JSON
		{convert.Rlog, "w.json", `{"a": 1}`, "JSON of no known"}, // JSON is no rlog
		{convert.ATIF, "a.json", "", ""},
		{convert.ATIF, "a.json", atifDoc, ""},
		{convert.Rlog, "notes.txt", "no header\n", ""},
	} {
		err := convert.CheckFrom(c.from, c.name, bufio.NewReader(strings.NewReader(c.content)))
		switch {
		case c.says == "" && err != nil:
			t.Errorf("--from %s on %s: %v", c.from, c.name, err)
		case c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)):
			t.Errorf("--from %s on %s: %v, want %q", c.from, c.name, err, c.says)
		}
	}
}
