package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/claude/records"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

// pinnedFixtures is the folder of the pinned version's recordings.
var pinnedFixtures = filepath.Join("..", "..", "..", FixturesDir, Version)

// TestFixturesAreComplete holds the committed recordings to what the
// scenarios say, on a fresh clone without npm: every scenario recorded
// with the pinned version, every run's arguments what the scenario makes
// of it (the fixed session ids too), every run's result, the transcripts named,
// the stand-in's summary and ccusage's figures present, nothing the
// records package does not know, and the README what the recordings are.
func TestFixturesAreComplete(t *testing.T) {
	driver.EachFixture(t, pinnedFixtures, func(t *testing.T, s *Scenario, dir string, res *Results) {
		prev := ""
		for i, r := range res.Steps {
			if want := s.stepArgs(i, prev); !slices.Equal(r.Args, want) {
				t.Errorf("run %d ran %q; the scenario makes %q", i+1, r.Args, want)
			}
			if id := r.sessionID(); id != "" {
				prev = id
			}
		}
		n := 0
		for _, r := range harness.ReadLines[RequestSummary](t, filepath.Join(dir, harness.RequestsName)) {
			if r.Rule != "" {
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: no request answered by a rule", harness.RequestsName)
		}
		if cc := harness.ReadCCUsage(t, dir); len(cc) == 0 || cc[0].TotalTokens == 0 {
			t.Errorf("%s counts no session or no tokens: %+v", harness.CCUsageName, cc)
		}
	})
}

// TestRecordsPackageIsExact: every type marked Recorded in
// convert/claude/records appears in the fixtures (and Check, above, holds
// every type in the fixtures to be listed there).
func TestRecordsPackageIsExact(t *testing.T) {
	driver.CheckVocabulary(t, pinnedFixtures)
	if records.Version != Version {
		t.Errorf("records.Version %s, the pinned version %s", records.Version, Version)
	}
}

func TestReadmeIsTheRecording(t *testing.T) {
	driver.CheckReadme(t, pinnedFixtures, Readme)
}
