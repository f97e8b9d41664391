package secretrules

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// PlantedCorpus is the log of fake credentials, one for every rule of the
// table that applies to a log file, made by plantedCorpus.
const PlantedCorpus = "../../testdata/secrets/planted.rlog"

// The planted corpus is what plantedCorpus writes (go test -update
// rewrites it), and every rule that applies to a log is found on its line.
func TestPlantedCorpus(t *testing.T) {
	src, missing := plantedCorpus()
	for _, id := range missing {
		t.Errorf("no example of %s could be made", id)
	}
	golden.CheckFile(t, PlantedCorpus, src)
	found := map[string]bool{}
	for _, f := range Find(src) {
		found[f.RuleID] = true
	}
	for _, r := range Rules() {
		if appliesToLogs(r) && !found[r.ID] {
			t.Errorf("%s: not found in the planted corpus", r.ID)
		}
	}
}

// appliesToLogs: the rules gitleaks runs on a log file (the others are
// limited to file names such as *.tf or nuget.config, or report a file).
func appliesToLogs(r Rule) bool { return r.Regex != "" && r.Path == "" }

// plantedCorpus writes an rlog session in which every rule that applies
// to logs finds one fake credential, in the places a log holds them: a
// command, a tool's output, a user's message, JSON input. It returns the
// rules no example could be made for.
func plantedCorpus() ([]byte, []string) {
	var b bytes.Buffer
	b.WriteString("---\nformat: rlog/1\nid: planted-secrets-0001\nrepo_sha: 4f2a9c1e\nmodel: claude-sonnet-4-5-20250929\nagent: autopilot\n")
	b.WriteString("notes: fake credentials for every gitleaks rule (analysis/secretrules plantedCorpus); none is real\n---\n\n")
	b.WriteString("@start id=planted ts=2026-01-05T10:00:00Z\n")
	b.WriteString("u: deploy the service; the credentials are in the environment ts=2026-01-05T10:00:01Z\n")
	var missing []string
	call := 0
	for i, r := range Rules() {
		if !appliesToLogs(r) {
			continue
		}
		if r.ID == "private-key" {
			continue // written below, as a key looks: over several lines
		}
		ex, ok := example(r, uint64(i))
		if !ok {
			missing = append(missing, r.ID)
			continue
		}
		call++
		id := fmt.Sprintf("p%03d", call)
		switch {
		case call%4 == 0 && !strings.ContainsAny(ex, "\"\\") && !strings.Contains(ex, "→"):
			fmt.Fprintf(&b, "t!:Bash id=%s cmd=\"%s\" → [running]\no: id=%s → [ok] done\n", id, ex, id)
		case call%4 == 1:
			fmt.Fprintf(&b, "t!:Read id=%s file_path=.env → [running]\no: id=%s → [ok] %s\n", id, id, ex)
		case call%4 == 2:
			fmt.Fprintf(&b, "u: this fails with %s and I do not know why\n", ex)
		default:
			fmt.Fprintf(&b, "a: the configuration has %s\n", ex)
		}
	}
	// A private key, as cat prints it: header, body and footer on lines
	// of their own, inside the tool's output.
	call++
	fmt.Fprintf(&b, "t!:Bash id=p%03d cmd=\"cat ~/.ssh/id_rsa\" → [running]\no: id=p%03d → [ok] -----BEGIN RSA PRIVATE KEY-----\n", call, call)
	rnd := rand.New(rand.NewPCG(7, 7))
	for range 6 {
		b.WriteString("  " + randomString(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 64) + "\n")
	}
	b.WriteString("  -----END RSA PRIVATE KEY-----\n")
	// Encoded credentials, which gitleaks finds by decoding them (and
	// which redact replaces whole): base64 of an environment file, a
	// percent-encoded query, hex.
	encoded := "GITHUB_TOKEN=ghp_" + randomString(rnd, wordBytes, 36)
	fmt.Fprintf(&b, "t!:Bash id=q003 cmd=\"base64 .env\" → [running]\no: id=q003 → [ok] %s\n", base64.StdEncoding.EncodeToString([]byte(encoded)))
	fmt.Fprintf(&b, "u: the callback was https://ci.example.com/hook?auth=glpat%%2D%s&x=1\n", randomString(rnd, wordBytes, 20))
	fmt.Fprintf(&b, "o: id=q003 → [ok] %s\n", hex.EncodeToString([]byte("xoxb-"+randomString(rnd, "0123456789", 11)+"-"+randomString(rnd, "0123456789", 12)+"-"+randomString(rnd, wordBytes, 24))))
	// Passwords as people write them, which gitleaks does not all find
	// but rlog-ls does.
	for _, l := range []string{
		`t!:Bash id=q001 cmd="PGPASSWORD=Xk4pL9mQ2v psql -h db.internal -U app" → [running]`,
		`o: id=q001 → [ok] psql (16.2)`,
		`t!:Bash id=q002 cmd="mysql -u root -pS3cretRootPw shop < dump.sql" → [running]`,
		`o: id=q002 → [ok] done`,
		`o: id=p001 → [ok] config.yml: password: "Tr0ub4dor&3horse"`,
		`u: the admin login is password="correct horse battery staple"`,
	} {
		b.WriteString(l + "\n")
	}
	b.WriteString("@end ts=2026-01-05T10:30:00Z\n")
	return b.Bytes(), missing
}

