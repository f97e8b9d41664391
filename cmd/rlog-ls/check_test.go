package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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

func TestCheckSampleAndFixtures(t *testing.T) {
	out, _, code := runCLI(t, "check", "../../testdata/sample.rlog")
	if code != 0 || !strings.Contains(out, "W002") {
		t.Fatalf("the README's sample: %d %s", code, out)
	}
	// The fixture logs: one has errors (E004), so the status is 1; their
	// findings are analysis/testdata/findings.
	out, _, code = runCLI(t, "check", "../../testdata/logs")
	if code != 1 || !strings.HasSuffix(out, "8 files checked: 3 errors, 12 warnings, 10 info, 1 hint\n") {
		t.Fatalf("fixture logs: %d %s", code, out)
	}
	if dir, ok := corpus.Sweep(t); ok {
		out, _, code = runCLI(t, "check", filepath.Join(dir, "rlog"))
		if code != 1 || !strings.Contains(out, "13 files checked") {
			t.Fatalf("corpus: %d %s", code, out)
		}
	}
}

// TestCheckFindingsInLineOrder: within a file, findings come by line and
// column, not in the rules' order (E004 on line 3 came before I004 on 1).
func TestCheckFindingsInLineOrder(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.rlog", "---\nformat: rlog/1\nid:\nrepo_sha: abcdef\n---\nwat\n@start id=s\n")
	out, _, _ := runCLI(t, "check", p)
	var places []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if rest, ok := strings.CutPrefix(l, p+":"); ok {
			places = append(places, strings.SplitN(rest, " ", 3)[0]+strings.SplitN(rest, " ", 3)[2][:4])
		}
	}
	if got := strings.Join(places, " "); got != "1:1:I004 1:1:I002 3:1:E004 6:1:W003" {
		t.Fatalf("order %s\n%s", got, out)
	}
	js, _, _ := runCLI(t, "check", "--format", "json", p)
	var got []jsonFinding
	if err := json.Unmarshal([]byte(js), &got); err != nil || len(got) != 4 || got[2].Code != "E004" || got[3].Line != 6 {
		t.Fatalf("json order: %v %s", err, js)
	}
}

func TestCheckGitHubFormat(t *testing.T) {
	dir := t.TempDir()
	// A file name and a message with every character GitHub needs escaped:
	// the W003 message repeats the line, lone CR and all.
	p := writeFile(t, dir, "odd,name:1.rlog", cleanHeader+"wat 100%, ok: \ryes\n@bogus\no: id=zz → [ok]\n")
	out, errOut, code := runCLI(t, "check", "--format", "github", "--severity", "W002=error", p)
	file := strings.NewReplacer(":", "%3A", ",", "%2C").Replace(p)
	want := "::warning file=" + file + ",line=7,col=1,endLine=7,endColumn=19,title=W003::Unknown line format: wat 100%25, ok: %0Dyes\n" +
		"::notice file=" + file + ",line=8,col=2,endLine=8,endColumn=7,title=H001::Unknown lifecycle event `@bogus`\n" +
		"::error file=" + file + ",line=9,col=7,endLine=9,endColumn=9,title=W002::Observation references unknown call id: zz\n" +
		"1 file checked: 1 error, 1 warning, 0 info, 1 hint\n"
	if code != 1 || errOut != "" || out != want {
		t.Fatalf("exit %d, stderr %q\n%s\nwant\n%s", code, errOut, out, want)
	}
	// Info becomes a notice too; the escapes themselves.
	if got := githubAnnotation(jsonFinding{File: "a", Line: 1, Column: 2, EndLine: 3, EndColumn: 4, Severity: "info", Code: "I004", Message: "50%\r\nnext, a: b"}); got !=
		"::notice file=a,line=1,col=2,endLine=3,endColumn=4,title=I004::50%25%0D%0Anext, a: b" {
		t.Fatal(got)
	}
}

