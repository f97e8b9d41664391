package convert_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// fixtures are the project's own sample files, one or more of every
// format, modelled on real files (see testdata/fixtures/README.md).
var fixtures = []struct {
	path   string
	format convert.Format
}{
	{"session.rlog", convert.Rlog},
	{"claude/session.jsonl", convert.Claude},
	{"claude/session/subagents/agent-a1b2c3d.jsonl", convert.Claude},
	{"claude/edge-cases.jsonl", convert.Claude},
	{"claude/continued.jsonl", convert.Claude},
	{"sdk.jsonl", convert.SDKJSONL},
	{"trajectory.json", convert.Trajectory},
	{"atif-1.5.atif.json", convert.ATIF},
	{"atif-1.6.atif.json", convert.ATIF},
	{"atif-1.7.atif.json", convert.ATIF},
	{"session.atif.jsonl", convert.ATIFJSONL},
	{"REPLAY.jsonl", convert.Replay},
	{"session-replay.json", convert.ReplayBundle},
	{"trajectory.prophet.json", convert.Prophet},
	{"mini-swe-agent.traj.json", convert.MiniSWE},
	{"codex/rollout-2026-11-20T08-00-00-019a5e21-3c40-7d11-9a2b-5f0c1e2d3a4b.jsonl", convert.Codex},
	{"codex/rollout-2026-11-20T08-00-20-019a5e21-4d10-7cc2-8e33-2f3a4b5c6d7e.jsonl", convert.Codex},
	{"gemini/session-2026-01-02T03-04-5e55f1c0.jsonl", convert.Gemini},
	{"gemini/5e55f1c0-2a4b-4c6d-8e0f-a1b2c3d4e5f6/c41d0a9e-7b3f-4e21-9d5c-0f6e8a2b4c71.jsonl", convert.Gemini},
	{"gemini/session-2025-12-01T09-00-7a1e0c2b.json", convert.Gemini},
}

func fixture(name string) string {
	return filepath.Join("testdata", "fixtures", filepath.FromSlash(name))
}

// TestEveryFormatHasAFixture: a format added to the table needs a fixture
// (one that is only detected, a transcript in testdata/agents).
func TestEveryFormatHasAFixture(t *testing.T) {
	have := map[convert.Format]bool{}
	for _, f := range fixtures {
		have[f.format] = true
	}
	detected := map[convert.Format]bool{}
	for _, in := range agentTranscripts(t) {
		detected[in.format] = true
	}
	for _, f := range convert.Formats() {
		switch {
		case f.CanRead() && !have[f.Name]:
			t.Errorf("no fixture of %s in testdata/fixtures", f.Name)
		case !f.CanRead() && !detected[f.Name]:
			t.Errorf("no transcript of %s in testdata/agents", f.Name)
		}
	}
}

// convertFixture converts a fixture (with what lies beside it) to format to.
func convertFixture(t *testing.T, name string, from, to convert.Format, opts convert.Options) ([]byte, *convert.Report) {
	t.Helper()
	var out bytes.Buffer
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	rep, err := convert.ConvertFile(fixture(name), from, to, &out, opts)
	if err != nil {
		t.Fatalf("%s -> %s: %v", name, to, err)
	}
	return out.Bytes(), rep
}

// TestFixturesToRlog: what each reader makes of its fixture, written as
// rlog, with the loss report: documents to read (go test -update rewrites
// them).
func TestFixturesToRlog(t *testing.T) {
	for _, f := range fixtures {
		if f.format == convert.Rlog {
			continue
		}
		out, rep := convertFixture(t, f.path, f.format, convert.Rlog, convert.Options{})
		golden.CheckFile(t, fixture("golden/"+strings.ReplaceAll(f.path, "/", "_")+".rlog"), []byte(string(out)+"\n# loss report\n"+commentLines(rep.Text())))
	}
}

func commentLines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("# " + l + "\n")
	}
	return b.String()
}

// messageUsage is the usage of each message id of a session, counted as
// the ledger counts it, and the total.
func messageUsage(t *testing.T, s *convert.Session) (map[string]model.Usage, model.Usage) {
	t.Helper()
	out := map[string]model.Usage{}
	var total model.Ledger
	for i := range s.Events {
		e := &s.Events[i]
		total.Add(e)
		if e.Usage != nil && e.MessageID != "" {
			out[e.MessageID] = out[e.MessageID].Max(*e.Usage)
		}
	}
	return out, total.Total()
}

