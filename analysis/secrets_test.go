package analysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis/secretrules"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// Credentials made for the tests: the right shapes, no real key.
const (
	anthropicKey = "sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5"
	openAIKey    = "sk-proj-4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Ya2Ue7Io4Xq9R"
	githubToken  = "ghp_4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Ya2Ue"
	githubPAT    = "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWX"
	awsKeyID     = "AKIA4FT9QLM2ZX7RBW1N"
	slackToken   = "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp"
	jwtToken     = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	googleKey    = "AIzaSyB4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Y"
	stripeKey    = "sk_live_4fT9qLm2Zx7RbW1nK8cVd3Hs"
	gitlabToken  = "glpat-4fT9qLm2Zx7RbW1nK8cV"
	npmToken     = "npm_4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Ya2Ue"
)

type found struct{ kind, text string }

func findAll(line string) []found {
	var out []found
	for _, m := range FindSecrets([]byte(line)) {
		out = append(out, found{m.Kind, line[m.Start:m.End]})
	}
	return out
}

func TestFindSecrets(t *testing.T) {
	cases := []struct {
		line string
		want []found
	}{
		// Vendor shapes, wherever they stand.
		{"u: use " + anthropicKey + " for the api", []found{{"anthropic_key", anthropicKey}}},
		{`t!:Bash id=c1 cmd="export OPENAI_API_KEY=` + openAIKey + `" → [ok]`, []found{{"openai_key", openAIKey}}},
		{"o: id=c1 → [ok] token " + githubToken, []found{{"github_token", githubToken}}},
		{"  " + githubPAT + ",", []found{{"github_token", githubPAT}}},
		{"aws_access_key_id = " + awsKeyID, []found{{"aws_access_key", awsKeyID}}},
		{"SLACK=" + slackToken, []found{{"slack_token", slackToken}}},
		{"cookie: session=" + jwtToken + "; Path=/", []found{{"jwt", jwtToken}}},
		{`{"key":"` + googleKey + `"}`, []found{{"google_api_key", googleKey}}},
		{"stripe " + stripeKey, []found{{"stripe_key", stripeKey}}},
		{"gitlab " + gitlabToken, []found{{"gitlab_token", gitlabToken}}},
		{"//registry.npmjs.org/:_authToken=" + npmToken, []found{{"npm_token", npmToken}}},
		// Authorization headers: only the credential.
		{`curl -H "Authorization: Bearer abcDEF123456ghiJKL789"`, []found{{"bearer_token", "abcDEF123456ghiJKL789"}}},
		{`{"headers":{"Authorization":"Bearer ` + jwtToken + `"}}`, []found{{"bearer_token", jwtToken}}},
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", []found{{"basic_auth", "dXNlcjpwYXNzd29yZA=="}}},
		// A backslash before the separator: the scan still looks there.
		{`Authorization\: Basic dXNlcjpwYXNzd29yZA==`, []found{{"basic_auth", "dXNlcjpwYXNzd29yZA=="}}},
		// Private keys.
		{"o: id=c2 → [ok] -----BEGIN RSA PRIVATE KEY-----", []found{{"private_key", "-----BEGIN RSA PRIVATE KEY-----"}}},
		{`"key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"`,
			[]found{{"private_key", `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----`}}},
		{"-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", []found{{"private_key", "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"}}},
		// Passwords in URLs.
		{"DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app", []found{{"url_password", "s3cr3t-Pa55"}}},
		{"redis://:hunter2@cache:6379", []found{{"url_password", "hunter2"}}},
		// Assignments to credential-named keys, with random-looking values.
		{"password=Tr0ub4dor3xK", []found{{"password", "Tr0ub4dor3xK"}}},
		{`{"client_secret": "9fK2mQ7xLp4Rz8Wv1Nb6"}`, []found{{"secret", "9fK2mQ7xLp4Rz8Wv1Nb6"}}},
		{`{\"db_password\":\"q8Lm2Zx7Rb\"}`, []found{{"password", "q8Lm2Zx7Rb"}}},
		{"apiKey: 7f3a9c2e1b8d4f6a0c5e", []found{{"api_key", "7f3a9c2e1b8d4f6a0c5e"}}},
		{"GITHUB_TOKEN=" + githubToken, []found{{"github_token", githubToken}}},
		{"x-api-key=AbC123dEf456GhI789", []found{{"api_key", "AbC123dEf456GhI789"}}},
		{"?access_token=a1b2c3d4e5f6g7h8&x=1", []found{{"token", "a1b2c3d4e5f6g7h8"}}},
		{"secret=YWJjZGVmZzEyMzQ1Ng==", []found{{"secret", "YWJjZGVmZzEyMzQ1Ng=="}}},
		// Passwords as people write them: quoted values whole, whatever
		// they hold; PGPASSWORD=; mysql -pSECRET.
		{`config.yml: password: "Tr0ub4dor&3horse"`, []found{{"password", "Tr0ub4dor&3horse"}}},
		{`the admin login is password="correct horse battery staple"`, []found{{"password", "correct horse battery staple"}}},
		{`{\"db_password\":\"q8 Lm&2Zx\"}`, []found{{"password", "q8 Lm&2Zx"}}},
		{"PGPASSWORD=Xk4pL9mQ2v psql -h db -U app", []found{{"password", "Xk4pL9mQ2v"}}},
		{`cmd="mysql -u root -pS3cretRootPw shop < dump.sql"`, []found{{"password", "S3cretRootPw"}}},
		{`mysqldump -h db -P 3306 -p'hunter22' shop`, []found{{"password", "hunter22"}}},
		// Gitleaks' rules, through the line scan's candidates.
		{"o: id=c1 → [ok] SENDGRID_API_KEY=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",
			[]found{{"api_key", "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"}}},
		{"u: the hook is https://hooks.slack.com/services/T01234567/B0123456789/AbCdEfGhIjKlMnOpQrStUvWx",
			[]found{{"slack_webhook_url", "https://hooks.slack.com/services/T01234567/B0123456789/AbCdEfGhIjKlMnOpQrStUvWx"}}},
		// In JSON text, right after an escape.
		{`{"content":"output:\n` + anthropicKey + `\tpassword=Tr0ub4dor3xK\r\nBearer abcDEF123456ghiJKL789"}`,
			[]found{{"anthropic_key", anthropicKey}, {"password", "Tr0ub4dor3xK"}, {"bearer_token", "abcDEF123456ghiJKL789"}}},
		{`"\nnpm_4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Ya2Ue"`, []found{{"npm_token", "npm_4fT9qLm2Zx7RbW1nK8cVd3Hs6Jf0Pg5Ya2Ue"}}},
		// Several on one line, in order.
		{"a " + githubToken + " b password=Tr0ub4dor3xK c " + awsKeyID, []found{{"github_token", githubToken}, {"password", "Tr0ub4dor3xK"}, {"aws_access_key", awsKeyID}}},

		// Not secrets: rlog metadata, code, prose, placeholders.
		{"th: thinking sig=Ep4EAbCdEfGh1234567890XyZ... tokens_in=120 tokens_out=45 tokens_cached=9000", nil},
		{"a: done tokens_in=1 tokens_out=2 max_tokens=4096 next_token_count=12", nil},
		{"@blob sha256=4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f bytes=12", nil},
		{"t!:Read id=toolu_01ABCdef234GHIjkl567 file_path=src/auth/token.go", nil},
		{"o: id=c1 → [ok] pub api_key: Option<String>, secret_key: &[u8; 32], token: String,", nil},
		{"let secret_key = generate_secret_key();", nil},
		{"export API_KEY=$OPENAI_API_KEY; TOKEN=${GITHUB_TOKEN}; password=<your password>", nil},
		{"API_KEY=[redacted:env_var] password=[REDACTED] token=***** secret=xxxxxxxxxxxx", nil},
		{"password=your-password-here api_key=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxx", nil},
		{"AWS example AKIAIOSFODNN7EXAMPLE", nil},
		{"the bearer token and Basic authentication are explained in the docs", nil},
		{"task-sk-learn desk-1234567890abcdefghijkl", nil},
		{"git clone git@github.com:org/repo.git https://github.com/org/repo https://user@host/x", nil},
		{"grep -r '-----BEGIN RSA PRIVATE KEY-----' src/ | wc -l", nil},
		{"u: what is a JWT? eyJ... is the header", nil},
		{"password=short1 token=abcdefghijklmnop", nil},
		{"http://[redacted:sidekiq_sensitive_url]@gems.contribsys.com/ https://u:[redacted:url_password]@h", nil},
		{`mysql -u root -p shop; mysql -p$MYSQL_PWD; password: "string"; password="<your password>"`, nil},
		{"c:a-b.c id=x state=open → [3 issues]", nil},
	}
	for _, c := range cases {
		got := findAll(c.line)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s\n got %v\nwant %v", c.line, got, c.want)
		}
	}
}

