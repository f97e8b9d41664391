package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/grammar/tmtest"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// logFiles are the files every editor test reads: the project's own logs,
// the grammar fixtures (every line kind, and tmtest.Divergences), and
// the corpus when it is there.
func logFiles(t *testing.T) []string {
	root := repoRoot()
	var files []string
	for _, dir := range []string{filepath.Join(root, "testdata"), filepath.Join(root, "testdata", "logs"), filepath.Join(root, "grammar", "tmtest", "testdata")} {
		m, err := filepath.Glob(filepath.Join(dir, "*.rlog"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return append(files, corpus.SweepFiles(t, ".rlog", "rlog", "rlog-derived")...)
}

// parserKinds returns the kind of each line as the parser sees it.
func parserKinds(t *testing.T, path string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for l := range grammar.Parse(src).Lines() {
		out = append(out, l.Kind.String())
	}
	return out
}

// tokenProbe is a token of grammar.Tokenize that an editor must colour as
// its kind: the 1-based line, its column (0-based, in bytes and in
// characters, after a byte order mark) and the token kind.
type tokenProbe struct {
	Line    int    `json:"line"`
	ByteCol int    `json:"byte"`
	CharCol int    `json:"char"`
	Kind    string `json:"kind"`
	Text    string `json:"text"`
}

// probedKinds are the token kinds whose colour the editors are checked on.
var probedKinds = map[grammar.TokenKind]bool{grammar.TokPrefix: true, grammar.TokName: true,
	grammar.TokKey: true, grammar.TokHeaderKey: true, grammar.TokArrow: true, grammar.TokStatus: true,
	grammar.TokMarker: true, grammar.TokFlag: true, grammar.TokDelimiter: true, grammar.TokComment: true}

// tokenProbes lists the tokens of a file the editors are checked on. Keys
// inside comments (the parser reads them, editors show comment text) and
// ASCII arrows (an arrow only where a result may follow) are left out.
func tokenProbes(t *testing.T, path string) []tokenProbe {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tree := grammar.Parse(src)
	var out []tokenProbe
	for l := range tree.Lines() {
		li, text := tree.Info(l.Num)
		skip := 0
		if l.Num == 0 && strings.HasPrefix(string(text), "\uFEFF") {
			skip = len("\uFEFF")
		}
		for _, tok := range grammar.Tokenize(text, &li) {
			tt := string(text[tok.Span.Start:tok.Span.End])
			if !probedKinds[tok.Kind] || tok.Kind == grammar.TokKey && l.Kind == grammar.Comment ||
				tok.Kind == grammar.TokArrow && tt != "→" {
				continue
			}
			out = append(out, tokenProbe{Line: l.Num + 1, ByteCol: tok.Span.Start - skip,
				CharCol: len([]rune(string(text[skip:tok.Span.Start]))), Kind: tok.Kind.String(), Text: tt})
		}
	}
	return out
}

// writeProbes writes the probes of every file as JSON for the editor scripts.
func writeProbes(t *testing.T, files []string) (string, map[string][]tokenProbe) {
	probes := map[string][]tokenProbe{}
	for _, f := range files {
		probes[f] = tokenProbes(t, f)
	}
	b, err := json.Marshal(probes)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "probes.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p, probes
}

// compareTokens checks the colour (syntax group or face) each editor gave
// the probed tokens against the ones each kind allows.
func compareTokens(t *testing.T, editor string, probes map[string][]tokenProbe, got map[string][]string, allowed map[string][]string) {
	t.Helper()
	bad, n := 0, 0
	for f, ps := range probes {
		g := got[f]
		if len(g) != len(ps) {
			t.Errorf("%s: %s answered %d of %d tokens", f, editor, len(g), len(ps))
			continue
		}
		for i, p := range ps {
			n++
			if slices.Contains(allowed[p.Kind], g[i]) {
				continue
			}
			if bad++; bad <= 40 {
				t.Errorf("%s:%d:%d: %s token %q shown as %q in %s, want one of %v", f, p.Line, p.CharCol+1, p.Kind, p.Text, g[i], editor, allowed[p.Kind])
			}
		}
	}
	if bad > 40 {
		t.Errorf("... %d tokens differ in all", bad)
	}
	t.Logf("%s: %d tokens compared with the parser's", editor, n)
}

// compareKinds reports every line whose kind in the editor differs from the
// parser's, apart from the declared divergences, and declared divergences
// that did not occur.
func compareKinds(t *testing.T, editor string, files []string, got map[string][]string, divergences []tmtest.Divergence) {
	t.Helper()
	expected := map[tmtest.Divergence]bool{}
	for _, d := range divergences {
		expected[d] = false
	}
	bad, lines := 0, 0
	compared := map[string]int{} // lines compared, by base name
	for _, f := range files {
		want := parserKinds(t, f)
		have := got[f]
		// Editors show no line after a final newline; the parser has an
		// empty one there.
		if len(want) == len(have)+1 && want[len(want)-1] == "empty" {
			want = want[:len(want)-1]
		}
		if len(have) != len(want) {
			t.Errorf("%s: %s saw %d lines, the parser %d", f, editor, len(have), len(want))
			continue
		}
		compared[filepath.Base(f)] = len(want)
		for i := range want {
			lines++
			if have[i] == want[i] {
				continue
			}
			d := tmtest.Divergence{File: filepath.Base(f), Line: i + 1, Parser: want[i], Highlighter: have[i]}
			if _, ok := expected[d]; ok && strings.Contains(f, filepath.Join("grammar", "tmtest", "testdata")) {
				expected[d] = true
				continue
			}
			if bad++; bad <= 40 {
				t.Errorf("%s:%d: parser %s, %s %s", f, i+1, want[i], editor, have[i])
			}
		}
	}
	if bad > 40 {
		t.Errorf("... %d lines differ in all", bad)
	}
	var missing []string
	for d, seen := range expected {
		if !seen && d.Line <= compared[d.File] {
			missing = append(missing, fmt.Sprintf("%s:%d", d.File, d.Line))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("declared divergence did not occur in %s: %s", editor, m)
	}
	t.Logf("%s: %d lines of %d files compared with the parser", editor, lines, len(files))
}

type nvimSyntaxResult struct {
	Tokens   map[string][]string                `json:"tokens"`
	Files    map[string][]struct{ Kind string } `json:"files"`
	Filetype map[string]string                  `json:"filetype"`
	Colours  map[string]string                  `json:"colours"`
}

// TestNeovimSyntax opens every log in a headless Neovim with only
// editors/neovim on the runtime path and checks the file type and the syntax
// group of every line.
func TestNeovimSyntax(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	files := logFiles(t)
	out := filepath.Join(t.TempDir(), "kinds.json")
	probeFile, probes := writeProbes(t, files)
	cmd := neovimCmd(nvim, filepath.Join(repoRoot(), "editors", "neovim", "test", "kinds.lua"), "syntax on")
	cmd.Args = append(append(cmd.Args, "--"), files...)
	cmd.Env = append(os.Environ(), "RLOG_OUT="+out, "RLOG_PROBES="+probeFile)
	runGuarded(t, cmd, 2*time.Minute)
	var res nvimSyntaxResult
	readResult(t, out, "Neovim", &res)
	got := map[string][]string{}
	for _, f := range files {
		if ft := res.Filetype[f]; ft != "rlog" {
			t.Errorf("%s: filetype %q, want rlog", f, ft)
		}
		for _, l := range res.Files[f] {
			got[f] = append(got[f], l.Kind)
		}
	}
	compareKinds(t, "neovim", files, got, tmtest.Divergences)
	// Left out: tokens on lines whose kind differs (the declared cases), and
	// tokens past 'synmaxcol' (3000 bytes), where Vim stops highlighting.
	for f, ps := range probes {
		if len(res.Tokens[f]) != len(ps) {
			t.Errorf("%s: neovim answered %d of %d tokens", f, len(res.Tokens[f]), len(ps))
			continue
		}
		var keep []tokenProbe
		var kept []string
		for i, p := range ps {
			diverges := false
			for _, d := range tmtest.Divergences {
				diverges = diverges || filepath.Base(f) == d.File && p.Line == d.Line
			}
			if !diverges && p.ByteCol < 3000 {
				keep = append(keep, p)
				kept = append(kept, res.Tokens[f][i])
			}
		}
		probes[f], res.Tokens[f] = keep, kept
	}
	compareTokens(t, "neovim", probes, res.Tokens, map[string][]string{
		"prefix": {"rlogPrefix", "rlogToolPrefix", "rlogSkillPrefix", "rlogPlanPrefix", "rlogModePrefix",
			"rlogSubagentPrefix", "rlogMcpPrefix", "rlogEvent", "rlogPhaseKeyword", "rlogLineComment", "rlogHeaderDash"},
		"name":       {"rlogToolName", "rlogSkillName", "rlogPlanName", "rlogMode", "rlogSubagent", "rlogMcpName", "rlogPhaseName", "rlogEvent"},
		"key":        {"rlogKey"},
		"header_key": {"rlogHeaderKey"},
		"arrow":      {"rlogArrow"},
		"status":     {"rlogStatus", "rlogStatusOk", "rlogStatusError", "rlogStatusRunning"},
		"marker":     {"rlogMarker"},
		"flag":       {"rlogFlag"},
		"delimiter":  {"rlogHeaderDelim"},
		"comment":    {"rlogLineComment", "rlogPreamble", "rlogHeaderComment"},
	})
	// Each item is linked to a standard group, so every colour scheme shows it.
	for group, want := range map[string]string{"rlogPrefix": "Statement", "rlogToolName": "Identifier",
		"rlogKey": "Identifier", "rlogId": "Constant", "rlogTimestamp": "Constant", "rlogStatusOk": "Type",
		"rlogStatusError": "Error", "rlogLineComment": "Comment", "rlogHeaderKey": "Identifier",
		"rlogPhaseName": "Title", "rlogSubagent": "Type"} {
		if res.Colours[group] != want {
			t.Errorf("%s is shown as %q, want %q", group, res.Colours[group], want)
		}
	}
}

// TestNeovimLSPSetup checks the wiring of lua/rlog in Neovim: a missing
// binary gets a message saying how to install it and starts nothing; the
// real one attaches to the buffer and its diagnostics arrive. (The server's
// answers are tested in nvim_test.go.)
func TestNeovimLSPSetup(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	out := filepath.Join(t.TempDir(), "lsp.json")
	cmd := neovimCmd(nvim, filepath.Join(repoRoot(), "editors", "neovim", "test", "lsp.lua"), "syntax on")
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_OUT="+out,
		"RLOG_FILE="+filepath.Join(repoRoot(), "testdata", "sample.rlog"))
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Filetype       string `json:"filetype"`
		MissingMessage string `json:"missing_message"`
		MissingClients int    `json:"missing_clients"`
		Attached       bool   `json:"attached"`
		Diagnostics    []struct {
			Lnum int    `json:"lnum"`
			Code string `json:"code"`
		} `json:"diagnostics"`
	}
	readResult(t, out, "Neovim", &res)
	if res.Filetype != "rlog" {
		t.Errorf("filetype %q", res.Filetype)
	}
	if !strings.Contains(res.MissingMessage, "https://github.com/rlog-ls/rlog-ls/releases") ||
		!strings.Contains(res.MissingMessage, "go install ./cmd/rlog-ls") ||
		!strings.Contains(res.MissingMessage, "/nonexistent/rlog-ls") || res.MissingClients != 0 {
		t.Errorf("missing binary: message %q, %d clients", res.MissingMessage, res.MissingClients)
	}
	if !res.Attached {
		t.Fatal("rlog-ls did not attach to the buffer")
	}
	// testdata/sample.rlog has one finding: W002 on line 40.
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "W002" || res.Diagnostics[0].Lnum != 39 {
		t.Errorf("diagnostics %+v, want W002 on line 40", res.Diagnostics)
	}
}

// readmeSnippet returns the fenced code block that follows the line
// "<!-- editors_test: NAME -->" in a README (both may be indented, as in a
// list item): the tests run what users copy.
func readmeSnippet(t *testing.T, readme, name string) string {
	t.Helper()
	src, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	marker := slices.IndexFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "<!-- editors_test: "+name+" -->" })
	if marker < 0 {
		t.Fatalf("%s has no <!-- editors_test: %s --> marker", readme, name)
	}
	fence := marker + 1
	for fence < len(lines) && strings.TrimSpace(lines[fence]) == "" {
		fence++
	}
	if fence == len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[fence]), "```") {
		t.Fatalf("%s: no code block after the %s marker", readme, name)
	}
	indent := lines[fence][:len(lines[fence])-len(strings.TrimLeft(lines[fence], " "))]
	var code []string
	for _, l := range lines[fence+1:] {
		if strings.TrimSpace(l) == "```" {
			return strings.Join(code, "\n")
		}
		code = append(code, strings.TrimPrefix(l, indent))
	}
	t.Fatalf("%s: the %s code block does not end", readme, name)
	return ""
}

