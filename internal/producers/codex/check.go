package codex

import (
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Check says what is wrong with a scenario's recording in dir, given the
// results of its runs: a run that failed (or succeeded where it should
// not), a request no rule answered or a rule that never answered, a thread
// without its rollout or a rollout too many, a line type the records
// package does not know, and the CLI's own accounting disagreeing with
// itself (the usage records' sum against its last reported total).
func Check(s *Scenario, res *Results, dir string) []string {
	var problems harness.Problems
	add := problems.Add
	harness.CheckRuns(&problems, res, len(s.Steps), func(i int, r StepResult) {
		failed := r.ExitCode != 0 || r.has("turn.failed")
		switch {
		case r.ThreadID() == "":
			add("run %d named no thread (exit code %d): %s", i+1, r.ExitCode, harness.Excerpt(r.Stderr, 300))
		case failed != s.Steps[i].Fails:
			add("run %d: exit code %d, turn failed %v; the scenario expects it to fail: %v (%s)", i+1, r.ExitCode, r.has("turn.failed"), s.Steps[i].Fails, harness.Excerpt(r.Stderr, 300))
		case !failed && !r.has("turn.completed"):
			add("run %d completed no turn", i+1)
		}
	})
	home := filepath.Join(dir, CodexHomeName)
	tokens, err := CountTokens(home, res.Steps)
	if err != nil {
		add("reading the rollouts: %v", err)
		return problems
	}
	if len(tokens.Threads) != s.Threads {
		add("%d rollouts, the scenario makes %d threads", len(tokens.Threads), s.Threads)
	}
	if len(res.Steps) > 0 {
		thread := res.Steps[0].ThreadID()
		if m := tokens.main(); m == nil || m.Thread != thread {
			add("no rollout of the main thread %s", thread)
		} else if last := lastTurnUsage(res.Steps); last != nil && m.Usage.components() != *last {
			add("the main thread's token_usage_record lines sum to %+v; its last turn.completed says %+v", m.Usage.components(), *last)
		}
	}
	for _, th := range tokens.Threads {
		if th.Records == 0 {
			add("%s has no token_usage_record", th.File)
		}
	}
	inv, err := TakeInventory(home)
	problems.CheckNames(inv, err, "rollouts", vocabulary.Known, "convert/codex/records")
	return problems
}

// lastTurnUsage is the last turn.completed usage of the runs.
func lastTurnUsage(steps []StepResult) *Usage {
	var last *Usage
	for _, st := range steps {
		if u := st.TurnUsage(); u != nil {
			last = u
		}
	}
	return last
}