// Every kind has a description and a marker the rlog/1 validator counts.
func TestSecretKinds(t *testing.T) {
	marker := regexp.MustCompile(`^\[redacted:\w+\]$`)
	for kind, desc := range secretKinds {
		if !marker.MatchString(RedactionMarker(kind)) {
			t.Errorf("%s: marker %s is not counted by the validator", kind, RedactionMarker(kind))
		}
		m := SecretMatch{Kind: kind}
		if m.Describe() != desc || !strings.Contains(m.Message(), desc) || !strings.Contains(m.Message(), RedactionMarker(kind)) {
			t.Errorf("%s: message %q", kind, m.Message())
		}
	}
}

func TestRedact(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\n---\n" +
		"u: my key is " + anthropicKey + " ts=2025-12-19T20:29:02Z\r\n" +
		"t!:Bash id=c1 cmd=\"cat ~/.ssh/id_rsa\" → [running]\n" +
		"o: id=c1 → [ok] -----BEGIN OPENSSH PRIVATE KEY-----\n" +
		"  b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
		"  QyNTUxOQAAACDlYc7HhS3eO1wq3cE9tGQ2ZxKjN6vWq8Vn3p5s0x0xAAAAAJg=\n" +
		"  -----END OPENSSH PRIVATE KEY-----\n" +
		"a: done password=Tr0ub4dor3xK\n" +
		"u: no secret here\n"
	want := "---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\n---\n" +
		"u: my key is [redacted:anthropic_key] ts=2025-12-19T20:29:02Z\r\n" +
		"t!:Bash id=c1 cmd=\"cat ~/.ssh/id_rsa\" → [running]\n" +
		"o: id=c1 → [ok] [redacted:private_key]\n" +
		"  [redacted:private_key]\n" +
		"  [redacted:private_key]\n" +
		"  [redacted:private_key]\n" +
		"a: done password=[redacted:password]\n" +
		"u: no secret here\n"
	out, matches := Redact([]byte(src))
	if string(out) != want {
		t.Fatalf("redacted:\n%s\nwant:\n%s", out, want)
	}
	// Three values: the key, the private key (over four lines), the
	// password.
	if len(matches) != 3 || matches[1].Kind != "private_key" || !strings.HasSuffix(string(src[matches[1].Start:matches[1].End]), "-----END OPENSSH PRIVATE KEY-----") {
		t.Fatalf("%d matches: %+v", len(matches), matches)
	}
	for _, m := range matches {
		if m.Start < 0 || m.End > len(src) || m.Start >= m.End {
			t.Errorf("span %+v", m)
		}
	}
	again, more := Redact(out)
	if !bytes.Equal(again, out) || more != nil {
		t.Errorf("redacting twice changed it: %v", more)
	}
	// The redacted copy is still a clean rlog/1 file: the S001 findings are
	// gone, and nothing else changed.
	cfg := Config{Disabled: map[string]bool{"S001": true}}
	before := Check(grammar.Parse([]byte(src)), cfg)
	after := Check(grammar.Parse(out), cfg)
	for _, f := range Check(grammar.Parse(out), Config{}) {
		if f.Code == "S001" {
			t.Errorf("S001 left after redaction: %+v", f)
		}
	}
	if findingCodes(after) != findingCodes(before) {
		t.Errorf("findings changed by redaction:\n%v\n%v", findingCodes(before), findingCodes(after))
	}
	// Nothing found: the input itself comes back.
	clean := []byte("u: hello\n")
	if got, m := Redact(clean); &got[0] != &clean[0] || m != nil {
		t.Error("a clean document was copied")
	}
}

