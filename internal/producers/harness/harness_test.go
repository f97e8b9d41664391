package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

func TestReplaceDir(t *testing.T) {
	root := t.TempDir()
	dest, fresh := filepath.Join(root, "v"), filepath.Join(root, "new")
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "old.txt"), nil, 0o644)
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "new.txt"), nil, 0o644)
	if err := ReplaceDir(fresh, dest); err != nil {
		t.Fatal(err)
	}
	if !IsFile(filepath.Join(dest, "new.txt")) || IsFile(filepath.Join(dest, "old.txt")) {
		t.Error("dest does not hold exactly the fresh folder")
	}
	if _, err := os.Stat(dest + ".old"); !os.IsNotExist(err) {
		t.Error("the old folder is left behind")
	}
}

func TestVocabularyMismatches(t *testing.T) {
	type recType struct {
		Name     string
		About    string
		Recorded bool
	}
	v := VocabularyOf(map[string][]recType{
		"kind": {{"a", "", true}, {"b", "", true}, {"c", "", false}, {"a", "", true}},
	})
	inv := NewInventory("kind")
	inv.Count("kind", "a")
	inv.Count("kind", "c")
	inv.Count("kind", "d")
	want := []string{
		"kind b is marked Recorded but no fixture has it",
		"kind c is in the fixtures but not marked Recorded",
		"kind a is listed twice",
	}
	got := v.Mismatches(inv)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Mismatches %q, want %q", got, want)
	}
	if u := inv.Unknown(v.Known); !slices.Equal(u, []string{"kind d"}) {
		t.Errorf("Unknown %v", u)
	}
}

// TestInventoryAddKeepsTheOrder: categories stay in the order declared,
// whatever order a map would give.
func TestInventoryAddKeepsTheOrder(t *testing.T) {
	total := NewInventory()
	for range 5 {
		inv := NewInventory("z", "a", "m")
		inv.Count("m", "x")
		total.Add(inv)
	}
	if !slices.Equal(total.Categories, []string{"z", "a", "m"}) || total.Kinds["m"]["x"] != 5 {
		t.Errorf("categories %v, kinds %v", total.Categories, total.Kinds)
	}
}

// TestRecordScenarioChecksFirst: a recording never goes into a folder
// that exists, and a driver's missing CLI is said before anything runs.
func TestRecordScenarioChecksFirst(t *testing.T) {
	dir := t.TempDir()
	var job struct{ Out string }
	job.Out = dir
	if _, err := RecordScenario[struct{}](context.Background(), "none", "s", 1, time.Second, dir, errors.New("no CLI"), &job, &job.Out); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("into an existing folder: %v", err)
	}
	out := filepath.Join(dir, "new")
	if _, err := RecordScenario[struct{}](context.Background(), "none", "s", 1, time.Second, out, errors.New("no CLI"), &job, &job.Out); err == nil || err.Error() != "no CLI" {
		t.Errorf("without the CLI: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was made", out)
	}
}

