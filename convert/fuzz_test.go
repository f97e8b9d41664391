package convert_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/internal/ccusage"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// The reader fuzz targets: each reads any bytes as its format, and
// whatever session comes out must go through every writer, each output
// valid by its own format's rules (the ATIF and REPLAY validators, JSON
// lines that parse, rlog that parses). Seeds: small samples of the format
// from the shared corpus when it is present, and a few made here. The
// claude and rlog readers have their own targets (convert/claude,
// convert/rlogfmt).

// corpusSeeds adds up to n corpus files under dir (relative to the corpus)
// whose name ends in suffix, the smallest first, each cut to 32 KB.
func corpusSeeds(f *testing.F, dir, suffix string, n int) {
	root := corpus.Root()
	if root == "" {
		return
	}
	type file struct {
		path string
		size int64
	}
	var files []file
	filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && len(p) >= len(suffix) && p[len(p)-len(suffix):] == suffix {
			if info, err := d.Info(); err == nil {
				files = append(files, file{p, info.Size()})
			}
		}
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].size < files[j].size })
	for i := 0; i < len(files) && i < n; i++ {
		data, err := os.ReadFile(files[i].path)
		if err == nil {
			f.Add(data[:min(len(data), 32<<10)])
		}
	}
}

func fuzzReader(f *testing.F, from convert.Format, dir, suffix string, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	writtenSeeds(f, from)
	corpusSeeds(f, dir, suffix, 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := convert.Read(bytes.NewReader(data), from)
		if err != nil {
			return // a whole-document format that is not one: refused, not a crash
		}
		for _, fi := range convert.Formats() {
			if !fi.CanWrite() {
				continue
			}
			var out bytes.Buffer
			if _, err := convert.Write(&out, s, fi.Name, convert.Options{}); err != nil {
				t.Fatalf("%s -> %s: %v", from, fi.Name, err)
			}
			checkFuzzOutput(t, fi.Name, out.Bytes())
			if fi.Name == convert.Claude && from != convert.Claude {
				checkCcusageCounts(t, from, data, out.Bytes())
			}
		}
	})
}

// writtenSeeds adds the fixture rlog and Claude Code transcript as
// format to writes them, with what it keeps of other formats (the events'
// rests, the session's origin), for its reader to be fuzzed on.
func writtenSeeds(f *testing.F, to convert.Format) {
	if fi, ok := convert.Lookup(to); !ok || !fi.CanWrite() {
		return
	}
	for _, src := range []input{{fixture("session.rlog"), convert.Rlog}, {fixture("claude/continued.jsonl"), convert.Claude}} {
		var out bytes.Buffer
		if _, err := convert.ConvertFile(src.path, src.format, to, &out, convert.Options{Now: fixedNow}); err != nil {
			f.Fatal(err)
		}
		f.Add(out.Bytes()[:min(out.Len(), 32<<10)])
	}
}