// A key body stops at the first line that is not part of it.
func TestRedactKeyBodyStops(t *testing.T) {
	src := "o: id=c → [ok] -----BEGIN RSA PRIVATE KEY-----\n" +
		"  MIIEowIBAAKCAQEAx4UbaDzY\n" +
		"u: the rest of the session stays\n" +
		"  continuation stays too\n"
	want := "o: id=c → [ok] [redacted:private_key]\n" +
		"  [redacted:private_key]\n" +
		"u: the rest of the session stays\n" +
		"  continuation stays too\n"
	if out, _ := Redact([]byte(src)); string(out) != want {
		t.Fatalf("got:\n%s", out)
	}
}

func findingCodes(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s@%d ", f.Code, f.Line)
	}
	return b.String()
}

// Real logs: the detector must be rare on them. The fixture logs are
// modelled on real sessions and hold one key pasted on purpose
// (hand-edited.rlog; the planted corpus of testdata/secrets is left out);
// S001 must find that and nothing else. The corpus of real sessions, when
// there is one (RLOG_CORPUS), has no real credential: S001 may flag what
// gitleaks' rules flag there (it flags every line they do, and gitleaks
// has false positives of its own), and at most three more lines.
func TestSecretsFalsePositives(t *testing.T) {
	var got []string
	files := eachLine(t, "../testdata", func(rel string, n int, line []byte) {
		if strings.HasPrefix(filepath.ToSlash(rel), "secrets/") {
			return
		}
		for _, m := range FindSecrets(line) {
			got = append(got, fmt.Sprintf("%s:%d %s", filepath.ToSlash(rel), n, m.Kind))
		}
	})
	if want := "logs/hand-edited.rlog:27 openai_key"; strings.Join(got, "; ") != want || files < 20 {
		t.Errorf("S001 on the fixtures (%d files): %q, want %q", files, got, want)
	}
	dir, ok := corpus.Sweep(t)
	if !ok {
		return
	}
	var lines, hits, theirs int
	var report []string
	files = eachLine(t, dir, func(rel string, n int, line []byte) {
		lines++
		ms := FindSecrets(line)
		if len(ms) == 0 {
			return
		}
		if len(secretrules.FindLine(nil, line)) > 0 {
			theirs++
			return
		}
		for _, m := range ms {
			hits++
			report = append(report, fmt.Sprintf("%s:%d %s %q", rel, n, m.Kind, line[m.Start:m.End]))
		}
	})
	t.Logf("%d files, %d lines, %d lines that gitleaks' rules flag too, %d matches of S001 alone", files, lines, theirs, hits)
	for _, r := range report {
		t.Log(r)
	}
	if hits > 3 {
		t.Errorf("%d false positives on real logs (allowed: 3)", hits)
	}
	if files < 20 {
		t.Errorf("only %d corpus files read", files)
	}
}

