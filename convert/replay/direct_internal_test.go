package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/internal/canon"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// writeBoth writes s with its lines written direct (canon.Members) and
// built in a canon.Object, and fails t unless both write the same bytes
// and the same loss report, every line canonical (canon.Append of it is
// itself).
func writeBoth(t *testing.T, name string, s *model.Session) {
	t.Helper()
	write := func(direct bool) (string, string, error) {
		directLines = direct
		defer func() { directLines = true }()
		var out bytes.Buffer
		rep := &model.Report{}
		err := Write(&out, s, rep, model.Options{Now: func() time.Time { return time.Unix(0, 0) }})
		j, _ := json.Marshal(rep)
		return out.String(), string(j), err
	}
	got, gotRep, gotErr := write(true)
	want, wantRep, wantErr := write(false)
	if got != want || gotRep != wantRep || (gotErr == nil) != (wantErr == nil) {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				at := 0
				for at < min(len(gl[i]), len(wl[i])) && gl[i][at] == wl[i][at] {
					at++
				}
				from := max(0, at-80)
				t.Fatalf("%s: line %d differs at byte %d: written direct\n...%.200s\nin an Object\n...%.200s", name, i+1, at, gl[i][from:], wl[i][from:])
			}
		}
		t.Fatalf("%s: direct %d lines, report %s, %v; Object %d lines, report %s, %v", name, len(gl), gotRep, gotErr, len(wl), wantRep, wantErr)
	}
	sc := bufio.NewScanner(strings.NewReader(got))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if l := sc.Bytes(); json.Valid(l) && !bytes.Equal(canon.Marshal(l), l) {
			t.Fatalf("%s: a line is not canonical:\n%.300s\ncanon.Append:\n%.300s", name, l, canon.Marshal(l))
		}
	}
}

// directEdges is a session from another format whose lines go every
// way of the direct path: calls with and without an id, a step, the
// source's step_id and params_hash, no input; results cut and whole, with
// a status, failed, with the source's exit_code, step_utility and
// latency_ms, without a call id, without a call before them; text with
// escapes, invalid UTF-8 and emoji, a signature; message ids made up and
// not, a model the header's and another, usage and none; events without
// a time.
func directEdges() *model.Session {
	long := strings.Repeat("é\x01\"\\🙂", 700)
	u := &model.Usage{Input: 1, Output: 2, CacheRead: 3, CacheCreate: 4}
	x := func(kv ...string) model.Fields {
		var f model.Fields
		for i := 0; i < len(kv); i += 2 {
			f.Set(kv[i], json.RawMessage(kv[i+1]))
		}
		return f
	}
	return &model.Session{Header: model.Header{ID: "s", Model: "m1", SourceFormat: "claude"}, Events: []model.Event{
		{Kind: model.KindUser, Text: "hi \"there\"\n\t\x00 \xff 🙂", Time: "2025-01-01T00:00:00Z", Step: 3},
		{Kind: model.KindThinking, Text: "hmm", Signature: "sig/+=", MessageID: "msg_1", Model: "m1", Usage: u, Time: "2025-01-01T00:00:01Z"},
		{Kind: model.KindAgent, Text: "", MessageID: model.SyntheticMessagePrefix + "x", Model: "m2"},
		{Kind: model.KindToolCall, MessageID: "msg_1", Model: "m2", Usage: u, Call: &model.ToolCall{ID: "t1", Name: "Read", Input: json.RawMessage(`{"p":1, "a":[true,{"z":1,"b":"\u00e9"}]}`), Summary: "s"}, Time: "2025-01-01T00:00:02Z"},
		{Kind: model.KindToolCall, Call: &model.ToolCall{Name: "Bash"}, Step: 7, Extra: x("params_hash", `"sha256:00"`, "step_id", `"step-x"`)},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "t1", Name: "Bash\u2028"}, Time: "2025-01-01T00:00:01Z"},
		{Kind: model.KindToolCall, Call: &model.ToolCall{ID: "t3", Name: "E"}, Time: "bad time"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "t1", Content: long, Status: "2 issues"}, Time: "2025-01-01T00:00:03.5Z"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "t1", Content: "ok", IsError: true}, Time: "2025-01-01T00:00:04Z", Usage: u, Model: "m3"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "", Content: "\xff"}, Extra: x("exit_code", `2`, "step_utility", `0.5`, "latency_ms", `12`)},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "t3", Content: strings.Repeat("a", 2001)}},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "nope", Content: "orphan"}},
		{Kind: model.KindSubagent, Subagent: &model.Subagent{ID: "a1"}},
		{Kind: model.KindToolResult, Result: &model.ToolResult{Content: "no call \xff", IsError: true, Status: "s\n"}, Usage: u, MessageID: "msg_9", Model: "m4"},
		{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: "gone", IsError: true}, Time: "2025-01-01T00:00:05Z"},
		// Messages of events REPLAY has no event for, each kind's
		// extension field placed among the keys by its name.
		{Kind: model.KindSubagent, Subagent: &model.Subagent{}, Usage: u},
		{Kind: model.KindSubagent, Subagent: &model.Subagent{ID: "a\"", AgentID: "g", Type: "t", Status: "done", Summary: "s\x01", SessionID: "x", TrajectoryPath: "p/🙂"}, MessageID: "msg_2", Model: "m5"},
		{Kind: model.KindCompaction, Text: "compacted"},
		{Kind: model.KindCompaction, Compaction: &model.Compaction{PreTokens: 5}, Usage: u},
		{Kind: model.KindCompaction, Compaction: &model.Compaction{Trigger: "auto\xff", PreTokens: -1, PostTokens: 3}, MessageID: "msg_3"},
		{Kind: model.KindTodos},
		{Kind: model.KindTodos, Todos: []model.Todo{{Content: "a"}, {ID: "1", Content: "b\"", Status: "done", Priority: "high"}, {Priority: "low"}}, Model: "m6", Usage: u},
		{Kind: model.KindSystem, Text: "sys", Name: "hook"},
		{Kind: model.KindSystem, Text: "sys \x00"},
		{Kind: model.KindStatus, Text: "busy", MessageID: "msg_4", Usage: u},
		{Kind: model.KindComment, Text: "note"},
		{Kind: model.KindInit, Model: "m7"},
		{Kind: model.KindLifecycle, Name: "start"},
		{Kind: model.KindLifecycle, Name: "pause", Text: "p", Usage: u},
		{Kind: model.KindPassthrough, RawType: "odd", Raw: json.RawMessage(`{"b":1,"a":2}`), MessageID: "msg_5"},
		{Kind: model.KindLifecycle, Name: "end"},
		{Kind: model.KindLifecycle, Name: "end", Text: "again"},
	}}
}