// TestCheckVSCodeProblemMatcher: docs/cli.md's problem matcher for VS
// Code tasks reads every line check prints about a finding, with each
// field.
func TestCheckVSCodeProblemMatcher(t *testing.T) {
	readme := []byte(readDocs(t, "docs/cli.md"))
	m := regexp.MustCompile("(?s)```json\n(\\{\n  \"version\": \"2.0.0\".*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("no tasks.json in docs/cli.md")
	}
	var tasks struct {
		Tasks []struct {
			ProblemMatcher struct {
				Pattern struct {
					Regexp                                      string
					File, Line, Column, Severity, Code, Message int
				}
			}
		}
	}
	if err := json.Unmarshal(m[1], &tasks); err != nil {
		t.Fatalf("docs/cli.md's tasks.json: %v", err)
	}
	pat := tasks.Tasks[0].ProblemMatcher.Pattern
	re := regexp.MustCompile(pat.Regexp)
	dir := t.TempDir()
	p := writeFile(t, dir, "a b: c.rlog", "---\nformat: rlog/1\nid: s\nrepo_sha: abc\n---\nwat: x\n@bogus\n")
	out, _, _ := runCLI(t, "check", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, l := range lines[:len(lines)-1] {
		g := re.FindStringSubmatch(l)
		if g == nil || g[pat.File] != p || g[pat.Line] == "" || g[pat.Column] == "" || g[pat.Code] == "" {
			t.Errorf("the matcher does not read %q: %q", l, g)
			continue
		}
		if !strings.Contains(l, " "+g[pat.Severity]+" "+g[pat.Code]+": "+g[pat.Message]) {
			t.Errorf("%q: severity %q code %q message %q", l, g[pat.Severity], g[pat.Code], g[pat.Message])
		}
	}
	if re.MatchString(lines[len(lines)-1]) {
		t.Errorf("the matcher reads the summary line %q", lines[len(lines)-1])
	}
}

// TestCheckNoRlogFilesIsAnError: a folder without .rlog files (a typo in
// CI) fails, and says which folder; the other paths are still checked.
func TestCheckNoRlogFilesIsAnError(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	writeFile(t, dir, "empty/notes.txt", "no logs here")
	_, errOut, code := runCLI(t, "check", empty)
	if code != 2 || errOut != "rlog-ls check: "+empty+": no .rlog files in this folder\n" {
		t.Fatalf("%d %q", code, errOut)
	}
	ok := writeFile(t, dir, "logs/a.rlog", cleanHeader)
	out, _, code := runCLI(t, "check", filepath.Dir(ok), empty)
	if code != 2 || !strings.Contains(out, "1 file checked") {
		t.Fatalf("%d %s", code, out)
	}
}

// TestCheckBinaryFile: an image or an archive named .rlog is one finding.
func TestCheckBinaryFile(t *testing.T) {
	dir := t.TempDir()
	junk := make([]byte, 20000)
	seed := uint32(7)
	for i := range junk {
		seed = seed*1664525 + 1013904223
		junk[i] = byte(seed >> 24)
	}
	p := filepath.Join(dir, "image.rlog")
	if err := os.WriteFile(p, append([]byte("\x89PNG\r\n\x1a\n"), junk...), 0o644); err != nil {
		t.Fatal(err)
	}
	utf16 := filepath.Join(dir, "utf16.rlog")
	var u []byte
	for _, c := range cleanHeader + "u: hello\n" {
		u = append(u, byte(c), 0)
	}
	if err := os.WriteFile(utf16, u, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, utf16} {
		out, _, code := runCLI(t, "check", f)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 1 || len(lines) != 2 || !strings.HasPrefix(lines[0], f+":1:1: error E007: Binary file") {
			t.Errorf("%s: %d\n%s", f, code, out)
		}
	}
	// A log with a stray NUL, ANSI colours and Latin-1 bytes is text.
	text := writeFile(t, dir, "text.rlog", cleanHeader+"u: a\x00b\no: \x1b[31mred\x1b[0m caf\xe9\n")
	if out, _, _ := runCLI(t, "check", text); strings.Contains(out, "E007") || !strings.Contains(out, "W013") {
		t.Errorf("text with a NUL: %s", out)
	}
	// Disabled, the file is read as text.
	if out, _, _ := runCLI(t, "check", "--disable", "E007", p); strings.Contains(out, "E007") || strings.Count(out, "\n") < 10 {
		t.Errorf("--disable E007: %.200s", out)
	}
}

// TestCheckCredentialsFailTheREADMEsCISnippet runs docs/cli.md's GitHub
// Actions command on a log that leaks an Anthropic key, a GitHub token
// and a password: the job must fail, with an error annotation on each.
func TestCheckCredentialsFailTheREADMEsCISnippet(t *testing.T) {
	readme := []byte(readDocs(t, "docs/cli.md"))
	m := regexp.MustCompile("(?s)```yaml\n.*?- run: rlog-ls (check [^\n]*)\n.*?```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("no CI snippet with rlog-ls check in docs/cli.md")
	}
	args := strings.Fields(string(m[1]))
	dir := t.TempDir()
	writeFile(t, dir, "logs/leak.rlog", cleanHeader+
		"u: use sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5 please\n"+
		"t!:Bash id=c1 cmd=\"git push https://ghp_4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Ya2Ue@github.com\" → [running]\n"+
		"o: id=c1 → [ok] password=Tr0ub4dor3xK\n")
	t.Chdir(dir)
	out, _, code := runCLI(t, args...)
	if code != 1 || strings.Count(out, "::error ") != 3 || strings.Count(out, "title=S001::") != 3 {
		t.Fatalf("rlog-ls %s: exit %d\n%s", m[1], code, out)
	}
	// Lowered on purpose, it passes and still shows.
	out, _, code = runCLI(t, append(args, "--severity", "S001=warning")...)
	if code != 0 || strings.Count(out, "::warning ") != 3 {
		t.Fatalf("--severity S001=warning: exit %d\n%s", code, out)
	}
}

func TestCheckSeverityFlag(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.rlog", cleanHeader+"wat\n")
	out, _, code := runCLI(t, "check", p, "--severity", "W003=error")
	if code != 1 || !strings.Contains(out, "error W003") {
		t.Fatalf("%d %s", code, out)
	}
	out, _, code = runCLI(t, "check", "--severity", "w003=hint,I004=error", "--min-severity", "warning", p)
	if code != 0 || strings.Contains(out, "W003") {
		t.Fatalf("%d %s", code, out)
	}
	for _, bad := range []string{"W003", "W003=loud", "Z999=error", "=error"} {
		if _, errOut, code := runCLI(t, "check", "--severity", bad, p); code != 2 || !strings.Contains(errOut, "--severity") {
			t.Errorf("--severity %s: %d %q", bad, code, errOut)
		}
	}
}

// TestCheckCPUProfileNeverOverwrites: --cpuprofile writes a new file and
// nothing else, not the log being checked, not through a symbolic link.
func TestCheckCPUProfileNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	log := writeFile(t, dir, "a.rlog", cleanHeader+"u: hi\n")
	other := writeFile(t, dir, "other.txt", "keep me")
	link := filepath.Join(dir, "link.prof")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.prof")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{log, link, dangling, other} {
		_, errOut, code := runCLI(t, "check", "--cpuprofile", target, log)
		if code != 2 || !strings.Contains(errOut, "exists; name a new file") {
			t.Errorf("--cpuprofile %s: %d %q", target, code, errOut)
		}
	}
	if b, _ := os.ReadFile(log); string(b) != cleanHeader+"u: hi\n" {
		t.Fatal("the log was changed")
	}
	if b, _ := os.ReadFile(other); string(b) != "keep me" {
		t.Fatal("the link's target was changed")
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Fatal("written through the dangling link")
	}
	if _, errOut, code := runCLI(t, "check", "--cpuprofile", filepath.Join(dir, "no/such/dir.prof"), log); code != 2 || !strings.Contains(errOut, "no such folder") {
		t.Errorf("missing folder: %d %q", code, errOut)
	}
	prof := filepath.Join(dir, "new.prof")
	if _, errOut, code := runCLI(t, "check", "--cpuprofile", prof, log); code != 0 || errOut != "" {
		t.Fatalf("new file: %d %q", code, errOut)
	}
	b, err := os.ReadFile(prof)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile is not a gzipped pprof file: %v %x", err, b[:min(len(b), 4)])
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestCheckComparesWithTheCompanion: check reports where a log and its
// companion disagree, as the editor does, and the flags apply to it.
func TestCheckComparesWithTheCompanion(t *testing.T) {
	const log = "../../testdata/companions/disagree/224500-disagree.rlog"
	out, _, code := runCLI(t, "check", log)
	for _, want := range []string{
		log + ":3:5: warning W015: Line 7 of 224500-disagree.jsonl cannot be read: invalid JSON at byte 321: invalid literal\n",
		log + ":21:12: info I006: 224500-disagree.jsonl has this call's result (line 8); the log has no o: line for it\n",
		log + ":34:12: info I005: Call Zz9xY8wQ is not in 224500-disagree.jsonl, the full record of this session\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d: the pair's findings are no errors", code)
	}
	out, _, _ = runCLI(t, "check", "--disable", "I005,I006", "--severity", "W015=error", log)
	if strings.Contains(out, "I005") || strings.Contains(out, "I006") || !strings.Contains(out, "error W015") {
		t.Fatalf("flags on the pair's codes:\n%s", out)
	}
}