// TestWriteResults: a line per exchange in order, the bodies and headers
// under bodies/ when asked, and the unscripted ones' sequence numbers
// added to the results written beside them.
func TestWriteResults(t *testing.T) {
	out := t.TempDir()
	exs := []standin.Exchange{
		{Seq: 1, Body: []byte(`{"a":1}`), Header: http.Header{"X-Agent": {"main"}}},
		{Seq: 2, Body: []byte(`{"b":2}`)},
	}
	res := &Results[int]{Scenario: "s", Steps: []int{7}, Unscripted: []int{1}}
	err := WriteResults(out, res, exs, true, true, func(ex standin.Exchange) (any, bool) {
		return map[string]int{"seq": ex.Seq}, ex.Seq == 2
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Unscripted, []int{1, 2}) {
		t.Errorf("unscripted %v", res.Unscripted)
	}
	if got, err := ReadResults[int](out); err != nil || !reflect.DeepEqual(got, res) {
		t.Errorf("results.json read back as %+v (%v), want %+v", got, err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "requests.jsonl")); string(got) != "{\"seq\":1}\n{\"seq\":2}\n" {
		t.Errorf("requests.jsonl: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "bodies", "002.json")); string(got) != `{"b":2}` {
		t.Errorf("body 2: %q", got)
	}
	if !IsFile(filepath.Join(out, "bodies", "001.headers.json")) {
		t.Error("no headers beside body 1")
	}
	if err := WriteCCUsage(context.Background(), "", nil, nil, filepath.Join(out, "ccusage.json")); err != nil || IsFile(filepath.Join(out, "ccusage.json")) {
		t.Errorf("without ccusage: %v, or a file written", err)
	}
}

func TestScriptProblems(t *testing.T) {
	if p := ScriptProblems(nil, nil); p != nil {
		t.Errorf("a script answered in full: %q", p)
	}
	want := []string{"requests no rule answered: [3 5] (see requests.jsonl)", "rules that never answered: a, b"}
	if p := ScriptProblems([]int{3, 5}, []string{"a", "b"}); !slices.Equal(p, want) {
		t.Errorf("%q", p)
	}
}

// TestCheckRuns: a count other than the scenario's, each run the scenario
// has (and no more) checked, then the script's problems; CheckNames adds
// the names the vocabulary does not know, or why there were none.
func TestCheckRuns(t *testing.T) {
	var p Problems
	res := &Results[string]{Steps: []string{"a", "b", "c"}, Unused: []string{"r"}}
	var seen []string
	CheckRuns(&p, res, 2, func(i int, r string) {
		seen = append(seen, r)
		p.Add("run %d: %s", i+1, r)
	})
	inv := NewInventory("kind")
	inv.Kinds["kind"]["new"] = 1
	p.CheckNames(inv, nil, "files", func(string, string) bool { return false }, "the records")
	p.CheckNames(nil, errors.New("broken"), "files", nil, "the records")
	want := Problems{"3 runs recorded, the scenario has 2", "run 1: a", "run 2: b", "rules that never answered: r",
		"kind new is not in the records", "reading the files: broken"}
	if !slices.Equal(seen, []string{"a", "b"}) || !slices.Equal(p, want) {
		t.Errorf("runs checked %q, problems %q", seen, p)
	}
}

// TestRunCLI: what the command printed on stdout and stderr and its exit
// code, apart; stdin closed; a command that cannot start, and one killed
// at its timeout, noted.
func TestRunCLI(t *testing.T) {
	ctx := context.Background()
	stdout, stderr, code, note := RunCLI(ctx, time.Minute, t.TempDir(), nil, "/bin/sh", []string{"-c", "cat; echo out; echo err >&2; exit 3"}, nil)
	if string(stdout) != "out\n" || string(stderr) != "err\n" || code != 3 || note != "" {
		t.Errorf("stdout %q, stderr %q, code %d, note %q", stdout, stderr, code, note)
	}
	if _, _, code, note := RunCLI(ctx, time.Minute, "", nil, "/no/such/cli", nil, nil); code != -1 || note == "" {
		t.Errorf("a CLI that cannot start: code %d, note %q", code, note)
	}
	if _, _, _, note := RunCLI(ctx, 50*time.Millisecond, "", nil, "/bin/sleep", []string{"10"}, nil); !strings.Contains(note, "killed after 50ms") {
		t.Errorf("a CLI past its timeout: note %q", note)
	}
	stdout, _, code, _ = RunCLI(ctx, time.Minute, "", nil, "/bin/echo", []string{"x"}, func(cmd *exec.Cmd, out *bytes.Buffer) error {
		cmd.Stdout = out
		if err := cmd.Start(); err != nil {
			return err
		}
		return cmd.Wait()
	})
	if string(stdout) != "x\n" || code != 0 {
		t.Errorf("conversing: stdout %q, code %d", stdout, code)
	}
}

// TestRequestAnsweredBy: the last request the rule answered, and where its
// body is kept.
func TestRequestAnsweredBy(t *testing.T) {
	dir := t.TempDir()
	type sum struct {
		Seq  int
		Rule string
	}
	os.WriteFile(filepath.Join(dir, RequestsName), []byte(`{"Seq":1,"Rule":"a"}
{"Seq":2,"Rule":"b"}
{"Seq":3,"Rule":"a"}
`), 0o644)
	got, body := RequestAnsweredBy(t, dir, "a", func(s sum) (string, int) { return s.Rule, s.Seq })
	if got != (sum{3, "a"}) || body != filepath.Join(dir, "bodies", "003") {
		t.Errorf("%+v at %s", got, body)
	}
}

// TestCCUsageRows: ccusage's rows read by their keys, its input without
// the cached part.
func TestCCUsageRows(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, CCUsageName), []byte(`{"sessions":[{"sessionId":"s","sessionFile":"f",
"inputTokens":70,"cacheReadTokens":30,"outputTokens":5,"totalTokens":105,"costUSD":0.1}]}`), 0o644)
	rows := ReadCCUsage(t, dir)
	want := []CCUsageRow{{SessionID: "s", SessionFile: "f", InputTokens: 70, CacheReadTokens: 30, OutputTokens: 5, TotalTokens: 105}}
	if !slices.Equal(rows, want) {
		t.Fatalf("rows %+v", rows)
	}
	if !rows[0].Counts(100, 30, 5, 105) || rows[0].Counts(70, 30, 5, 105) {
		t.Error("Counts does not take the cached part out of the input")
	}
}

