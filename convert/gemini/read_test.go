package gemini

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/gemini/records"
	"github.com/rlog-ls/rlog-ls/convert/internal/readtest"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

func read(t *testing.T, in string) (*model.Session, *model.Report) {
	t.Helper()
	var c model.Collector
	rep := &model.Report{}
	if err := Read(strings.NewReader(in), &c, rep); err != nil {
		t.Fatal(err)
	}
	return &c.Session, rep
}

// kinds is the session's events as "kind:text" (calls and results by id).
func kinds(s *model.Session) string {
	var out []string
	for _, e := range s.Events {
		switch {
		case e.Call != nil:
			out = append(out, "tool_call:"+e.Call.ID)
		case e.Result != nil:
			r := "tool_result:" + e.Result.CallID + "=" + e.Result.Content
			if e.Result.IsError {
				r += "!"
			}
			if e.Result.Status != "" {
				r += "(" + e.Result.Status + ")"
			}
			out = append(out, r)
		default:
			out = append(out, e.Kind.String()+":"+e.Text)
		}
	}
	return strings.Join(out, " | ")
}

const header = `{"sessionId":"s1","projectHash":"p","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}` + "\n"

// TestMessageWrittenAgain: a message written again with the same id is one
// message, each member from the last line that has it; a member that
// changed is reported; the results come from the user message that sends
// them back, with the status the call's entry gives.
func TestMessageWrittenAgain(t *testing.T) {
	s, rep := read(t, header+
		`{"id":"g1","timestamp":"t1","type":"gemini","content":"first","extra":1,"tokens":{"input":10,"output":2,"cached":4,"thoughts":1,"tool":0,"total":13}}`+"\n"+
		`{"$set":{"lastUpdated":"2026-01-01T00:00:05.000Z"}}`+"\n"+
		`{"id":"g1","timestamp":"t1","type":"gemini","content":"second","tokens":{"input":10,"output":2,"cached":4,"thoughts":1,"tool":0,"total":13},"toolCalls":[{"id":"c1","name":"run","args":{"a":1},"status":"error","result":[{"functionResponse":{"id":"c1","name":"run","response":{"error":"boom"}}}]}]}`+"\n"+
		`{"id":"u1","timestamp":"t2","type":"user","content":[{"functionResponse":{"id":"c1","name":"run","response":{"error":"boom"}}}]}`+"\n")
	if got, want := kinds(s), "agent:second | tool_call:c1 | tool_result:c1=boom!"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if v, ok := s.Events[0].Extra.Get("extra"); !ok || string(v) != "1" {
		t.Errorf("a member only the first line had is lost: %s", s.Events[0].Extra)
	}
	if _, ok := s.Events[2].Extra.Get("toolCall.result"); ok {
		t.Errorf("the entry's result, the part the user message sent, is kept twice")
	}
	if rep.Find(model.LossDroppedField, "gemini message written again with another content: the last is kept") == nil {
		t.Errorf("a changed member is not reported: %s", rep.Text())
	}
	if tot, _ := s.Totals(); tot != (model.Usage{Input: 6, Output: 3, CacheRead: 4}) {
		t.Errorf("usage %+v", tot)
	}
	if s.Header.Ended != "2026-01-01T00:00:05.000Z" || s.Header.ID != "s1" || s.Header.SourceVersion != FormJSONL {
		t.Errorf("header %+v", s.Header)
	}
}

// TestResultsFromTheCalls: without a user message of results (the older
// form, a call cancelled), a call's result is its entry's; a call still
// running when the file ends has none.
func TestResultsFromTheCalls(t *testing.T) {
	s, _ := read(t, header+
		`{"id":"g1","timestamp":"t1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"w","args":{},"status":"success","timestamp":"t9","result":[{"functionResponse":{"id":"c1","name":"w","response":{"output":"done"}}}]},{"id":"c2","name":"e","args":{},"status":"cancelled"}]}`+"\n"+
		`{"id":"g2","timestamp":"t2","type":"gemini","content":"next","toolCalls":[{"id":"c3","name":"r","args":{}}]}`+"\n")
	if got, want := kinds(s), "tool_call:c1 | tool_call:c2 | tool_result:c1=done | tool_result:c2=(cancelled) | agent:next | tool_call:c3"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if s.Events[2].Time != "t9" {
		t.Errorf("a result from its call has the call's time: %q", s.Events[2].Time)
	}
}

