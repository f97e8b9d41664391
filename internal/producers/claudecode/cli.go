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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Version is the Claude Code release the fixtures are recorded with, and
// the one CI installs.
const Version = "2.1.328"

// CCUsageVersion is the ccusage release whose figures are recorded beside
// each scenario (20.0.26's native package is missing from the registry).
const CCUsageVersion = "20.0.24"

// BinaryEnv names the Claude Code binary the gated tests run; CCUsageEnv
// names ccusage's. RequireEnv=1 (set by .ci/run) makes a missing binary a
// failure instead of a skip.
const (
	BinaryEnv  = "RLOG_CLAUDE_CODE"
	CCUsageEnv = "RLOG_CCUSAGE"
	RequireEnv = "RLOG_REQUIRE_PRODUCERS"
)

// npm package names: the CLI's wrapper package, whose postinstall only
// copies the platform's native binary into place (npm skips it), and the
// native package that holds the binary itself.
const (
	cliPackage       = "@anthropic-ai/claude-code"
	nativePackage    = "@anthropic-ai/claude-code-linux-x64"
	ccusagePackage   = "ccusage"
	ccusageNativePkg = "@ccusage/ccusage-linux-x64"
)

// Install installs Claude Code version and ccusage CCUsageVersion with npm
// into prefix (scripts skipped) and returns the paths of their native
// binaries. An install of the same versions already there is reused.
func Install(ctx context.Context, prefix, version string) (claude, ccusage string, err error) {
	claude = filepath.Join(prefix, "node_modules", nativePackage, "claude")
	ccusage = filepath.Join(prefix, "node_modules", ccusageNativePkg, "bin", "ccusage")
	if packageVersion(prefix, nativePackage) != version || packageVersion(prefix, ccusageNativePkg) != CCUsageVersion {
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", prefix, "--no-save",
			"--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error",
			cliPackage+"@"+version, ccusagePackage+"@"+CCUsageVersion)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return "", "", fmt.Errorf("npm install: %v\n%s", err, out.Bytes())
		}
		if v := packageVersion(prefix, nativePackage); v != version {
			return "", "", fmt.Errorf("npm installed %s %q, not %s", nativePackage, v, version)
		}
	}
	// ccusage's wrapper makes its binary executable at first run; we run
	// the binary directly.
	if err := os.Chmod(ccusage, 0o755); err != nil {
		return "", "", err
	}
	return claude, ccusage, nil
}

// packageVersion is the version in an installed package's package.json,
// "" when it is not installed.
func packageVersion(prefix, pkg string) string {
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", pkg, "package.json"))
	if err != nil {
		return ""
	}
	var meta struct{ Version string }
	if json.Unmarshal(b, &meta) != nil {
		return ""
	}
	return meta.Version
}

// LatestVersion asks npm for the newest published Claude Code version.
func LatestVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "npm", "view", cliPackage, "version").Output()
	if err != nil {
		return "", fmt.Errorf("npm view %s version: %w", cliPackage, err)
	}
	return strings.TrimSpace(string(out)), nil
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