// TestNeovimPluginManagers installs editors/neovim the way lazy.nvim and
// packer.nvim do with the specs of editors/neovim/README.md, and checks what a
// user then gets on opening a log: the file type, syntax and ftplugin from the
// sub-folder, the server (rlog-ls on PATH) attached with its diagnostics, and
// lsp/rlog_ls.lua on the runtime path. The managers themselves cannot run
// here (lazy.nvim needs Neovim 0.8, Debian has 0.7.2; GitHub is not
// reachable), so test/managers does their startup steps: the repository is
// linked where the manager clones it, lazy_init.lua does lazy.nvim's loader
// steps (its own filetype detection first, the plugin folder on the runtime
// path, its plugin/ and ftdetect/, then config), and packer_compiled.lua is
// what :PackerCompile writes (the rtp sub-folder, then config from bytecode),
// sourced by Neovim's own startup with the plugin as a start package.
func TestNeovimPluginManagers(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	bin := server(t)
	dir := filepath.Join(repoRoot(), "editors", "neovim")
	readme := filepath.Join(dir, "README.md")
	managers := filepath.Join(dir, "test", "managers")
	sample := filepath.Join(repoRoot(), "testdata", "sample.rlog")

	type result struct {
		Errors        []string `json:"errors"`
		Filetype      string   `json:"filetype"`
		Syntax        string   `json:"syntax"`
		Commentstring string   `json:"commentstring"`
		Module        string   `json:"module"`
		LSPConfig     string   `json:"lsp_config"`
		Attached      bool     `json:"attached"`
		Diagnostics   []struct {
			Lnum int    `json:"lnum"`
			Code string `json:"code"`
		} `json:"diagnostics"`
	}
	// start runs Neovim with a fresh home, the repository linked at
	// pluginDir (under the data folder, where the manager clones it) and
	// spec, and returns what check.lua saw and the plugin's folder.
	start := func(t *testing.T, pluginDir, spec string, setupHome func(t *testing.T, home string) []string) (result, string) {
		home := t.TempDir()
		plugin := filepath.Join(home, "data", "nvim", pluginDir)
		if err := os.MkdirAll(filepath.Dir(plugin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(repoRoot(), plugin); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "result.json")
		args := append(setupHome(t, home), "--headless", "-n", "-i", "NONE", sample,
			"-c", "luafile "+filepath.Join(managers, "check.lua"))
		cmd := exec.Command(nvim, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
			"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_STATE_HOME="+filepath.Join(home, "state"),
			"XDG_CACHE_HOME="+filepath.Join(home, "cache"), "RLOG_PLUGIN_DIR="+plugin, "RLOG_SPEC="+spec,
			"RLOG_OUT="+out, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		runGuarded(t, cmd, 5*time.Minute)
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("Neovim wrote no result: %v", err)
		}
		var res result
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%v\n%s", err, raw)
		}
		return res, plugin
	}
	lazy := func(_ *testing.T, _ string) []string {
		return []string{"-u", filepath.Join(managers, "lazy_init.lua")}
	}
	packer := func(t *testing.T, home string) []string {
		compiled := filepath.Join(home, "config", "nvim", "plugin", "packer_compiled.lua")
		if err := os.MkdirAll(filepath.Dir(compiled), 0o755); err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join(managers, "packer_compiled.lua"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(compiled, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "config", "nvim", "init.lua"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	check := func(t *testing.T, res result, plugin string) {
		t.Helper()
		if len(res.Errors) > 0 {
			t.Fatalf("errors: %v", res.Errors)
		}
		if res.Filetype != "rlog" || res.Syntax != "rlog" || res.Commentstring != "# %s" {
			t.Errorf("filetype %q, syntax %q, commentstring %q; want rlog, rlog, \"# %%s\"", res.Filetype, res.Syntax, res.Commentstring)
		}
		sub := filepath.Join(plugin, "editors", "neovim")
		if res.Module != filepath.Join(sub, "lua", "rlog", "init.lua") || res.LSPConfig != filepath.Join(sub, "lsp", "rlog_ls.lua") {
			t.Errorf("require('rlog') from %q, lsp/rlog_ls.lua from %q; want them under %s", res.Module, res.LSPConfig, sub)
		}
		if !res.Attached {
			t.Fatal("rlog-ls did not attach to the buffer")
		}
		if len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "W002" || res.Diagnostics[0].Lnum != 39 {
			t.Errorf("diagnostics %+v, want W002 on line 40", res.Diagnostics)
		}
	}

	t.Run("lazy.nvim", func(t *testing.T) {
		res, plugin := start(t, filepath.Join("lazy", "rlog-ls"), readmeSnippet(t, readme, "lazy.nvim"), lazy)
		check(t, res, plugin)
	})
	t.Run("packer.nvim", func(t *testing.T) {
		res, plugin := start(t, filepath.Join("site", "pack", "packer", "start", "rlog-ls"), readmeSnippet(t, readme, "packer.nvim"), packer)
		check(t, res, plugin)
	})
	// Without setup() the sub-folder's ftdetect/ is never sourced under
	// either manager: what setup() registers the file type for.
	t.Run("lazy.nvim without setup", func(t *testing.T) {
		res, _ := start(t, filepath.Join("lazy", "rlog-ls"),
			"{ 'rlog-ls/rlog-ls', config = function(plugin) vim.opt.rtp:append(plugin.dir .. '/editors/neovim') end }", lazy)
		if res.Filetype != "" || res.Attached {
			t.Errorf("filetype %q, attached %v: the emulation sourced the sub-folder's ftdetect/, which lazy.nvim does not", res.Filetype, res.Attached)
		}
	})
	t.Run("packer.nvim without setup", func(t *testing.T) {
		res, _ := start(t, filepath.Join("site", "pack", "packer", "start", "rlog-ls"),
			"use { 'rlog-ls/rlog-ls', rtp = 'editors/neovim' }", packer)
		if res.Filetype != "" || res.Attached {
			t.Errorf("filetype %q, attached %v: Neovim sourced the sub-folder's ftdetect/, which it does not after packer", res.Filetype, res.Attached)
		}
	})
}

// TestEmacsMode opens every log in Emacs with rlog-mode and checks the mode,
// the kind font-lock gives each line and the faces of the main tokens.
// rlog-mode finds the header by looking at the whole buffer, as the parser
// does, so it agrees with the parser on every line, the two cases a
// line-at-a-time grammar cannot know included.
func TestEmacsMode(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	files := logFiles(t)
	out := filepath.Join(t.TempDir(), "kinds.json")
	args := []string{"--batch", "-Q", "-L", filepath.Join(repoRoot(), "editors", "emacs"),
		"-l", filepath.Join(repoRoot(), "editors", "emacs", "test", "kinds.el")}
	probeFile, probes := writeProbes(t, files)
	cmd := exec.Command(emacs, append(args, files...)...)
	cmd.Env = append(os.Environ(), "RLOG_OUT="+out, "RLOG_PROBES="+probeFile)
	runGuarded(t, cmd, 2*time.Minute)
	var res struct {
		Files  map[string][]string `json:"files"`
		Modes  map[string]string   `json:"modes"`
		Faces  map[string]string   `json:"faces"`
		Tokens map[string][]string `json:"tokens"`
	}
	readResult(t, out, "Emacs", &res)
	for _, f := range files {
		if res.Modes[f] != "rlog-mode" {
			t.Errorf("%s opens in %q, want rlog-mode", f, res.Modes[f])
		}
	}
	compareKinds(t, "emacs", files, res.Files, nil)
	compareTokens(t, "emacs", probes, res.Tokens, map[string][]string{
		"prefix":     {"rlog-prefix-face", "rlog-event-face", "rlog-comment-face"},
		"name":       {"rlog-name-face", "rlog-subagent-face", "rlog-mode-name-face", "rlog-phase-face", "rlog-event-face"},
		"key":        {"rlog-key-face"},
		"header_key": {"rlog-key-face"},
		"arrow":      {"rlog-arrow-face"},
		"status":     {"rlog-status-face", "rlog-status-ok-face", "rlog-status-error-face", "rlog-status-running-face"},
		"marker":     {"rlog-marker-face"},
		"flag":       {"rlog-flag-face"},
		"delimiter":  {"rlog-delimiter-face"},
		"comment":    {"rlog-comment-face"},
	})
	for token, want := range map[string]string{"prefix": "rlog-prefix-face", "tool": "rlog-name-face",
		"key": "rlog-key-face", "id": "rlog-id-face", "timestamp": "rlog-number-face",
		"status_ok": "rlog-status-ok-face", "status_running": "rlog-status-running-face",
		"subagent": "rlog-subagent-face", "phase": "rlog-phase-face", "event": "rlog-event-face",
		"header_key": "rlog-key-face", "delimiter": "rlog-delimiter-face", "string": "rlog-string-face",
		"number": "rlog-number-face"} {
		if res.Faces[token] != want {
			t.Errorf("%s: face %q, want %q", token, res.Faces[token], want)
		}
	}
}

// TestEmacsByteCompile compiles rlog-mode.el with warnings as errors.
func TestEmacsByteCompile(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot(), "editors", "emacs", "rlog-mode.el"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rlog-mode.el"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(emacs, "--batch", "-Q", "-L", dir, "--eval", "(setq byte-compile-error-on-warn t)",
		"-f", "batch-byte-compile", filepath.Join(dir, "rlog-mode.el"))
	runGuarded(t, cmd, time.Minute)
	if _, err := os.Stat(filepath.Join(dir, "rlog-mode.elc")); err != nil {
		t.Fatal("rlog-mode.el did not compile")
	}
}

// needEglot skips (fails under RLOG_REQUIRE_EDITORS=1) when Emacs has no eglot.
func needEglot(t *testing.T, emacs string) {
	t.Helper()
	probe := exec.Command(emacs, "--batch", "--eval", "(require 'eglot)")
	if out, err := probe.CombinedOutput(); err != nil {
		unavailable(t, fmt.Sprintf("eglot is not available (Debian package elpa-eglot, or Emacs 29): %v\n%s", err, out))
	}
}

// TestEmacsEglot checks that eglot finds rlog-ls through rlog-mode's
// registration and shows its diagnostics in flymake (eglot is built into
// Emacs 29; Debian 12's Emacs 28 has it as the elpa-eglot package).
func TestEmacsEglot(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	needEglot(t, emacs)
	out := filepath.Join(t.TempDir(), "eglot.json")
	cmd := emacsCmd(emacs, filepath.Join(repoRoot(), "editors", "emacs", "test", "eglot.el"))
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_OUT="+out,
		"RLOG_FILE="+filepath.Join(repoRoot(), "testdata", "sample.rlog"))
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Mode        string `json:"mode"`
		Contact     string `json:"contact"`
		Managed     bool   `json:"managed"`
		Diagnostics []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"diagnostics"`
	}
	readResult(t, out, "Emacs", &res)
	if res.Mode != "rlog-mode" || !res.Managed || !strings.Contains(res.Contact, "rlog-ls") {
		t.Fatalf("eglot did not manage the buffer with rlog-ls: %+v", res)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Line != 40 || !strings.Contains(res.Diagnostics[0].Text, "W002") {
		t.Errorf("flymake shows %+v, want W002 on line 40", res.Diagnostics)
	}
}

// TestEmacsFullRecord runs the README's rlog-show-full-record, as written
// there, on a log beside its companion: it opens the whole output of a line
// the log cut short in a read-only buffer.
func TestEmacsFullRecord(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	needEglot(t, emacs)
	dir := t.TempDir()
	src := filepath.Join(repoRoot(), "testdata", "companions", "sdk")
	for _, name := range []string{"222000-fix-locked-login.rlog", "222000-fix-locked-login.jsonl"} {
		copyFile(t, filepath.Join(src, name), dir)
	}
	snippet := filepath.Join(t.TempDir(), "snippet.el")
	if err := os.WriteFile(snippet, []byte(readmeSnippet(t, filepath.Join(repoRoot(), "editors", "emacs", "README.md"), "full-record")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "record.json")
	cmd := emacsCmd(emacs, filepath.Join(repoRoot(), "editors", "emacs", "test", "full-record.el"))
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_OUT="+out, "RLOG_SNIPPET="+snippet, "RLOG_LINE=19",
		"RLOG_FILE="+filepath.Join(dir, "222000-fix-locked-login.rlog"))
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Key      string `json:"key"`
		Name     string `json:"name"`
		Text     string `json:"text"`
		Readonly bool   `json:"readonly"`
	}
	readResult(t, out, "Emacs", &res)
	if res.Key != "rlog-show-full-record" || res.Name != "*rlog record: line 19, Output of Read*" || !res.Readonly ||
		!strings.HasPrefix(res.Text, "     1→use crate::session::{Session, SessionStore};\n") || !strings.HasSuffix(res.Text, "    24→}") {
		t.Fatalf("key %q, buffer %q (read-only %v):\n%s", res.Key, res.Name, res.Readonly, res.Text)
	}
}

// TestEmacsView runs M-x rlog-view on a real Claude Code transcript (recorded
// from Claude Code 2.1.328), as a user does from the transcript's buffer: a
// read-only rlog buffer managed by eglot holds what `rlog-ls convert --to
// rlog` writes of it; the hover on a line it cut short shows the whole
// record, Go to Definition answers with the record in the transcript, the
// server's diagnostics are in flymake, and when Claude Code writes the rest
// of the session the buffer follows, to the conversion of the whole file. A
// file the server does not read gets a message saying why, and no buffer.
func TestEmacsView(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	needEglot(t, emacs)
	transcript, rest := recordedTranscript(t, "subagent", 26)
	want := rlogOf(t, transcript)
	line, col := lineOf(t, want, "o: id=toolu_sub_agent → [ok] Async agent launched")
	last := "a: This folder is at version 1.4.2."
	unread := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(unread, []byte(`{"timestamp":"2026-11-27T09:48:08Z","kind":"start","payload":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "view.json")
	cmd := emacsCmd(emacs, filepath.Join(repoRoot(), "editors", "emacs", "test", "view.el"))
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_FILE="+transcript, "RLOG_REST="+rest, "RLOG_OUT="+out, "RLOG_LAST="+last, "RLOG_UNREAD="+unread,
		fmt.Sprintf("RLOG_LINE=%d", line+1), fmt.Sprintf("RLOG_COL=%d", col+40))
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		Name, URI, Mode, Text, Hover, Grown string
		Readonly, Managed, Modified         bool
		Definition                          struct {
			URI  string `json:"uri"`
			Line int    `json:"line"`
		}
		Diagnostics []string
		Refused     string
		Buffers     []string
	}
	readResult(t, out, "Emacs", &res)
	if res.Name != "*rlog view: "+filepath.Base(transcript)+"*" || res.URI != "rlog-view://"+transcript+".rlog" || res.Mode != "rlog-mode" || !res.Readonly || !res.Managed {
		t.Errorf("view buffer %q (%s, %s, read-only %v, managed by eglot %v)", res.Name, res.URI, res.Mode, res.Readonly, res.Managed)
	}
	if res.Text != want {
		t.Errorf("the view shows:\n%s\nwant the conversion:\n%s", res.Text, want)
	}
	if !strings.Contains(res.Hover, "in full, from `"+filepath.Base(transcript)+"` line ") || !strings.Contains(res.Hover, "agentId: ad1d58fb8290d2b47") {
		t.Errorf("hover on the cut-short output:\n%s", res.Hover)
	}
	b, _ := os.ReadFile(transcript)
	record := slices.IndexFunc(strings.Split(string(b), "\n"), func(l string) bool { return strings.Contains(l, `"tool_use_id":"toolu_sub_agent"`) })
	if res.Definition.URI != "file://"+transcript || res.Definition.Line != record {
		t.Errorf("definition %+v, want line %d of %s", res.Definition, record+1, transcript)
	}
	if !slices.ContainsFunc(res.Diagnostics, func(d string) bool { return strings.Contains(d, "I004") }) {
		t.Errorf("flymake shows %q, want the view's I004", res.Diagnostics)
	}
	if g, w := res.Grown, rlogOf(t, transcript); g != w || !strings.Contains(g, last) || res.Modified {
		t.Errorf("after the transcript grew (modified %v), the view shows:\n%s\nwant:\n%s", res.Modified, g, w)
	}
	if !strings.HasPrefix(res.Refused, "rlog: rollout.jsonl cannot be opened as rlog: rollout.jsonl is not a session rlog-ls reads") ||
		slices.Contains(res.Buffers, "*rlog view: rollout.jsonl*") {
		t.Errorf("a file the server does not read: %q (buffers %q)", res.Refused, res.Buffers)
	}
}

// TestEmacsPackage installs rlog-mode.el as a package, with package.el and no
// archives (what package-vc-install, use-package's :vc and straight.el end in:
// the file's autoloads and byte code in the user's package folder), then
// starts a new Emacs that only initializes its packages, as after a restart,
// with the README's eglot hook: opening a log must pick rlog-mode through the
// autoloads, from the installed package, and eglot must run rlog-ls from
// exec-path and show its diagnostics.
func TestEmacsPackage(t *testing.T) {
	emacs := editor(t, "emacs", "emacs-nox")
	needEglot(t, emacs)
	bin := server(t)
	packages := t.TempDir()
	script := filepath.Join(repoRoot(), "editors", "emacs", "test", "package.el")
	phase := func(name string, res any) {
		out := filepath.Join(t.TempDir(), name+".json")
		// Not -Q: Debian's site start files put elpa-eglot on the load path.
		cmd := exec.Command(emacs, "--batch", "-l", script)
		cmd.Env = append(os.Environ(), "RLOG_PHASE="+name, "RLOG_PACKAGES="+packages, "RLOG_OUT="+out,
			"RLOG_EL="+filepath.Join(repoRoot(), "editors", "emacs", "rlog-mode.el"),
			"RLOG_FILE="+filepath.Join(repoRoot(), "testdata", "sample.rlog"),
			"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		runGuarded(t, cmd, 5*time.Minute)
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("Emacs wrote no result: %v", err)
		}
		if err := json.Unmarshal(raw, res); err != nil {
			t.Fatalf("%v\n%s", err, raw)
		}
	}
	var installed struct {
		Error     string   `json:"error"`
		Installed []string `json:"installed"`
	}
	phase("install", &installed)
	if installed.Error != "" || !slices.Contains(installed.Installed, "rlog-mode") {
		t.Fatalf("package-install-file: %+v", installed)
	}
	if m, _ := filepath.Glob(filepath.Join(packages, "rlog-mode-*", "rlog-mode-autoloads.el")); len(m) != 1 {
		t.Fatalf("no autoloads in %s: %v", packages, m)
	}
	var used struct {
		Error        string `json:"error"`
		LoadedBefore bool   `json:"loaded_before"`
		Mode         string `json:"mode"`
		From         string `json:"from"`
		Managed      bool   `json:"managed"`
		Diagnostics  []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"diagnostics"`
	}
	phase("use", &used)
	if used.Error != "" {
		t.Fatalf("Emacs: %s", used.Error)
	}
	if used.LoadedBefore || used.Mode != "rlog-mode" || !strings.HasPrefix(used.From, packages) {
		t.Errorf("loaded before opening a log: %v; mode %q from %q, want rlog-mode from %s", used.LoadedBefore, used.Mode, used.From, packages)
	}
	if !used.Managed {
		t.Fatal("eglot-ensure did not start rlog-ls")
	}
	if len(used.Diagnostics) != 1 || used.Diagnostics[0].Line != 40 || !strings.Contains(used.Diagnostics[0].Text, "W002") {
		t.Errorf("flymake shows %+v, want W002 on line 40", used.Diagnostics)
	}
}

// helixLanguageKeys and helixServerKeys are the keys Helix reads in a
// [[language]] entry and a [language-server.NAME] table, as its book
// (languages.md) and its LanguageConfiguration type document them in Helix
// 25.07. Helix refuses a [[language]] with any other key (serde's
// deny_unknown_fields), and then ignores the whole user languages.toml.
var (
	helixLanguageKeys = []string{"name", "language-id", "scope", "injection-regex", "file-types", "shebangs", "roots",
		"auto-format", "diagnostic-severity", "comment-tokens", "comment-token", "block-comment-tokens", "indent",
		"language-servers", "grammar", "formatter", "soft-wrap", "text-width", "rulers", "path-completion",
		"word-completion", "workspace-lsp-roots", "persistent-diagnostic-sources", "rainbow-brackets",
		"code-actions-on-save", "debugger", "auto-pairs"}
	helixServerKeys = []string{"command", "args", "config", "timeout", "environment", "required-root-patterns"}
	helixIndentKeys = []string{"tab-width", "unit"}
)

// helixConfig parses editors/helix/languages.toml with Python's tomllib
// (Python 3.11 and later; Go's standard library has no TOML reader).
func helixConfig(t *testing.T) map[string]any {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: it parses languages.toml")
	}
	script := `import json, sys, tomllib
with open(sys.argv[1], "rb") as f:
    print(json.dumps(tomllib.load(f)))`
	cmd := exec.Command(py, "-c", script, filepath.Join(repoRoot(), "editors", "helix", "languages.toml"))
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && strings.Contains(string(ee.Stderr), "No module named 'tomllib'") {
			t.Skip("python3 has no tomllib (3.11 and later)")
		}
		t.Fatalf("languages.toml does not parse: %v\n%s", err, out)
	}
	var cfg map[string]any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// unknownKeys returns the keys of m that are not in known.
func unknownKeys(m map[string]any, known []string) []string {
	var bad []string
	for k := range m {
		if !slices.Contains(known, k) {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

// TestHelixLanguagesToml checks editors/helix/languages.toml against what
// Helix reads (Helix is not packaged in Debian, so TestHelixHealth cannot
// run here): only keys Helix knows, the required ones there, and values of
// the types Helix takes; the language, its file type, comment token and
// server; the server command and its settings under config.rlog.
func TestHelixLanguagesToml(t *testing.T) {
	cfg := helixConfig(t)
	if bad := unknownKeys(cfg, []string{"language", "language-server"}); len(bad) > 0 {
		t.Errorf("top-level keys Helix does not read: %v", bad)
	}
	servers, _ := cfg["language-server"].(map[string]any)
	ls, ok := servers["rlog-ls"].(map[string]any)
	if !ok {
		t.Fatalf("no [language-server.rlog-ls]: %v", cfg["language-server"])
	}
	if bad := unknownKeys(ls, helixServerKeys); len(bad) > 0 {
		t.Errorf("[language-server.rlog-ls]: keys Helix does not read: %v", bad)
	}
	if args, _ := ls["args"].([]any); ls["command"] != "rlog-ls" || len(args) != 1 || args[0] != "serve" {
		t.Errorf("[language-server.rlog-ls] runs %v %v, want rlog-ls serve", ls["command"], ls["args"])
	}
	conf, _ := ls["config"].(map[string]any)
	if _, ok := conf["rlog"].(map[string]any); !ok {
		t.Errorf("the server's settings must sit under config.rlog: %v", ls["config"])
	}

	langs, _ := cfg["language"].([]any)
	if len(langs) != 1 {
		t.Fatalf("%d [[language]] entries, want 1", len(langs))
	}
	l, _ := langs[0].(map[string]any)
	if bad := unknownKeys(l, helixLanguageKeys); len(bad) > 0 {
		t.Errorf("[[language]]: keys Helix does not read (it would refuse the file): %v", bad)
	}
	for _, k := range []string{"name", "scope", "file-types"} {
		if _, ok := l[k]; !ok {
			t.Errorf("[[language]]: %s is required", k)
		}
	}
	fileTypes, _ := l["file-types"].([]any)
	servers2, _ := l["language-servers"].([]any)
	roots, _ := l["roots"].([]any)
	if l["name"] != "rlog" || l["scope"] != "source.rlog" || len(fileTypes) != 1 || fileTypes[0] != "rlog" ||
		l["comment-token"] != "#" || len(servers2) != 1 || servers2[0] != "rlog-ls" || len(roots) == 0 {
		t.Errorf("[[language]] = %v", l)
	}
	if ind, ok := l["indent"].(map[string]any); ok {
		if bad := unknownKeys(ind, helixIndentKeys); len(bad) > 0 {
			t.Errorf("[[language]] indent: keys Helix does not read: %v", bad)
		}
		if _, ok := ind["tab-width"].(float64); !ok {
			t.Errorf("indent.tab-width must be a number: %v", ind["tab-width"])
		}
	}
	if _, ok := l["auto-format"].(bool); !ok && l["auto-format"] != nil {
		t.Errorf("auto-format must be a boolean: %v", l["auto-format"])
	}
}

// TestHelixHealth runs Helix's own check of the configuration, `hx --health
// rlog`, with editors/helix/languages.toml as the user's languages.toml and
// rlog-ls on PATH: Helix must read the file and find the server. Helix is
// not packaged in Debian 12 nor on the package registries the test machines
// reach, so here it skips, also under RLOG_REQUIRE_EDITORS=1.
func TestHelixHealth(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: hx is not run")
	}
	hx, err := exec.LookPath("hx")
	if err != nil {
		t.Skip("hx (Helix) is not installed: not packaged in Debian 12 nor on npm; TestHelixLanguagesToml checks the file's keys instead")
	}
	bin := server(t)
	config := t.TempDir()
	src, err := os.ReadFile(filepath.Join(repoRoot(), "editors", "helix", "languages.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(config, "helix"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "helix", "languages.toml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hx, "--health", "rlog")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+config, "HOME="+t.TempDir(), "NO_COLOR=1",
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := string(runGuarded(t, cmd, time.Minute))
	if strings.Contains(out, "Error parsing user language config") || strings.Contains(out, "Language 'rlog' not found") {
		t.Fatalf("Helix does not read languages.toml:\n%s", out)
	}
	if !strings.Contains(out, "rlog-ls: ") || !strings.Contains(out, bin) {
		t.Errorf("Helix does not find rlog-ls (%s):\n%s", bin, out)
	}
}

// TestNeovimLSPConfig calls lsp/rlog_ls.lua's root_dir as Neovim 0.11's
// vim.lsp.enable does (Debian's Neovim is 0.7, which has no vim.lsp.enable,
// so the test calls it itself): the server starts for a log, for its
// companions and for the view of a session file (:RlogView), at the folder
// holding .git, and not for other JSON files.
func TestNeovimLSPConfig(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "logs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"222000-fix-locked-login.rlog":               "companions/sdk/222000-fix-locked-login.rlog",
		"222000-fix-locked-login.jsonl":              "companions/sdk/222000-fix-locked-login.jsonl",
		"222000-fix-locked-login.sub-DZYW3CfJ.jsonl": "companions/sdk/222000-fix-locked-login.sub-DZYW3CfJ.jsonl",
		"package.json":                               "",
		"other.jsonl":                                "",
	}
	var args []string
	for name, from := range files {
		content := []byte("{}\n")
		if from != "" {
			var err error
			if content, err = os.ReadFile(filepath.Join(repoRoot(), "testdata", from)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, filepath.Join(dir, name))
	}
	out := filepath.Join(t.TempDir(), "result.json")
	nvimDir := filepath.Join(repoRoot(), "editors", "neovim")
	cmd := exec.Command(nvim, append([]string{"--headless", "-n", "-i", "NONE", "-u", "NONE",
		"--cmd", "set runtimepath^=" + nvimDir, "--cmd", "filetype on",
		"-c", "luafile " + filepath.Join(nvimDir, "test", "lsp_config.lua")}, args...)...)
	view := "rlog-view://" + filepath.Join(dir, "3f1c9a2e.jsonl") + ".rlog"
	cmd.Env = append(os.Environ(), "RLOG_OUT="+out, "RLOG_VIEW="+view)
	runGuarded(t, cmd, 5*time.Minute)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("Neovim wrote no result: %v", err)
	}
	var roots map[string]string
	if err := json.Unmarshal(raw, &roots); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	for name, from := range files {
		want := ""
		if from != "" {
			want = root
		}
		if got := roots[filepath.Join(dir, name)]; got != want {
			t.Errorf("%s: root %q, want %q", name, got, want)
		}
	}
	if got := roots[view]; got != root {
		t.Errorf("the view %s: root %q, want %q", view, got, root)
	}
}