// TestControlLines: every record has a meaning; what the reader does not
// know is passed through and reported, never dropped.
func TestControlLines(t *testing.T) {
	ctx := `{"id":"ctx","timestamp":"t0","type":"user","content":[{"text":"<session_context>\nhere</session_context>"}]}`
	s, rep := read(t, header+
		`{"$set":{"messages":[`+ctx+`],"lastUpdated":"x"}}`+"\n"+
		`{"id":"u1","timestamp":"t1","type":"user","content":[{"text":"go"}]}`+"\n"+
		`{"$set":{"messages":[`+ctx+`]}}`+"\n"+ // the prompt taken out: refused
		`{"$set":{"sessionId":"s1"}}`+"\n"+
		`{"$set":{"messages":[`+ctx+`]}}`+"\n"+ // a resume
		`{"id":"i1","timestamp":"t2","type":"info","content":"note"}`+"\n"+
		`{"$rewindTo":"u1"}`+"\n"+
		`{"id":"n1","timestamp":"t3","type":"novel","content":"?"}`+"\n"+
		`{"what":"ever"}`+"\n"+
		`{"$set":{"summary":"S","newKey":3}}`+"\n"+
		`{"id":"u2","timestamp":"t4","type":"user","content":[{"text":"a"},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`+"\n"+
		`not json`+"\n"+
		`{"id":"u3","timestamp":"t5","type":"user","content":"caf`+"\xe9"+`"}`+"\n")
	want := "user:<session_context>\nhere</session_context> | user:go | system:the request failed: Gemini CLI took the prompt out of the conversation | " +
		"lifecycle: | system:note | system:the conversation goes back to before message u1: it and the messages after it are taken out | passthrough: | passthrough: | user:a | passthrough: | user:caf\uFFFD"
	if got := kinds(s); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	if !s.Events[0].Meta || s.Events[1].Meta {
		t.Errorf("the session context is the CLI's, the prompt the user's")
	}
	for _, d := range []string{"gemini message type novel", "gemini record with keys what", "gemini $set key newKey", "gemini content part inlineData"} {
		if rep.Find(model.LossPassthrough, d) == nil {
			t.Errorf("not reported: %s\n%s", d, rep.Text())
		}
	}
	if rep.Count(model.LossMalformed) != 1 || rep.Count(model.LossInvalidUTF8) != 1 {
		t.Errorf("malformed and invalid UTF-8 lines: %s", rep.Text())
	}
	if v, _ := s.Header.Extra.String("summary"); v != "S" {
		t.Errorf("summary %q", v)
	}
}

// TestCompression: a $set.messages with a new snapshot is a compaction,
// the $set.sessionId before it part of it (not a resume); the snapshot
// repeated in later lists is not compacted again; the call whose result
// came after the compression has one result.
func TestCompression(t *testing.T) {
	snap := `{"id":"x1","timestamp":"t5","type":"user","content":[{"text":"<state_snapshot>S</state_snapshot>"}]},{"id":"x2","timestamp":"t5","type":"gemini","content":[{"text":"Got it."}]}`
	s, _ := read(t, header+
		`{"id":"u1","timestamp":"t1","type":"user","content":[{"text":"go"}]}`+"\n"+
		`{"id":"g1","timestamp":"t2","type":"gemini","content":"","tokens":{"input":620000,"output":1,"cached":0,"thoughts":0,"tool":0,"total":620001},"toolCalls":[{"id":"c1","name":"r","args":{},"status":"success","result":[{"functionResponse":{"id":"c1","name":"r","response":{"output":"o"}}}]}]}`+"\n"+
		`{"$set":{"sessionId":"s1"}}`+"\n"+
		`{"$set":{"messages":[`+snap+`]}}`+"\n"+
		`{"id":"u2","timestamp":"t6","type":"user","content":[{"functionResponse":{"id":"c1","name":"r","response":{"output":"o"}}}]}`+"\n"+
		`{"$set":{"sessionId":"s1"}}`+"\n"+
		`{"$set":{"messages":[`+snap+`]}}`+"\n")
	want := "user:go | tool_call:c1 | compaction:<state_snapshot>S</state_snapshot> | tool_result:c1=o | lifecycle:"
	if got := kinds(s); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	c := s.Events[2]
	if c.Compaction.PreTokens != 620000 || c.Compaction.Trigger != "auto" {
		t.Errorf("compaction %+v", c.Compaction)
	}
	if r, _ := c.Extra.String("reply"); r != "Got it." {
		t.Errorf("reply %q", r)
	}
}

// TestSingleJSON: the older form, indented or on one line, reads as the
// JSONL form does.
func TestSingleJSON(t *testing.T) {
	doc := `{"sessionId":"s1","projectHash":"p","startTime":"a","lastUpdated":"b","messages":[{"id":"u1","timestamp":"t1","type":"user","content":[{"text":"go"}]},{"id":"g1","timestamp":"t2","type":"gemini","content":"ok","tokens":{"input":5,"output":1,"cached":0,"thoughts":0,"tool":0,"total":6}}],"kind":"main"}`
	var indented bytes.Buffer
	indented.WriteString(strings.ReplaceAll(strings.ReplaceAll(doc, `,"`, ",\n  \""), `{"sessionId"`, "{\n  \"sessionId\""))
	for _, in := range []string{doc, indented.String()} {
		s, rep := read(t, in)
		if got := kinds(s); got != "user:go | agent:ok" || s.Header.SourceVersion != FormJSON || s.Header.ID != "s1" {
			t.Errorf("%q: %s %+v", in, got, s.Header)
		}
		if k, _ := s.Header.Extra.String("kind"); k != "main" || !rep.Empty() {
			t.Errorf("header %s, report %s", s.Header.Extra, rep.Text())
		}
	}
}

