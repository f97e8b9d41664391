package geminicli

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
)

// needCLI returns the pinned Gemini CLI bundles and ccusage named by
// RLOG_GEMINI_CLI, RLOG_GEMINI_CLI_LEGACY and RLOG_CCUSAGE, or skips
// saying why; under RLOG_REQUIRE_PRODUCERS=1 (set by .ci/run) a missing
// one fails instead.
func needCLI(t *testing.T) (Bundles, string) {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv(harness.RequireEnv) == "1" {
			t.Fatalf("%s, and %s=1", msg, harness.RequireEnv)
		}
		t.Skip(msg)
	}
	if testing.Short() {
		t.Skip("the real Gemini CLI runs take a while; run without -short")
	}
	if err := sandbox.Available(); err != nil {
		skip("%v", err)
	}
	b := Bundles{Current: os.Getenv(BinaryEnv), Legacy: os.Getenv(LegacyEnv)}
	ccusage := os.Getenv(harness.CCUsageEnv)
	if b.Current == "" || b.Legacy == "" || ccusage == "" {
		skip("%s, %s and %s name no files (go run ./internal/producers/cmd/record gemini -install; see docs/producers.md)",
			BinaryEnv, LegacyEnv, harness.CCUsageEnv)
	}
	for _, f := range []string{b.Current, b.Legacy, ccusage} {
		if !harness.IsFile(f) {
			skip("%s: no such file", f)
		}
	}
	return b, ccusage
}

// TestScenariosWithTheRealCLI runs every scenario with the pinned CLI (and
// the legacy one where the scenario says) and checks what it did and
// wrote (Check: every run as expected, every request scripted and every
// rule used, the sessions, no name unknown to convert/gemini/records, and
// the session files' tokens equal to the CLI's own stats).
func TestScenariosWithTheRealCLI(t *testing.T) {
	bundles, ccusage := needCLI(t)
	dir := t.TempDir()
	for _, r := range RecordAll(context.Background(), bundles, ccusage, dir, 4, false) {
		t.Run(r.Scenario.Name, func(t *testing.T) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if r.Results.Version != Version {
				t.Errorf("ran Gemini CLI %s, not the pinned %s", r.Results.Version, Version)
			}
			for _, p := range r.Problems {
				t.Error(p)
			}
		})
	}
}
