// Package claudecode runs the real Claude Code CLI offline, against the
// Messages API stand-in, through scripted scenarios, and records what it
// wrote: the harness that proves rlog-ls's Claude Code reader and writer
// against the program that makes the files. See docs/producers.md.
//
// Every run happens inside a sandbox (package sandbox): a private network
// with only its loopback, where the stand-in listens, and a private tmpfs
// at sandbox.Root holding the CLI's home, working directory and temporary
// folder under fixed paths.
package claudecode

import (
	"context"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Version is the Claude Code release the fixtures are recorded with, and
// the one CI installs.
const Version = "2.1.328"

// BinaryEnv names the Claude Code binary the gated tests run; ccusage's is
// harness.CCUsageEnv, and harness.RequireEnv=1 (set by .ci/run) makes a
// missing binary a failure instead of a skip.
const BinaryEnv = "RLOG_CLAUDE_CODE"

// npm package names: the CLI's wrapper package, whose postinstall only
// copies the platform's native binary into place (npm skips it), and the
// native package that holds the binary itself.
const (
	cliPackage    = "@anthropic-ai/claude-code"
	nativePackage = "@anthropic-ai/claude-code-linux-x64"
)

// Install installs Claude Code version and ccusage with npm into prefix
// (scripts skipped) and returns the paths of their native binaries. An
// install of the same versions already there is reused.
func Install(ctx context.Context, prefix, version string) (claude, ccusage string, err error) {
	cli := harness.Package{Name: cliPackage, Version: version, Check: nativePackage}
	if err := harness.NpmInstall(ctx, prefix, cli, harness.CCUsage); err != nil {
		return "", "", err
	}
	if ccusage, err = harness.ReadyCCUsage(prefix); err != nil {
		return "", "", err
	}
	return filepath.Join(prefix, "node_modules", nativePackage, "claude"), ccusage, nil
}

// LatestVersion asks npm for the newest published Claude Code version.
func LatestVersion(ctx context.Context) (string, error) {
	return harness.LatestVersion(ctx, cliPackage)
}

// ProjectDirName is the folder name Claude Code gives a working directory
// under ~/.claude/projects: every character but ASCII letters and digits
// becomes '-' (the paths the harness uses are short, so the CLI's hashed
// form for long paths never applies).
func ProjectDirName(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}