// TestTokens: a message's tokens count by usage.Gemini; a total that is
// not the sum of its parts is reported.
func TestTokens(t *testing.T) {
	s, rep := read(t, header+`{"id":"g1","timestamp":"t","type":"gemini","content":"a","tokens":{"input":100,"output":10,"cached":40,"thoughts":5,"tool":3,"total":9999}}`+"\n")
	if u := s.Events[0].Usage; u == nil || *u != (model.Usage{Input: 63, Output: 15, CacheRead: 40}) {
		t.Errorf("usage %+v", u)
	}
	if !rep.Covers("usage") {
		t.Errorf("a total other than its parts is not reported: %s", rep.Text())
	}
}

// TestSubagentFiles: a sub-agent's file is spliced before its call's
// result; an agentId that names no file, or names one outside the
// session's folder, splices nothing and is kept on the result; a file no
// call names comes at the end. Also in a folder whose name has the
// characters of a glob pattern.
func TestSubagentFiles(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "app[2]")} {
		subagentFiles(t, dir)
	}
}

func subagentFiles(t *testing.T, dir string) {
	main := filepath.Join(dir, "session-2026-01-01T00-00-s1.jsonl")
	call := func(id, agent string) string {
		fr := fmt.Sprintf(`{"functionResponse":{"id":%q,"name":"invoke_agent","response":{"output":"done"}}}`, id)
		return fmt.Sprintf(`{"id":"g-%s","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":%q,"name":"invoke_agent","args":{"agent_name":"generalist"},"status":"success","agentId":%q,"result":[%s]}]}`+"\n"+
			`{"id":"u-%s","timestamp":"t","type":"user","content":[%s]}`+"\n", id, id, agent, fr, id, fr)
	}
	os.MkdirAll(filepath.Join(dir, "s1"), 0o755)
	os.WriteFile(main, []byte(header+call("c1", "a1")+call("c2", "nofile")+call("c3", "../s1/a1")), 0o644)
	os.WriteFile(filepath.Join(dir, "s1", "a1.jsonl"), []byte(`{"sessionId":"a1","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"subagent"}`+"\n"+
		`{"id":"m","timestamp":"t","type":"user","content":[{"text":"sub"}]}`+"\n"+`{"$set":{"summary":"R"}}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "s1", "a2.jsonl"), []byte(`{"sessionId":"a2","projectHash":"p","kind":"subagent"}`+"\n"+
		`{"id":"m","timestamp":"t","type":"user","content":[{"text":"orphan"}]}`+"\n"), 0o644)
	var c model.Collector
	rep := &model.Report{}
	f, _ := os.Open(main)
	defer f.Close()
	if err := ReadNamed(f, main, &c, rep); err != nil {
		t.Fatal(err)
	}
	s := &c.Session
	want := "tool_call:c1 | subagent: | user:sub | subagent: | tool_result:c1=done | tool_call:c2 | tool_result:c2=done | tool_call:c3 | tool_result:c3=done | subagent: | user:orphan | subagent:"
	if got := kinds(s); got != want {
		t.Fatalf("events\n%s\nwant\n%s", got, want)
	}
	start, sub, done := s.Events[1], s.Events[2], s.Events[3]
	if start.Subagent.ID != "c1" || start.Subagent.AgentID != "a1" || start.Subagent.Type != "generalist" || start.Subagent.Status != "started" {
		t.Errorf("start %+v", start.Subagent)
	}
	if sub.AgentID != "a1" || !sub.Sidechain || sub.Loc.File != "s1/a1.jsonl" {
		t.Errorf("sub-agent event %+v", sub)
	}
	if done.Subagent.Status != "done" || done.Subagent.Summary != "R" {
		t.Errorf("done %+v", done.Subagent)
	}
	if _, ok := s.Events[4].Extra.Get("toolCall.agentId"); ok {
		t.Errorf("the agent id is on the sub-agent's events and on the result")
	}
	for _, i := range []int{6, 8} {
		if _, ok := s.Events[i].Extra.Get("toolCall.agentId"); !ok {
			t.Errorf("event %d: the agent id of a sub-agent not spliced is lost", i)
		}
	}
	if s.Header.ID != "s1" {
		t.Errorf("the sub-agents changed the header: %+v", s.Header)
	}
	// The stub a resume in a later minute leaves: the same session, no
	// message; it does not take the session's sub-agents.
	stub := filepath.Join(dir, "session-2026-01-01T00-09-s1.jsonl")
	os.WriteFile(stub, []byte(header+`{"$set":{"messages":[]}}`+"\n"), 0o644)
	f2, _ := os.Open(stub)
	defer f2.Close()
	c = model.Collector{}
	if err := ReadNamed(f2, stub, &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	if len(c.Session.Events) != 0 {
		t.Errorf("the stub: %s", kinds(&c.Session))
	}
}

// generated is a Gemini CLI session of about n bytes, as 0.61.0 writes
// one: each turn a prompt, a model message with a thought written again
// with its shell call, the result sent back, and a closing message, with
// $set.lastUpdated after each.
func generated(n int) []byte {
	var b bytes.Buffer
	b.WriteString(header)
	for i := 0; b.Len() < n; i++ {
		ts := fmt.Sprintf("2026-11-27T10:%02d:%02d.%03dZ", i/3600%60, i/60%60, i%1000)
		call := fmt.Sprintf("run_shell_command__run_shell_command_17957738%05d_0", i)
		out := strings.Repeat("line of output from the command\\n", 20)
		fr := fmt.Sprintf(`{"functionResponse":{"id":%q,"name":"run_shell_command","response":{"output":"<untrusted_context>\nOutput: %s\nProcess Group PGID: 32\n</untrusted_context>"}}}`, call, out)
		g := fmt.Sprintf(`{"id":"g%d","timestamp":%q,"type":"gemini","content":"Running the step.","thoughts":[{"subject":"","description":"I should run the next step and read its output.","timestamp":%q}],"tokens":{"input":3000,"output":40,"cached":2000,"thoughts":12,"tool":0,"total":3052},"model":"gemini-3.8-flash"`, i, ts, ts)
		fmt.Fprintf(&b, `{"id":"u%d","timestamp":%q,"type":"user","content":[{"text":"Step %d: list the files after writing a.txt."}]}`+"\n", i, ts, i)
		fmt.Fprintf(&b, `{"$set":{"lastUpdated":%q}}`+"\n", ts)
		b.WriteString(g + "}\n")
		fmt.Fprintf(&b, `{"$set":{"lastUpdated":%q}}`+"\n", ts)
		fmt.Fprintf(&b, `%s,"toolCalls":[{"id":%q,"name":"run_shell_command","args":{"command":"printf 'hello\\n' > a.txt; ls","description":"Write and list"},"result":[%s],"status":"success","timestamp":%q,"resultDisplay":"a.txt","description":"printf","displayName":"Shell","renderOutputAsMarkdown":false}]}`+"\n", g, call, fr, ts)
		fmt.Fprintf(&b, `{"id":"r%d","timestamp":%q,"type":"user","content":[%s]}`+"\n", i, ts, fr)
		fmt.Fprintf(&b, `{"$set":{"lastUpdated":%q}}`+"\n", ts)
		fmt.Fprintf(&b, `{"id":"h%d","timestamp":%q,"type":"gemini","content":"The folder holds a.txt.","thoughts":[],"tokens":{"input":3400,"output":15,"cached":2900,"thoughts":0,"tool":0,"total":3415},"model":"gemini-3.8-flash"}`+"\n", i, ts)
		fmt.Fprintf(&b, `{"$set":{"lastUpdated":%q}}`+"\n", ts)
	}
	return b.Bytes()
}

type nullSink struct{}

func (nullSink) Event(*model.Header, *model.Event) error { return nil }
func (nullSink) End(*model.Header) error                 { return nil }

// TestGenerated: the benchmark's session reads with nothing lost or
// unknown, each message counted once.
func TestGenerated(t *testing.T) {
	s, rep := read(t, string(generated(64<<10)))
	if rep.Count(model.LossPassthrough)+rep.Count(model.LossMalformed)+rep.Count(model.LossDroppedField) > 0 {
		t.Errorf("%s", rep.Text())
	}
	tot, _ := s.Totals()
	turns := int64(strings.Count(string(generated(64<<10)), `"type":"user","content":[{"text"`))
	if tot != (model.Usage{Input: 1500 * turns, Output: 67 * turns, CacheRead: 4900 * turns}) {
		t.Errorf("%d turns: %+v", turns, tot)
	}
}

// BenchmarkRead: the reader alone on a generated 10 MB session, in MB/s of
// input, and against the floor of splitting it into lines.
func BenchmarkRead(b *testing.B) {
	in := generated(10 << 20)
	benchdata.MeasureRead(b, in, func(r io.Reader) error { return Read(r, nullSink{}, &model.Report{}) })
}

// TestEveryNameHasAMeaning: each name of the vocabulary (records) reads
// without being passed through as unknown, and a name not listed is
// reported.
func TestEveryNameHasAMeaning(t *testing.T) {
	samples := map[string]string{
		"header":    header,
		"message":   header + `{"id":"m","timestamp":"t","type":"user","content":[{"text":"hi"}]}` + "\n",
		"$set":      header + `{"$set":{"lastUpdated":"t"}}` + "\n",
		"$rewindTo": header + `{"$rewindTo":"m"}` + "\n",
		"session":   "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [{\"id\": \"m\", \"type\": \"user\", \"content\": [{\"text\": \"hi\"}]}]\n}\n",
	}
	unknown := func(t *testing.T, name, in string) bool {
		t.Helper()
		s, rep := read(t, in)
		for _, e := range s.Events {
			if e.Kind == model.KindPassthrough {
				return true
			}
		}
		return rep.Count(model.LossPassthrough) > 0 || rep.Count(model.LossMalformed) > 0
	}
	for _, r := range records.Records {
		in, ok := samples[r.Name]
		if !ok {
			t.Errorf("record %s: no sample", r.Name)
			continue
		}
		if unknown(t, r.Name, in) {
			t.Errorf("record %s is read as unknown", r.Name)
		}
	}
	for _, m := range records.Messages {
		if unknown(t, m.Name, header+`{"id":"m","timestamp":"t","type":"`+m.Name+`","content":"x"}`+"\n") {
			t.Errorf("message type %s is read as unknown", m.Name)
		}
	}
	for _, k := range records.SetKeys {
		if unknown(t, k.Name, header+`{"$set":{"`+k.Name+`":[]}}`+"\n") {
			t.Errorf("$set key %s is read as unknown", k.Name)
		}
	}
	for _, st := range records.ToolStatuses {
		in := header + `{"id":"g","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c","name":"n","args":{},"status":"` + st.Name + `"}]}` + "\n"
		if unknown(t, st.Name, in) {
			t.Errorf("tool status %s is read as unknown", st.Name)
		}
		s, _ := read(t, in)
		r := s.Events[len(s.Events)-1].Result
		if r == nil || r.IsError != (st.Name == "error") || (r.Status != "") != (st.Name != "error" && st.Name != "success") {
			t.Errorf("tool status %s: result %+v", st.Name, r)
		}
	}
	for _, in := range []string{
		header + `{"id":"m","timestamp":"t","type":"nouveau","content":"x"}` + "\n",
		header + `{"$set":{"nouveau":1}}` + "\n",
		header + `{"nouveau":1}` + "\n",
		header + `{"id":"g","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c","name":"n","args":{},"status":"nouveau"}]}` + "\n",
	} {
		if !unknown(t, "nouveau", in) {
			t.Errorf("a name not listed is not reported: %s", in)
		}
	}
}

// heapSink samples the live heap every few events.
type heapSink struct {
	n    int
	peak uint64
}

func (s *heapSink) Event(*model.Header, *model.Event) error {
	if s.n++; s.n%256 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
	}
	return nil
}
func (s *heapSink) End(*model.Header) error { return nil }

// TestMemoryStaysConstant: reading holds one message at a time (and the
// calls waiting for their results), so the live heap of a session eight
// times larger is about the same.
func TestMemoryStaysConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20 MB")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	peak := func(n int) uint64 {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, generated(n), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		s := &heapSink{}
		if err := Read(f, s, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		return s.peak - min(s.peak, base.HeapAlloc)
	}
	small, large := peak(2<<20), peak(16<<20)
	t.Logf("live heap: %d KB at 2 MB, %d KB at 16 MB", small>>10, large>>10)
	if large > 2*small+(1<<20) {
		t.Errorf("live heap grows with the session: %d KB at 2 MB, %d KB at 16 MB", small>>10, large>>10)
	}
}

// TestOwnSession: in a folder of Gemini CLI sessions, a sub-agent's file,
// a single-JSON session continued in a .jsonl and a resume's stub are read
// with (or are) the session that holds them, the others on their own.
func TestOwnSession(t *testing.T) {
	root := "../../testdata/agents/gemini-cli/0.61.0"
	for _, c := range []struct {
		path string
		own  bool
	}{
		{"subagent/gemini/tmp/work/chats/session-2026-11-27T10-01-887c44e3.jsonl", true},
		{"subagent/gemini/tmp/work/chats/887c44e3-04f8-423e-bcfd-fd8605af5163/ffc9d7a8-867a-42a4-9528-86e06e6d7630.jsonl", false},
		{"legacy/gemini/tmp/work/chats/session-2026-11-27T10-02-1ac2218e.json", false},
		{"legacy/gemini/tmp/work/chats/session-2026-11-27T10-02-1ac2218e.jsonl", true},
		{"resume/gemini/tmp/work/chats/session-2026-11-27T10-02-737d30c4.jsonl", true},
		{"resume/gemini/tmp/work/chats/session-2026-11-27T10-03-737d30c4.jsonl", false}, // the stub
		{"compression/gemini/tmp/work/chats/session-2026-11-27T10-02-da6dec66.jsonl", false},
		{"shell/gemini/tmp/work/chats/session-2026-11-27T10-03-95b180fc.jsonl", true},
	} {
		p := filepath.Join(root, filepath.FromSlash(c.path))
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
		if got := OwnSession(p); got != c.own {
			t.Errorf("OwnSession(%s) = %v", c.path, got)
		}
	}
	// A sub-agent's folder whose session file is gone: its files are
	// their own.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "abcdef12-0000", "x"), 0o755)
	if !OwnSession(filepath.Join(dir, "abcdef12-0000", "a.jsonl")) || !OwnSession(filepath.Join(dir, "[x]*?abcdefgh", "a.jsonl")) {
		t.Errorf("a sub-agent's file without its session is not its own")
	}
	// In a folder whose name has the characters of a glob pattern, a
	// sub-agent's file and a resume's stub are the session's still.
	chats := filepath.Join(t.TempDir(), "app[2]", "chats")
	os.MkdirAll(filepath.Join(chats, "abcdef12-0000"), 0o755)
	main := filepath.Join(chats, "session-2026-01-01T00-00-abcdef12.jsonl")
	stub := filepath.Join(chats, "session-2026-01-01T00-09-abcdef12.jsonl")
	sub := filepath.Join(chats, "abcdef12-0000", "a.jsonl")
	os.WriteFile(main, []byte(header+`{"id":"m","timestamp":"t","type":"user","content":[{"text":"go"}]}`+"\n"), 0o644)
	os.WriteFile(stub, []byte(header+`{"$set":{"messages":[]}}`+"\n"), 0o644)
	os.WriteFile(sub, []byte(`{"id":"m","timestamp":"t","type":"user","content":[{"text":"sub"}]}`+"\n"), 0o644)
	if !OwnSession(main) || OwnSession(stub) || OwnSession(sub) {
		t.Errorf("in %s: own session %v for the session's file, %v for its stub, %v for its sub-agent's", chats, OwnSession(main), OwnSession(stub), OwnSession(sub))
	}
}

// TestCwdFromProjectRoot: the session's working folder is what
// PROJECT/.project_root beside chats/ says, when its SHA-256 is the
// session's projectHash (as Gemini CLI makes it); otherwise none.
func TestCwdFromProjectRoot(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "tmp", "shop", "chats")
	os.MkdirAll(chats, 0o755)
	os.WriteFile(filepath.Join(dir, "tmp", "shop", ".project_root"), []byte("/home/me/shop"), 0o644)
	for hash, want := range map[string]string{
		"0c0ee57dc07fa3fe6b4aa9abb18d1efa8e03e15b1e1b8b4bc1cf7c4c0bfb3d9b": "", // not /home/me/shop's
		fmt.Sprintf("%x", sha256sum("/home/me/shop")):                      "/home/me/shop",
	} {
		path := filepath.Join(chats, "session-2026-01-01T00-00-s1.jsonl")
		os.WriteFile(path, []byte(`{"sessionId":"s1","projectHash":"`+hash+`","startTime":"t","kind":"main"}`+"\n"), 0o644)
		f, _ := os.Open(path)
		var c model.Collector
		if err := ReadNamed(f, path, &c, &model.Report{}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if c.Session.Header.Cwd != want {
			t.Errorf("hash %s: cwd %q, want %q", hash[:8], c.Session.Header.Cwd, want)
		}
	}
}

func sha256sum(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// FuzzOwnFields holds ownFields (the record copied once, its values parts
// of the copy) to fields.Copy() (each value copied apart): the same keys
// and values, none of them sharing the record's bytes, and appending to
// one value changes no other, for a record with and without invalid
// UTF-8, checked or not.
func FuzzOwnFields(f *testing.F) {
	f.Add([]byte(`{"id":"g1","type":"gemini","content":"hi","tokens":{"input":3}}`))
	f.Add([]byte(` {"id":"u1","content":[{"text":"caf\xc3\xa9"}]} `))
	f.Add([]byte("{\"id\":\"u\xff\",\"content\":\"a\\u00e9\"}"))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, valid := range []bool{false, utf8.Valid(in)} {
			b := bytes.Clone(in)
			fields, err := model.ParseFieldsView(b)
			if err != nil {
				return
			}
			want := fields.Copy()
			got := ownFields(fields, b, valid)
			for i := range b {
				b[i] = 'x' // the record's buffer, reused for the next line
			}
			if (got == nil) != (want == nil) || len(got) != len(want) {
				t.Fatalf("valid=%v: %d fields (nil %v), want %d (nil %v)", valid, len(got), got == nil, len(want), want == nil)
			}
			for i := range want {
				if got[i].Key != want[i].Key || !bytes.Equal(got[i].Value, want[i].Value) {
					t.Fatalf("valid=%v: field %d is %q: %q, want %q: %q", valid, i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
				}
			}
			for i := range got {
				v := got[i].Value
				_ = append(v, bytes.Repeat([]byte("!"), cap(v)-len(v)+1)[:cap(v)-len(v)]...) // fills its room, if any
				for j := range got {
					if !bytes.Equal(got[j].Value, want[j].Value) {
						t.Fatalf("valid=%v: appending to %q changed %q", valid, got[i].Key, got[j].Key)
					}
				}
			}
		}
	})
}

// FuzzMembersOfValidated holds what the reader relies on when it walks a
// part of a record already validated (contentText, sameResult, a call's
// result) with jsonscan.Members instead of scanning it again with
// jsonscan.Object: for valid JSON both give the same members, in order,
// and neither gives any for a value that is not an object.
func FuzzMembersOfValidated(f *testing.F) {
	f.Add([]byte(`{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"a\nb"}}}`))
	f.Add([]byte(` {"text" : "hi", "te\u0078t":"x", "a":[1,{"b":null}]} `))
	f.Add([]byte(`"text"`))
	f.Add([]byte(`[{"text":"a"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !jsonscan.Valid(b) {
			return
		}
		walk := func(each func([]byte, func(k, v []byte) error) error) string {
			var out strings.Builder
			each(b, func(k, v []byte) error {
				fmt.Fprintf(&out, "%q:%q;", k, v)
				return nil
			})
			return out.String()
		}
		if got, want := walk(jsonscan.Members), walk(jsonscan.Object); got != want {
			t.Fatalf("Members: %s\nObject: %s", got, want)
		}
	})
}