// TestClaudeTokensSurviveEveryFormat: claude -> F -> claude keeps every
// message id and each message's tokens, cache creation included, for
// every format F that carries tokens (the six messages of the fixture
// came back as three made-up ones through trajectory, and per-step cache
// creation was lost).
func TestClaudeTokensSurviveEveryFormat(t *testing.T) {
	src, _, err := readFile(fixture("claude/session.jsonl"), convert.Claude)
	if err != nil {
		t.Fatal(err)
	}
	want, wantTotal := messageUsage(t, src)
	if len(want) != 8 || wantTotal.CacheCreate == 0 {
		t.Fatalf("fixture: %d messages, %+v", len(want), wantTotal)
	}
	for _, via := range []convert.Format{convert.Trajectory, convert.ATIF, convert.ATIFJSONL, convert.Prophet, convert.Rlog} {
		mid, _ := convertFixture(t, "claude/session.jsonl", convert.Claude, via, convert.Options{})
		var back bytes.Buffer
		if _, err := convert.Convert(bytes.NewReader(mid), via, convert.Claude, &back, convert.Options{Now: fixedNow}); err != nil {
			t.Fatalf("%s -> claude: %v", via, err)
		}
		s, _, err := convert.Read(bytes.NewReader(back.Bytes()), convert.Claude)
		if err != nil {
			t.Fatal(err)
		}
		got, gotTotal := messageUsage(t, s)
		if !reflect.DeepEqual(got, want) || gotTotal != wantTotal {
			t.Errorf("claude -> %s -> claude:\n got %v\nwant %v\n(totals %+v, want %+v)", via, sortedUsage(got), sortedUsage(want), gotTotal, wantTotal)
		}
	}
}

func sortedUsage(m map[string]model.Usage) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%+v ", k, m[k])
	}
	return b.String()
}

func readFile(path string, from convert.Format) (*convert.Session, *convert.Report, error) {
	fi, _ := convert.Lookup(from)
	rep := &convert.Report{}
	var c model.Collector
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.ReadNamed != nil {
		err = fi.ReadNamed(f, path, &c, rep)
	} else {
		err = fi.Read(f, &c, rep)
	}
	return &c.Session, rep, err
}

