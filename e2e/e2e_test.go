// Package e2e holds the end-to-end tests: the built rlog-ls binary over
// real pipes, and the editors (Neovim, Emacs, the Helix configuration)
// with the integrations from editors/ opening the project's logs: each
// checks that the file type or mode activates, that every line is
// highlighted as the kind of line the Go parser says it is, and that the
// editor starts the server and shows what it answers. (VS Code's end-to-end
// test drives code-server from JavaScript: editors/vscode/e2e.)
//
// A test whose editor is not installed skips and says so, unless
// RLOG_REQUIRE_EDITORS=1 (set by .ci/run), when it fails. Under -short the
// editor tests skip.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
	tmpRoot   string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rlog-ls-e2e-")
	if err != nil {
		panic(err)
	}
	tmpRoot = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the repository's root folder.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), ".."))
}

// server builds cmd/rlog-ls once for the package's tests, with the go
// command that runs them (go test puts its own first on PATH).
func server(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binary = filepath.Join(tmpRoot, "rlog-ls")
		cmd := exec.Command("go", "build", "-o", binary, "./cmd/rlog-ls")
		cmd.Dir = repoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building rlog-ls: %v", buildErr)
	}
	return binary
}

// editor returns the path of an editor's binary. Without it the test
// skips, saying how to install it (or fails under RLOG_REQUIRE_EDITORS=1);
// under -short it skips.
func editor(t *testing.T, bin, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s is not run", bin)
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		unavailable(t, fmt.Sprintf("%s is not installed (apt-get install %s; .ci/run installs it)", bin, pkg))
	}
	return p
}

// neovimCmd is Neovim running the Lua script with the plugin of
// editors/neovim, as a user has it: headless, without the user's
// configuration and shada, filetype plugins on, and before the script each
// Ex command of commands ("syntax on").
func neovimCmd(nvim, script string, commands ...string) *exec.Cmd {
	args := []string{"--headless", "--clean", "-n", "-i", "NONE",
		"--cmd", "set rtp^=" + filepath.Join(repoRoot(), "editors", "neovim"), "-c", "filetype plugin on"}
	for _, c := range commands {
		args = append(args, "-c", c)
	}
	return exec.Command(nvim, append(args, "-c", "luafile "+script)...)
}

// emacsCmd is Emacs in batch mode loading the Lisp script, with
// editors/emacs on its load path. Not -Q: Debian's site start files put
// elpa-eglot on the load path.
func emacsCmd(emacs, script string) *exec.Cmd {
	return exec.Command(emacs, "--batch", "-L", filepath.Join(repoRoot(), "editors", "emacs"), "-l", script)
}

// unavailable skips a test whose editor cannot run here, or fails it
// under RLOG_REQUIRE_EDITORS=1.
func unavailable(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("RLOG_REQUIRE_EDITORS") == "1" {
		t.Fatal(msg + ", and RLOG_REQUIRE_EDITORS=1")
	}
	t.Skip(msg)
}

// runGuarded runs cmd with an upper bound, so that an editor waiting for
// input or wedged fails the test instead of hanging it; the bound is not a
// performance assertion. An editor's run that talks to the server gets 5
// minutes, and its script's waits (Emacs's and Neovim's) 2 each, requests
// included: beside CPU hogs TestEmacsView took up to 100 s, and its wait of
// 15 s for the diagnostics ran out.
func runGuarded(t *testing.T, cmd *exec.Cmd, timeout time.Duration) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in %v:\n%s", filepath.Base(cmd.Path), timeout, out)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return out
}

func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// checkJSON runs `rlog-ls check --format json` on a file.
func checkJSON(t *testing.T, file string) []map[string]any {
	t.Helper()
	out, _ := exec.Command(server(t), "check", "--format", "json", file).Output()
	var findings []map[string]any
	if err := json.Unmarshal(out, &findings); err != nil {
		t.Fatalf("check --format json: %v\n%s", err, out)
	}
	return findings
}

// readResult reads the JSON an editor script wrote to path (RLOG_OUT) into
// res; who names the editor in a failure. What the script says went wrong
// ("errors", a list, from Neovim; "error" from Emacs) fails the test.
func readResult(t *testing.T, path, who string, res any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s wrote no result: %v", who, err)
	}
	if err := json.Unmarshal(raw, res); err != nil {
		t.Fatalf("%s's result: %v\n%s", who, err, raw)
	}
	var failed struct {
		Errors []string `json:"errors"`
		Error  string   `json:"error"`
	}
	json.Unmarshal(raw, &failed) // a script that reports no failure has neither
	if len(failed.Errors) > 0 || failed.Error != "" {
		t.Fatalf("%s: %s", who, strings.TrimSpace(strings.Join(append(failed.Errors, failed.Error), " ")))
	}
}
