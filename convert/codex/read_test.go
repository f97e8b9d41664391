package codex_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/codex"
	"github.com/rlog-ls/rlog-ls/convert/codex/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
	producer "github.com/rlog-ls/rlog-ls/internal/producers/codex"
)

var update = flag.Bool("update", false, "rewrite testdata/golden with what the reader makes now")

// recorded is where the producer harness keeps what Codex CLI wrote.
const recorded = "../../testdata/agents/codex"

// thread is one rollout of a recorded scenario with the CLI's own
// accounting of it (tokens.json: the sum of its token_usage_record lines).
type thread struct {
	scenario, path string
	subagent       bool
	records        int
	usage          producer.Usage
}

// recordedThreads are the rollouts of every recorded scenario of every
// version, each with its accounting.
func recordedThreads(t *testing.T) []thread {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(recorded, "*", "*", "tokens.json"))
	if len(dirs) == 0 {
		t.Fatalf("no recorded Codex scenario under %s", recorded)
	}
	var out []thread
	for _, tj := range dirs {
		dir := filepath.Dir(tj)
		tokens, err := producer.ReadTokens(dir)
		if err != nil {
			t.Fatalf("%s: %v", tj, err)
		}
		for _, th := range tokens.Threads {
			r := thread{
				scenario: filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir),
				path:     filepath.Join(dir, "codex-home", filepath.FromSlash(th.File)),
				subagent: th.Subagent, records: th.Records, usage: th.Usage,
			}
			out = append(out, r)
		}
	}
	return out
}

func readRollout(t *testing.T, path string) (*model.Session, *model.Report) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c model.Collector
	rep := &model.Report{From: codex.Name}
	if err := codex.ReadNamed(f, path, &c, rep); err != nil {
		t.Fatal(err)
	}
	return &c.Session, rep
}

// TestRecordedTokensAreTheCLIs: over every rollout Codex CLI wrote in the
// producer harness, the session's tokens, counted by the usage rule (once
// per response), are the CLI's own accounting: the sum of its
// token_usage_record lines, compactions included, a sub-agent's in its
// own rollout, a forked sub-agent's without its parent's.
func TestRecordedTokensAreTheCLIs(t *testing.T) {
	for _, th := range recordedThreads(t) {
		s, _ := readRollout(t, th.path)
		var l model.Ledger
		for i := range s.Events {
			l.Add(&s.Events[i])
		}
		u := l.Total()
		in := u.Input + u.CacheRead + u.CacheCreate
		if in != int64(th.usage.Input) || u.CacheRead != int64(th.usage.Cached) || u.Output != int64(th.usage.Output) || in+u.Output != int64(th.usage.Total) || l.Messages() != th.records {
			t.Errorf("%s %s: %d responses, %+v (input %d, total %d); the CLI counts %d responses, %+v", th.scenario, filepath.Base(th.path), l.Messages(), u, in, in+u.Output, th.records, th.usage)
		}
	}
}

// TestRecordedRolloutsHaveNoUnknownRecord: every line of every recorded
// rollout is read into an event or counted by name; none is passed
// through unknown or malformed.
func TestRecordedRolloutsHaveNoUnknownRecord(t *testing.T) {
	for _, th := range recordedThreads(t) {
		_, rep := readRollout(t, th.path)
		for _, l := range rep.Losses {
			if l.Kind == model.LossPassthrough || l.Kind == model.LossMalformed || l.Kind == model.LossInvalidUTF8 {
				t.Errorf("%s %s: %s %s ×%d", th.scenario, filepath.Base(th.path), l.Kind, l.Detail, l.Count)
			}
		}
	}
}

