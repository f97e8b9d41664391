package ccusage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
)

var keptPattern = regexp.MustCompile(`Kept (\d+) usage entries`)

// RunReal runs the real ccusage on a project folder laid out as
// CountProject expects and returns its totals, so that tests can check the
// rules here against it when it is installed. bin is the ccusage
// executable (for example node_modules/.bin/ccusage after
// `npm install ccusage@20.0.24`).
func RunReal(bin, projectDir string) (Totals, error) {
	cfg, err := os.MkdirTemp("", "ccusage-cfg-")
	if err != nil {
		return Totals{}, err
	}
	defer os.RemoveAll(cfg)
	abs, err := filepath.Abs(projectDir)
	if err != nil {
		return Totals{}, err
	}
	// A copy, not a link: ccusage does not follow links into projects/.
	if err := os.CopyFS(filepath.Join(cfg, "projects", "p"), os.DirFS(abs)); err != nil {
		return Totals{}, err
	}
	if err := os.MkdirAll(filepath.Join(cfg, "home"), 0o755); err != nil {
		return Totals{}, err
	}
	cmd := exec.Command(bin, "claude", "session", "--json", "--offline", "--debug", "-z", "UTC")
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(cfg, "home"), "CLAUDE_CONFIG_DIR="+cfg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Totals{}, fmt.Errorf("%s: %v: %s", bin, err, stderr.String())
	}
	var out struct {
		Totals struct {
			Input       int64 `json:"inputTokens"`
			Output      int64 `json:"outputTokens"`
			CacheCreate int64 `json:"cacheCreationTokens"`
			CacheRead   int64 `json:"cacheReadTokens"`
		} `json:"totals"`
	}
	if stdout.Len() == 0 || bytes.HasPrefix(bytes.TrimSpace(stdout.Bytes()), []byte("[]")) {
		return Totals{}, nil
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return Totals{}, fmt.Errorf("ccusage output: %v: %.200s", err, stdout.String())
	}
	t := out.Totals
	kept := 0
	if m := keptPattern.FindSubmatch(stderr.Bytes()); m != nil {
		kept, _ = strconv.Atoi(string(m[1]))
	}
	return Totals{Input: t.Input, Output: t.Output, CacheCreate: t.CacheCreate, CacheRead: t.CacheRead, Entries: kept}, nil
}
