package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// A made-up key of the right shape, and a session that leaks it.
const (
	leakedKey    = "sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5"
	leakySession = cleanHeader + "u: here is my key " + leakedKey + " use it\n" +
		"t!:Bash id=b1 cmd=\"psql postgres://app:s3cr3t-Pa55@db/app\" → [running]\n" +
		"o: id=b1 → [ok] é password=Tr0ub4dor3xK\n"
)

func TestRedactBesideInput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", leakySession)
	stdout, stderr, code := runCLI(t, "redact", in)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "s.redacted.rlog")
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := cleanHeader + "u: here is my key [redacted:anthropic_key] use it\n" +
		"t!:Bash id=b1 cmd=\"psql postgres://app:[redacted:url_password]@db/app\" → [running]\n" +
		"o: id=b1 → [ok] é password=[redacted:password]\n"
	if string(got) != want {
		t.Fatalf("copy:\n%s\nwant:\n%s", got, want)
	}
	// The report says where, never what.
	wantErr := in + ":7:19: redacted an Anthropic API key\n" +
		in + ":8:40: redacted a password in a URL\n" +
		in + ":9:28: redacted a password\n" +
		"rlog-ls redact: wrote " + out + ": 3 values redacted (1 anthropic_key, 1 password, 1 url_password)\n"
	if stderr != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantErr)
	}
	if strings.Contains(stderr, "Zx9Qm2") || strings.Contains(stderr, "Tr0ub4dor") {
		t.Error("the report leaks a secret")
	}
	// The copy has nothing left to report, and the input is untouched.
	for _, line := range strings.Split(string(got), "\n") {
		if m := analysis.FindSecrets([]byte(line)); m != nil {
			t.Errorf("left in the copy: %v in %q", m, line)
		}
	}
	// Redaction changes no other finding, and leaves no S001.
	nonSecret := func(src []byte) (codes []string) {
		for _, f := range analysis.Check(grammar.Parse(src), analysis.Config{}) {
			if f.Code != "S001" {
				codes = append(codes, string(f.Code))
			}
		}
		return codes
	}
	if a, b := nonSecret(got), nonSecret([]byte(leakySession)); strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("findings of the copy %v, of the input %v", a, b)
	}
	cfg, _ := analysis.DisableCodes(nil)
	for _, f := range analysis.Check(grammar.Parse(got), cfg) {
		if f.Code == "S001" {
			t.Errorf("S001 in the copy: %s", f.Message)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != leakySession {
		t.Error("the input changed")
	}

	// Never over an existing file without --force; with it, replaced.
	checkForceReplaces(t, in, out, func(b []byte) bool { return string(b) == want }, "redact")
}

func TestRedactToStdoutAndNamedOutput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "trace.jsonl", `{"type":"user","message":{"content":"key `+leakedKey+`"}}`+"\n")
	stdout, stderr, code := runCLI(t, "redact", in, "-o", "-")
	if code != 0 || stdout != `{"type":"user","message":{"content":"key [redacted:anthropic_key]"}}`+"\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	if !strings.HasSuffix(stderr, "wrote stdout: 1 value redacted (1 anthropic_key)\n") {
		t.Errorf("stderr %q", stderr)
	}
	named := filepath.Join(dir, "sub", "clean.jsonl")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if _, stderr, code = runCLI(t, "redact", "-o", named, in); code != 0 {
		t.Fatalf("-o: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(named); strings.Contains(string(b), "sk-ant-") {
		t.Errorf("named output: %s", b)
	}
	// A clean file gives an identical copy, and says so.
	clean := writeFile(t, dir, "clean.rlog", cleanHeader+"u: nothing here\n")
	_, stderr, code = runCLI(t, "redact", clean)
	if b, _ := os.ReadFile(filepath.Join(dir, "clean.redacted.rlog")); code != 0 || string(b) != cleanHeader+"u: nothing here\n" ||
		!strings.Contains(stderr, "no credential found") {
		t.Errorf("clean file: %d %q %q", code, b, stderr)
	}
}

func TestRedactUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", leakySession)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"redact"}, "rlog-ls redact: no input file (rlog-ls redact --help for more)\n"},
		{[]string{"redact", in, in}, "rlog-ls redact: one input file at a time, got 2: " + in + " " + in + " (rlog-ls redact --help for more)\n"},
		{[]string{"redact", filepath.Join(dir, "missing.rlog")}, "rlog-ls redact: " + filepath.Join(dir, "missing.rlog") + ": no such file or folder\n"},
		{[]string{"redact", dir}, "rlog-ls redact: " + dir + " is a folder; redact one file at a time\n"},
		{[]string{"redact", "-o", filepath.Join(dir, "nodir", "x.rlog"), in}, ""},
	} {
		_, stderr, code := runCLI(t, c.args...)
		if code != 2 || (c.want != "" && stderr != c.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: %d %q", c.args, code, stderr)
		}
	}
	// A symlink where the copy would go is never written through.
	outside := writeFile(t, t.TempDir(), "victim", "keep")
	link := filepath.Join(dir, "s.redacted.rlog")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, stderr, code := runCLI(t, "redact", "--force", in); code != 2 {
		t.Errorf("through a symlink: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Error("the file behind the symlink was changed")
	}
}

func TestRedactedName(t *testing.T) {
	for in, want := range map[string]string{
		"s.rlog": "s.redacted.rlog", "a.b.jsonl": "a.b.redacted.jsonl", "README": "README.redacted", ".rlog": ".rlog.redacted",
	} {
		if got := analysis.RedactedName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