// TestResumeDefaults: the recorded working directory when it is under the
// sandbox root, else the resume folder's; "Go on." unless a prompt is
// given; what the request gave is kept.
func TestResumeDefaults(t *testing.T) {
	cases := []struct{ cwd, prompt, recorded, wantCwd, wantPrompt string }{
		{"", "", sandbox.Root + "/x/work", sandbox.Root + "/x/work", "Go on."},
		{"", "", "/home/someone", "/r/work", "Go on."},
		{"/mine", "Next.", sandbox.Root + "/x/work", "/mine", "Next."},
	}
	for _, c := range cases {
		cwd, prompt := c.cwd, c.prompt
		ResumeDefaults(&cwd, &prompt, c.recorded, Folder("/r"))
		if cwd != c.wantCwd || prompt != c.wantPrompt {
			t.Errorf("%+v: %s, %s", c, cwd, prompt)
		}
	}
}

// TestCollectResumed: every request to the model's path in order (a
// query aside), the conversation of the first; a first request that does
// not parse, and a run that succeeded without asking, are errors.
func TestCollectResumed(t *testing.T) {
	exs := []standin.Exchange{
		{Path: "/v1/models", Body: []byte(`{}`)},
		{Path: "/v1/messages?beta=true", Body: []byte(`{"n":1}`)},
		{Path: "/v1/messages", Body: []byte(`{"n":2}`)},
	}
	parse := func(ex standin.Exchange) ([]standin.Turn, error) {
		if !json.Valid(ex.Body) {
			return nil, errors.New("not JSON")
		}
		return []standin.Turn{{Role: "user", Parts: []standin.Part{{Type: "text", Text: string(ex.Body)}}}}, nil
	}
	var out Resumed[int]
	if err := out.Collect(exs, "/v1/messages", 0, parse); err != nil {
		t.Fatal(err)
	}
	if len(out.Requests) != 2 || string(out.Requests[1]) != `{"n":2}` || len(out.Conversation) != 1 || out.Conversation[0].Parts[0].Text != `{"n":1}` {
		t.Errorf("%+v", out)
	}
	var none Resumed[int]
	if err := none.Collect(exs[:1], "/v1/messages", 0, parse); err == nil {
		t.Error("a run that asked nothing and succeeded is no error")
	}
	if err := none.Collect(exs[:1], "/v1/messages", 1, parse); err != nil {
		t.Errorf("a failed run that asked nothing: %v", err)
	}
	bad := Resumed[int]{}
	if err := bad.Collect([]standin.Exchange{{Path: "/v1/messages", Body: []byte("{")}}, "/v1/messages", 0, parse); err == nil || !strings.Contains(err.Error(), "first request") {
		t.Errorf("a first request that does not parse: %v", err)
	}
}
