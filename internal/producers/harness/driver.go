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

// A Driver is an agent's driver as the harness sees it: what every
// driver has, in its own types (S its scenarios, Step a run's result), so
// that recording, checking, the fixtures' README and drift are written
// once, here.
type Driver[S, Step any] struct {
	Command    string // the agent's name for cmd/record: go run ./internal/producers/cmd/record COMMAND
	Version    string // the pinned version of the CLI
	Scenarios  []S
	Heading    func(S) (name, about string)         // a scenario's name (its folder) and what it shows
	Written    string                               // the folder of a recording holding what the CLI wrote
	Take       func(dir string) (*Inventory, error) // the inventory of what the CLI wrote, in dir
	Vocabulary Vocabulary                           // the names the agent's records package knows
	// Check says what is wrong with a scenario's recording in dir.
	Check func(s S, res *Results[Step], dir string) []string
}

func (d *Driver[S, Step]) name(s S) string {
	name, _ := d.Heading(s)
	return name
}

// Named is the scenario called name, the zero S (nil) when none is.
func (d *Driver[S, Step]) Named(name string) S {
	for _, s := range d.Scenarios {
		if d.name(s) == name {
			return s
		}
	}
	var none S
	return none
}

// again is how to record the fixtures again.
func (d *Driver[S, Step]) again() string {
	return "go run ./internal/producers/cmd/record " + d.Command
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
// recording.
func (d *Driver[S, Step]) RecordAll(dir string, parallel int,
	record func(s S, out string) (*Results[Step], error)) []Recording[S, Results[Step]] {
	recs := make([]Recording[S, Results[Step]], len(d.Scenarios))
	RunParallel(parallel, len(d.Scenarios), func(i int) {
		s := d.Scenarios[i]
		out := filepath.Join(dir, d.name(s))
		res, err := record(s, out)
		recs[i] = Recording[S, Results[Step]]{Scenario: s, Results: res, Err: err}
		if err == nil {
			recs[i].Problems = d.Check(s, res, out)
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

// CheckReadme fails t when the README.md of the pinned version's
// recordings (in dir) is not what readme makes of them, saying how to
// write it again.
func (d *Driver[S, Step]) CheckReadme(t testing.TB, dir string, readme func(dir, version string) ([]byte, error)) {
	t.Helper()
	want, err := readme(dir, d.Version)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("README.md is not what the recordings make: write it again (%s -readme)", d.again())
	}
}

// EachRecording runs a subtest for each recording a gated test made: the
// run's error or the check's problems fail it, a CLI of another version
// than the pinned one too; then more, if given, when it passed. The
// subtests run in parallel (more may start sandboxes of its own).
func (d *Driver[S, Step]) EachRecording(t *testing.T, recs []Recording[S, Results[Step]], more func(t *testing.T, s S)) {
	t.Helper()
	for _, r := range recs {
		t.Run(d.name(r.Scenario), func(t *testing.T) {
			t.Parallel()
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if v := r.Results.Version; v != d.Version {
				t.Errorf("ran version %s, not the pinned %s", v, d.Version)
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
// pinned/NAME: its results must be there (else it says how to record
// again), written as WriteResults writes them, of that scenario and the
// pinned version, and Check must find nothing wrong; then more checks
// what is the driver's own.
func (d *Driver[S, Step]) EachFixture(t *testing.T, pinned string, more func(t *testing.T, s S, dir string, res *Results[Step])) {
	t.Helper()
	for _, s := range d.Scenarios {
		name := d.name(s)
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(pinned, name)
			res, err := ReadResults[Step](dir)
			if err != nil {
				t.Fatalf("%v (record again: %s)", err, d.again())
			}
			if res.Scenario != name || res.Version != d.Version {
				t.Errorf("%s is of scenario %q, version %q", ResultsName, res.Scenario, res.Version)
			}
			data, _ := os.ReadFile(filepath.Join(dir, ResultsName))
			if again, err := json.MarshalIndent(res, "", "  "); err != nil || !bytes.Equal(data, append(again, '\n')) {
				t.Errorf("%s is not what the results it holds write (%v)", ResultsName, err)
			}
			for _, p := range d.Check(s, res, dir) {
				t.Error(p)
			}
			more(t, s, dir, res)
		})
	}
}

// CheckVocabulary fails t where the records package's vocabulary and the
// inventory of the pinned fixtures (in pinned) disagree (see
// Vocabulary.Mismatches).
func (d *Driver[S, Step]) CheckVocabulary(t testing.TB, pinned string) {
	t.Helper()
	inv, err := d.InventoryOf(pinned)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Vocabulary.Mismatches(inv) {
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
// and the inventory of what the CLI wrote). It returns the inventory over
// all scenarios, of categories.
func (d *Driver[S, Step]) WriteScenarios(b *bytes.Buffer, dir string, categories []string,
	section func(s S, sdir string, res *Results[Step], inv *Inventory) error) (*Inventory, error) {
	total := NewInventory(categories...)
	for _, s := range d.Scenarios {
		name, about := d.Heading(s)
		sdir := filepath.Join(dir, name)
		res, err := ReadResults[Step](sdir)
		if err != nil {
			return nil, err
		}
		inv, err := d.Take(filepath.Join(sdir, d.Written))
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