// FuzzFastPaths holds the reader's fast paths (a $set of lastUpdated alone
// told by its bytes, the member lists of views that viewFields makes) to
// the general reading of every record: the same events, header, report
// and error, whatever the session. Seeds: the
// benchmark's session, the recorded sessions of Gemini CLI, and the
// records a fast path must leave to the general one.
func FuzzFastPaths(f *testing.F) {
	f.Add(generated(8 << 10))
	recorded, _ := filepath.Glob("../../testdata/agents/gemini-cli/*/*/gemini/tmp/*/chats/*.json*")
	for _, p := range recorded {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(header + `{"$set":{"lastUpdated":"2026-01-01T00:00:09.000Z"}}` + "\n" +
		`{"$set":{"lastUpdated":"2025-01-01T00:00:00.000Z"}}` + "\n" + // earlier: not the last update
		`{"$set":{"lastUpdated":"2027\u002d01"}}` + "\n" + // an escape
		`{"$set":{"lastUpdated":"2028` + "\xff" + `"}}` + "\n" + // invalid UTF-8
		`{"$set":{"lastUpdated":"2029` + "\t" + `"}}` + "\n" + // a control byte: not JSON
		`{"$set":{"lastUpdated":"a"b"}}` + "\n" +
		`{"$set":{"lastUpdated":7}}` + "\n" +
		`{"$set":{"lastUpdated":""}}` + "\n" +
		`{"$set":{"lastUpdated":"2030"},"x":1}` + "\n" +
		`{"$set":{"lastUpdated":"2031","lastUpdated":"2032"}}` + "\n" +
		`{"$set":{"lastUpdated":"2033"}}  ` + "\n" +
		`{"$set":{"lastUpdated":"2034"}}}` + "\n"))
	f.Add([]byte(header + `{"$set":{"lastUpdated":"2026-01-01T00:00:09.000Z"}}` + "\n" +
		`{"$set":{"lastUpdated":"2026-01-01T00:00:08.000Z"}}` + "\n")) // earlier: not the last update
	f.Fuzz(func(t *testing.T, in []byte) {
		readtest.Same(t, func(fast bool) (model.Session, string, error) {
			fastPaths = fast
			defer func() { fastPaths = true }()
			var c model.Collector
			var rep model.Report
			err := Read(bytes.NewReader(in), &c, &rep)
			return c.Session, rep.Text(), err
		}, func(s model.Session) []model.Event { return s.Events })
	})
}

