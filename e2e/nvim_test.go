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
)

// nvimResult is what testdata/nvim_client.lua reports.
type nvimResult struct {
	ServerExit  *int `json:"server_exit"`
	Diagnostics []struct {
		Lnum, Col, EndLnum, EndCol int
		Severity                   int
		Code                       string
		Message, Source            string
	} `json:"diagnostics"`
	Hover      map[string]json.RawMessage `json:"hover"`
	Definition map[string]json.RawMessage `json:"definition"`
	Completion map[string]json.RawMessage `json:"completion"`
	Symbols    json.RawMessage            `json:"symbols"`
	Folding    json.RawMessage            `json:"folding"`
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func runNvim(t *testing.T, file string, probes map[string]position) nvimResult {
	t.Helper()
	nvim := editor(t, "nvim", "neovim")
	out := filepath.Join(t.TempDir(), "result.json")
	probeJSON, _ := json.Marshal(probes)
	script, _ := filepath.Abs("testdata/nvim_client.lua")
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_FILE="+file, "RLOG_PROBES="+string(probeJSON), "RLOG_OUT="+out)
	runGuarded(t, cmd, 5*time.Minute)
	var res nvimResult
	readResult(t, out, "the Neovim script", &res)
	if res.ServerExit == nil || *res.ServerExit != 0 {
		t.Fatalf("the server did not exit cleanly after shutdown: %v", res.ServerExit)
	}
	return res
}

// lineOf returns the 0-based line of the first line containing s, and the
// byte column where s starts.
func lineOf(t *testing.T, text, s string) (int, int) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if c := strings.Index(l, s); c >= 0 {
			return i, c
		}
	}
	t.Fatalf("%q not in file", s)
	return 0, 0
}

func TestNeovimOnSample(t *testing.T) {
	file := copyFile(t, "../testdata/sample.rlog", t.TempDir())
	src, _ := os.ReadFile(file)
	text := string(src)
	useLine, useCol := lineOf(t, text, "o: id=v678oiff")
	defLine, _ := lineOf(t, text, "t!:Read id=v678oiff")
	res := runNvim(t, file, map[string]position{
		"observation": {useLine, useCol + 8},
		"header":      {3, 2},
	})

	// The same finding as `rlog-ls check`, where the check says it is.
	if len(res.Diagnostics) != 1 {
		t.Fatalf("diagnostics %+v", res.Diagnostics)
	}
	d := res.Diagnostics[0]
	want := checkJSON(t, file)[0]
	if d.Code != "W002" || d.Code != want["code"] || d.Message != want["message"] || d.Lnum+1 != int(want["line"].(float64)) ||
		d.Col+1 != int(want["column"].(float64)) || d.Severity != 2 || d.Source != "rlog-ls" {
		t.Fatalf("Neovim shows %+v, check says %v", d, want)
	}

	// Hover on an id says where the call is.
	var hover struct {
		Contents struct{ Kind, Value string }
	}
	_ = json.Unmarshal(res.Hover["observation"], &hover)
	if hover.Contents.Kind != "markdown" || !strings.Contains(hover.Contents.Value, fmt.Sprintf("started on line %d", defLine+1)) {
		t.Fatalf("hover %s", res.Hover["observation"])
	}
	_ = json.Unmarshal(res.Hover["header"], &hover)
	if !strings.Contains(hover.Contents.Value, "The commit the session ran on") {
		t.Fatalf("header hover %s", res.Hover["header"])
	}

	// Go to definition from o: lands on its t!: line.
	var locs []struct {
		URI   string
		Range struct{ Start position }
	}
	_ = json.Unmarshal(res.Definition["observation"], &locs)
	if len(locs) != 1 || locs[0].Range.Start.Line != defLine || !strings.HasSuffix(locs[0].URI, "/sample.rlog") {
		t.Fatalf("definition %s", res.Definition["observation"])
	}

	// Completion inside the o: line's id offers the call started above, to
	// replace the whole id (the position is two characters into it).
	var list struct {
		Items []struct {
			Label    string
			Detail   string
			TextEdit struct{ Range struct{ Start, End position } }
		}
	}
	_ = json.Unmarshal(res.Completion["observation"], &list)
	if len(list.Items) != 1 || list.Items[0].Label != "v678oiff" ||
		list.Items[0].Detail != fmt.Sprintf("t!:Read src/discount/validate.ts, line %d, no result yet", defLine+1) ||
		list.Items[0].TextEdit.Range.Start != (position{useLine, useCol + 6}) || list.Items[0].TextEdit.Range.End != (position{useLine, useCol + 14}) {
		t.Fatalf("completion %s", res.Completion["observation"])
	}

	// The outline lists the phases.
	var syms []struct {
		Name     string
		Children []struct{ Name, Detail string }
	}
	if err := json.Unmarshal(res.Symbols, &syms); err != nil || len(syms) != 1 {
		t.Fatalf("symbols %s", res.Symbols)
	}
	var phases []string
	for _, c := range syms[0].Children {
		if c.Detail == "phase" {
			phases = append(phases, c.Name)
		}
	}
	if strings.Join(phases, ",") != "explore,fix" {
		t.Fatalf("phases %v in %s", phases, res.Symbols)
	}
	var folds []map[string]any
	if err := json.Unmarshal(res.Folding, &folds); err != nil || len(folds) < 4 {
		t.Fatalf("folding %s", res.Folding)
	}
}

