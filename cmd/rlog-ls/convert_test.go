package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

const sampleRlog = cleanHeader + "@start id=s ts=2025-12-24T00:11:56Z\n" +
	"u: list the files\n" +
	"a: Looking. tokens_in=3 tokens_out=9\n" +
	"t!:Glob id=g1 pattern=\"**/*.go\" → [running]\n" +
	"o: id=g1 → [ok] main.go\n" +
	"@end tokens_in=3 tokens_out=9\n"

func TestConvertDefaultOutputAndNoOverwrite(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	_, stderr, code := runCLI(t, "convert", "--to", "atif", in)
	out := filepath.Join(dir, "s.atif.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if fs, _ := convert.ValidateAll(convert.ATIF, bytes.NewReader(data)); len(fs) > 0 {
		t.Errorf("invalid ATIF: %v", fs)
	}
	if !strings.Contains(stderr, "wrote "+out) || !strings.Contains(stderr, "rlog -> atif:") {
		t.Errorf("stderr: %s", stderr)
	}
	// Never overwritten without --force: exit 2, one line, file unchanged.
	checkForceReplaces(t, in, out, func(b []byte) bool { return string(b) == string(data) }, "convert", "--to", "atif")
}

func TestConvertStdoutFlagsAfterInputAndJSONReport(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	stdout, stderr, code := runCLI(t, "convert", in, "--to", "replay", "-o", "-", "--report", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, `{"created_at":`) || !strings.Contains(stdout, `"event":"ToolCall"`) {
		t.Errorf("stdout: %.300s", stdout)
	}
	var rep struct {
		From, To string
		Losses   []struct {
			Kind string `json:"kind"`
		} `json:"losses"`
	}
	if err := json.Unmarshal([]byte(stderr), &rep); err != nil || rep.From != "rlog" || rep.To != "replay" {
		t.Fatalf("report is not the JSON report: %v\n%s", err, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("-o - wrote a file: %v", entries)
	}
}

func TestConvertClaudeToRlogWithRepoSHA(t *testing.T) {
	src := "../../testdata/claude/units-session.jsonl"
	out := filepath.Join(t.TempDir(), "x.rlog")
	_, stderr, code := runCLI(t, "convert", "--to", "rlog", "--repo-sha", "abc1234", src, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), "\nrepo_sha: abc1234\n") || !strings.Contains(string(data), "\no: id=toolu_") {
		t.Errorf("output:\n%.600s", data)
	}
	for _, f := range analysis.Check(grammar.Parse(data), analysis.Config{}) {
		if f.Code != "I004" {
			t.Errorf("finding %s %s", f.Code, f.Message)
		}
	}
	// The output checks clean through the CLI too (I004 aside).
	stdout, _, code := runCLI(t, "check", "--disable", "I004", out)
	if code != 0 || !strings.HasSuffix(stdout, "0 errors, 0 warnings, 0 info, 0 hints\n") {
		t.Errorf("check: %d %s", code, stdout)
	}
}

func TestConvertUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	junk := writeFile(t, dir, "junk.txt", "plain words\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", in}, "--to is required"},
		{[]string{"convert", "--to", "atif"}, "no input file"},
		{[]string{"convert", "--to", "sdk-jsonl", in}, `cannot write "sdk-jsonl"`},
		{[]string{"convert", "--to", "atif", "--from", "nope", in}, `cannot read "nope"`},
		{[]string{"convert", "--to", "atif", filepath.Join(dir, "missing.rlog")}, "missing.rlog: no such file or folder"},
		{[]string{"convert", "--to", "atif", junk}, "cannot detect the input format"},
		{[]string{"convert", "--to", "atif", "--atif-version", "1.3", in}, "--atif-version"},
		{[]string{"convert", "--to", "replay", "--atif-version", "1.6", in}, "applies to --to atif"},
		{[]string{"convert", "--to", "rlog", "--repo-sha", "unknown", in}, "--repo-sha must be"},
		{[]string{"convert", "--to", "atif", "--report", "xml", in}, "--report must be"},
		{[]string{"convert", "--to", "atif", in, in}, "one input file at a time"},
		{[]string{"convert", "--to", "atif", dir}, "is a folder"},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q (want one line with %q)", c.args[1:], code, stderr, c.want)
		}
	}
}

