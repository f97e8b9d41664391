package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const cleanHeader = "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n"

func TestCheckTextOutputAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	ok := writeFile(t, dir, "ok.rlog", cleanHeader+"u: hi\n")
	warn := writeFile(t, dir, "warn.rlog", cleanHeader+"o: 😀 id=nope → [ok]\n")
	bad := writeFile(t, dir, "bad.rlog", "u: no header\n")

	out, _, code := runCLI(t, "check", ok)
	if code != 0 || out != "1 file checked: 0 errors, 0 warnings, 0 info, 0 hints\n" {
		t.Fatalf("clean: %d %q", code, out)
	}
	out, _, code = runCLI(t, "check", warn)
	want := warn + ":7:9: warning W002: Observation references unknown call id: nope\n"
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("warning only must exit 0 with FILE:LINE:COL (characters): %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "check", bad, ok)
	if code != 1 || !strings.Contains(out, bad+":1:1: error E001: Missing header start '---'") ||
		!strings.HasSuffix(out, "2 files checked: 1 error, 0 warnings, 0 info, 0 hints\n") {
		t.Fatalf("error must exit 1: %d\n%s", code, out)
	}
}

func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.rlog", cleanHeader+"o: é id=nope → [ok]\nwat\n")
	out, _, code := runCLI(t, "check", "--format", "json", p)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got) != 2 {
		t.Fatalf("%s", out)
	}
	first := got[0]
	wantKeys := []string{"file", "line", "column", "end_line", "end_column", "severity", "code", "message"}
	if len(first) != len(wantKeys) {
		t.Fatalf("keys %v", first)
	}
	for _, k := range wantKeys {
		if _, ok := first[k]; !ok {
			t.Fatalf("missing key %s in %v", k, first)
		}
	}
	if first["line"] != 7.0 || first["column"] != 9.0 || first["end_line"] != 7.0 || first["end_column"] != 13.0 || first["severity"] != "warning" {
		t.Fatalf("position %v", first)
	}
	out, _, _ = runCLI(t, "check", "--format", "json", writeFile(t, dir, "b.rlog", cleanHeader))
	if strings.TrimSpace(out) != "[]" {
		t.Fatalf("no findings must be [], got %q", out)
	}
}

func TestCheckFiltersAndUsageErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.rlog", "---\nformat: rlog/1\nid: s\nrepo_sha: abc\n---\nwat\n")
	out, _, _ := runCLI(t, "check", "--min-severity", "warning", p)
	if strings.Contains(out, "I004") || !strings.Contains(out, "W009") || !strings.Contains(out, "W003") {
		t.Fatalf("min-severity: %s", out)
	}
	out, _, _ = runCLI(t, "check", "--disable", "W003,i004", p)
	if strings.Contains(out, "W003") || strings.Contains(out, "I004") || !strings.Contains(out, "W009") {
		t.Fatalf("disable: %s", out)
	}
	for _, args := range [][]string{
		{"check", "--disable", "Z999", p},
		{"check", "--format", "xml", p},
		{"check", "--min-severity", "loud", p},
		{"check"},
		{"nonsense"},
	} {
		if _, errOut, code := runCLI(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	_, errOut, code := runCLI(t, "check", filepath.Join(dir, "missing.rlog"))
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "missing.rlog: no such file or folder") {
		t.Fatalf("missing file: %d %q", code, errOut)
	}
}

func TestCheckFoldersRecursively(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/one.rlog", cleanHeader)
	writeFile(t, dir, "a/b/two.RLOG", cleanHeader)
	writeFile(t, dir, "a/notes.txt", "not a log")
	for i := range 40 {
		writeFile(t, dir, filepath.Join("many", string(rune('a'+i%26))+".rlog"), cleanHeader+"wat\n")
	}
	out, _, code := runCLI(t, "check", filepath.Join(dir, "a"))
	if code != 0 || !strings.HasSuffix(out, "2 files checked: 0 errors, 0 warnings, 0 info, 0 hints\n") {
		t.Fatalf("%d %s", code, out)
	}
	out, _, _ = runCLI(t, "check", filepath.Join(dir, "many"))
	if !strings.HasSuffix(out, "26 files checked: 0 errors, 26 warnings, 0 info, 0 hints\n") {
		t.Fatalf("%s", out)
	}
}

func TestCheckSampleAndCorpus(t *testing.T) {
	out, _, code := runCLI(t, "check", "../../testdata/sample.rlog")
	if code != 0 || !strings.Contains(out, "W002") {
		t.Fatalf("the README's sample: %d %s", code, out)
	}
	out, _, code = runCLI(t, "check", corpus.Path(t, "rlog"))
	if code != 1 || !strings.Contains(out, "13 files checked") {
		t.Fatalf("corpus: %d %s", code, out)
	}
}
