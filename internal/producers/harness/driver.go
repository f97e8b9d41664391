package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// MakeDirs makes each folder of dirs, with its parents.
func MakeDirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// Named is the scenario of list that nameOf calls name, nil when none is.
func Named[S any](list []*S, nameOf func(*S) string, name string) *S {
	for _, s := range list {
		if nameOf(s) == name {
			return s
		}
	}
	return nil
}

// A Recording is one scenario recorded: its results (R, the driver's) and
// what the driver's check found wrong with it.
type Recording[S, R any] struct {
	Scenario S
	Results  *R
	Problems []string
	Err      error // the run itself failed
}

// RecordAll records every scenario into dir/NAME with record (dir must
// not hold them yet), running at most parallel at once, and checks each
// recording with check.
func RecordAll[S, R any](scenarios []S, name func(S) string, dir string, parallel int,
	record func(s S, out string) (*R, error), check func(s S, res *R, out string) []string) []Recording[S, R] {
	recs := make([]Recording[S, R], len(scenarios))
	RunParallel(parallel, len(scenarios), func(i int) {
		s := scenarios[i]
		out := filepath.Join(dir, name(s))
		res, err := record(s, out)
		recs[i] = Recording[S, R]{Scenario: s, Results: res, Err: err}
		if err == nil {
			recs[i].Problems = check(s, res, out)
		}
	})
	return recs
}

// A ScenarioJob is the input of a driver's sandbox job that runs a
// scenario (a driver may add to it).
type ScenarioJob struct {
	Scenario string // a name in the driver's Scenarios
	Binary   string // the CLI's binary (or what node runs)
	CCUsage  string // the ccusage binary, "" to skip its figures
	Out      string // the folder to write the recording into (outside the sandbox root)
	Bodies   bool   // also write each request's whole body into Out/bodies/
}

// Paths are the job's files, for RecordScenario to make absolute.
func (j *ScenarioJob) Paths() []*string { return []*string{&j.Binary, &j.CCUsage, &j.Out} }

// Missing is the error of a job without its binary (cli's, which the
// variable env names), nil when it has it.
func (j *ScenarioJob) Missing(cli, env string) error {
	if j.Binary == "" {
		return fmt.Errorf("no %s binary: set %s", cli, env)
	}
	return nil
}

// RecordScenario runs a driver's scenario job (registered with the
// sandbox as jobName) for scenario name, after what every driver checks
// first: out must not exist yet, then missing (the driver's error for a
// CLI it was not given, nil when it has all). Each of paths, fields of
// job (the CLI's files, ccusage, out; "" for none), is made absolute in
// place, as the job runs in a folder of its own. The job gets stepTimeout
// for each of its steps and one more.
func RecordScenario[R any](ctx context.Context, jobName, name string, steps int, stepTimeout time.Duration,
	out string, missing error, job any, paths ...*string) (*R, error) {
	if _, err := os.Stat(out); err == nil {
		return nil, fmt.Errorf("%s exists already", out)
	}
	if missing != nil {
		return nil, missing
	}
	for _, p := range paths {
		if *p == "" {
			continue
		}
		var err error
		if *p, err = filepath.Abs(*p); err != nil {
			return nil, err
		}
	}
	var res R
	var stderr bytes.Buffer
	if err := sandbox.Run(ctx, jobName, job, &res, &stderr, time.Duration(steps+1)*stepTimeout); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	return &res, nil
}

// WriteRequests writes what the stand-in received into a recording's
// folder out: RequestsName, a line for each exchange as summary makes it,
// and with bodies each request's body as out/bodies/SEQ.json, with
// headers its headers beside it. It returns the sequence numbers of the
// requests summary says no rule answered.
func WriteRequests(out string, exchanges []standin.Exchange, bodies, headers bool,
	summary func(ex standin.Exchange) (line any, unscripted bool)) ([]int, error) {
	var reqs bytes.Buffer
	var unscripted []int
	for _, ex := range exchanges {
		sum, miss := summary(ex)
		if miss {
			unscripted = append(unscripted, ex.Seq)
		}
		line, err := json.Marshal(sum)
		if err != nil {
			return nil, err
		}
		reqs.Write(append(line, '\n'))
		if !bodies {
			continue
		}
		p := filepath.Join(out, "bodies", fmt.Sprintf("%03d.json", ex.Seq))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, ex.Body, 0o644); err != nil {
			return nil, err
		}
		if headers {
			if err := WriteJSON(strings.TrimSuffix(p, ".json")+".headers.json", ex.Header); err != nil {
				return nil, err
			}
		}
	}
	return unscripted, os.WriteFile(filepath.Join(out, RequestsName), reqs.Bytes(), 0o644)
}