func TestDefaultOutputNames(t *testing.T) {
	for _, c := range []struct{ in, to, want string }{
		{"d/a.rlog", "atif", "d/a.atif.json"},
		{"d/a.rlog", "replay", "d/a.replay.jsonl"},
		{"d/s.atif.jsonl", "rlog", "d/s.converted.rlog"},
		{"d/s.jsonl", "claude", "d/s.claude.jsonl"},
		{"d/s.claude.jsonl", "claude", "d/s.converted.claude.jsonl"},
		{"d/a.rlog", "rlog", "d/a.converted.rlog"},
		{"d/a.atif.json", "atif-jsonl", "d/a.atif.jsonl"},
		{"d/a.prophet.json", "prophet", "d/a.converted.prophet.json"},
		// The autopilot writes 1609-x.rlog beside 1609-x.json (its
		// lossless original) and 143545-x.rlog beside 143545-x.jsonl:
		// converting one never targets the other.
		{"logs/1609-x.rlog", "trajectory", "logs/1609-x.autopilot.json"},
		{"logs/1609-x.json", "rlog", "logs/1609-x.converted.rlog"},
		{"logs/143545-x.rlog", "claude", "logs/143545-x.claude.jsonl"},
		{"logs/143545-x.jsonl", "rlog", "logs/143545-x.converted.rlog"},
	} {
		if got := convert.OutputPath(filepath.FromSlash(c.in), convert.Format(c.to)); got != filepath.FromSlash(c.want) {
			t.Errorf("%s -> %s: %s, want %s", c.in, c.to, got, c.want)
		}
	}
}

// check validates ATIF and REPLAY files named explicitly; folders are
// still searched for *.rlog only.
func TestCheckValidatesATIFAndReplay(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", sampleRlog)
	for _, to := range []string{"atif", "atif-jsonl", "replay"} {
		if _, stderr, code := runCLI(t, "convert", "--to", to, in); code != 0 {
			t.Fatalf("%s: %s", to, stderr)
		}
	}
	good := []string{filepath.Join(dir, "s.atif.json"), filepath.Join(dir, "s.atif.jsonl"), filepath.Join(dir, "s.replay.jsonl")}
	out, _, code := runCLI(t, append([]string{"check"}, good...)...)
	if code != 0 || out != "3 files checked: 0 errors, 0 warnings, 0 info, 0 hints\n" {
		t.Fatalf("valid files: %d %s", code, out)
	}
	// Indented ATIF, named .rlog even: the content decides, and each
	// finding is at its own line and column.
	badATIF := writeFile(t, dir, "bad.rlog", "{\n  \"schema_version\": \"ATIF-v1.5\",\n  \"session_id\": \"s\",\n  \"agent\": {\"name\": \"a\", \"version\": \"1\"},\n  \"steps\": [\n    {\"step_id\": 2, \"source\": \"user\", \"message\": \"hi\"}\n  ]\n}\n")
	badReplay := writeFile(t, dir, "REPLAY.jsonl", `{"event":"SessionStart","policy_bundle_id":"p","session_id":"s","t":"x"}`+"\n")
	out, _, code = runCLI(t, "check", badATIF, badReplay)
	if code != 1 ||
		!strings.Contains(out, badATIF+":6:6: error ATIF007: trajectory.steps.0.step_id: expected 1 (sequential from 1), got 2") ||
		!strings.Contains(out, badReplay+":1:2: error REPLAY004: $.event: the first line must be ReplayHeader, got SessionStart") {
		t.Fatalf("invalid files: %d\n%s", code, out)
	}
	// --disable takes a validator's codes, one or all of them.
	for _, off := range []string{"ATIF007,REPLAY004", "atif,replay"} {
		out, stderr, code := runCLI(t, "check", "--disable", off, badATIF, badReplay)
		if code != 0 || !strings.HasPrefix(out, "2 files checked: 0 errors") {
			t.Errorf("--disable %s: %d %s %s", off, code, out, stderr)
		}
	}
	// Broken JSON: where it breaks.
	broken := writeFile(t, dir, "broken.json", "{\"schema_version\": \"ATIF-v1.6\",\n \"steps\": [{\"step_id\": 1,,}]}")
	out, _, code = runCLI(t, "check", broken)
	if code != 1 || !strings.Contains(out, broken+":2:26: error ATIF001: expected object key") {
		t.Errorf("broken JSON: %d %s", code, out)
	}
	// A session of a format without a validator is checked as its rlog
	// view (the rlog its reader makes).
	for name, content := range map[string]string{
		"t.json":  `{"session_id": "s", "prompt": "p", "model": "m", "cwd": "/", "repo_sha": "", "steps": []}`,
		"c.jsonl": `{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"},"uuid":"u"}` + "\n",
	} {
		p := writeFile(t, dir, name, content)
		out, stderr, code := runCLI(t, "check", p)
		if code != 0 || !strings.HasSuffix(out, "1 file checked: 0 errors, 0 warnings, 1 info, 0 hints\n") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, stderr)
		}
	}
	// JSON of no format rlog-ls reads: one line, exit 2.
	for name, content := range map[string]string{
		"what.json":   `{"a": 1}`,
		"nojson.json": `{oops`,
	} {
		p := writeFile(t, dir, name, content)
		out, stderr, code := runCLI(t, "check", p)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, name) ||
			strings.Contains(out, "E001") || strings.Contains(out, "W003") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, stderr)
		}
	}
	out, _, _ = runCLI(t, "check", dir)
	if !strings.HasSuffix(out, "2 files checked: 1 error, 0 warnings, 0 info, 0 hints\n") {
		t.Errorf("a folder must be searched for *.rlog only: %s", out)
	}
}