// TestRecordedSubagentsAreLinked: a sub-agent's rollout names its parent
// and its events carry its thread; the parent's x: events name the
// sub-agent's thread and rollout, which lies beside it.
func TestRecordedSubagentsAreLinked(t *testing.T) {
	parents := map[string]string{} // scenario -> main thread id
	var children []thread
	for _, th := range recordedThreads(t) {
		s, _ := readRollout(t, th.path)
		if !th.subagent {
			parents[th.scenario] = s.Header.ID
			n := 0
			for _, e := range s.Events {
				if sa := e.Subagent; sa != nil {
					n++
					if sa.AgentID == "" || sa.TrajectoryPath == "" || e.AgentID != sa.AgentID || !strings.HasSuffix(sa.TrajectoryPath, sa.AgentID+".jsonl") {
						t.Errorf("%s: sub-agent event %+v of agent %q is not linked to its rollout", th.scenario, *sa, e.AgentID)
					}
					if _, err := os.Stat(filepath.Join(filepath.Dir(th.path), sa.TrajectoryPath)); err != nil {
						t.Errorf("%s: %v", th.scenario, err)
					}
				}
			}
			if strings.HasPrefix(th.scenario[strings.IndexByte(th.scenario, '/')+1:], "subagent") && n != 2 {
				t.Errorf("%s: %d sub-agent events, want its start and end", th.scenario, n)
			}
			continue
		}
		children = append(children, th)
	}
	if len(children) == 0 {
		t.Fatal("no recorded sub-agent rollout")
	}
	for _, th := range children {
		s, _ := readRollout(t, th.path)
		if p, _ := s.Header.Extra.String("parent_thread_id"); p == "" || p != parents[th.scenario] {
			t.Errorf("%s: the sub-agent names parent %q, the main thread is %q", th.scenario, p, parents[th.scenario])
		}
		for _, e := range s.Events {
			if e.Kind != model.KindInit && e.Kind != model.KindCompaction && (e.AgentID != s.Header.ID || !e.Sidechain) {
				t.Errorf("%s: a %s event of the sub-agent's rollout has agent %q", th.scenario, e.Kind, e.AgentID)
				break
			}
		}
	}
}

// TestRecordedConversions: what each recorded rollout becomes in rlog,
// with its loss report (go test -update rewrites testdata/golden).
func TestRecordedConversions(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }
	for _, th := range recordedThreads(t) {
		var out bytes.Buffer
		rep, err := convert.ConvertFile(th.path, convert.Codex, convert.Rlog, &out, convert.Options{Now: now})
		if err != nil {
			t.Fatalf("%s: %v", th.path, err)
		}
		role := "main"
		if th.subagent {
			role = "subagent"
		}
		name := filepath.Join("testdata", "golden", strings.ReplaceAll(th.scenario, "/", "_")+"."+role+".rlog")
		got := out.String() + "\n# loss report\n" + comment(rep.Text())
		if *update {
			os.MkdirAll(filepath.Dir(name), 0o755)
			if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if string(want) != got {
			t.Errorf("%s differs (go test -update rewrites it):\n--- want\n%s--- got\n%s", name, want, got)
		}
	}
}

func comment(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("# " + l + "\n")
	}
	return b.String()
}

