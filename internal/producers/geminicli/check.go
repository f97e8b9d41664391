package geminicli

import (
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Check says what is wrong with a scenario's recording in dir, given the
// results of its runs: a run that failed (or succeeded where it should
// not), a new session not under its fixed id, a request no rule answered
// or a rule that never answered, sessions missing or too many, a name the
// records package does not know, and the session files disagreeing with
// the CLI's own accounting (per role: main, subagent).
func Check(s *Scenario, res *Results, dir string) []string {
	var problems harness.Problems
	add := problems.Add
	// Every run is of the scenario's session: its fixed id, or the one the
	// legacy version made.
	session := s.SessionID()
	if len(s.Steps) > 0 && s.Steps[0].Legacy && len(res.Steps) > 0 {
		session = res.Steps[0].output().SessionID
	}
	harness.CheckRuns(&problems, res, len(s.Steps), func(i int, r StepResult) {
		st, o := s.Steps[i], r.output()
		failed := r.ExitCode != 0 || o.Error != nil
		switch {
		case st.ListSessions:
			if r.ExitCode != 0 {
				add("run %d (--list-sessions): exit code %d: %s", i+1, r.ExitCode, harness.Excerpt(r.Stderr, 300))
			}
		case failed != st.Fails:
			add("run %d: exit code %d, error %v; the scenario expects it to fail: %v (%s)", i+1, r.ExitCode, o.Error != nil, st.Fails, harness.Excerpt(r.Stderr, 300))
		case o.SessionID == "":
			add("run %d named no session (exit code %d): %s", i+1, r.ExitCode, harness.Excerpt(r.Stderr, 300))
		case o.SessionID != session:
			add("run %d is session %s, not the scenario's %s", i+1, o.SessionID, session)
		}
	})
	home := filepath.Join(dir, GeminiDirName)
	acct, err := Count(home, res.Steps)
	if err != nil {
		add("reading the sessions: %v", err)
		return problems
	}
	kinds := map[string]int{}
	for _, ss := range acct.Sessions {
		kinds[ss.Kind]++
	}
	if kinds["main"] != s.Sessions || kinds["subagent"] != s.Subagents {
		add("sessions by kind %v; the scenario makes %d main and %d subagent", kinds, s.Sessions, s.Subagents)
	}
	for _, role := range []string{"main", "subagent"} {
		if files, cli := acct.KindTotal(role), acct.Roles[role]; files != cli {
			add("the %s sessions' messages count %+v; the CLI's stats (role %s) say %+v", role, files, role, cli)
		}
	}
	inv, err := TakeInventory(home)
	problems.CheckNames(inv, err, "sessions", vocabulary.Known, "convert/gemini/records")
	return problems
}