// TestDirectLines holds the lines written direct (canon.Members, keys in
// their order) to the same lines built in a canon.Object and sorted
// there: on directEdges, every .rlog file under testdata, and generated
// sessions.
func TestDirectLines(t *testing.T) {
	writeBoth(t, "edges", directEdges())
	var files []string
	for _, dir := range []string{"../../testdata", "../testdata"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rlog") && !strings.Contains(p, "/fuzz/") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 10 {
		t.Fatalf("found %d .rlog files under testdata", len(files))
	}
	read := func(name string, b []byte) {
		var c model.Collector
		if err := rlogfmt.Read(bytes.NewReader(b), &c, &model.Report{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		writeBoth(t, name, &c.Session)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		read(p, b)
	}
	for _, seed := range []uint64{1, 7} {
		var b bytes.Buffer
		if err := gen.Write(&b, gen.Options{Bytes: 200 << 10, FindingRate: 0.01, Seed: seed, Timed: true}); err != nil {
			t.Fatal(err)
		}
		read("generated", b.Bytes())
	}
}

// FuzzDirectLines holds the lines written direct to the lines built in a
// canon.Object (TestDirectLines) for events of any text, ids, input,
// output, status, message id, model and time, each kind the direct path
// writes, with and without a call before a result, and a Message of an
// event REPLAY has no event for (messageLine) of each kind.
func FuzzDirectLines(f *testing.F) {
	f.Add(uint8(0), "hi", "t1", []byte(`{"a":1}`), "out", "", "msg_1", "m", "2025-01-01T00:00:00Z")
	f.Add(uint8(0xff), "\xff\"\\🙂", "", []byte(`[1, {"b":2,"a":1}]`), strings.Repeat("é", 1100), "2 issues", "", "m1", "")
	f.Fuzz(func(t *testing.T, flags uint8, text, id string, input []byte, out, status, msgID, mdl, ts string) {
		if !json.Valid(input) {
			input = nil
		}
		var u *model.Usage
		if flags&1 != 0 {
			u = &model.Usage{Input: int64(len(text)), Output: -1, CacheRead: int64(flags), CacheCreate: 1 << 40}
		}
		kinds := [...]model.Kind{model.KindUser, model.KindAgent, model.KindThinking}
		e := func(k model.Kind) model.Event {
			return model.Event{Kind: k, Time: ts, MessageID: msgID, Model: mdl, Usage: u, Step: int64(flags >> 6)}
		}
		txt := e(kinds[int(flags>>1)%3])
		txt.Text, txt.Signature = text, status
		call := e(model.KindToolCall)
		call.Call = &model.ToolCall{ID: id, Name: text, Input: input}
		res := e(model.KindToolResult)
		res.Result = &model.ToolResult{CallID: id, Content: out, Status: status, IsError: flags&8 != 0}
		// An event REPLAY has no event for, of a kind flags picks, its
		// fields the strings given.
		others := [...]model.Kind{model.KindSubagent, model.KindCompaction, model.KindTodos, model.KindSystem,
			model.KindStatus, model.KindComment, model.KindInit, model.KindLifecycle}
		other := e(others[int(flags>>2)%len(others)])
		other.Text, other.Name = text, status
		other.Subagent = &model.Subagent{ID: id, AgentID: status, Type: text, Status: out, Summary: text, SessionID: msgID, TrajectoryPath: ts}
		other.Compaction = &model.Compaction{Trigger: status, PreTokens: int64(len(out))}
		other.Todos = []model.Todo{{ID: id, Content: text, Status: status, Priority: out}, {Content: out}}
		events := []model.Event{txt, call, res, other}
		if flags&16 != 0 {
			events = []model.Event{res, txt, call, res, call, other}
		}
		writeBoth(t, "fuzz", &model.Session{Header: model.Header{ID: id, Model: "m1", SourceFormat: "claude"}, Events: events})
	})
}