// A RequestHead is how every driver's summary of a request the stand-in
// received starts (embedded, so that its lines start with these keys).
type RequestHead struct {
	Seq    int    `json:"seq"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// HeadOf is the head of an exchange's summary.
func HeadOf(ex standin.Exchange) RequestHead {
	return RequestHead{Seq: ex.Seq, Method: ex.Method, Path: ex.Path, Status: ex.Status}
}

// WriteResults writes a recording's results into out: what the stand-in
// received (WriteRequests, with summary), then res, the requests no rule
// answered added to its Unscripted, as ResultsName.
func WriteResults[Step any](out string, res *Results[Step], exchanges []standin.Exchange, bodies, headers bool,
	summary func(ex standin.Exchange) (line any, unscripted bool)) error {
	unscripted, err := WriteRequests(out, exchanges, bodies, headers, summary)
	if err != nil {
		return err
	}
	res.Unscripted = append(res.Unscripted, unscripted...)
	return WriteJSON(filepath.Join(out, ResultsName), res)
}

// WriteCCUsage writes to path what ccusage (run with env and args, see
// RunCCUsage) counts of a recording; without ccusage ("") nothing.
func WriteCCUsage(ctx context.Context, ccusage string, env, args []string, path string) error {
	if ccusage == "" {
		return nil
	}
	usage, err := RunCCUsage(ctx, ccusage, env, args)
	if err != nil {
		return err
	}
	return os.WriteFile(path, usage, 0o644)
}

// ScriptProblems are what every driver's Check says of the stand-in's
// script: the requests no rule answered (see the recording's requests
// file) and the rules that never answered.
func ScriptProblems(unscripted []int, unused []string) []string {
	var out []string
	if len(unscripted) > 0 {
		out = append(out, fmt.Sprintf("requests no rule answered: %v (see %s)", unscripted, RequestsName))
	}
	if len(unused) > 0 {
		out = append(out, "rules that never answered: "+strings.Join(unused, ", "))
	}
	return out
}

// NeedFiles returns the files the variables envs name, for a test that
// runs a real CLI, or skips saying why: under -short, without a sandbox,
// or when a variable is unset or names no file. Under RequireEnv=1 (set by
// .ci/run) a missing one fails the test instead.
func NeedFiles(t testing.TB, what string, envs ...string) []string {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s, and %s=1", msg, RequireEnv)
		}
		t.Skip(msg)
	}
	if testing.Short() {
		t.Skipf("the real %s runs take a while; run without -short", what)
	}
	if err := sandbox.Available(); err != nil {
		skip("%v", err)
	}
	var files []string
	for _, env := range envs {
		f := os.Getenv(env)
		switch {
		case f == "":
			skip("%s names no file (see docs/producers.md: go run ./internal/producers/cmd/record AGENT -install)", env)
		case !IsFile(f):
			skip("%s=%s: no such file", env, f)
		}
		files = append(files, f)
	}
	return files
}

// ReadLines reads a recording's JSON Lines file (requests.jsonl), a T a
// line, or fails t naming the file.
func ReadLines[T any](t testing.TB, path string) []T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		out = append(out, v)
	}
	return out
}

// CheckReadme fails t when dir's README.md is not what readme makes of
// dir, saying how to write it again.
func CheckReadme(t testing.TB, dir string, readme func(dir string) ([]byte, error), again string) {
	t.Helper()
	want, err := readme(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("README.md is not what the recordings make: write it again (%s)", again)
	}
}

// EachRecording runs a subtest for each recording a gated test made: the
// run's error or the check's problems fail it, a CLI of another version
// than want too; then more, if given, when it passed. The subtests run in
// parallel (more may start sandboxes of its own).
func EachRecording[S, Step any](t *testing.T, recs []Recording[S, Results[Step]], name func(S) string, want string,
	more func(t *testing.T, s S)) {
	t.Helper()
	for _, r := range recs {
		t.Run(name(r.Scenario), func(t *testing.T) {
			t.Parallel()
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if v := r.Results.Version; v != want {
				t.Errorf("ran version %s, not the pinned %s", v, want)
			}
			for _, p := range r.Problems {
				t.Error(p)
			}
			if len(r.Problems) == 0 && more != nil {
				more(t, r.Scenario)
			}
		})
	}
}

// EachFixture runs a subtest for each scenario's committed recording in
// pinned/NAME: its results must be there (else how to record again:
// again), written as WriteResults writes them, of that scenario and the
// pinned version, and check must find nothing wrong; then more checks
// what is the driver's own.
func EachFixture[S, Step any](t *testing.T, pinned string, scenarios []S, name func(S) string, version, again string,
	check func(S, *Results[Step], string) []string, more func(t *testing.T, s S, dir string, res *Results[Step])) {
	t.Helper()
	for _, s := range scenarios {
		t.Run(name(s), func(t *testing.T) {
			dir := filepath.Join(pinned, name(s))
			res, err := ReadResults[Step](dir)
			if err != nil {
				t.Fatalf("%v (record again: %s)", err, again)
			}
			if res.Scenario != name(s) || res.Version != version {
				t.Errorf("%s is of scenario %q, version %q", ResultsName, res.Scenario, res.Version)
			}
			data, _ := os.ReadFile(filepath.Join(dir, ResultsName))
			if again, err := json.MarshalIndent(res, "", "  "); err != nil || !bytes.Equal(data, append(again, '\n')) {
				t.Errorf("%s is not what the results it holds write (%v)", ResultsName, err)
			}
			for _, p := range check(s, res, dir) {
				t.Error(p)
			}
			more(t, s, dir, res)
		})
	}
}

// CheckVocabulary fails t where a records package's vocabulary and the
// inventory of the pinned fixtures (inventoryOf pinned) disagree (see
// Vocabulary.Mismatches).
func CheckVocabulary(t testing.TB, v Vocabulary, inventoryOf func(dir string) (*Inventory, error), pinned string) {
	t.Helper()
	inv, err := inventoryOf(pinned)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Mismatches(inv) {
		t.Error(p)
	}
}

// A CCUsageRow is one session of ccusage's AGENT session --json: the
// fields the drivers' tests hold to what the CLI wrote.
type CCUsageRow struct {
	SessionID, SessionFile       string
	InputTokens, CacheReadTokens int // ccusage's input is without the cached part
	OutputTokens, TotalTokens    int
}

// Counts says whether the row counts input tokens (the cached ones
// among them), output and total tokens.
func (r CCUsageRow) Counts(input, cached, output, total int) bool {
	return r.InputTokens == input-cached && r.CacheReadTokens == cached && r.OutputTokens == output && r.TotalTokens == total
}

// ReadCCUsage reads the sessions of a recording's CCUsageName in dir, or
// fails t.
func ReadCCUsage(t testing.TB, dir string) []CCUsageRow {
	t.Helper()
	var cc struct{ Sessions []CCUsageRow }
	if err := ReadJSON(filepath.Join(dir, CCUsageName), &cc); err != nil {
		t.Fatal(err)
	}
	return cc.Sessions
}

// RequestAnsweredBy finds in a recording made with bodies (dir) the last
// request rule answered: its summary (a Sum a line of RequestsName;
// ruleSeq says its rule and sequence number) and where its body is kept,
// without .json (the headers, when kept, are beside it).
func RequestAnsweredBy[Sum any](t testing.TB, dir, rule string, ruleSeq func(Sum) (string, int)) (Sum, string) {
	t.Helper()
	var found *Sum
	for _, s := range ReadLines[Sum](t, filepath.Join(dir, RequestsName)) {
		if r, _ := ruleSeq(s); r == rule {
			found = &s
		}
	}
	if found == nil {
		t.Fatalf("no request was answered by rule %s", rule)
	}
	_, seq := ruleSeq(*found)
	return *found, filepath.Join(dir, "bodies", fmt.Sprintf("%03d", seq))
}

// CheckRecount fails t unless what a recording's file name holds (read)
// is what count makes again of what the CLI wrote and the runs said
// (a driver's accounting, kept beside the recording); it returns the
// count.
func CheckRecount[T any](t testing.TB, name string, read, count func() (*T, error)) *T {
	t.Helper()
	recorded, err := read()
	if err != nil {
		t.Fatal(err)
	}
	counted, err := count()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recorded, counted) {
		t.Errorf("%s is not what the recording and runs say:\n%+v\n%+v", name, recorded, counted)
	}
	return counted
}

// A Folder is a run's folder in the sandbox, SANDBOX_ROOT/AGENT/NAME (a
// scenario's, or a resume's): the CLI's home, working directory and
// temporary folder are under it, the same on every run, so that the paths
// the CLI records are too.
type Folder string

// FolderOf is the folder of agent's run name.
func FolderOf(agent, name string) Folder { return Folder(path.Join(sandbox.Root, agent, name)) }

// Join is the path of name in the folder.
func (f Folder) Join(name string) string { return path.Join(string(f), name) }

// Home, Work and Tmp are the CLI's HOME, working directory and temporary
// folder.
func (f Folder) Home() string { return f.Join("home") }
func (f Folder) Work() string { return f.Join("work") }
func (f Folder) Tmp() string  { return f.Join("tmp") }

// WriteScenarios writes the scenarios part of a version's fixtures README
// (dir: the version's folder) into b: for each scenario a heading, its
// about text, then what section writes of its recording (its results,
// and the inventory take makes of the folder written holding what the
// CLI wrote). It returns the inventory over all scenarios, of categories.
func WriteScenarios[S, Step any](b *bytes.Buffer, dir string, scenarios []S, heading func(S) (name, about string),
	written string, take func(dir string) (*Inventory, error), categories []string,
	section func(s S, sdir string, res *Results[Step], inv *Inventory) error) (*Inventory, error) {
	total := NewInventory(categories...)
	for _, s := range scenarios {
		name, about := heading(s)
		sdir := filepath.Join(dir, name)
		res, err := ReadResults[Step](sdir)
		if err != nil {
			return nil, err
		}
		inv, err := take(filepath.Join(sdir, written))
		if err != nil {
			return nil, err
		}
		total.Add(inv)
		fmt.Fprintf(b, "### %s\n\n%s\n\n", name, about)
		if err := section(s, sdir, res, inv); err != nil {
			return nil, err
		}
	}
	return total, nil
}
