package convert_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/atif"
	"github.com/rlog-ls/rlog-ls/convert/replay"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return v
}

// TestTrajectoryRoundTripExact: trajectory JSON -> model -> trajectory JSON
// gives the same JSON value, with nothing reported lost.
func TestTrajectoryRoundTripExact(t *testing.T) {
	for _, p := range corpus.Glob(t, "autopilot-trajectory-json/openagents-docs-logs/*/*.json") {
		in, _ := os.ReadFile(p)
		var out bytes.Buffer
		rep, err := convert.Convert(bytes.NewReader(in), convert.Trajectory, convert.Trajectory, &out, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(decode(t, in), decode(t, out.Bytes())) {
			t.Errorf("%s: round trip changed the document", filepath.Base(p))
		}
		if !rep.Empty() {
			t.Errorf("%s: losses on a lossless round trip:\n%s", filepath.Base(p), rep.Text())
		}
	}
}

// TestATIFRoundTrip: each valid harbor file validates, and ATIF -> model ->
// ATIF (same version) gives the same JSON value.
func TestATIFRoundTrip(t *testing.T) {
	for _, p := range corpus.Glob(t, "atif/harbor-trajectories/*/*/trajectory.json") {
		in, _ := os.ReadFile(p)
		name := filepath.Base(filepath.Dir(p))
		if fs := atif.Validate(in); len(fs) > 0 {
			t.Errorf("%s: real harbor file has findings: %v", name, fs)
		}
		var hdr struct {
			Schema string `json:"schema_version"`
		}
		json.Unmarshal(in, &hdr)
		ver := strings.TrimPrefix(hdr.Schema, "ATIF-v")
		if _, err := atif.ParseVersion(ver); err != nil {
			continue // v1.2 files: the writer only writes 1.5+
		}
		var out bytes.Buffer
		rep, err := convert.Convert(bytes.NewReader(in), convert.ATIF, convert.ATIF, &out, convert.Options{ATIFVersion: ver})
		if err != nil {
			t.Fatal(err)
		}
		want, got := decode(t, in).(map[string]any), decode(t, out.Bytes()).(map[string]any)
		// total_steps is always written; the source may lack it.
		if fm, ok := got["final_metrics"].(map[string]any); ok {
			if wfm, _ := want["final_metrics"].(map[string]any); wfm["total_steps"] == nil {
				delete(fm, "total_steps")
			}
		}
		for _, k := range []string{"schema_version", "session_id", "agent", "final_metrics", "notes", "extra"} {
			if !reflect.DeepEqual(want[k], got[k]) {
				t.Errorf("%s: %s changed:\n%v\n%v", name, k, want[k], got[k])
			}
		}
		ws, gs := want["steps"].([]any), got["steps"].([]any)
		if len(ws) != len(gs) {
			t.Errorf("%s: %d steps became %d", name, len(ws), len(gs))
			continue
		}
		for i := range ws {
			if !reflect.DeepEqual(ws[i], gs[i]) {
				a, _ := json.Marshal(ws[i])
				b, _ := json.Marshal(gs[i])
				t.Errorf("%s: step %d changed:\n%.600s\n%.600s", name, i+1, a, b)
				break
			}
		}
		if rep.Count(model_LossDropped) != 0 {
			t.Errorf("%s: drops on a same-format round trip:\n%s", name, rep.Text())
		}
	}
}

const model_LossDropped = "dropped_field"

func TestATIFValidatorFindings(t *testing.T) {
	doc := `{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1","bogus":1},
	"steps":[
	 {"step_id":1,"source":"user","message":"hi","tool_calls":[],"timestamp":"yesterday"},
	 {"step_id":3,"source":"agent","message":"x","tool_calls":[{"tool_call_id":"c1","function_name":"f","arguments":{}},{"tool_call_id":"c1","function_name":"f","arguments":[]}],
	  "observation":{"results":[{"source_call_id":"c9","content":"r"}]}},
	 {"step_id":3,"source":"system","message":[{"type":"text","text":"parts need 1.6"}],"llm_call_count":1}
	],"final_metrics":{"total_steps":-1,"total_tool_calls":2}}`
	fs := atif.Validate([]byte(doc))
	want := []string{
		"trajectory.agent.bogus: Extra inputs are not permitted",
		"trajectory.steps.0.timestamp: Invalid ISO 8601 timestamp: yesterday",
		"trajectory.steps.0.tool_calls: Field 'tool_calls' is only applicable when source is 'agent', but source is 'user'",
		"trajectory.steps.1.step_id: expected 2 (sequential from 1), got 3",
		"trajectory.steps.1.tool_calls.1.tool_call_id: duplicate tool_call_id 'c1' in step 2",
		"trajectory.steps.1.tool_calls.1.arguments: Input should be a valid dictionary",
		"trajectory.steps.1.observation.results.0.source_call_id: Observation result references source_call_id 'c9' which is not found in step 2's tool_calls",
		"trajectory.steps.2.message: a list of content parts needs ATIF-v1.6 or later",
		"trajectory.steps.2.llm_call_count: field \"llm_call_count\" needs ATIF-v1.7 or later",
		"trajectory.final_metrics.total_tool_calls: Extra inputs are not permitted",
		"trajectory.final_metrics.total_steps: Input should be greater than or equal to 0",
	}
	got := map[string]bool{}
	for _, f := range fs {
		got[f.String()] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing finding %q", w)
		}
	}
	if len(fs) != len(want) {
		t.Errorf("%d findings, want %d: %v", len(fs), len(want), fs)
	}
	// The non-conformant OpenAgents file must not pass.
	p := corpus.Path(t, "atif/openagents-nonconformant/regex-log/20251211-161750-ba4ddb16/trajectory.json")
	data, _ := os.ReadFile(p)
	if len(atif.Validate(data)) == 0 {
		t.Error("non-conformant ATIF validated")
	}
	for _, ts := range []string{"2026-02-09T20:41:09.682063+00:00", "2025-12-11T22:17:50.071Z", "2025-01-01", "2025-01-01 10:00"} {
		if !atif.ValidTimestamp(ts) {
			t.Errorf("%s rejected", ts)
		}
	}
	for _, ts := range []string{"2025-13-01T00:00:00Z", "2025-01-01T25:00:00Z", "2025-01-01T10:00:00.Z", "2025-01-01T10:00:00+0"} {
		if atif.ValidTimestamp(ts) {
			t.Errorf("%s accepted", ts)
		}
	}
}

