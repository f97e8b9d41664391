package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
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
// with the pinned version, every run's result, the transcripts named,
// the stand-in's summary and ccusage's figures present, nothing the
// records package does not know, and the README what the recordings are.
func TestFixturesAreComplete(t *testing.T) {
	for _, s := range Scenarios {
		t.Run(s.Name, func(t *testing.T) {
			dir := filepath.Join(pinnedFixtures, s.Name)
			res, err := ReadResults(dir)
			if err != nil {
				t.Fatalf("%v (record again: go run ./internal/producers/cmd/record claude)", err)
			}
			if res.Scenario != s.Name || res.Version != Version {
				t.Errorf("results.json is of scenario %q, version %q", res.Scenario, res.Version)
			}
			for _, p := range Check(s, res, dir) {
				t.Error(p)
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
			usage, err := os.ReadFile(filepath.Join(dir, harness.CCUsageName))
			if err != nil {
				t.Fatal(err)
			}
			var cc struct {
				Sessions []struct {
					SessionID   string
					TotalTokens int
				}
			}
			if err := json.Unmarshal(usage, &cc); err != nil {
				t.Fatalf("%s: %v", harness.CCUsageName, err)
			}
			if len(cc.Sessions) == 0 || cc.Sessions[0].TotalTokens == 0 {
				t.Errorf("%s counts no session or no tokens: %s", harness.CCUsageName, usage)
			}
		})
	}
}

// TestRecordsPackageIsExact: every type marked Recorded in
// convert/claude/records appears in the fixtures (and Check, above, holds
// every type in the fixtures to be listed there).
func TestRecordsPackageIsExact(t *testing.T) {
	inv, err := inventoryOf(pinnedFixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range vocabulary.Mismatches(inv) {
		t.Error(p)
	}
	if records.Version != Version {
		t.Errorf("records.Version %s, the pinned version %s", records.Version, Version)
	}
}

func TestReadmeIsTheRecording(t *testing.T) {
	harness.CheckReadme(t, pinnedFixtures, func(dir string) ([]byte, error) { return Readme(dir, Version) },
		"go run ./internal/producers/cmd/record claude -readme")
}
