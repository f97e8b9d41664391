package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// nvimResult is what testdata/nvim_client.lua reports.
type nvimResult struct {
	Errors      []string `json:"errors"`
	ServerExit  *int     `json:"server_exit"`
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
	runGuarded(t, cmd, 3*time.Minute)
	var res nvimResult
	readResult(t, out, "the Neovim script", &res)
	if len(res.Errors) > 0 {
		t.Fatalf("Neovim reported: %v", res.Errors)
	}
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
