package main

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

var subcommands = []string{"serve", "check", "stats", "sessions", "fix", "watch", "convert", "export", "redact", "report", "search", "compare", "version"}

// Help is asked for, not a mistake: it goes to stdout and exits 0, at the
// top level and in every subcommand, however it is spelled; help --help
// (which used to be an "unknown command") is the top-level help too.
func TestHelpEverywhere(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}, {"help"}, {"help", "--help"}, {"help", "-h"}} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "rlog-ls: the rlog/1 language server and tools") {
			t.Errorf("%v: exit %d, stderr %q, stdout %.60q", args, code, errOut, out)
		}
		for _, name := range []string{"check", "stats", "fix", "convert", "redact", "--help and --version"} {
			if !strings.Contains(out, name) {
				t.Errorf("%v: the usage does not mention %s", args, name)
			}
		}
	}
	for _, cmd := range subcommands {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}, {cmd, "x.rlog", "--help"}} {
			out, errOut, code := runCLI(t, args...)
			synopsis := "Usage: rlog-ls " + cmd
			if cmd == "serve" {
				synopsis = "Usage: rlog-ls [serve]"
			}
			if code != 0 || errOut != "" || !strings.HasPrefix(out, synopsis) || !strings.Contains(out, "--version") ||
				!strings.Contains(out, "-h, --help") {
				t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", args, code, errOut, out)
			}
		}
	}
	if _, errOut, code := runCLI(t, "help", "nope"); code != 2 || !strings.Contains(errOut, `unknown command "nope"`) {
		t.Errorf("help nope: %d %q", code, errOut)
	}
}

// Every flag of every subcommand is in the top-level usage and the
// command-line reference (docs/cli.md).
func TestEveryFlagIsDocumented(t *testing.T) {
	readme := readDocs(t, "docs/cli.md", "docs/editors.md")
	for _, cmd := range subcommands {
		out, _, _ := runCLI(t, cmd, "--help")
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "  -") || strings.HasPrefix(line, "  -h, --help") {
				continue
			}
			flag := strings.Fields(line)[0]
			if flag == "--version" || flag == "-w" || cmd == "version" {
				continue
			}
			if !strings.Contains(usage, flag) {
				t.Errorf("%s %s is not in the top-level usage", cmd, flag)
			}
			if !strings.Contains(readme, flag) {
				t.Errorf("%s %s is not in docs/cli.md", cmd, flag)
			}
		}
	}
}

func TestVersionEverywhere(t *testing.T) {
	want := "rlog-ls " + version() + "\n"
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		if out, errOut, code := runCLI(t, args...); code != 0 || out != want || errOut != "" {
			t.Errorf("%v: %d %q %q", args, code, out, errOut)
		}
	}
	for _, cmd := range subcommands {
		if out, errOut, code := runCLI(t, cmd, "--version"); code != 0 || out != want || errOut != "" {
			t.Errorf("%s --version: %d %q %q", cmd, code, out, errOut)
		}
	}
	if _, errOut, code := runCLI(t, "version", "extra"); code != 2 || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("version extra: %d %q", code, errOut)
	}
}

func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/rlog-ls/rlog-ls", Version: "(devel)"}}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	released := vcs()
	released.Main.Version = "v1.4.0"
	for _, tc := range []struct {
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"v2.0.0", released, "v2.0.0"},
		{"", released, "v1.4.0"},
		{"", vcs("vcs.revision", "ba19013f091e540a0d3a18c5530c2c2d1369a1bf", "vcs.time", "2026-11-21T16:44:52Z", "vcs.modified", "false"),
			"devel ba19013f091e (2026-11-21T16:44:52Z)"},
		{"", vcs("vcs.revision", "ba19013f091e540a0d3a18c5530c2c2d1369a1bf", "vcs.time", "2026-11-21T16:44:52Z", "vcs.modified", "true"),
			"devel ba19013f091e (2026-11-21T16:44:52Z, with uncommitted changes)"},
		{"", vcs(), "devel (built without version control information; release builds set it with -ldflags \"-X main.stampedVersion=VERSION\")"},
		{"", nil, "devel (no build information)"},
	} {
		if got := versionOf(tc.stamped, tc.info); got != tc.want {
			t.Errorf("versionOf(%q, …) = %q, want %q", tc.stamped, got, tc.want)
		}
	}
}

