package rlogfmt_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/grammar"
)

func write(t *testing.T, s *model.Session, opt model.Options) (string, *model.Report) {
	t.Helper()
	var b bytes.Buffer
	rep := &model.Report{}
	if err := rlogfmt.Write(&b, s, rep, opt); err != nil {
		t.Fatal(err)
	}
	return b.String(), rep
}

func read(t *testing.T, src string) (*model.Session, *model.Report) {
	t.Helper()
	var c model.Collector
	rep := &model.Report{}
	if err := rlogfmt.Read(strings.NewReader(src), &c, rep); err != nil {
		t.Fatal(err)
	}
	return &c.Session, rep
}

func findings(out string) []string {
	var codes []string
	for _, f := range analysis.Check(grammar.Parse([]byte(out)), analysis.Config{}) {
		if f.Code != "I004" {
			codes = append(codes, string(f.Code)+" "+f.Message)
		}
	}
	return codes
}

func body(out string) []string {
	_, rest, _ := strings.Cut(out[3:], "\n---\n")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(rest), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// counted is the usage of a session's events, counted by the usage rule.
func counted(s *model.Session) model.Usage {
	var l model.Ledger
	for i := range s.Events {
		l.Add(&s.Events[i])
	}
	return l.Total()
}

func call(id, name, input string) model.Event {
	return model.Event{Kind: model.KindToolCall, Call: &model.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}}
}

func result(id, content string, isErr bool) model.Event {
	return model.Event{Kind: model.KindToolResult, Result: &model.ToolResult{CallID: id, Content: content, IsError: isErr}}
}

func TestWriterRepoSHA(t *testing.T) {
	s := &model.Session{Header: model.Header{ID: "s1", SourceFormat: "claude"}}
	out, rep := write(t, s, model.Options{})
	if !strings.Contains(out, "repo_sha: \""+rlogfmt.NullSHA+"\"\n") {
		t.Errorf("no null sha:\n%s", out)
	}
	if !rep.Covers("header.repo_sha") {
		t.Errorf("synthesized repo_sha not reported:\n%s", rep.Text())
	}
	if f := findings(out); len(f) != 0 {
		t.Errorf("findings: %v", f)
	}
	s.Header.RepoSHA = "abc1234"
	out, _ = write(t, s, model.Options{})
	if !strings.Contains(out, "repo_sha: abc1234\n") {
		t.Errorf("source sha not used:\n%s", out)
	}
	out, _ = write(t, s, model.Options{RepoSHA: "feedface"})
	if !strings.Contains(out, "repo_sha: feedface\n") {
		t.Errorf("option sha not used:\n%s", out)
	}
}