// Lines built to make a careless scanner quadratic stay linear: each is
// 1 MB, so a quadratic scan would take minutes and hit the test timeout.
func TestSecretsHostileLines(t *testing.T) {
	for _, unit := range []string{
		"token=", "token:", "eyJaaaaaaaaaaaaa.", "-----BEGIN RSA PRIVATE KEY-----", "sk-", "a://", "Bearer ",
		"password=a1", "x.sk-abc", "AKIA", "\\\"secret\\\":\\\"",
	} {
		line := bytes.Repeat([]byte(unit), (1<<20)/len(unit))
		got := FindSecrets(line)
		for _, m := range got {
			if m.Start < 0 || m.End > len(line) || m.Start >= m.End {
				t.Fatalf("%q: bad span %+v", unit, m)
			}
		}
	}
}

// Redact keeps the line structure and leaves nothing to find, whatever the
// input; redacting again changes nothing.
func FuzzRedact(f *testing.F) {
	f.Add([]byte("u: " + anthropicKey + "\npassword=Tr0ub4dor3xK\n"))
	f.Add([]byte("o: → -----BEGIN RSA PRIVATE KEY-----\n  MIIE\n  -----END RSA PRIVATE KEY-----\n"))
	f.Add([]byte(`{"Authorization":"Bearer ` + jwtToken + `","u":"https://a:b@c"}`))
	f.Add([]byte("secret=YWJjZGVmZzEyMzQ1Ng==\r\napiKey: 7f3a9c2e1b8d4f6a0c5e"))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, matches := Redact(src)
		if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Fatalf("line count changed")
		}
		prev := 0
		for _, m := range matches {
			if m.Start < prev || m.End <= m.Start || m.End > len(src) {
				t.Fatalf("bad match %+v after %d", m, prev)
			}
			prev = m.End
		}
		if bytes.Count(out, []byte(`"`)) != bytes.Count(src, []byte(`"`)) {
			t.Fatalf("quotes changed: %q", out)
		}
		for _, line := range bytes.Split(out, []byte("\n")) {
			if m := FindSecrets(line); m != nil {
				t.Fatalf("left in the redacted copy: %+v in %q", m, line)
			}
		}
		if fs := secretrules.Find(out); fs != nil {
			t.Fatalf("gitleaks' rules find %+v in the redacted copy %q", fs, out)
		}
		if again, _ := Redact(out); !bytes.Equal(again, out) {
			t.Fatalf("redacting twice changed the text")
		}
	})
}

