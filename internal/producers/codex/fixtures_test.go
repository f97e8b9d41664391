package codex

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/codex/records"
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
// with the pinned version, its checks passing (every run as expected,
// every request scripted, every rule used, one rollout per thread, every
// name known to convert/codex/records, the CLI's own totals agreeing),
// tokens.json what the rollouts and runs say, and ccusage's figures: one
// row per main rollout (it skips sub-agents') with the rollout's total.
func TestFixturesAreComplete(t *testing.T) {
	driver.EachFixture(t, pinnedFixtures, func(t *testing.T, s *Scenario, dir string, res *Results) {
		for _, r := range harness.ReadLines[RequestSummary](t, filepath.Join(dir, harness.RequestsName)) {
			if r.Rule == "" || r.Agent == "" {
				t.Errorf("%s: request %d has no rule or agent", harness.RequestsName, r.Seq)
			}
		}
		counted := harness.CheckRecount(t, TokensName, func() (*Tokens, error) { return ReadTokens(dir) },
			func() (*Tokens, error) { return CountTokens(filepath.Join(dir, CodexHomeName), res.Steps) })
		checkCCUsage(t, dir, counted)
	})
}

// checkCCUsage: ccusage counts each main thread's rollout with its total
// (input plus output) and no sub-agent's.
func checkCCUsage(t *testing.T, dir string, tokens *Tokens) {
	t.Helper()
	sessions := harness.ReadCCUsage(t, dir)
	want := map[string]Usage{}
	for _, th := range tokens.Threads {
		if !th.Subagent {
			want[strings.TrimSuffix(filepath.Base(th.File), ".jsonl")] = th.Usage
		}
	}
	if len(sessions) != len(want) {
		t.Errorf("ccusage has %d sessions, the main threads are %d", len(sessions), len(want))
	}
	for _, s := range sessions {
		u, ok := want[s.SessionFile]
		switch {
		case !ok:
			t.Errorf("ccusage counts %s, no main thread's rollout", s.SessionFile)
		case !s.Counts(u.Input, u.Cached, u.Output, u.Total):
			t.Errorf("ccusage counts %s as %+v; its token_usage_record lines sum to %+v", s.SessionFile, s, u)
		}
	}
}

// TestRecordsPackageIsExact: every name marked Recorded in
// convert/codex/records appears in the fixtures (and Check holds every
// name in the fixtures to be listed there).
func TestRecordsPackageIsExact(t *testing.T) {
	driver.CheckVocabulary(t, pinnedFixtures)
	if records.Version != Version {
		t.Errorf("records.Version %s, the pinned version %s", records.Version, Version)
	}
}

func TestReadmeIsTheRecording(t *testing.T) {
	driver.CheckReadme(t, pinnedFixtures, Readme)
}

// TestInventoryReportsAnUnknownName: a line, payload or item type the
// records package does not list is reported, and a broken line names its
// place.
func TestInventoryReportsAnUnknownName(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(`{"type":"session_meta","payload":{"id":"x"}}
{"type":"response_item","payload":{"type":"hologram"}}
{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Telepathy"}}}
{"type":"brand_new","payload":{}}
`), 0o644)
	inv, err := TakeInventory(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"item_completed item Telepathy", "line type brand_new", "response_item type hologram"}
	if got := inv.Unknown(vocabulary.Known); !slices.Equal(got, want) {
		t.Errorf("Unknown %v, want %v", got, want)
	}
	os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte("{}\nnot json\n"), 0o644)
	if _, err := TakeInventory(dir); err == nil || !strings.Contains(err.Error(), "r.jsonl:2") {
		t.Errorf("error %v, want one naming r.jsonl:2", err)
	}
}
