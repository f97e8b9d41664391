// Package codex runs the real Codex CLI offline, against the Responses API
// stand-in (package openai), through scripted scenarios, and records what
// it wrote: the harness that proves rlog-ls's Codex reader against the
// program that makes the files. See docs/producers.md.
//
// Every run happens inside a sandbox (package sandbox): a private network
// with only its loopback, where the stand-in listens, and a private tmpfs
// at sandbox.Root holding the CLI's home, CODEX_HOME, working directory
// and temporary folder under fixed paths.
package codex

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Version is the Codex CLI release the fixtures are recorded with, and the
// one CI installs.
const Version = "0.169.0"

// Model is the model the scenarios name. It must be in the CLI's built-in
// catalog: for a model it does not know, Codex falls back to metadata that
// offers no apply_patch tool and the older multi-agent tools.
const Model = "gpt-5.5"

// BinaryEnv names the Codex binary the gated tests run (ccusage's is
// harness.CCUsageEnv).
const BinaryEnv = "RLOG_CODEX"

// npm package names: the CLI's wrapper, whose launcher only finds the
// platform's native binary, and that native package (npm installs it as an
// alias of the wrapper at VERSION-linux-x64).
const (
	cliPackage    = "@openai/codex"
	nativePackage = "@openai/codex-linux-x64"
	nativeBinary  = "vendor/x86_64-unknown-linux-musl/bin/codex"
)

// Install installs Codex version and ccusage with npm into prefix
// (scripts skipped) and returns the paths of their native binaries. An
// install of the same versions already there is reused.
func Install(ctx context.Context, prefix, version string) (codex, ccusage string, err error) {
	cli := harness.Package{Name: cliPackage, Version: version, Check: nativePackage, CheckVersion: version + "-linux-x64"}
	if err := harness.NpmInstall(ctx, prefix, cli, harness.CCUsage); err != nil {
		return "", "", err
	}
	ccusage, err = harness.ReadyCCUsage(prefix)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(prefix, "node_modules", nativePackage, nativeBinary), ccusage, nil
}

// LatestVersion asks npm for the newest published Codex CLI version.
func LatestVersion(ctx context.Context) (string, error) {
	return harness.LatestVersion(ctx, cliPackage)
}

// env is the CLI's whole environment: nothing of ours leaks in, nothing
// reaches out (the stand-in's URL, in config.toml, is the only address it
// is given).
func env(home, codexHome, tmp string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"CODEX_HOME=" + codexHome,
		"TMPDIR=" + tmp,
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=dumb",
		"NO_COLOR=1",
		"STANDIN_API_KEY=sk-standin-0000",
	}
}

// config is CODEX_HOME/config.toml: the model, a provider named standin
// speaking the Responses API at baseURL with no retries (an error is an
// answer the scenario scripted), no approvals and no sandbox of its own
// (the whole run is in one).
func config(baseURL string) string {
	return fmt.Sprintf(`model = %q
model_provider = "standin"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.standin]
name = "standin"
base_url = %q
wire_api = "responses"
env_key = "STANDIN_API_KEY"
request_max_retries = 0
stream_max_retries = 0
`, Model, baseURL)
}