// checkCcusageCounts: Claude Code JSONL written from another format has no
// line with usage that ccusage skips, but for a source value the writer
// keeps as the source (in) has it: a key ccusage refuses as null (a tool
// input's "id":null), a timestamp, version or usage object it refuses;
// and a line with no message, whose usage ccusage would not count anyway.
func checkCcusageCounts(t *testing.T, from convert.Format, in, out []byte) {
	t.Helper()
	_, skips, err := ccusage.Count(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(out, []byte("\n"))
	for _, s := range skips {
		if s.Rule == ccusage.RuleNull {
			continue
		}
		// A line without a message (a source record passed through whose
		// own fields hold a "usage" object) has no usage ccusage counts:
		// skipping it loses nothing.
		if s.Rule == ccusage.RuleShape && s.Line <= len(lines) && !bytes.Contains(lines[s.Line-1], []byte(`"message":`)) {
			continue
		}
		// A timestamp or version ccusage refuses that the input itself
		// holds: values are written as the source has them
		// (docs/conversions.md), a bad one included.
		if (s.Rule == ccusage.RuleTimestamp || s.Rule == ccusage.RuleVersion) && bytes.Contains(in, []byte(strings.Trim(s.Detail, `"`))) {
			continue
		}
		// A usage object the input itself holds, kept as it is: a
		// session that came from Claude Code keeps its own records'
		// usage objects byte for byte (a broken one included).
		if s.Rule == ccusage.RuleShape && s.Line <= len(lines) && inputHoldsUsage(in, lines[s.Line-1]) {
			continue
		}
		t.Fatalf("%s -> claude: ccusage skips %v:\n%.2000s", from, s, out)
	}
}

// inputHoldsUsage reports whether the message usage object of a written
// Claude Code line is the input's own: byte for byte, or with a key the
// input's invalid UTF-8 broke.
func inputHoldsUsage(in, line []byte) bool {
	var rec struct {
		Message struct {
			Usage json.RawMessage `json:"usage"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || len(rec.Message.Usage) == 0 {
		return false
	}
	// Invalid UTF-8 in the input's object is written as U+FFFD (the
	// object is then normalized): a key the input broke stays broken.
	if bytes.Contains(in, rec.Message.Usage) ||
		!utf8.Valid(in) && bytes.Contains(rec.Message.Usage, []byte("\uFFFD")) {
		return true
	}
	// The object may stand in the input inside a JSON string, escaped
	// and laid out anew: a Claude Code record's rest, which another
	// format's writer keeps as a string (mini-prophet's "rests", indented).
	var want any
	if json.Unmarshal(rec.Message.Usage, &want) != nil {
		return false
	}
	return holdsValue(in, want, 2)
}

// holdsValue reports whether the JSON values in data (one document, or
// JSON Lines) hold want, equal as decoded, at any depth, or inside a
// string that is itself JSON, down to depth strings deep.
func holdsValue(data []byte, want any, depth int) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		if dec.Decode(&v) != nil {
			return false
		}
		if valueHolds(v, want, depth) {
			return true
		}
	}
}

func valueHolds(v, want any, depth int) bool {
	if reflect.DeepEqual(v, want) {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if valueHolds(e, want, depth) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if valueHolds(e, want, depth) {
				return true
			}
		}
	case string:
		return depth > 0 && holdsValue([]byte(x), want, depth-1)
	}
	return false
}

// checkFuzzOutput checks an output by its own format's rules: rlog here,
// the others as the conversion matrix does (checkOutput).
func checkFuzzOutput(t *testing.T, to convert.Format, out []byte) {
	t.Helper()
	if to != convert.Rlog {
		checkOutput(t, "fuzz", to, out)
		return
	}
	tr := grammar.Parse(bytes.Clone(out))
	if !tr.Header().Present || !tr.Header().Closed {
		t.Fatalf("rlog output has no header:\n%.2000s", out)
	}
	if _, _, err := convert.Read(bytes.NewReader(out), to); err != nil {
		t.Errorf("reading the rlog output back: %v", err)
	}
}

func FuzzReadSDKJSONL(f *testing.F) {
	fuzzReader(f, convert.SDKJSONL, "autopilot-sdk-jsonl", ".jsonl",
		`{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Read"]}`+"\n"+
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}],"usage":{"input_tokens":3}}}`+"\n"+
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`+"\n",
		`{"type":"result","subtype":"success","total_cost_usd":0.1,"usage":{"input_tokens":1}}`)
}

func FuzzReadTrajectory(f *testing.F) {
	fuzzReader(f, convert.Trajectory, "autopilot-trajectory-json", ".json",
		`{"session_id":"s","model":"m","steps":[{"type":"user","content":"hi"},{"type":"tool_call","tool":"Read","tool_id":"t","input":{}},{"type":"tool_result","tool_id":"t","success":true,"output":"x"}]}`)
}

func FuzzReadATIF(f *testing.F) {
	fuzzReader(f, convert.ATIF, "atif", ".json",
		`{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"},{"step_id":2,"source":"agent","message":"","tool_calls":[{"tool_call_id":"c","function_name":"f","arguments":{}}],"observation":{"results":[{"source_call_id":"c","content":"x"}]}}]}`)
}

func FuzzReadATIFJSONL(f *testing.F) {
	fuzzReader(f, convert.ATIFJSONL, "atif-jsonl", ".jsonl",
		`{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1"}}`+"\n"+`{"step_id":1,"source":"user","message":"hi"}`+"\n")
}

func FuzzReadReplay(f *testing.F) {
	fuzzReader(f, convert.Replay, "replay-bundle", ".json",
		`{"event":"ReplayHeader","replay_version":1,"session_id":"s"}`+"\n"+
			`{"event":"ToolCall","id":"tc_001","params":{"path":"a"},"params_hash":"sha256:x","step_id":"step-1","t":"2026-01-13T10:00:02Z","tool":"file_read"}`+"\n"+
			`{"event":"ToolResult","id":"tc_001","ok":true,"output_hash":"sha256:y","output_preview":"x","step_id":"step-1","t":"2026-01-13T10:00:03Z"}`+"\n")
}