func TestReplayValidatorFindings(t *testing.T) {
	in := strings.Join([]string{
		`{"event":"SessionStart","policy_bundle_id":"p","session_id":"s","t":"x"}`,
		`{"event":"ToolResult","id":"a","latency_ms":0,"output_hash":"sha256:00","step_utility":0.0,"t":"x"}`,
		`{"t":"x","event":"ToolCall","id":"a","params":{},"params_hash":"sha256:` + strings.Repeat("0", 64) + `","step_id":"s","tool":"r"}`,
		`{"event":"SessionEnd","status":"Done","t":"x"}`,
	}, "\n")
	fs, err := replay.Validate(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"line 1: $.event: the first line must be ReplayHeader, got SessionStart",
		"line 2: $.output_hash: hash is not sha256:<64 lowercase hex>",
		`line 2: $.id: ToolResult "a" does not follow a ToolCall with that id`,
		"line 3: not canonical JSON (keys sorted, no whitespace)",
		"line 3: $.params_hash: params_hash is not the sha256 of the canonical params",
		"line 4: $.confidence: SessionEnd without required field confidence",
		"line 4: $.total_tool_calls: SessionEnd without required field total_tool_calls",
		"line 4: $.total_latency_ms: SessionEnd without required field total_latency_ms",
		`line 4: $.status: SessionEnd status "Done" is not one of Success, Failed, Cancelled, Timeout`,
	}
	got := map[string]bool{}
	for _, f := range fs {
		got[f.String()] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("missing finding %q in %v", w, fs)
		}
	}
	if len(fs) != len(want) {
		t.Errorf("%d findings, want %d: %v", len(fs), len(want), fs)
	}
}

// TestReplayRoundTrip: REPLAY -> model -> REPLAY keeps every line.
func TestReplayRoundTrip(t *testing.T) {
	p := corpus.Path(t, "claude-code-jsonl/openagents/20251211-regex-log/sonnet-raw.jsonl")
	var first bytes.Buffer
	if _, err := convert.ConvertFile(p, convert.Claude, convert.Replay, &first, convert.Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	rep, err := convert.Convert(bytes.NewReader(first.Bytes()), convert.Replay, convert.Replay, &second, convert.Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		a := strings.Split(first.String(), "\n")
		b := strings.Split(second.String(), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("line %d differs:\n%.300s\n%.300s", i+1, a[i], b[i])
			}
		}
		t.Fatalf("%d lines became %d", len(a), len(b))
	}
	if !rep.Empty() {
		t.Errorf("losses on REPLAY -> REPLAY:\n%s", rep.Text())
	}
}

// TestTotalsAcrossFormats: Claude -> X -> model gives the same token
// totals for every writer that carries usage, and they equal the ledger's
// once-per-message total of the source.
func TestTotalsAcrossFormats(t *testing.T) {
	p := corpus.Path(t, "claude-code-jsonl/openagents/20251211-regex-log/opus-raw.jsonl")
	src, _, err := convert.Read(mustOpen(t, p), convert.Claude)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := totals(src)
	for _, to := range []convert.Format{convert.Claude, convert.Trajectory, convert.ATIF, convert.ATIFJSONL} {
		var out bytes.Buffer
		if _, err := convert.Write(&out, src, to, convert.Options{}); err != nil {
			t.Fatal(err)
		}
		back, _, err := convert.Read(&out, to)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := totals(back)
		// The trajectory format has no per-step cache_creation, but its root
		// usage does.
		if got != want {
			t.Errorf("%s: totals %+v, want %+v", to, got, want)
		}
	}
}

func mustOpen(t *testing.T, p string) *os.File {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
