package ccusage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// realBin returns the ccusage executable named by $RLOG_CCUSAGE, or skips.
// The comparison with the real tool is a manual step (CI has no ccusage):
//
//	npm install --prefix /tmp/ccu ccusage@20.0.24
//	RLOG_CCUSAGE=/tmp/ccu/node_modules/.bin/ccusage go test ./convert/... -run Real
func realBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("RLOG_CCUSAGE")
	if bin == "" {
		t.Skip("RLOG_CCUSAGE is not set: no real ccusage to compare with")
	}
	return bin
}

// projectOf lays out one transcript (and its sub-agent transcripts) as a
// Claude Code project folder.
func projectOf(t *testing.T, path string, subagents []string) string {
	t.Helper()
	dir := t.TempDir()
	session := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	copyFile(t, path, filepath.Join(dir, session+".jsonl"))
	for _, s := range subagents {
		copyFile(t, s, filepath.Join(dir, session, "subagents", filepath.Base(s)))
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealCcusageAgreesOnFixtures: the rules here give the totals and the
// entry count of the real ccusage on every fixture of this package.
func TestRealCcusageAgreesOnFixtures(t *testing.T) {
	bin := realBin(t)
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, p := range files {
		compareReal(t, bin, projectOf(t, p, nil), filepath.Base(p))
	}
}

// TestRealCcusageAgreesOnCorpus: the same on every Claude Code transcript
// of the shared corpus, sub-agent transcripts in their session's folder.
func TestRealCcusageAgreesOnCorpus(t *testing.T) {
	bin := realBin(t)
	for _, p := range corpus.SweepFiles(t, ".jsonl", "claude-code-jsonl") {
		if filepath.Base(filepath.Dir(p)) == "subagents" {
			compareReal(t, bin, projectOf(t, p, nil), filepath.Base(p))
			continue
		}
		subs, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "subagents", "agent-*.jsonl"))
		if !strings.Contains(p, "haiku-testgen") {
			subs = nil // the subagents folder belongs to haiku-testgen-v2
		}
		compareReal(t, bin, projectOf(t, p, subs), filepath.Base(p))
	}
}

func compareReal(t *testing.T, bin, dir, name string) {
	t.Helper()
	want, err := RunReal(bin, dir)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, skips, err := CountProjectSkips(dir)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s: %v, %d lines skipped", name, got, len(skips))
	if got != want {
		t.Errorf("%s:\n rules:   %v\n ccusage: %v\n skipped: %v", name, got, want, skips)
	}
}

// TestRealCcusageAgreesOnProject: a project folder with two sessions and a
// sub-agent transcript, whose messages repeat across files.
func TestRealCcusageAgreesOnProject(t *testing.T) {
	compareReal(t, realBin(t), "testdata/project", "project")
}
