// Package e2e drives real editors against the built rlog-ls binary.
package e2e

import (
	"context"
	"encoding/json"
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

// server builds cmd/rlog-ls once for the package's tests.
func server(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binary = filepath.Join(tmpRoot, "rlog-ls")
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		out, err := exec.Command(goTool, "build", "-o", binary, "github.com/rlog-ls/rlog-ls/cmd/rlog-ls").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("go build: %s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building rlog-ls: %v", buildErr)
	}
	return binary
}

// editor returns the path of an editor binary, or skips the test saying how
// to install it.
func editor(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (apt-get install %s); .ci/run installs it for the end-to-end tests", name, pkg)
	}
	return p
}

// runGuarded runs cmd with a generous upper bound, so a wedged editor fails
// the test instead of hanging CI; the bound is not a performance assertion.
func runGuarded(t *testing.T, cmd *exec.Cmd) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	out, err := c.CombinedOutput()
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
