package harness

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"
)

// The files every driver's recorded scenario holds, beside the folder of
// what its CLI wrote.
const (
	ResultsName  = "results.json"   // Results: the version, each run's arguments, exit code and output
	RequestsName = "requests.jsonl" // one request summary a line (see WriteRequests)
	CCUsageName  = "ccusage.json"   // ccusage AGENT session --json --offline -z UTC (see WriteCCUsage)
)

// Results is what a scenario's runs gave, a Step (the driver's) for each
// run.
type Results[Step any] struct {
	Scenario string `json:"scenario"`
	Version  string `json:"version"` // of the pinned CLI
	Steps    []Step `json:"steps"`
	// Unused names rules that never answered; Unscripted lists the
	// sequence numbers of the requests no rule answered that one should
	// have (the driver's WriteRequests summary says which).
	Unused     []string `json:"unused,omitempty"`
	Unscripted []int    `json:"unscripted,omitempty"`
}

// ReadResults reads a recorded scenario's results.json in dir.
func ReadResults[Step any](dir string) (*Results[Step], error) {
	var res Results[Step]
	return &res, ReadJSON(filepath.Join(dir, ResultsName), &res)
}

// Problems collects what a driver's Check finds wrong, a sentence each.
type Problems []string

// Add adds a problem, made as fmt.Sprintf makes it.
func (p *Problems) Add(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

// CheckRuns adds what every driver's Check says first of a recording: a
// number of runs other than the scenario's steps, what run finds wrong
// with each run the scenario has (i from 0), and the stand-in's script's
// problems (ScriptProblems).
func CheckRuns[Step any](p *Problems, res *Results[Step], steps int, run func(i int, r Step)) {
	if len(res.Steps) != steps {
		p.Add("%d runs recorded, the scenario has %d", len(res.Steps), steps)
	}
	for i, r := range res.Steps[:min(len(res.Steps), steps)] {
		run(i, r)
	}
	*p = append(*p, ScriptProblems(res.Unscripted, res.Unused)...)
}

// CheckNames adds the names in the inventory of what a CLI wrote that its
// records package (named in records, as convert/AGENT/records) does not
// list, or the error (what: the files) that kept it from being taken.
func (p *Problems) CheckNames(inv *Inventory, err error, what string, known func(category, name string) bool, records string) {
	if err != nil {
		p.Add("reading the %s: %v", what, err)
		return
	}
	for _, u := range inv.Unknown(known) {
		p.Add("%s is not in %s", u, records)
	}
}

// RunCLI runs a CLI once: the command name with args in dir with env,
// for at most timeout. Without converse its stdin is closed and stdout
// kept; converse, given, runs the command itself (starting it and
// waiting for it) and keeps in stdout what it printed. It returns what
// the command printed, its exit code and ExitCode's note (for stderr)
// when it did not exit by itself.
func RunCLI(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args []string,
	converse func(cmd *exec.Cmd, stdout *bytes.Buffer) error) (stdout, stderr []byte, code int, note string) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stderr = &errOut
	var err error
	if converse == nil {
		cmd.Stdout = &out
		err = cmd.Run()
	} else {
		err = converse(cmd, &out)
	}
	code, note = ExitCode(ctx, err, timeout)
	return out.Bytes(), errOut.Bytes(), code, note
}