// TestNeovimOnRealisticLog opens a log modelled on a real autopilot session
// (a subagent cut short, calls never completed) and checks that Neovim
// shows the same findings as `rlog-ls check`, line for line.
func TestNeovimOnRealisticLog(t *testing.T) {
	file := copyFile(t, filepath.Join(repoRoot(), "testdata", "logs", "subagent-unfinished.rlog"), t.TempDir())
	res := runNvim(t, file, map[string]position{})
	var got, want []string
	for _, d := range res.Diagnostics {
		got = append(got, fmt.Sprintf("%d %s %s", d.Lnum+1, d.Code, d.Message))
	}
	for _, f := range checkJSON(t, file) {
		want = append(want, fmt.Sprintf("%v %v %v", f["line"], f["code"], f["message"]))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) < 3 {
		t.Fatalf("Neovim shows:\n%s\ncheck reports:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNeovimCompanion: in Neovim with the plugin, a log beside its
// companion shows the whole output of a line the log cut short in the
// hover; Go to Definition jumps into the companion, onto the line of the
// record, and from the companion back to the log's line; :RlogFullRecord
// opens the whole output in a read-only buffer.
func TestNeovimCompanion(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	dir := t.TempDir()
	src := filepath.Join(repoRoot(), "testdata", "companions", "sdk")
	var log string
	for _, name := range []string{"222000-fix-locked-login.rlog", "222000-fix-locked-login.jsonl", "222000-fix-locked-login.sub-DZYW3CfJ.jsonl"} {
		p := copyFile(t, filepath.Join(src, name), dir)
		if strings.HasSuffix(p, ".rlog") {
			log = p
		}
	}
	text, _ := os.ReadFile(log)
	line, col := lineOf(t, string(text), "o: id=v678oiff → [ok]")
	out := filepath.Join(t.TempDir(), "companion.json")
	cmd := neovimCmd(nvim, filepath.Join(repoRoot(), "e2e", "testdata", "nvim_companion.lua"))
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_FILE="+log, "RLOG_OUT="+out,
		fmt.Sprintf("RLOG_LINE=%d", line), fmt.Sprintf("RLOG_COL=%d", col+30))
	runGuarded(t, cmd, 5*time.Minute)
	type place struct {
		File      string `json:"file"`
		Line, Col int
	}
	var res struct {
		Hover             string `json:"hover"`
		Jump, Back        place
		CompanionAttached bool `json:"companion_attached"`
		Record            struct {
			Name                 string   `json:"name"`
			Lines                []string `json:"lines"`
			Readonly, Modifiable bool
			Buftype              string `json:"buftype"`
		} `json:"record"`
		Calls []struct {
			File      string `json:"file"`
			Line, Col int
			Text      string `json:"text"`
		} `json:"calls"`
	}
	readResult(t, out, "Neovim", &res)
	if !strings.Contains(res.Hover, "**Output of Read** in full") || !strings.Contains(res.Hover, "    10→    // BUG: the session is created before the lockout check.") {
		t.Errorf("hover:\n%s", res.Hover)
	}
	// The record of the Read result is on line 4 of the companion.
	if !strings.HasSuffix(res.Jump.File, "/222000-fix-locked-login.jsonl") || res.Jump.Line != 3 || res.Jump.Col == 0 {
		t.Errorf("Go to Definition went to %+v, want line 4 of the companion", res.Jump)
	}
	if !res.CompanionAttached {
		t.Error("the plugin did not attach rlog-ls to the companion")
	}
	if res.Back.File != log || res.Back.Line != line {
		t.Errorf("back from the companion: %+v, want line %d of %s", res.Back, line+1, log)
	}
	r := res.Record
	if !strings.Contains(r.Name, "rlog record: line 19, Output of Read") || len(r.Lines) != 24 || r.Lines[23] != "    24→}" ||
		!r.Readonly || r.Modifiable || r.Buftype != "nofile" {
		t.Errorf("record buffer %q (readonly %v, modifiable %v, %q): %q", r.Name, r.Readonly, r.Modifiable, r.Buftype, r.Lines)
	}
	// The sub-agent tree: the sub-agent with its own file, called from its
	// two x: lines. Neovim 0.7 names the sub-agent's file for each entry,
	// at the log's line (docs/editors.md); later versions the log.
	var want []int
	for n, l := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(l, "x:Explore id=DZYW3CfJ") {
			want = append(want, n+1)
		}
	}
	var got []int
	for _, c := range res.Calls {
		if c.Text != "Explore" || c.Col != 1 || c.File != log && !strings.HasSuffix(c.File, "/222000-fix-locked-login.sub-DZYW3CfJ.jsonl") {
			t.Errorf("outgoing call %+v", c)
		}
		got = append(got, c.Line)
	}
	if len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("outgoing calls at lines %v, want the x: lines %v", got, want)
	}
}