// TestRlogCallIDsSurviveEveryFormat: the call ids of an rlog (the early
// autopilot logs' shared toolu_01 included) come back from every format
// as they were, each result with its call.
func TestRlogCallIDsSurviveEveryFormat(t *testing.T) {
	src, _, err := readFile(fixture("session.rlog"), convert.Rlog)
	if err != nil {
		t.Fatal(err)
	}
	calls := func(s *convert.Session) string {
		var b strings.Builder
		for _, e := range s.Events {
			switch {
			case e.Call != nil:
				fmt.Fprintf(&b, "call %s %s\n", e.Call.ID, e.Call.Name)
			case e.Result != nil:
				fmt.Fprintf(&b, "result %s\n", e.Result.CallID)
			}
		}
		return b.String()
	}
	want := calls(src)
	if !strings.Contains(want, "call toolu_01 Read\ncall toolu_01 Read\n") {
		t.Fatalf("fixture lost its shared ids:\n%s", want)
	}
	for _, via := range []convert.Format{convert.Rlog, convert.ATIF, convert.ATIFJSONL, convert.Trajectory, convert.Claude, convert.Replay, convert.Prophet} {
		mid, _ := convertFixture(t, "session.rlog", convert.Rlog, via, convert.Options{})
		var back bytes.Buffer
		if _, err := convert.Convert(bytes.NewReader(mid), via, convert.Rlog, &back, convert.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		s, _, err := convert.Read(bytes.NewReader(back.Bytes()), convert.Rlog)
		if err != nil {
			t.Fatal(err)
		}
		// ATIF puts each result in its call's step: the order of results
		// among calls may change, the pairs may not.
		if got := calls(s); sortLines(got) != sortLines(want) {
			t.Errorf("rlog -> %s -> rlog: calls and results\n%s\nwant\n%s", via, got, want)
		}
		// The ids are written as the source wrote them, not made unique
		// (toolu_01_2 with id_full="toolu_01"): the source's rlog comes back.
		if bytes.Contains(back.Bytes(), []byte("toolu_01_2")) || bytes.Count(back.Bytes(), []byte("t!:Read id=toolu_01 ")) != 2 {
			t.Errorf("rlog -> %s -> rlog: shared ids not written as they were:\n%s", via, back.Bytes())
		}
	}
}

func sortLines(s string) string {
	l := strings.Split(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// TestATIFRestoresIDsMadeUnique: two calls of one response with one id are
// written as id and id#2 in their ATIF step (Harbor wants them apart), and
// read back as the source's ids, each result with its call.
func TestATIFRestoresIDsMadeUnique(t *testing.T) {
	doc := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef1\n---\n" +
		"t!:Read id=toolu_01 file_path=a.rs → [running] message_id=m1 tokens_in=5 tokens_out=9\n" +
		"t!:Read id=toolu_01 file_path=b.rs → [running] message_id=m1 tokens_in=5 tokens_out=9\n" +
		"o: id=toolu_01 → [ok] A\n" +
		"o: id=toolu_01 → [error] B\n"
	for _, to := range []convert.Format{convert.ATIF, convert.ATIFJSONL} {
		var out bytes.Buffer
		rep, err := convert.Convert(strings.NewReader(doc), convert.Rlog, to, &out, convert.Options{Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out.Bytes(), []byte(`toolu_01#2`)) || rep.Count(model.LossIDUnique) != 1 {
			t.Fatalf("%s: ids not made unique in the step:\n%s", to, out.Bytes())
		}
		s, _, err := convert.Read(bytes.NewReader(out.Bytes()), to)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range s.Events {
			switch {
			case e.Call != nil:
				got = append(got, "call "+e.Call.ID)
			case e.Result != nil:
				got = append(got, fmt.Sprintf("result %s %v %s", e.Result.CallID, e.Result.IsError, e.Result.Content))
			}
		}
		if want := "call toolu_01|call toolu_01|result toolu_01 false A|result toolu_01 true B"; strings.Join(got, "|") != want {
			t.Errorf("%s: read back %q, want %q", to, strings.Join(got, "|"), want)
		}
	}
}

// TestProphetStepsAreLinear: each step's input lists the messages new to
// it, so the steps hold as many keys as there are messages, whatever the
// length of the session (every key so far made 2 MB of rlog 470 MB).
func TestProphetStepsAreLinear(t *testing.T) {
	out, rep := convertFixture(t, "session.rlog", convert.Rlog, convert.Prophet, convert.Options{})
	var doc struct {
		Messages []struct{ Key string } `json:"messages"`
		Steps    []struct {
			Input  []string `json:"input"`
			Output string   `json:"output"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	keys, outputs := 0, 0
	for _, s := range doc.Steps {
		keys += len(s.Input)
		outputs++
	}
	if keys+outputs > len(doc.Messages) || outputs < 3 {
		t.Errorf("%d steps list %d input keys for %d messages", outputs, keys, len(doc.Messages))
	}
	if rep.Count(model.LossUnfaithful) == 0 {
		t.Error("the new-messages-only inputs are not reported")
	}
	// The first step lists everything before the first assistant message.
	if doc.Steps[0].Output != "A0" || len(doc.Steps[0].Input) == 0 {
		t.Errorf("first step %+v", doc.Steps[0])
	}
}

// TestSidechainTurnsKeepTheirAgent: a Task's sub-agent turns written
// inline in the transcript (Claude Code 1.x, isSidechain true, no agentId)
// are a sub-agent's in every format: in rlog under an x: line, each with
// the sub-agent's tid= (its prompt is no user line of the main session),
// and through every format and back to Claude Code, sidechain entries.
func TestSidechainTurnsKeepTheirAgent(t *testing.T) {
	out, _ := convertFixture(t, "claude/continued.jsonl", convert.Claude, convert.Rlog, convert.Options{})
	prompt := "u: Find how HttpRouter.get takes its handler in the examples folder."
	lines := strings.Split(string(out), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, prompt) })
	if i < 1 || !strings.Contains(lines[i], "tid=toolu_01Task") || !strings.HasPrefix(lines[i-1], "x:") || !strings.Contains(lines[i-1], "id=toolu_01Task → [started]") {
		t.Fatalf("the sub-agent's prompt is not under its x: line with its tid=:\n%s", out)
	}
	sidechains := func(s *convert.Session) []string {
		var out []string
		for _, e := range s.Events {
			if e.Sidechain && e.Kind != model.KindSubagent {
				out = append(out, e.Kind.String())
			}
		}
		return out
	}
	src, _, err := readFile(fixture("claude/continued.jsonl"), convert.Claude)
	if err != nil {
		t.Fatal(err)
	}
	want := sidechains(src)
	if len(want) != 4 {
		t.Fatalf("fixture: sidechain turns %v", want)
	}
	for _, via := range convert.Formats() {
		if !via.CanWrite() {
			continue
		}
		mid, _ := convertFixture(t, "claude/continued.jsonl", convert.Claude, via.Name, convert.Options{})
		var back bytes.Buffer
		if _, err := convert.Convert(bytes.NewReader(mid), via.Name, convert.Claude, &back, convert.Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		s, _, err := convert.Read(bytes.NewReader(back.Bytes()), convert.Claude)
		if err != nil {
			t.Fatal(err)
		}
		if got := sidechains(s); !slices.Equal(got, want) {
			t.Errorf("claude -> %s -> claude: sidechain turns %v, want %v", via.Name, got, want)
		}
	}
}
