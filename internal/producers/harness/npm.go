package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// CCUsageVersion is the ccusage release whose figures are recorded beside
// each scenario of every agent (20.0.26's native package is missing from
// the registry). CCUsageEnv names its binary for the gated tests.
const (
	CCUsageVersion = "20.0.24"
	CCUsageEnv     = "RLOG_CCUSAGE"
)

// ccusage's npm packages: the wrapper, and the native binary it would
// pick at first run (we run the binary directly).
const (
	ccusagePackage = "ccusage"
	ccusageNative  = "@ccusage/ccusage-linux-x64"
)

// A Package is an npm package to install at a version; Check is the
// installed package whose version proves the install (the wrapper's
// native dependency, when the wrapper installs one), the package itself
// when empty.
// CheckVersion is the version Check must have, Version when empty.
type Package struct {
	Name, Version, Check, CheckVersion string
}

// Spec is name@version.
func (p Package) Spec() string { return p.Name + "@" + p.Version }

// CCUsage is ccusage's package at the pinned version.
var CCUsage = Package{Name: ccusagePackage, Version: CCUsageVersion, Check: ccusageNative}

// CCUsageBinary is where ccusage's native binary is under prefix.
func CCUsageBinary(prefix string) string {
	return filepath.Join(prefix, "node_modules", ccusageNative, "bin", "ccusage")
}

// NpmInstall installs pkgs with npm into prefix, install scripts skipped,
// unless every one of them is there at its version already.
func NpmInstall(ctx context.Context, prefix string, pkgs ...Package) error {
	missing := false
	for _, p := range pkgs {
		if PackageVersion(prefix, p.check()) != p.checkVersion() {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	args := []string{"install", "--prefix", prefix, "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"}
	for _, p := range pkgs {
		args = append(args, p.Spec())
	}
	cmd := exec.CommandContext(ctx, "npm", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm install: %v\n%s", err, out.Bytes())
	}
	for _, p := range pkgs {
		if v := PackageVersion(prefix, p.check()); v != p.checkVersion() {
			return fmt.Errorf("npm installed %s %q, not %s", p.check(), v, p.checkVersion())
		}
	}
	return nil
}

func (p Package) check() string {
	if p.Check != "" {
		return p.Check
	}
	return p.Name
}

func (p Package) checkVersion() string {
	if p.CheckVersion != "" {
		return p.CheckVersion
	}
	return p.Version
}

// ReadyCCUsage is ccusage's native binary under prefix, made executable
// (its wrapper would do that at first run; we run the binary directly).
func ReadyCCUsage(prefix string) (string, error) {
	bin := CCUsageBinary(prefix)
	return bin, os.Chmod(bin, 0o755)
}

// PackageVersion is the version in an installed package's package.json,
// "" when it is not installed.
func PackageVersion(prefix, pkg string) string {
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

// LatestVersion asks npm for the newest published version of pkg.
func LatestVersion(ctx context.Context, pkg string) (string, error) {
	out, err := exec.CommandContext(ctx, "npm", "view", pkg, "version").Output()
	if err != nil {
		return "", fmt.Errorf("npm view %s version: %w", pkg, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// CachePrefix is the folder a CLI's pinned install lives in, in the
// user's cache: ~/.cache/rlog-ls/producers/NAME.
func CachePrefix(name string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "rlog-ls", "producers", name), nil
}

// RunCCUsage runs ccusage with args (its report, --json and --offline
// among them) in env, and returns the JSON it printed, indented.
func RunCCUsage(ctx context.Context, ccusage string, env, args []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ccusage, args...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "TZ=UTC", "NO_COLOR=1"}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("ccusage %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, bytes.TrimSpace(stdout.Bytes()), "", "  "); err != nil {
		return nil, fmt.Errorf("ccusage printed no JSON: %q", stdout.Bytes())
	}
	pretty.WriteByte('\n')
	return pretty.Bytes(), nil
}