// Claude -> rlog improves on the reference converter (docs/conversions.md): o: lines
// for results, whole ids made unique, usage once per message.
func TestWriterCallsResultsUsage(t *testing.T) {
	u := &model.Usage{Input: 10, Output: 1, CacheRead: 100}
	u2 := &model.Usage{Input: 10, Output: 50, CacheRead: 100}
	ev := []model.Event{
		{Kind: model.KindUser, Text: "list files\nplease", Time: "2025-12-11T21:24:31.466+01:00"},
		{Kind: model.KindAgent, Text: "Sure.", MessageID: "msg_1", Usage: u},
		call("toolu_01ABCdefGHIjkl", "Bash", `{"command":"ls -la","description":"list"}`),
		call("toolu_01ABCdefGHIjkl", "Read", `{"file_path":"/a b/c.go"}`),
		result("toolu_01ABCdefGHIjkl", "a\nb", false),
		result("toolu_01ABCdefGHIjkl", "boom", true),
		result("nowhere", "orphan", false),
		{Kind: model.KindPassthrough, RawType: "mystery", Raw: json.RawMessage(`{"type":"mystery","x":1}`)},
	}
	for i := 2; i <= 3; i++ {
		ev[i].MessageID = "msg_1"
		ev[i].Usage = u2
	}
	s := &model.Session{Header: model.Header{ID: "s", RepoSHA: "abcdef", SourceFormat: "claude"}, Events: ev}
	out, rep := write(t, s, model.Options{})
	want := []string{
		"@start id=s ts=2025-12-11T20:24:31.466Z",
		"u: list files ... ts=2025-12-11T20:24:31.466Z",
		"a: Sure. message_id=msg_1 tokens_in=10 tokens_out=50 tokens_cached=100",
		`t!:Bash id=toolu_01ABCdefGHIjkl cmd="ls -la" → [running] message_id=msg_1`,
		`t!:Read id=toolu_01ABCdefGHIjkl_2 file_path="/a b/c.go" → [running] id_full="toolu_01ABCdefGHIjkl" message_id=msg_1`,
		"o: id=toolu_01ABCdefGHIjkl → [ok] a ...",
		`o: id=toolu_01ABCdefGHIjkl_2 → [error] boom id_full="toolu_01ABCdefGHIjkl"`,
		`o: → [ok] orphan orphan_id="nowhere"`,
		`# mystery: {"type":"mystery","x":1}`,
		"@end tokens_in=10 tokens_out=50 tokens_cached=100",
	}
	got := body(out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("body:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := findings(out); len(f) != 0 {
		t.Errorf("findings: %v", f)
	}
	for _, k := range []model.LossKind{model.LossIDUnique, model.LossTruncated, model.LossMoved} {
		if rep.Count(k) == 0 {
			t.Errorf("%s not reported:\n%s", k, rep.Text())
		}
	}
	// The once-per-message usage is what the rules count.
	st := analysis.SessionStats(grammar.Parse([]byte(out)))
	if st.TokensIn != 10 || st.TokensOut != 50 || st.TokensCached != 100 {
		t.Errorf("stats %+v", st)
	}
	// Reading it back gives the source ids and the message grouping.
	back, _ := read(t, out)
	var ids []string
	for _, e := range back.Events {
		switch e.Kind {
		case model.KindToolCall:
			ids = append(ids, e.Call.ID)
		case model.KindToolResult:
			ids = append(ids, e.Result.CallID)
		}
	}
	if strings.Join(ids, " ") != "toolu_01ABCdefGHIjkl toolu_01ABCdefGHIjkl toolu_01ABCdefGHIjkl toolu_01ABCdefGHIjkl nowhere" {
		t.Errorf("ids read back: %v", ids)
	}
}

// Free text that looks like metadata is defused so the rules do not read
// it (W004, W005, usage), and control characters cannot break lines.
func TestWriterDefusesText(t *testing.T) {
	ev := []model.Event{
		{Kind: model.KindAgent, Text: "at step=9 then ts=yesterday tokens_in=5"},
		{Kind: model.KindAgent, Text: "at step=2 with bad \xff bytes, a \x00 NUL, then a \r CR"},
		{Kind: model.KindAgent, Text: "ends like metadata model=x"},
	}
	s := &model.Session{Header: model.Header{ID: "s", RepoSHA: "abcdef", SourceFormat: "atif"}, Events: ev}
	out, rep := write(t, s, model.Options{})
	if f := findings(out); len(f) != 0 {
		t.Errorf("findings: %v\n%s", f, out)
	}
	if rep.Count(model.LossUnfaithful) == 0 {
		t.Errorf("defusing not reported:\n%s", rep.Text())
	}
	back, _ := read(t, out)
	var texts []string
	for _, e := range back.Events {
		if e.Kind == model.KindAgent {
			texts = append(texts, e.Text)
		}
	}
	if len(texts) != 3 || texts[2] != "ends like metadata model =x" || !strings.Contains(texts[1], "\uFFFD") {
		t.Errorf("texts read back: %q", texts)
	}
}

// A quoted value the text leaves open (`ws-connect="/ws"` and a backquote:
// the quote does not close) would take in the usage written after the
// text: its "=" is defused, and the usage reads back as the rules read it
// (the SDK log of a corpus session lost a message's 2,408 output tokens).
func TestWriterClosesOpenValues(t *testing.T) {
	u := &model.Usage{Input: 1, Output: 2408, CacheRead: 93620}
	ev := []model.Event{
		{Kind: model.KindAgent, Text: "line 122 has `hx-ext=\"ws\" ws-connect=\"/ws\"` which connects", MessageID: "msg_1", Usage: u},
		{Kind: model.KindAgent, Text: `json {"a": 1`, MessageID: "msg_2", Usage: u},
	}
	s := &model.Session{Header: model.Header{ID: "s", RepoSHA: "abcdef", SourceFormat: "sdk-jsonl"}, Events: ev}
	out, _ := write(t, s, model.Options{})
	back, _ := read(t, out)
	st := analysis.SessionStats(grammar.Parse([]byte(out)))
	if got := counted(back); got.Output != 2*2408 || st.TokensOut != 2*2408 {
		t.Errorf("read back %+v, stats %d out:\n%s", got, st.TokensOut, out)
	}
}

// Usage at the end of a continuation line (a writer that puts a line's
// metadata after its whole text) is the line's: the reader carries it, as
// the rules count it, and rlog -> rlog leaves it where it was.
func TestReaderContinuationUsage(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n" +
		"a: Tests pass now.\n  amounts are integer cents. tokens_in=830 tokens_out=317 tokens_cached=8130\n" +
		"a: own usage tokens_in=5 tokens_out=6\n  more tokens_in=7 tokens_out=8\n"
	s, rep := read(t, src)
	st := analysis.SessionStats(grammar.Parse([]byte(src)))
	if got := counted(s); got.Input != 830+5 || st.TokensIn != 830+5+7 {
		t.Errorf("read %+v, stats %d in", got, st.TokensIn)
	}
	if rep.Count(model.LossDroppedField) != 1 {
		t.Errorf("the second continuation's usage is not reported:\n%s", rep.Text())
	}
	if out, _ := write(t, s, model.Options{}); body(out)[0] != "a: Tests pass now." || !strings.Contains(out, "cents. tokens_in=830") {
		t.Errorf("rlog -> rlog moved the usage:\n%s", out)
	}
}

// The reader takes each line's usage as the rules read it (the first
// tokens_*= anywhere, a value cut at its digits), on every kind of line, so
// that a conversion's totals are what `rlog-ls stats` counts.
func TestReaderUsageAsTheRulesRead(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n" +
		"a: it said tokens_in=5 in prose\n" +
		"a: cut tokens_in=7A tokens_out=2\n" +
		"q: which one? id=q1 → the first tokens_in=9 tokens_out=1\n"
	s, _ := read(t, src)
	st := analysis.SessionStats(grammar.Parse([]byte(src)))
	if got := counted(s); got.Input != 5+7+9 || uint64(got.Input) != st.TokensIn || uint64(got.Output) != st.TokensOut {
		t.Errorf("read %+v, stats %d in %d out", got, st.TokensIn, st.TokensOut)
	}
	if out, _ := write(t, s, model.Options{}); !strings.Contains(out, "q: which one? id=q1 → the first tokens_in=9 tokens_out=1\n") {
		t.Errorf("rlog -> rlog changed the q: line:\n%s", out)
	}
}

// From an rlog source nothing is cut and the lines keep their forms.
func TestRlogToRlogKeepsLines(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: local\nmode: auto\nsandbox_id: sb1\n---\n" +
		"@start id=s ts=2025-12-24T00:11:56Z\n" +
		"u: " + strings.Repeat("long ", 60) + "\n" +
		"  and a continuation\n" +
		"@phase build\n" +
		"t:Read id=r1 file=/x → [ok] 12 lines latency_ms=5\n" +
		"t~:Read id=r1 [3/9]\n" +
		"c:github.issues id=c1 state=open → [5]\n" +
		"q: Which db? id=q1 → postgres\n" +
		"td: [completed] first [in_progress] second\n" +
		"# status: Compacting\n" +
		"@compact trigger=auto\n" +
		"@end tokens_in=5 tokens_out=6\n"
	s, rep := read(t, src)
	if rep.Count(model.LossPassthrough) != 2 {
		t.Errorf("passthrough t~: and q: not reported:\n%s", rep.Text())
	}
	out, wrep := write(t, s, model.Options{})
	want := []string{
		"@start id=s ts=2025-12-24T00:11:56Z",
		"u: " + strings.TrimSpace(strings.Repeat("long ", 60)),
		"  and a continuation",
		"@phase build",
		"t:Read id=r1 file=/x → [ok] 12 lines latency_ms=5",
		"t~:Read id=r1 [3/9]",
		"c:github.issues id=c1 state=open → [5]",
		"q: Which db? id=q1 → postgres",
		"td: [completed] first [in_progress] second",
		"# status: Compacting",
		"@compact trigger=auto",
		"@end tokens_in=5 tokens_out=6",
	}
	if got := body(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("body:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(out, "runner: local\nmode: auto\nsandbox_id: sb1\n") {
		t.Errorf("header extras lost:\n%s", out)
	}
	if wrep.Count(model.LossTruncated) != 0 {
		t.Errorf("rlog -> rlog truncated:\n%s", wrep.Text())
	}
	if s.Header.Totals == nil || s.Header.Totals.Input != 5 {
		t.Errorf("@end totals not read: %+v", s.Header.Totals)
	}
	if f := findings(out); len(f) != 0 {
		t.Errorf("findings: %v", f)
	}
}

// The reader: an unclosed header, prose metadata, autopilot usage repeated
// on every line of one message.
func TestReaderEdges(t *testing.T) {
	s, rep := read(t, "preamble\n---\nformat: rlog/1\nid: x\n")
	if s.Header.ID != "x" || rep.Count(model.LossDroppedEvent) != 1 {
		t.Errorf("unclosed header: %+v\n%s", s.Header, rep.Text())
	}
	s, _ = read(t, "---\nformat: rlog/1\nid: x\nrepo_sha: 560549231\n---\n"+
		"a: set step=5 and id=42 now tokens_in=3 tokens_out=1\n"+
		"t!:Read id=k1 file_path=/x → [running] tokens_in=3 tokens_out=1\n"+
		"o: id=k1 → [ok] done\n")
	if s.Header.RepoSHA != "560549231" {
		t.Errorf("numeric repo_sha: %q", s.Header.RepoSHA)
	}
	a, c := s.Events[0], s.Events[1]
	if a.Text != "set step=5 and id=42 now" || a.Step != 0 {
		t.Errorf("agent %q step %d", a.Text, a.Step)
	}
	if a.MessageID == "" || a.MessageID != c.MessageID {
		t.Errorf("repeated usage not one message: %q %q", a.MessageID, c.MessageID)
	}
	if tot := counted(s); tot.Input != 3 || tot.Output != 1 {
		t.Errorf("usage counted twice: %+v", tot)
	}
	if string(c.Call.Input) != `{"file_path":"/x"}` || c.Call.Summary != "file_path=/x" {
		t.Errorf("call %s %q", c.Call.Input, c.Call.Summary)
	}
	if _, rep := read(t, "no header at all\n"); rep.Count(model.LossMalformed) != 1 {
		t.Errorf("missing header not reported: %s", rep.Text())
	}
}

func TestRegistered(t *testing.T) {
	fi, ok := convert.Lookup(convert.Rlog)
	if !ok || !fi.CanRead() || !fi.CanWrite() {
		t.Fatalf("rlog not registered: %+v", fi)
	}
	f, err := convert.Detect("x.rlog", []byte("---\nformat: rlog/1\n"))
	if err != nil || f != convert.Rlog {
		t.Errorf("detect: %v %v", f, err)
	}
}

// FuzzRead: any input reads without panic, and what is read writes as an
// rlog document with no error-severity finding.
func FuzzRead(f *testing.F) {
	f.Add([]byte("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\nu: hi\nt!:Read id=a → [running]\no: id=a → [ok]\n"))
	f.Add([]byte("---\n---\n  cont\nt:x\n@end tokens_in=1\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\nid: [\r\n---\r\nx:y id=\"q → [done] summary=\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c model.Collector
		if err := rlogfmt.Read(bytes.NewReader(data), &c, &model.Report{}); err != nil {
			return
		}
		c.Session.Header.SourceFormat = "fuzz" // write as from another format: the checked path
		var out bytes.Buffer
		if err := rlogfmt.Write(&out, &c.Session, &model.Report{}, model.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, fd := range analysis.Check(grammar.Parse(out.Bytes()), analysis.Config{}) {
			if fd.Severity == analysis.Error {
				t.Fatalf("%s %s in\n%s", fd.Code, fd.Message, out.String())
			}
		}
	})
}

// TestReaderMadeUpCallIDs: a call whose line has no id gets one made from
// its line number, the same whatever the output format; a t!: without an
// id is answered by the next o: without one; each made-up id is reported.
func TestReaderMadeUpCallIDs(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\n---\n" +
		"t:read src/a.rs → [64 lines]\n" + // line 5
		"c:github.issues state=open → [2 issues]\n" + // line 6
		"t!:Bash cmd=ls → [running]\n" + // line 7
		"o: → [ok] a.rs\n"
	s, rep := read(t, src)
	var ids []string
	for _, e := range s.Events {
		switch {
		case e.Call != nil:
			ids = append(ids, "call "+e.Call.ID)
		case e.Result != nil:
			ids = append(ids, "result "+e.Result.CallID)
		}
	}
	want := []string{"call call_L5", "result call_L5", "call call_L6", "result call_L6", "call call_L7", "result call_L7"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("ids %v, want %v", ids, want)
	}
	n := 0
	for _, l := range rep.Losses {
		if l.Kind == model.LossSynthesized && strings.Contains(l.Detail, "tool call id") {
			n += l.Count
		}
	}
	if n != 3 {
		t.Errorf("%d made-up call ids reported, want 3:\n%s", n, rep.Text())
	}
	// The same id in every format: rlog -> ATIF and rlog -> REPLAY name it.
	for _, to := range []convert.Format{convert.ATIF, convert.Replay, convert.Claude} {
		var out bytes.Buffer
		if _, err := convert.Convert(strings.NewReader(src), convert.Rlog, to, &out, convert.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"call_L5", "call_L6", "call_L7"} {
			if !strings.Contains(out.String(), `"`+id+`"`) {
				t.Errorf("rlog -> %s: no %s in\n%s", to, id, out.String())
			}
		}
	}
}

// TestBareToolLineID: a t: line without its result arrow names its call by
// an id= among its words, as the rules read it (analysis knows the id, so
// an o: naming it is no W002), and the id the writer gives a bare line
// whose source had none is read back (rlog -> X -> rlog kept neither: the
// id was made again from another line number).
func TestBareToolLineID(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\n---\n\n" +
		"t:read id=c1 parser -> [339 lines]\n" +
		"t:read review -> [131 lines]\n" // line 7
	s, _ := read(t, src)
	var ids []string
	for _, e := range s.Events {
		if e.Call != nil {
			ids = append(ids, e.Call.ID)
		}
	}
	if want := "c1,call_L7"; strings.Join(ids, ",") != want {
		t.Errorf("ids %v, want %s", ids, want)
	}
	var out bytes.Buffer
	if _, err := convert.Convert(strings.NewReader(src), convert.Rlog, convert.Rlog, &out, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	back, _ := read(t, out.String())
	ids = ids[:0]
	for _, e := range back.Events {
		if e.Call != nil {
			ids = append(ids, e.Call.ID)
		}
	}
	if want := "c1,call_L7"; strings.Join(ids, ",") != want {
		t.Errorf("rlog -> rlog: ids %v, want %s in\n%s", ids, want, out.String())
	}
}

// TestReaderGivesAbbreviatedArgsTheirKeys: rlog writes Bash's command as
// cmd= and Task's description as desc=; read back, they are under the
// tool's own keys (an export to Claude Code with "cmd" gave Bash an input
// it does not take), and written again as rlog, the line is the same.
func TestReaderGivesAbbreviatedArgsTheirKeys(t *testing.T) {
	src := "---\nformat: rlog/1\nid: x\nrepo_sha: 560549231\n---\n" +
		"t!:Bash id=k1 cmd=\"ls -l\" → [running]\n" +
		"t!:Task id=k2 desc=\"Find the card\" → [running]\n" +
		"t!:Other id=k3 cmd=make → [running]\n"
	s, _ := read(t, src)
	var inputs []string
	for _, e := range s.Events {
		inputs = append(inputs, string(e.Call.Input))
	}
	if got, want := strings.Join(inputs, " "), `{"command":"ls -l"} {"description":"Find the card"} {"cmd":"make"}`; got != want {
		t.Errorf("inputs %s, want %s", got, want)
	}
	out, _ := write(t, s, model.Options{})
	for _, l := range body(src) {
		if !strings.Contains(out, "\n"+l+"\n") {
			t.Errorf("written again, %q is not there:\n%s", l, out)
		}
	}
}

// TestReaderContinuedTexts holds each event's text to what its lines say:
// texts continued by 0 to 3 lines (made one string when the event is
// sent), a result's content continued, a continuation after a line that
// takes none (passed through), and texts that are parts of a line before
// its trailing metadata (a call's summary and its result, a phase's name,
// a comment's status).
func TestReaderContinuedTexts(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n" +
		"u: one ts=2025-12-24T00:11:56Z step=1\n" +
		"a: two\n  2b\n" +
		"th: three sig=abc tokens_in=5 tokens_out=6\n  3b\n\t3c\n  3d tokens_out=6\n" +
		"t:Read id=r1 file=/x → [ok] 12 lines latency_ms=5\n  more lines\n  and more\n" +
		"@phase build ts=2025-12-24T00:11:57Z\n  not a phase's\n" +
		"# status: Compacting ts=2025-12-24T00:11:58Z\n  still\n" +
		"a: é→ü 😀 ts=2025-12-24T00:11:59Z\n  😀\n"
	s, _ := read(t, src)
	var got []string
	for _, e := range s.Events {
		switch {
		case e.Call != nil:
			got = append(got, "call "+e.Call.Summary)
		case e.Result != nil:
			got = append(got, "result "+e.Result.Content)
		case e.Kind == model.KindPassthrough:
			got = append(got, "raw "+string(e.Raw))
		default:
			got = append(got, e.Kind.String()+" "+e.Text)
		}
	}
	want := []string{
		"user one",
		"agent two\n2b",
		"thinking three\n3b\n3c\n3d tokens_out=6",
		"call file=/x",
		"result 12 lines\nmore lines\nand more",
		"lifecycle build ts=2025-12-24T00:11:57Z", // a lifecycle line's text is its whole rest
		`raw "  not a phase's"`,
		"status Compacting\nstill",
		"agent é→ü 😀\n😀",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("texts:\n%q\nwant:\n%q", got, want)
	}
}