// FuzzPeek holds peek (a string only compared, a view of the value when
// it holds its text as it is) to Fields.String's decoding, and isString
// to comparing what Fields.String gives, for any member's value.
func FuzzPeek(f *testing.F) {
	for _, v := range []string{`"gemini"`, `"caf\u00e9"`, `"a\"b"`, `""`, `null`, `7`, `{"a":"b"}`, ` "x" `, "\"\xff\"", `"\\"`} {
		f.Add([]byte(`{"k":` + v + `}`))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, err := model.ParseFieldsView(b)
		if err != nil {
			return
		}
		for _, x := range fields {
			want, ok := fields.String(x.Key)
			if got := peek(x.Value); got != want {
				t.Fatalf("peek(%q) = %q, Fields.String %q", x.Value, got, want)
			}
			for _, s := range []string{want, want + "x", ""} {
				if got := isString(fields, x.Key, s); got != (ok && want == s) {
					t.Fatalf("isString(%q, %q) = %v, Fields.String %q %v", x.Value, s, got, want, ok)
				}
			}
		}
	})
}

// FuzzViewFields holds viewFields (the keys views of the value, no list
// allocated) to model.ParseValidFieldsView on valid JSON: the same error
// or none, the same keys and values in order, whatever room it is given,
// and whether the value is scanned or is part of a record an index
// indexes (its objects and arrays jumped over).
func FuzzViewFields(f *testing.F) {
	f.Add([]byte(`{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"a\nb"}}}`))
	f.Add([]byte(` {"text" : "hi", "te\u0078t":"x", "a":[1,{"b":null}]} `))
	f.Add([]byte(`{"a":1,"b":2,"a":3}`))
	f.Add([]byte(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}`))
	f.Add([]byte(`{"caf` + "\xc3\xa9" + `":1,"":2}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[{"text":"a"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !jsonscan.Valid(b) {
			return
		}
		// The value as a member of a record an index indexes (unless
		// it is nested as deep as the scan goes: the record is deeper).
		type input struct {
			ix *jsonscan.Index
			b  []byte
		}
		inputs := []input{{nil, b}}
		var ix jsonscan.Index
		if rec, err := model.ParseRecord(&ix, []byte(`{"v":`+string(b)+`}`), false, false); err == nil && len(rec) == 1 {
			inputs = append(inputs, input{&ix, rec[0].Value})
		}
		for _, in := range inputs {
			want, wantErr := model.ParseValidFieldsView(in.b)
			for _, room := range []int{0, 2, 8} {
				got, err := viewFields(in.ix, in.b, make(model.Fields, 0, room))
				if (err == nil) != (wantErr == nil) || len(got) != len(want) {
					t.Fatalf("room %d, index %v: %q, %v; ParseValidFieldsView %q, %v", room, in.ix != nil, got, err, want, wantErr)
				}
				for i := range want {
					if got[i].Key != want[i].Key || !bytes.Equal(got[i].Value, want[i].Value) || cap(got[i].Value) != len(got[i].Value) {
						t.Fatalf("room %d, index %v: member %d %q: %q (cap %d), ParseValidFieldsView %q: %q", room, in.ix != nil, i, got[i].Key, got[i].Value, cap(got[i].Value), want[i].Key, want[i].Value)
					}
				}
			}
		}
	})
}

// FuzzTokens holds tokens with plainTokens (the counts read where Gemini
// CLI writes them) to its walk over the members: the same usage, the
// same input counted for a compression, the same report, for any value
// validated with its record.
func FuzzTokens(f *testing.F) {
	for _, v := range []string{
		`{"input":3000,"output":40,"cached":2000,"thoughts":12,"tool":0,"total":3052}`,
		`{"input":3000,"output":40,"cached":2000,"thoughts":12,"tool":0,"total":9}`,
		`{"input":3000,"output":40,"cached":2000,"thoughts":12,"tool":0}`,
		`{"output":40,"input":3000,"cached":2000,"thoughts":12,"tool":0,"total":3052}`,
		`{"input":3000,"output":40,"cached":2000,"thoughts":12,"tool":0,"total":3052,"x":1}`,
		`{"input":-1,"output":40,"cached":2000,"thoughts":12,"tool":0,"total":3052}`,
		`{"input":1.5,"output":4e1,"cached":null,"thoughts":12,"tool":0,"total":3052}`,
		`{"input":1234567890123456789,"output":0,"cached":0,"thoughts":0,"tool":0,"total":0}`,
		`{ "input":1,"output":0,"cached":0,"thoughts":0,"tool":0,"total":1 }`,
		`{"input":"1","output":0,"cached":0,"thoughts":0,"tool":0,"total":1}`,
		`[1]`, `7`,
	} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if !jsonscan.Valid(v) {
			return
		}
		read := func(fast bool) (string, int64, string) {
			fastPaths = fast
			defer func() { fastPaths = true }()
			rd := &reader{rep: &model.Report{}}
			u := rd.tokens(bytes.TrimSpace(v), model.Loc{Line: 2})
			return fmt.Sprintf("%+v", u), rd.lastInput, rd.rep.Text()
		}
		u, in, rep := read(true)
		wantU, wantIn, wantRep := read(false)
		if u != wantU || in != wantIn || rep != wantRep {
			t.Fatalf("%s: %s, %d, %q; the walk: %s, %d, %q", v, u, in, rep, wantU, wantIn, wantRep)
		}
	})
}