func BenchmarkFindSecrets(b *testing.B) {
	line := []byte(`t!:Bash id=toolu_01ABCdef234GHIjkl567 cmd="go test ./... -run TestAuth" → [running] tokens_in=120 tokens_out=45 tokens_cached=9000 sig=Ep4EAbCdEfGh1234567890XyZ ts=2025-12-19T20:29:02Z`)
	var dst []SecretMatch
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		dst = AppendSecrets(dst[:0], line)
	}
}

// BenchmarkSecretsSession scans every line of a generated session, as the
// checker does.
func BenchmarkSecretsSession(b *testing.B) {
	var buf bytes.Buffer
	gen.Write(&buf, gen.Options{Bytes: 4 << 20, FindingRate: 0.01, Seed: 1})
	src := buf.Bytes()
	var dst []SecretMatch
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		for rest := src; len(rest) > 0; {
			line := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				line, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			dst = AppendSecrets(dst[:0], line)
		}
	}
}

// S001 covers every line, the header's too: a key in a header field
// (api_key:, notes:) is as exposed as one in the body, and rlog-ls redact
// replaces both.
func TestS001OnHeaderAndBodyLines(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\nrunner: ci\napi_key: " + anthropicKey + "\n---\nu: password=Tr0ub4dor3xK\n"
	var lines []int
	for _, f := range Check(grammar.Parse([]byte(src)), Config{}) {
		if f.Code == "S001" {
			lines = append(lines, f.Line)
		}
	}
	if fmt.Sprint(lines) != "[5 7]" {
		t.Errorf("S001 on lines %v, want [5 7] (the header's api_key and the body's password)", lines)
	}
	if _, m := Redact([]byte(src)); len(m) != 2 {
		t.Errorf("Redact found %d", len(m))
	}
}

// The CLI and the editor say the same thing about a redaction: most
// frequent kind first, ties by name.
func TestRedactionSummary(t *testing.T) {
	ms := []SecretMatch{{Kind: "password"}, {Kind: "openai_key"}, {Kind: "jwt"}, {Kind: "openai_key"}}
	if got, want := RedactionSummary(ms), "4 values redacted (2 openai_key, 1 jwt, 1 password)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := RedactionSummary(ms[:1]), "1 value redacted (1 password)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A summary is one line: the eight most frequent kinds, then the rest.
	var many []SecretMatch
	for k := range 12 {
		for range 12 - k {
			many = append(many, SecretMatch{Kind: fmt.Sprintf("kind%02d", k)})
		}
	}
	if got, want := RedactionSummary(many), "78 values redacted (12 kind00, 11 kind01, 10 kind02, 9 kind03, 8 kind04, 7 kind05, 6 kind06, 5 kind07, 10 of 4 other kinds)"; got != want {
		t.Errorf("summary of many kinds: %q, want %q", got, want)
	}
}