// TestCheckSaysWhatWasNotChecked: check on a file it can neither
// validate nor read (JSON of no format it knows) exits 2, and its summary
// used to count it as "1 file checked". The summary counts only the files
// checked and says how many were not; why is on stderr.
func TestCheckSaysWhatWasNotChecked(t *testing.T) {
	dir := t.TempDir()
	transcript := writeFile(t, dir, "what.json", `{"a": 1}`)
	log := writeFile(t, dir, "s.rlog", cleanHeader+"o: id=nope → [ok]\n")
	for _, c := range []struct {
		paths   []string
		summary string
	}{
		{[]string{transcript}, "0 files checked, 1 not checked (see above): 0 errors, 0 warnings, 0 info, 0 hints\n"},
		{[]string{transcript, log}, "1 file checked, 1 not checked (see above): 0 errors, 1 warning, 0 info, 0 hints\n"},
		{[]string{log, filepath.Join(dir, "missing.rlog")}, "1 file checked, 1 not checked (see above): 0 errors, 1 warning, 0 info, 0 hints\n"},
	} {
		stdout, stderr, code := runCLI(t, append([]string{"check"}, c.paths...)...)
		if code != 2 || !strings.HasSuffix(stdout, c.summary) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("check %v: exit %d\n%s%s\nwant the summary %q", c.paths, code, stdout, stderr, c.summary)
		}
	}
	if stdout, _, _ := runCLI(t, "check", transcript); !strings.Contains(stdout, "0 files checked") {
		t.Errorf("%s", stdout)
	}
	_, stderr, _ := runCLI(t, "check", transcript)
	if !strings.Contains(stderr, "what.json") {
		t.Errorf("no reason on stderr: %q", stderr)
	}
}