// A --from that does not fit the input is refused, naming what it is.
func TestConvertWrongFrom(t *testing.T) {
	dir := t.TempDir()
	atifFile := writeFile(t, dir, "t.json", `{"schema_version":"ATIF-v1.5","session_id":"s","agent":{"name":"a","version":"1"},"steps":[{"step_id":1,"source":"user","message":"hi"}]}`)
	bundle := writeFile(t, dir, "sample-replay.json", `{"version":"1.0","id":"replay_x","created_at":"2025-12-26T12:00:00Z","metadata":{},"timeline":[],"receipts":{}}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--from", "trajectory", "--to", "rlog", "-o", "-", atifFile}, "which is atif"},
		{[]string{"convert", "--from", "replay", "--to", "rlog", "-o", "-", bundle}, "which is replay-bundle"},
	} {
		stdout, stderr, code := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args[1:], code, stdout, stderr)
		}
	}
	// The right --from, or none, converts.
	if _, stderr, code := runCLI(t, "convert", "--from", "replay-bundle", "--to", "rlog", "-o", "-", bundle); code != 0 {
		t.Errorf("--from replay-bundle: %d %s", code, stderr)
	}
}

// TestConvertCompletesFromTheCompanion: converting a log to another format,
// rlog-ls convert takes a tool's whole output from the companion beside the
// log (the log keeps its first line); the same log alone gives the line.
func TestConvertCompletesFromTheCompanion(t *testing.T) {
	const whole = `"content":"     1→use crate::session::{Session, SessionStore};\n     2→use crate::password::verify;`
	src := "../../testdata/companions/sdk/222000-fix-locked-login"
	for _, withCompanion := range []bool{true, false} {
		dir := t.TempDir()
		files := []string{".rlog"}
		if withCompanion {
			files = append(files, ".jsonl", ".sub-DZYW3CfJ.jsonl")
		}
		for _, ext := range files {
			b, err := os.ReadFile(src + ext)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "s"+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "s.claude.jsonl")
		if _, stderr, code := runCLI(t, "convert", "--to", "claude", filepath.Join(dir, "s.rlog")); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(data, []byte(strings.ReplaceAll(whole, "\n", `\n`))); got != withCompanion {
			t.Errorf("with the companion %v: the whole output is there: %v", withCompanion, got)
		}
	}
}