// recordedTranscript copies a recorded Claude Code scenario's projects
// folder (the transcript and its subagents/) into a new folder, with the
// transcript cut after its first keep lines; it returns the transcript's
// path and a file holding the lines cut.
func recordedTranscript(t *testing.T, scenario string, keep int) (transcript, rest string) {
	t.Helper()
	projects, _ := filepath.Glob(filepath.Join(repoRoot(), "testdata", "agents", "claude-code", "2.1.328", scenario, "claude", "projects", "*"))
	if len(projects) != 1 {
		t.Fatalf("the recorded %s scenario: %v", scenario, projects)
	}
	dir := filepath.Join(t.TempDir(), "projects", filepath.Base(projects[0]))
	if err := os.CopyFS(dir, os.DirFS(projects[0])); err != nil {
		t.Fatal(err)
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(m) != 1 {
		t.Fatalf("transcripts: %v", m)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	rest = filepath.Join(t.TempDir(), "rest.jsonl")
	if err := os.WriteFile(m[0], []byte(strings.Join(lines[:keep], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rest, []byte(strings.Join(lines[keep:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return m[0], rest
}

// rlogOf is what `rlog-ls convert --to rlog` writes of a file: what its
// view shows.
func rlogOf(t *testing.T, file string) string {
	t.Helper()
	out, err := exec.Command(server(t), "convert", "--to", "rlog", "-o", "-", file).Output()
	if err != nil {
		t.Fatalf("convert %s: %v", file, err)
	}
	return string(out)
}

// TestNeovimView: :RlogView on a real Claude Code transcript (recorded from
// Claude Code 2.1.328) opens it as a read-only rlog buffer holding what
// `rlog-ls convert --to rlog` writes of it; the hover on a line the view cut
// short shows the whole record, Go to Definition lands on it in the
// transcript, and when Claude Code writes the rest of the session the buffer
// follows, to the conversion of the whole file.
func TestNeovimView(t *testing.T) {
	nvim := editor(t, "nvim", "neovim")
	transcript, rest := recordedTranscript(t, "subagent", 26)
	want := rlogOf(t, transcript)
	line, col := lineOf(t, want, "o: id=toolu_sub_agent → [ok] Async agent launched")
	last := "a: This folder is at version 1.4.2."
	out := filepath.Join(t.TempDir(), "view.json")
	cmd := neovimCmd(nvim, filepath.Join(repoRoot(), "e2e", "testdata", "nvim_view.lua"))
	sub := filepath.Join(strings.TrimSuffix(transcript, ".jsonl"), "subagents", "agent-ad1d58fb8290d2b47.jsonl")
	cmd.Env = append(os.Environ(), "RLOG_LS="+server(t), "RLOG_FILE="+transcript, "RLOG_REST="+rest, "RLOG_OUT="+out, "RLOG_LAST="+last, "RLOG_SUB="+sub,
		fmt.Sprintf("RLOG_LINE=%d", line), fmt.Sprintf("RLOG_COL=%d", col+40))
	runGuarded(t, cmd, 5*time.Minute)
	var res struct {
		View struct {
			Name                 string   `json:"name"`
			Current              bool     `json:"current"`
			Lines                []string `json:"lines"`
			Filetype, Buftype    string
			Modifiable, Readonly bool
		} `json:"view"`
		Hover      string `json:"hover"`
		HoverAfter string `json:"hover_after"`
		Jump       struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"jump"`
		Grown           []string `json:"grown"`
		Modified        bool     `json:"modified"`
		ModifiableAfter bool     `json:"modifiable_after"`
		Sub             struct {
			Name                 string   `json:"name"`
			Lines                []string `json:"lines"`
			Filetype             string   `json:"filetype"`
			Modifiable, Readonly bool
		} `json:"sub"`
		Callers []struct {
			File string `json:"file"`
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"callers"`
		Caller struct {
			File          string `json:"file"`
			Line          int    `json:"line"`
			CurrentIsView bool   `json:"current_is_view"`
		} `json:"caller"`
	}
	readResult(t, out, "Neovim", &res)
	v := res.View
	if v.Name != "rlog-view://"+transcript+".rlog" || !v.Current || v.Filetype != "rlog" || v.Buftype != "nofile" || v.Modifiable || !v.Readonly {
		t.Errorf("view buffer %q (current %v, filetype %q, buftype %q, modifiable %v, readonly %v)", v.Name, v.Current, v.Filetype, v.Buftype, v.Modifiable, v.Readonly)
	}
	if got := strings.Join(v.Lines, "\n") + "\n"; got != want {
		t.Errorf("the view shows:\n%s\nwant the conversion:\n%s", got, want)
	}
	for _, h := range []string{res.Hover, res.HoverAfter} {
		if !strings.Contains(h, "in full, from `"+filepath.Base(transcript)+"` line ") || !strings.Contains(h, "agentId: ad1d58fb8290d2b47") {
			t.Errorf("hover on the cut-short output:\n%s", h)
		}
	}
	b, _ := os.ReadFile(transcript)
	record := slices.IndexFunc(strings.Split(string(b), "\n"), func(l string) bool { return strings.Contains(l, `"tool_use_id":"toolu_sub_agent"`) })
	if res.Jump.File != transcript || res.Jump.Line != record {
		t.Errorf("Go to Definition went to %+v, want line %d of %s", res.Jump, record+1, transcript)
	}
	if got, want := strings.Join(res.Grown, "\n")+"\n", rlogOf(t, transcript); got != want || !strings.Contains(got, last) {
		t.Errorf("after the transcript grew, the view shows:\n%s\nwant:\n%s", got, want)
	}
	if res.Modified || res.ModifiableAfter {
		t.Errorf("after following, the view is modified %v, modifiable %v", res.Modified, res.ModifiableAfter)
	}
	// The sub-agent tree: the sub-agent's view, made when its URI is
	// opened, and the session that started it at its x: lines.
	s := res.Sub
	if got, want := strings.Join(s.Lines, "\n")+"\n", rlogOf(t, sub); s.Name != "rlog-view://"+sub+".rlog" || got != want || s.Filetype != "rlog" || s.Modifiable || !s.Readonly {
		t.Errorf("the sub-agent's view %q (filetype %q, modifiable %v, readonly %v):\n%s\nwant:\n%s", s.Name, s.Filetype, s.Modifiable, s.Readonly, got, want)
	}
	var xLines []int
	for n, l := range res.Grown {
		if strings.HasPrefix(l, "x:") && strings.Contains(l, "tid=ad1d58fb8290d2b47") {
			xLines = append(xLines, n+1)
		}
	}
	var got []int
	for _, c := range res.Callers {
		if c.File != v.Name || c.Text != filepath.Base(transcript) {
			t.Errorf("incoming call %+v, want from %s", c, v.Name)
		}
		got = append(got, c.Line)
	}
	if len(xLines) == 0 || !slices.Equal(got, xLines) {
		t.Errorf("incoming calls at lines %v, want the session's x: lines %v", got, xLines)
	}
	if !res.Caller.CurrentIsView || len(xLines) == 0 || res.Caller.Line != xLines[0] {
		t.Errorf(":cfirst went to %+v, want line %d of the session's view", res.Caller, xLines[0])
	}
}