// TestEarlierLineForms: a rollout as earlier versions wrote it, lines
// without ordinal, and the earliest form, a bare session header and bare
// response items, read as the pinned version's lines do; a known line
// type without its payload and a line that is not JSON are reported where
// they are.
func TestEarlierLineForms(t *testing.T) {
	in := `{"id":"t1","timestamp":"2025-05-01T10:00:00Z","instructions":"be brief","git":{"commit_hash":"abc1234","branch":"dev"}}
{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}
{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}
{"type":"function_call_output","call_id":"c1","output":{"content":"boom","success":false}}
{"timestamp":"2025-05-01T10:00:02Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c2","exit_code":2}}
{"timestamp":"2025-05-01T10:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"failed"}}
{"timestamp":"2025-05-01T10:00:04Z","type":"turn_context"}
not json
`
	var c model.Collector
	rep := &model.Report{}
	if err := codex.Read(strings.NewReader(in), &c, rep); err != nil {
		t.Fatal(err)
	}
	h := c.Session.Header
	if h.ID != "t1" || h.Branch != "dev" || h.RepoSHA != "abc1234" || h.Started != "2025-05-01T10:00:00Z" {
		t.Errorf("header %+v", h)
	}
	var got []string
	for _, e := range c.Session.Events {
		switch {
		case e.Call != nil:
			got = append(got, "call "+e.Call.ID+" "+e.Call.Name+" "+string(e.Call.Input))
		case e.Result != nil:
			got = append(got, "result "+e.Result.CallID+" "+e.Result.Content+" error="+map[bool]string{true: "yes", false: "no"}[e.Result.IsError])
		default:
			got = append(got, e.Kind.String()+" "+e.Text)
		}
	}
	want := []string{"user hi", `call c1 shell {"command":["ls"]}`, "result c1 boom error=yes", "result c2 failed error=yes"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []struct {
		kind model.LossKind
		line int
	}{{model.LossMalformed, 7}, {model.LossMalformed, 8}} {
		found := false
		for _, l := range rep.Losses {
			for _, loc := range l.Locations {
				found = found || l.Kind == w.kind && loc.Line == w.line
			}
		}
		if !found {
			t.Errorf("no %s at line %d:\n%s", w.kind, w.line, rep.Text())
		}
	}
}

// TestUsageWithoutItems: a response that wrote no item still counts, on
// an event of its own; a response whose stream broke before its usage
// record keeps its items without usage.
func TestUsageWithoutItems(t *testing.T) {
	in := `{"timestamp":"t","type":"session_meta","payload":{"id":"T"}}
{"timestamp":"t","type":"token_usage_record","payload":{"thread_id":"T","response_id":"r1","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":7}}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"partial"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"again"}]}}
{"timestamp":"t","type":"token_usage_record","payload":{"thread_id":"OTHER","response_id":"r0","usage":{"input_tokens":999,"output_tokens":9}}}
`
	var c model.Collector
	if err := codex.Read(strings.NewReader(in), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	var l model.Ledger
	var kinds []string
	for i := range c.Session.Events {
		e := &c.Session.Events[i]
		l.Add(e)
		kinds = append(kinds, e.Kind.String()+":"+e.Text+":"+e.MessageID)
	}
	if got := l.Total(); got != (model.Usage{Input: 60, CacheRead: 40, Output: 7}) || l.Messages() != 1 {
		t.Errorf("total %+v in %d messages", got, l.Messages())
	}
	if want := "agent::r1 agent:partial: user:again:"; strings.Join(kinds, " ") != want {
		t.Errorf("events %q, want %q", strings.Join(kinds, " "), want)
	}
}

// TestEveryRecordNameHasAMeaning: every name of the record vocabulary
// (convert/codex/records), recorded or of an earlier version, is read into
// an event, the header or the outcome, or counted by name; none is passed
// through as unknown.
func TestEveryRecordNameHasAMeaning(t *testing.T) {
	var lines []string
	add := func(payload string) {
		lines = append(lines, `{"timestamp":"2026-11-27T09:00:00Z","type":`+payload+`}`)
	}
	for _, l := range records.Lines {
		if l.Name != "response_item" && l.Name != "event_msg" {
			add(`"` + l.Name + `","payload":{}`)
		}
	}
	for _, r := range records.ResponseItems {
		add(`"response_item","payload":{"type":"` + r.Name + `"}`)
	}
	for _, e := range records.Events {
		if e.Name != "item_completed" { // with each of its items below
			add(`"event_msg","payload":{"type":"` + e.Name + `"}`)
		}
	}
	for _, it := range records.Items {
		add(`"event_msg","payload":{"type":"item_completed","item":{"type":"` + it.Name + `"}}`)
	}
	var c model.Collector
	rep := &model.Report{}
	if err := codex.Read(strings.NewReader(strings.Join(lines, "\n")), &c, rep); err != nil {
		t.Fatal(err)
	}
	for _, l := range rep.Losses {
		if l.Kind == model.LossPassthrough || l.Kind == model.LossMalformed {
			t.Errorf("%s: %s", l.Kind, l.Detail)
		}
	}
	if len(lines) < 30 {
		t.Errorf("only %d names", len(lines))
	}
}

// TestContentOtherThanText: an image in a prompt is reported where it is,
// and the prompt's text is kept.
func TestContentOtherThanText(t *testing.T) {
	in := `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"what is this?"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]}}` + "\n"
	var c model.Collector
	rep := &model.Report{}
	if err := codex.Read(strings.NewReader(in), &c, rep); err != nil {
		t.Fatal(err)
	}
	if len(c.Session.Events) != 1 || c.Session.Events[0].Text != "what is this?" {
		t.Fatalf("events %+v", c.Session.Events)
	}
	if l := rep.Find(model.LossDroppedField, "codex content item input_image (only text is read)"); l == nil || l.Locations[0].Line != 1 {
		t.Errorf("the image is not reported:\n%s", rep.Text())
	}
}

// TestLineFieldsBeyondTheForm: a key a line has beyond {timestamp,
// ordinal, type, payload, metadata} is reported where it is.
func TestLineFieldsBeyondTheForm(t *testing.T) {
	in := `{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{"id":"T"},"shard":3}` + "\n"
	rep := &model.Report{}
	if err := codex.Read(strings.NewReader(in), &model.Collector{}, rep); err != nil {
		t.Fatal(err)
	}
	if l := rep.Find(model.LossDroppedField, "codex line field shard"); l == nil || l.Locations[0].Line != 1 {
		t.Errorf("the line's extra key is not reported:\n%s", rep.Text())
	}
}
