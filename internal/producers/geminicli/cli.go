// Package geminicli runs the real Gemini CLI offline, against the Gemini
// API stand-in (package gemini), through scripted scenarios, and records
// what it wrote: the harness that proves rlog-ls's Gemini CLI reader
// against the program that makes the files. See docs/producers.md.
//
// Every run happens inside a sandbox (package sandbox): a private network
// with only its loopback, where the stand-in listens, and a private tmpfs
// at sandbox.Root holding the CLI's home, working directory and temporary
// folder under fixed paths.
package geminicli

import (
	"context"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Version is the Gemini CLI release the fixtures are recorded with, and
// the one CI installs. LegacyVersion is the last release that wrote a
// session as one JSON document (session-*.json) instead of JSONL: the
// legacy scenario starts its session with it.
const (
	Version       = "0.61.0"
	LegacyVersion = "0.38.2"
)

// BinaryEnv and LegacyEnv name the CLI's bundle (bundle/gemini.js, run
// with node) of Version and LegacyVersion for the gated tests (ccusage's
// binary is harness.CCUsageEnv).
const (
	BinaryEnv = "RLOG_GEMINI_CLI"
	LegacyEnv = "RLOG_GEMINI_CLI_LEGACY"
)

// cliPackage is the CLI's npm package; it runs as node bundle/gemini.js,
// and none of its install scripts is needed (node-pty and keytar are not
// used by a non-interactive run with an API key).
const cliPackage = "@google/gemini-cli"

// Install installs Gemini CLI version and ccusage with npm into prefix
// (scripts skipped) and returns the CLI's bundle and ccusage's native
// binary. An install of the same versions already there is reused.
func Install(ctx context.Context, prefix, version string) (bundle, ccusage string, err error) {
	if err := harness.NpmInstall(ctx, prefix, harness.Package{Name: cliPackage, Version: version}, harness.CCUsage); err != nil {
		return "", "", err
	}
	if ccusage, err = harness.ReadyCCUsage(prefix); err != nil {
		return "", "", err
	}
	return filepath.Join(prefix, "node_modules", cliPackage, "bundle", "gemini.js"), ccusage, nil
}

// LatestVersion asks npm for the newest published Gemini CLI version.
func LatestVersion(ctx context.Context) (string, error) {
	return harness.LatestVersion(ctx, cliPackage)
}

// env is the CLI's whole environment: nothing of ours leaks in, nothing
// reaches out. GOOGLE_GEMINI_BASE_URL points it at the stand-in (and
// would select gateway authentication, which a non-interactive run
// refuses; settings select the API key instead); TMPDIR keeps its error
// reports in the run's folder.
func env(home, tmp, baseURL string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TZ=UTC",
		"TERM=xterm-256color", // a dumb one draws two warnings at every start
		"COLORTERM=truecolor",
		"NO_COLOR=1",
		"GEMINI_API_KEY=standin-0000",
		"GOOGLE_GEMINI_BASE_URL=" + baseURL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
	}
}

// settings is ~/.gemini/settings.json: authentication by API key; no
// usage statistics (which would be sent elsewhere, retried, and slow every
// start); and no session cleanup. The cleanup, on by default, runs at each
// start and deletes a session with no messages together with every file
// of the same 8-character id: a resume that starts in a later minute than
// its session's file name leaves such a stub (a header and a $set), so the
// next run would delete the resumed session itself.
const settings = `{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"general":{"sessionRetention":{"enabled":false}}}
`
