package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexRolloutsAsTheCLICountsThem: every rollout Codex CLI wrote in
// the producer harness converts to rlog, whose stats give the CLI's own
// token accounting (tokens.json: the sum of the rollout's
// token_usage_record lines), and whose check finds nothing to warn about.
func TestCodexRolloutsAsTheCLICountsThem(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "agents", "codex", "*", "*", "tokens.json"))
	if len(files) == 0 {
		t.Fatal("no recorded Codex scenario in testdata/agents/codex")
	}
	dir := t.TempDir()
	n := 0
	for _, tj := range files {
		data, err := os.ReadFile(tj)
		if err != nil {
			t.Fatal(err)
		}
		var tokens struct {
			Threads []struct {
				File  string
				Usage struct {
					Input  uint64 `json:"input_tokens"`
					Cached uint64 `json:"cached_input_tokens"`
					Output uint64 `json:"output_tokens"`
				}
			}
		}
		if err := json.Unmarshal(data, &tokens); err != nil {
			t.Fatal(err)
		}
		for _, th := range tokens.Threads {
			rollout := filepath.Join(filepath.Dir(tj), "codex-home", filepath.FromSlash(th.File))
			out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(rollout), ".jsonl")+".rlog")
			if _, stderr, code := runCLI(t, "convert", "--to", "rlog", "-o", out, rollout); code != 0 {
				t.Fatalf("convert %s: exit %d: %s", rollout, code, stderr)
			}
			c := statsOfOne(t, out).Counters
			if in := c.TokensIn + c.TokensCached + c.TokensCacheCreate; in != th.Usage.Input || c.TokensCached != th.Usage.Cached || c.TokensOut != th.Usage.Output {
				t.Errorf("%s: stats say %d in (%d cached), %d out; Codex counts %+v", th.File, in, c.TokensCached, c.TokensOut, th.Usage)
			}
			if stdout, _, code := runCLI(t, "check", out); code != 0 || !strings.Contains(stdout, "0 errors, 0 warnings") {
				t.Errorf("check of %s's conversion: exit %d\n%s", th.File, code, stdout)
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("%d rollouts checked, the recordings have 10", n)
	}
}