// example makes a string that rule r finds, from its expression: random
// choices, tried with several seeds, kept when Find reports r on it.
func example(r Rule, seed uint64) (string, bool) {
	re, err := syntax.Parse(r.Regex, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	for try := range uint64(400) {
		rnd := rand.New(rand.NewPCG(seed, try))
		var sb strings.Builder
		generate(&sb, re, rnd)
		s := strings.TrimSpace(sb.String())
		if s == "" || strings.ContainsAny(s, "\n\r\t") || !validASCII(s) {
			continue
		}
		// Keywords that are not in the match (a rule that runs only in a
		// file naming its vendor) come with the line.
		if !keywordIn(r, s) {
			s = r.Keywords[0] + ": " + s
		}
		for _, f := range Find([]byte("x " + s + " x\n")) {
			if f.RuleID == r.ID {
				return s, true
			}
		}
	}
	return "", false
}

func keywordIn(r Rule, s string) bool {
	if len(r.Keywords) == 0 {
		return true
	}
	low := strings.ToLower(s)
	return slices.ContainsFunc(r.Keywords, func(k string) bool { return strings.Contains(low, k) })
}

func validASCII(s string) bool {
	for _, c := range []byte(s) {
		if c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

const wordBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randomString(rnd *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rnd.IntN(len(alphabet))]
	}
	return string(b)
}

// generate writes a random string that re matches, preferring what a log
// holds: few optional parts, blanks as spaces, letters and digits.
func generate(sb *strings.Builder, re *syntax.Regexp, rnd *rand.Rand) {
	switch re.Op {
	case syntax.OpLiteral:
		upper := rnd.IntN(2) == 0
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 {
				if upper {
					c = unicode.ToUpper(c)
				} else {
					c = unicode.ToLower(c)
				}
			}
			sb.WriteRune(c)
		}
	case syntax.OpCharClass:
		sb.WriteRune(pick(re.Rune, rnd))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		sb.WriteByte('.') // mostly a dot written without its backslash: hooks.slack.com
	case syntax.OpCapture:
		generate(sb, re.Sub[0], rnd)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			generate(sb, s, rnd)
		}
	case syntax.OpAlternate:
		generate(sb, re.Sub[rnd.IntN(len(re.Sub))], rnd)
	case syntax.OpStar:
	case syntax.OpPlus:
		for range 1 + rnd.IntN(3) {
			generate(sb, re.Sub[0], rnd)
		}
	case syntax.OpQuest:
		if rnd.IntN(2) == 0 {
			generate(sb, re.Sub[0], rnd)
		}
	case syntax.OpRepeat:
		n := re.Min
		if re.Max > re.Min {
			n += rnd.IntN(min(re.Max-re.Min, 8) + 1)
		} else if re.Max < 0 {
			n += rnd.IntN(8)
		}
		for range n {
			generate(sb, re.Sub[0], rnd)
		}
	}
}

// pick chooses a character of a class (pairs of bounds): a letter or a
// digit when it has one, a space for a class of blanks.
func pick(ranges []rune, rnd *rand.Rand) rune {
	var good []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := ranges[i]; c <= ranges[i+1] && c < 0x7f; c++ {
			if strings.ContainsRune(wordBytes, c) {
				good = append(good, c)
			}
		}
	}
	if len(good) > 0 {
		return good[rnd.IntN(len(good))]
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] <= ' ' && ' ' <= ranges[i+1] {
			return ' '
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for c := ranges[i]; c <= ranges[i+1] && c < 0x7f; c++ {
			if c > ' ' {
				good = append(good, c)
			}
		}
	}
	if len(good) > 0 {
		return good[rnd.IntN(len(good))]
	}
	return ranges[0]
}