// Every vendor shape of the table is found where it stands in a line,
// through the eight-byte filter built from the table, and every kind has
// a name for messages. The shapes that are a prefix and a tail get an
// example made from the table itself.
func TestVendorShapesFound(t *testing.T) {
	examples := map[string]string{
		"jwt":          "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"private_key":  "-----BEGIN RSA PRIVATE KEY-----MIIEpAIBAAKCAQEA75k1c2b3d4e5f6g7h8-----END RSA PRIVATE KEY-----",
		"bearer_token": "BEARER abcdef0123456789ABCDEF",
		"basic_auth":   `Authorization: basic dXNlcjpwYXNzd29yZA==`,
		"password":     "-u root -pS3cretRootPw",
	}
	for _, sh := range vendorShapes {
		if _, ok := secretKinds[sh.kind]; !ok {
			t.Errorf("%s: kind %s has no description", sh.prefix, sh.kind)
		}
		ex := examples[sh.kind]
		tail := func(n int) string {
			var b []byte
			for i := 0; len(b) < n; i++ {
				if c := "aB1cD2eF3"[i%9]; sh.tail(c) {
					b = append(b, c)
				}
			}
			return string(b)
		}
		if sh.match == nil {
			ex = sh.prefix + tail(sh.minTail)
		}
		if sh.kind == "password" {
			ex = sh.prefix + " " + ex
		}
		line := "a: some words then " + ex + " and more"
		ms := FindSecrets([]byte(line))
		want := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(ex, "Authorization: "), "basic "), "BEARER ")
		if sh.kind == "password" {
			want = "S3cretRootPw"
		}
		if len(ms) != 1 || ms[0].Kind != sh.kind || line[ms[0].Start:ms[0].End] != want {
			t.Errorf("%s: %q gives %+v, want one %s covering %q", sh.prefix, line, ms, sh.kind, want)
		}
		if sh.match == nil && sh.minTail > 1 {
			short := "a: " + sh.prefix + tail(sh.minTail-1) + " end"
			if ms := FindSecrets([]byte(short)); len(ms) != 0 && ms[0].Kind == sh.kind {
				t.Errorf("%q (tail one short) gives %+v", short, ms)
			}
		}
	}
}

// eachLine calls fn on every line of every file under root, with the
// file's path relative to root and the 1-based line number, and returns
// how many files it read.
func eachLine(t *testing.T, root string, fn func(rel string, n int, line []byte)) int {
	t.Helper()
	files := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, p)
		for i, line := range bytes.Split(src, []byte("\n")) {
			fn(rel, i+1, line)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A redaction never leaves part of a value: a quoted password whole, and
// where S001's match and a gitleaks rule's overlap, the union of the two.
func TestRedactLeavesNoPart(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`o: id=c1 → [ok] password: "Tr0ub4dor&3horse"` + "\n", `o: id=c1 → [ok] password: "[redacted:password]"` + "\n"},
		{`u: password="correct horse battery staple" ok` + "\n", `u: password="[redacted:password]" ok` + "\n"},
		{"t!:Bash id=c2 cmd=\"PGPASSWORD=Xk4pL9mQ2v psql\" → [running]\n", "t!:Bash id=c2 cmd=\"PGPASSWORD=[redacted:password] psql\" → [running]\n"},
		{"t!:Bash id=c3 cmd=\"mysql -u root -pS3cretRootPw shop\" → [running]\n", "t!:Bash id=c3 cmd=\"mysql -u root -p[redacted:password] shop\" → [running]\n"},
	} {
		out, ms := Redact([]byte(c.src))
		if string(out) != c.want || len(ms) != 1 {
			t.Errorf("%s\n got %s (%d values)\nwant %s", c.src, out, len(ms), c.want)
		}
	}
}