func FuzzReadProphet(f *testing.F) {
	fuzzReader(f, convert.Prophet, "mini-swe-agent", ".json",
		`{"info":{"model_stats":{"instance_cost":0.1,"api_calls":1}},"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":"a"}]}`)
}

func FuzzReadMiniSWE(f *testing.F) {
	fuzzReader(f, convert.MiniSWE, "mini-swe-agent", ".json",
		`{"info":{"exit_status":"Submitted"},"messages":[{"role":"user","content":"u"},{"role":"assistant","content":"THOUGHT\n`+"```bash\\nls\\n```"+`"}],"trajectory_format":"mini-swe-agent-1"}`)
}

// FuzzReadCodex: seeds are the fixtures and what Codex CLI wrote in the
// producer harness (testdata/agents/codex), each cut to 32 KB.
func FuzzReadCodex(f *testing.F) {
	paths, _ := filepath.Glob(fixture("codex/*.jsonl"))
	recorded, _ := filepath.Glob("../testdata/agents/codex/*/*/codex-home/sessions/*/*/*/rollout-*.jsonl")
	for _, p := range append(paths, recorded...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data[:min(len(data), 32<<10)])
		}
	}
	fuzzReader(f, convert.Codex, "codex", ".jsonl",
		`{"timestamp":"t","type":"session_meta","payload":{"id":"T","source":{"subagent":{"thread_spawn":{}}}}}`+"\n"+
			`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"f","arguments":"{}","call_id":"c"}}`+"\n"+
			`{"timestamp":"t","type":"token_usage_record","payload":{"thread_id":"T","response_id":"r","usage":{"input_tokens":5,"cached_input_tokens":9}}}`+"\n"+
			`{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`+"\n")
}

// Detection of any name and any first bytes answers a format of the table
// or an error; a format it answers without a reader is one rlog-ls
// detects to say it cannot read it yet (Codex).
func FuzzDetect(f *testing.F) {
	f.Add("x.jsonl", []byte(`{"type":"user"}`))
	f.Add("trajectory.json", []byte(`{"schema_version":"ATIF-v1.6"}`))
	f.Add("REPLAY.jsonl", []byte(`{"event":"ReplayHeader"}`))
	f.Add("s.rlog", []byte("---\nformat: rlog/1\n---\n"))
	f.Add("x.jsonl", []byte(`{"timestamp":"t","type":"session_meta","payload":{}}`))
	f.Add("x.jsonl", []byte(`{"sessionId":"s","projectHash":"p"}`))
	f.Fuzz(func(t *testing.T, name string, head []byte) {
		format, err := convert.Detect(name, head)
		if err == nil {
			fi, ok := convert.Lookup(format)
			if !ok || !fi.CanRead() && format != convert.Codex {
				t.Fatalf("detected %q, which cannot be read", format)
			}
		}
	})
}

// FuzzReadGemini: Gemini CLI sessions, both forms; seeds from the fixtures
// (cut to 32 KB).
func FuzzReadGemini(f *testing.F) {
	for _, p := range []string{"gemini/session-2026-01-02T03-04-5e55f1c0.jsonl", "gemini/session-2025-12-01T09-00-7a1e0c2b.json"} {
		data, err := os.ReadFile(fixture(p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 32<<10)])
	}
	fuzzReader(f, convert.Gemini, "gemini-cli", ".jsonl",
		`{"sessionId":"s","projectHash":"p","startTime":"2026-01-01T00:00:00Z","kind":"main"}`+"\n"+
			`{"id":"g","timestamp":"t","type":"gemini","content":"","tokens":{"input":9,"output":1,"cached":2},"toolCalls":[{"id":"c","name":"n","args":{},"status":"success","result":[{"functionResponse":{"id":"c","name":"n","response":{"output":"x"}}}]}]}`+"\n"+
			`{"$set":{"messages":[{"id":"s","type":"user","content":[{"text":"<state_snapshot>s</state_snapshot>"}]}],"sessionId":"s"}}`+"\n",
		"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [{\"id\": \"m\", \"type\": \"gemini\", \"content\": \"a\", \"toolCalls\": [{\"id\": \"c\", \"agentId\": \"../x\"}]}]\n}\n")
}