// TestStampedVersionInTheBinary builds rlog-ls as a release build does.
func TestStampedVersionInTheBinary(t *testing.T) {
	bin := buildBinary(t, "-ldflags", "-X main.stampedVersion=v9.8.7")
	out, err := exec.Command(bin, "version").Output()
	if err != nil || string(out) != "rlog-ls v9.8.7\n" {
		t.Fatalf("%q %v", out, err)
	}
}

// buildBinary builds ./cmd/rlog-ls with extra go build arguments.
func buildBinary(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "rlog-ls")
	cmd := exec.Command("go", append(append([]string{"build", "-o", bin}, args...), ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Flags go anywhere: before, between and after the paths, for every
// subcommand; -- ends them.
func TestFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.rlog", "---\nformat: rlog/1\nid: s\nrepo_sha: abc\n---\nwat\n")
	before, _, _ := runCLI(t, "check", "--min-severity", "warning", p)
	after, errOut, code := runCLI(t, "check", p, "--min-severity", "warning")
	if before != after || code != 0 || errOut != "" || strings.Contains(after, "I004") || !strings.Contains(after, "W003") {
		t.Fatalf("check FILE --min-severity warning: %d %q\n%s\nwant\n%s", code, errOut, after, before)
	}
	if mixed, _, _ := runCLI(t, "check", p, "--min-severity=warning", p, "--disable", "W009"); strings.Contains(mixed, "W009") ||
		!strings.Contains(mixed, "2 files checked") {
		t.Fatalf("mixed: %s", mixed)
	}
	if out, _, code := runCLI(t, "stats", p, "--format", "json"); code != 0 || !strings.HasPrefix(out, "{") {
		t.Fatalf("stats FILE --format json: %d %s", code, out)
	}
	// A file whose name starts with a dash, after --.
	dash := writeFile(t, dir, "-odd.rlog", "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: x\n---\n")
	t.Chdir(dir)
	if out, errOut, code := runCLI(t, "check", "--", filepath.Base(dash)); code != 0 || !strings.Contains(out, "1 file checked") {
		t.Fatalf("check -- -odd.rlog: %d %q %q", code, out, errOut)
	}
	// A mistake is one line on stderr that points at --help.
	for _, args := range [][]string{{"check", p, "--nope"}, {"stats", "--format"}, {"fix", "--write", p, "--arrows=maybe"}, {"serve", "--nope"}, {"--nope"}} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--help for more") {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
}

// TestTerminalNote runs the binary on a terminal and on a pipe: only a
// person at a terminal is told what the silent program is waiting for.
func TestTerminalNote(t *testing.T) {
	bin := buildBinary(t)
	// A pipe: an editor. Nothing on stderr; end of input ends the server.
	cmd := exec.Command(bin)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "waiting for an editor") {
		t.Fatalf("on a pipe: %q %v", out, err)
	}
	for _, args := range [][]string{nil, {"serve"}} {
		got := runOnTerminal(t, bin, args...)
		if strings.Count(got, terminalNote) != 1 {
			t.Fatalf("%v on a terminal: stderr %q, want the one-line note", args, got)
		}
	}
}

// The usage shows every command of the table, and the list an unknown
// command prints names them all, in the usage's order.
func TestCommandNamesAreTheTable(t *testing.T) {
	got := strings.Split(commandNames(), ", ")
	want := []string{"serve", "check", "stats", "sessions", "fix", "watch", "convert", "export", "redact", "report", "search", "compare", "version", "help"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("commandNames: %v, want %v", got, want)
	}
	for name := range commands {
		if !slices.Contains(got, name) {
			t.Errorf("command %q is not in the usage", name)
		}
	}
	var stderr bytes.Buffer
	if status := run([]string{"wtach"}, strings.NewReader(""), io.Discard, &stderr); status != 2 || !strings.Contains(stderr.String(), "watch, convert") {
		t.Errorf("unknown command: status %d, %q", status, stderr.String())
	}
}