// FuzzKeptString holds keptString (a view of the copy when the string
// holds its text as it is) to jsonscan.String, for any member's value of
// any record, lying in the copy it is given or not, and a view only of
// that copy.
func FuzzKeptString(f *testing.F) {
	for _, v := range []string{`"2026-11-27T10:00:00.000Z"`, `"caf\u00e9"`, `"a\"b"`, `""`, `null`, `7`, `{"a":"b"}`, ` "x" `, "\"\xff\"", "\"caf\xc3\xa9\"", `"\\"`, `"a\nb"`} {
		f.Add([]byte(`{"k":` + v + `}`))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, err := model.ParseFieldsView(b)
		if err != nil {
			return
		}
		other := bytes.Clone(b)
		for _, x := range fields {
			want, wantOK := jsonscan.String(x.Value)
			for _, kept := range [][]byte{b, nil, other} {
				got, ok := keptString(kept, x.Value)
				if got != want || ok != wantOK {
					t.Fatalf("keptString(%q) = %q, %v; jsonscan.String %q, %v", x.Value, got, ok, want, wantOK)
				}
				if inside(b, stringBytes(got)) && !inside(kept, x.Value) {
					t.Fatalf("keptString(%q) is a view of a copy it was not given", x.Value)
				}
			}
		}
	})
}

