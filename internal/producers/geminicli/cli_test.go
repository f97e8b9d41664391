package geminicli

import (
	"context"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// needCLI returns the pinned Gemini CLI bundles and ccusage named by
// RLOG_GEMINI_CLI, RLOG_GEMINI_CLI_LEGACY and RLOG_CCUSAGE, or skips saying
// why (see harness.NeedFiles).
func needCLI(t *testing.T) (Bundles, string) {
	t.Helper()
	f := harness.NeedFiles(t, "Gemini CLI", BinaryEnv, LegacyEnv, harness.CCUsageEnv)
	return Bundles{Current: f[0], Legacy: f[1]}, f[2]
}

// TestScenariosWithTheRealCLI runs every scenario with the pinned CLI (and
// the legacy one where the scenario says) and checks what it did and
// wrote (Check: every run as expected, every request scripted and every
// rule used, the sessions, no name unknown to convert/gemini/records, and
// the session files' tokens equal to the CLI's own stats).
func TestScenariosWithTheRealCLI(t *testing.T) {
	bundles, ccusage := needCLI(t)
	recs := RecordAll(context.Background(), bundles, ccusage, t.TempDir(), 4, false)
	driver.EachRecording(t, recs, nil)
}