// TestRedactToEqualsWhole: redacting a large text piece by piece gives
// what redacting it at once gives. The text is the planted secrets
// (private keys over several lines among them) repeated past several
// pieces, shifted by a varying filler so that piece ends fall in every
// kind of value.
func TestRedactToEqualsWhole(t *testing.T) {
	planted, err := os.ReadFile("../testdata/secrets/planted.rlog")
	if err != nil {
		t.Fatal(err)
	}
	// The planted lines around the private key over several lines (the
	// whole file takes a second to redact): piece ends fall on each of
	// its lines, where a piece must be moved past it, and on a few
	// others.
	pem := bytes.Index(planted, []byte("-----BEGIN RSA PRIVATE KEY-----"))
	if pem < 0 {
		t.Fatal("the planted secrets have no private key over several lines")
	}
	from := bytes.LastIndexByte(planted[:max(0, pem-1500)], '\n') + 1
	to := lineEndAfter(planted, pem+2500)
	src := planted[from:to]
	pem -= from
	want, wantValues, _ := redactWhole(src)
	if len(wantValues) < 4 {
		t.Fatalf("only %d values around the private key", len(wantValues))
	}
	ends := []int{1, len(src) / 3}
	for i := pem - 100; i < pem+1000; i += 60 {
		ends = append(ends, i)
	}
	for _, piece := range ends {
		var got bytes.Buffer
		values, err := redactTo(src, piece, 512, func(b []byte) error { got.Write(b); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			g, w := got.Bytes(), want
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("pieces of %d bytes: differs from whole at byte %d: %q against %q", piece, i, g[max(0, i-80):min(len(g), i+80)], w[max(0, i-80):min(len(w), i+80)])
		}
		if !slices.Equal(values, wantValues) {
			t.Fatalf("pieces of %d bytes: %d values, %d at once", piece, len(values), len(wantValues))
		}
	}
}

// credentialKeyByWord is credentialKey without keyWordEnd's test of the
// key's last three bytes (keyEnding's two only): the key read back and
// its last word classified at every separator that passes. The reference
// FuzzCredentialKeyByWord holds credentialKey to.
func credentialKeyByWord(line []byte, sep int) string {
	p := sep
	for p > 0 && line[p-1] == ' ' && line[sep] == ':' {
		p--
	}
	if p > 0 && (line[p-1] == '"' || line[p-1] == '\'') {
		p--
		if p > 0 && line[p-1] == '\\' {
			p--
		}
	}
	end := p
	if end < 2 || !keyEnding(line[end-2], line[end-1]) {
		return ""
	}
	for p > 0 && end-p < 64 && (isAlnum(line[p-1]) || line[p-1] == '_' || line[p-1] == '-' || line[p-1] == '.') {
		p--
	}
	if p == end || (p > 0 && line[p-1] != '\n' && end-p == 64) {
		return ""
	}
	if p > 0 && line[p-1] == '\\' && isEscapeLetter(line[p]) && end-p > 1 {
		p++
	}
	return keyKind(line[p:end])
}

// checkCredentialKeyByWord: credentialKey is credentialKeyByWord at every
// '=' and ':' of text, and of text less its first bytes, up to eight (a
// key cut short at the text's start).
func checkCredentialKeyByWord(t *testing.T, text []byte) {
	t.Helper()
	for from := range min(len(text), 8) + 1 {
		s := text[from:]
		for i, c := range s {
			if c != '=' && c != ':' {
				continue
			}
			if got, want := credentialKey(s, i), credentialKeyByWord(s, i); got != want {
				t.Fatalf("credentialKey(%q, %d) = %q, read back %q", s, i, got, want)
			}
		}
	}
}

// credentialKeySeeds: every word keyKind names, in three cases, as a
// key's last word after each kind of word break, and keys that end as
// one does without being one (th:, file_path=, Auth, x_key).
var credentialKeySeeds = func() []string {
	var s []string
	for _, w := range []string{"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "key", "credential", "credentials", "auth",
		"PGPASSWORD", "DBPASSWD", "th", "file_path", "oauth", "ken", "wd", "ey", "uth"} {
		for _, k := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			for _, before := range []string{"", "api_", "secret-", "x.", "access", "\\n", "a b", "é"} {
				for _, sep := range []string{"=", ":", " :", "\":", "\\\"=", "'="} {
					s = append(s, before+k+sep+"Tr0ub4dor&3horse")
				}
			}
		}
	}
	return s
}()

// keyWordEnd is true at the end of every word keyKind names, and
// credentialKey equals its reading back of the key (keyEnding only) on
// the seeds, at every length.
func TestKeyWordEnd(t *testing.T) {
	for _, w := range []string{"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "key", "credential", "credentials", "auth"} {
		for _, k := range []string{w, strings.ToUpper(w)} {
			if n := len(k); !keyWordEnd(k[n-3], k[n-2], k[n-1]) {
				t.Errorf("keyWordEnd: %q's last three bytes", k)
			}
		}
	}
	for _, s := range credentialKeySeeds {
		checkCredentialKeyByWord(t, []byte(s))
	}
}

func FuzzCredentialKeyByWord(f *testing.F) {
	for i, s := range credentialKeySeeds {
		if i%7 == 0 { // a spread of the words, cases, breaks and separators
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkCredentialKeyByWord(t, text) })
}