// FuzzMergeWrite holds mergeWrite (a member of a message written again
// looked up where the first write had it) to Fields.Get and Set: the same
// members in the same order, the same keys reported as changed, for any
// two records.
func FuzzMergeWrite(f *testing.F) {
	g := `{"id":"g1","timestamp":"t","type":"gemini","content":"a","thoughts":[],"tokens":{"input":1},"model":"m"}`
	f.Add([]byte(g), []byte(strings.TrimSuffix(g, "}")+`,"toolCalls":[{"id":"c"}]}`))
	f.Add([]byte(g), []byte(`{"model":"n","id":"g1","content":"b","x":1}`))
	f.Add([]byte(`{"a":1,"b":2,"a":3}`), []byte(`{"b":2,"a":4,"c":5,"b":6}`))
	f.Add([]byte(`{}`), []byte(`{"a":1}`))
	f.Fuzz(func(t *testing.T, first, again []byte) {
		held, err := model.ParseFieldsView(first)
		if err != nil {
			return
		}
		fields, err := model.ParseFieldsView(again)
		if err != nil {
			return
		}
		want := slices.Clone(held)
		var wantChanged []string
		for _, x := range fields {
			if old, ok := want.Get(x.Key); ok && !bytes.Equal(old, x.Value) && x.Key != "toolCalls" {
				wantChanged = append(wantChanged, x.Key)
			}
			want.Set(x.Key, x.Value)
		}
		got := slices.Clone(held)
		var changed []string
		mergeWrite(&got, fields, func(key string) { changed = append(changed, key) })
		if !slices.Equal(changed, wantChanged) || len(got) != len(want) {
			t.Fatalf("changed %q, %d members; Get and Set: %q, %d", changed, len(got), wantChanged, len(want))
		}
		for i := range want {
			if got[i].Key != want[i].Key || !bytes.Equal(got[i].Value, want[i].Value) {
				t.Fatalf("member %d: %q=%s; Get and Set: %q=%s", i, got[i].Key, got[i].Value, want[i].Key, want[i].Value)
			}
		}
	})
}
