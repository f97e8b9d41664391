package convert_test

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// agentTranscripts are the session files the real agent CLIs wrote in the
// producer harness (testdata/agents), each with its format: the formats
// rlog-ls has no reader for yet are detected too.
func agentTranscripts(t *testing.T) []input {
	t.Helper()
	var out []input
	for _, c := range []struct {
		dir, under string
		format     convert.Format
	}{
		{"claude-code", "projects", convert.Claude},
		{"codex", "sessions", convert.Codex},
		{"gemini-cli", "chats", convert.Gemini},
	} {
		n := len(out)
		root := filepath.Join("..", "testdata", "agents", c.dir)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/"+c.under+"/") {
				return err
			}
			if strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".meta.json") {
				out = append(out, input{p, c.format})
			}
			return nil
		})
		if err != nil || len(out) == n {
			t.Fatalf("no transcripts of %s under %s (%v)", c.format, root, err)
		}
	}
	return out
}

// TestDetectAgentTranscripts: every transcript Claude Code, Codex CLI and
// Gemini CLI wrote is detected as its format, from a file and from a
// stream.
func TestDetectAgentTranscripts(t *testing.T) {
	for _, in := range agentTranscripts(t) {
		checkDetected(t, in.path, in.path, in.format)
	}
}

// checkDetected: the file at path is detected as want from its name and
// content (DetectFile) and from a stream (DetectReader); name is what a
// failure calls it.
func checkDetected(t *testing.T, path, name string, want convert.Format) {
	t.Helper()
	if got, err := convert.DetectFile(path); err != nil || got != want {
		t.Errorf("DetectFile(%s) = %q, %v; want %q", name, got, err, want)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := convert.DetectReader("-", bufio.NewReader(f)); err != nil || got != want {
		t.Errorf("DetectReader(%s) = %q, %v; want %q", name, got, err, want)
	}
}

// TestDetectNearMisses: inputs that have some of a format's keys are
// taken by the format whose own evidence is strongest; inputs two formats
// claim as strongly are reported with both, unless the name tells, and
// --from settles them.
func TestDetectNearMisses(t *testing.T) {
	cases := []struct {
		name, head string
		want       convert.Format
		ambiguous  []convert.Format // the candidates, when ambiguous
	}{
		// Claude Code, the SDK companion and Gemini CLI share role types
		// and a session id.
		{"x.jsonl", `{"type":"user","message":{"role":"user"},"timestamp":"t"}`, convert.SDKJSONL, nil},
		{"x.jsonl", `{"type":"user","message":{"role":"user"},"timestamp":"t","uuid":"u"}`, convert.Claude, nil},
		{"x.jsonl", `{"type":"user","message":{"role":"user"},"isMeta":true}`, "", []convert.Format{convert.Claude, convert.SDKJSONL}},
		{"x.claude.jsonl", `{"type":"user","message":{"role":"user"},"isMeta":true}`, convert.Claude, nil},
		{"x.jsonl", `{"type":"mode","mode":"normal","sessionId":"s"}`, convert.Claude, nil},
		{"x.jsonl", `{"type":"last-prompt","lastPrompt":"p","leafUuid":"u"}`, convert.Claude, nil},
		{"x.jsonl", `{"sessionId":"s","cwd":"/w"}`, convert.Claude, nil},
		{"x.jsonl", `{"sessionId":"s","projectHash":"p","startTime":"t","kind":"main"}`, convert.Gemini, nil},
		{"x.json", "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [{\"id\": \"m\", \"type\": \"user\"}]\n}", convert.Gemini, nil},
		// Codex CLI's line types are its own; a role type is not.
		{"x.jsonl", `{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{"id":"i"}}`, convert.Codex, nil},
		{"x.jsonl", `{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, convert.Codex, nil},
		{"x.jsonl", `{"timestamp":"t","type":"turn_context"}`, convert.Codex, nil},
		{"x.jsonl", `{"id":"i","timestamp":"t","instructions":null,"git":{"branch":"b"}}`, convert.Codex, nil},
		{"x.jsonl", `{"timestamp":"t","type":"user","payload":{}}`, convert.Claude, nil},
		// ATIF, its JSONL form and the autopilot trajectory share keys.
		{"t.json", `{"schema_version":"ATIF-v1.6","session_id":"s","steps":[`, convert.ATIF, nil},
		{"t.json", `{"session_id":"s","agent":{"name":"a"},"steps":[]}`, convert.ATIF, nil},
		{"t.json", `{"session_id":"s","steps":[{"step_id":1}]}`, convert.Trajectory, nil},
		{"t.json", `{"session_id":"s","repo_sha":"abc","steps":[]}`, convert.Trajectory, nil},
		{"x.jsonl", `{"__header__":true,"schema_version":"ATIF-v1.6","session_id":"s","agent":{"name":"a"}}`, convert.ATIFJSONL, nil},
		// REPLAY's events; a ReplayBundle's timeline.
		{"x.jsonl", `{"event":"ToolCall","id":"c"}`, convert.Replay, nil},
		{"x.jsonl", `{"event":"something else"}`, convert.Replay, nil},
		{"b.json", `{"timeline":[{"t":0}]}`, convert.ReplayBundle, nil},
		// mini-swe-agent and mini-prophet share messages and info.
		{"t.json", `{"info":{},"messages":[{"role":"system"}]}`, convert.MiniSWE, nil},
		{"t.json", `{"info":{},"messages":[{"key":"S0","message":{}}]}`, convert.Prophet, nil},
		{"t.json", `{"info":{"mini_version":"1"},"messages":[{"key":"S0"}]}`, "", []convert.Format{convert.Prophet, convert.MiniSWE}},
		{"t.json", `{"trajectory_format":"mini-prophet-v0.1.10","info":{"mini_version":"1"},"messages":[{"key":"S0"}]}`, convert.Prophet, nil},
	}
	for _, c := range cases {
		got, err := convert.Detect(c.name, []byte(c.head))
		var amb *convert.AmbiguousError
		switch {
		case c.ambiguous == nil && (err != nil || got != c.want):
			t.Errorf("Detect(%q, %s) = %q, %v; want %q", c.name, c.head, got, err, c.want)
		case c.ambiguous != nil && !errors.As(err, &amb):
			t.Errorf("Detect(%q, %s) = %q, %v; want ambiguous", c.name, c.head, got, err)
		case c.ambiguous != nil:
			var names []convert.Format
			for _, f := range amb.Candidates {
				names = append(names, f.Name)
			}
			if !slices.Equal(names, c.ambiguous) || !errors.Is(err, convert.ErrUndetected) {
				t.Errorf("Detect(%q, %s): candidates %v (%v), want %v", c.name, c.head, names, err, c.ambiguous)
			}
			for _, f := range c.ambiguous {
				if err := convert.CheckFrom(f, c.name, bufio.NewReader(strings.NewReader(c.head))); err != nil {
					t.Errorf("--from %s on %s: %v", f, c.head, err)
				}
			}
		}
	}
}
