package claudecode

import (
	"encoding/json"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Check says what is wrong with a scenario's recording in dir, given the
// results of its runs: a run that failed (or succeeded where it should
// not), a request no rule answered or a rule that never answered, a
// session the CLI named without writing its transcript, a record type the
// records package does not know, a file expected that is not there.
func Check(s *Scenario, res *Results, dir string) []string {
	var problems harness.Problems
	add := problems.Add
	project := filepath.Join(dir, ConfigDirName, "projects", ProjectDirName(s.Dir().Work()))
	harness.CheckRuns(&problems, res, len(s.Steps), func(i int, r StepResult) {
		var out struct {
			Type      string `json:"type"`
			IsError   bool   `json:"is_error"`
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal(r.Output, &out); err != nil || out.Type != "result" {
			add("run %d printed no result (exit code %d): %s", i+1, r.ExitCode, harness.Excerpt(r.Stderr, 300))
			return
		}
		if want := s.Steps[i].Fails; out.IsError != want || (r.ExitCode != 0) != want {
			add("run %d: is_error %v, exit code %d; the scenario expects it to fail: %v (%s)", i+1, out.IsError, r.ExitCode, want, harness.Excerpt(r.Stderr, 300))
		}
		if !harness.IsFile(filepath.Join(project, out.SessionID+".jsonl")) {
			add("run %d: no transcript for session %s in %s", i+1, out.SessionID, project)
		}
	})
	for _, pattern := range s.Expect {
		if m, _ := filepath.Glob(filepath.Join(project, pattern)); len(m) == 0 {
			add("no file %s in %s", pattern, project)
		}
	}
	inv, err := TakeInventory(filepath.Join(dir, ConfigDirName))
	problems.CheckNames(inv, err, "transcripts", vocabulary.Known, "convert/claude/records")
	return problems
}
