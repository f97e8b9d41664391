package analysis

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
)

const okHeader = "---\nformat: rlog/1\nid: s1\nrepo_sha: abc123\nrunner: local\n---\n"

// render prints findings as "line:col-line:col CODE message" with 1-based
// lines and character columns, the way users see them.
func render(src string, fs []Finding) []string {
	pos := func(off int) string {
		line := strings.Count(src[:off], "\n")
		ls := strings.LastIndexByte(src[:off], '\n') + 1
		return fmt.Sprintf("%d:%d", line+1, utf8.RuneCountInString(src[ls:off])+1)
	}
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s-%s %s %s", pos(f.Span.Start), pos(f.Span.End), f.Code, f.Message))
	}
	return out
}

func expect(t *testing.T, name, src string, cfg Config, want ...string) {
	t.Helper()
	got := render(src, Check(grammar.Parse([]byte(src)), cfg))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got:\n  %s\n want:\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestHeaderRules(t *testing.T) {
	expect(t, "clean file", okHeader+"u: hi\n", Config{})
	expect(t, "E001 no header, body still analysed", "u: hi\nwat\n", Config{},
		"1:1-1:6 E001 Missing header start '---'",
		"2:1-2:4 W003 Unknown line format: wat")
	expect(t, "E002 unterminated, body still analysed", "---\nformat: rlog/1\nid: a\nrepo_sha: abcdef\nrunner: x\n\nwat\n", Config{},
		"1:1-1:4 E002 Missing header end '---'",
		"7:1-7:4 W003 Unknown line format: wat")
	expect(t, "E003 YAML error on its line", "---\nformat: rlog/1\nid: a: b\n---\nwat\n", Config{},
		"3:1-3:9 E003 YAML error: mapping values are not allowed in this context",
		"5:1-5:4 W003 Unknown line format: wat")
	expect(t, "E003 duplicate key", "---\nformat: rlog/1\nid: a\nrepo_sha: abcdef\nrunner: x\nid: b\n---\n", Config{},
		"6:1-6:3 E003 YAML error: duplicate field `id` (first defined on line 3)")
	expect(t, "E004 missing and empty", "---\nformat: rlog/1\nid: ~\nrunner: x\n---\n", Config{},
		"3:1-3:3 E004 Missing required header field: id (the value is empty)",
		"1:1-1:4 E004 Missing required header field: repo_sha")
	expect(t, "E005 format not rlog/", "---\nformat: json\nid: a\nrepo_sha: abcdef\nrunner: x\n---\n", Config{},
		"2:9-2:13 E005 Invalid format version: json")
	expect(t, "E006 types", "---\nformat: rlog/1\nid: a\nrepo_sha: abcdef\nrunner: x\ndirty: maybe\nskills: deploy\ntokens_total_in: -3\nbranch: [a]\ntokens_cache_create: lots\nextra_field: {any: thing}\n---\n", Config{},
		`6:8-6:13 E006 Header field dirty must be a boolean (true or false), not "maybe"`,
		`7:9-7:15 E006 Header field skills must be a list, not "deploy"`,
		`8:18-8:20 E006 Header field tokens_total_in must be a whole number, not "-3"`,
		"9:9-9:12 E006 Header field branch must be a single value, not a list",
		`10:22-10:26 E006 Header field tokens_cache_create must be a whole number, not "lots"`)
	expect(t, "W008 W009 I003 I004", "---\nformat: rlog/2\nid: a\nrepo_sha: abc\nmode: auto\n---\n", Config{},
		"2:9-2:15 W008 Unknown format version: rlog/2 (expected rlog/1)",
		"4:11-4:14 W009 repo_sha 'abc' has unusual length (expected 6-40 hex chars)",
		"5:7-5:11 I003 Auto mode session without sandbox_id",
		"1:1-1:4 I004 No runner specified (recommended for replay)")
	expect(t, "W009 non-hex, rlog/1.0, upper-case hex", "---\nformat: rlog/1.0\nid: a\nrepo_sha: unknown\nrunner: x\n---\n", Config{},
		"4:11-4:18 W009 repo_sha 'unknown' contains non-hex characters (expected 6-40 hex chars)")
	expect(t, "numeric repo_sha is a string", "---\nformat: rlog/1\nid: a\nrepo_sha: 560549231\nrunner: x\n---\n", Config{})
	expect(t, "upper-case hex", "---\nformat: rlog/1\nid: a\nrepo_sha: ABCDEF12\nrunner: x\nmode: auto\nsandbox_id: sb\n---\n", Config{})
}

func TestLineRules(t *testing.T) {
	expect(t, "W001 and W002 depend on order", okHeader+
		"o: id=later → [ok]\n"+
		"t~:test id=later [1/2]\n"+
		"t!:Read id=later → [running]\n"+
		"t~:test id=later [2/2]\n"+
		"o: id=later → [ok]\n"+
		"t~:test [no id is never checked]\n", Config{},
		"7:7-7:12 W002 Observation references unknown call id: later",
		"8:12-8:17 W001 Tool progress references unknown call id: later")
	expect(t, "ids registered by t:, x:, c:, q:", okHeader+
		"t:read id=a → [ok]\nx:explore id=b → [started]\nc:gh.issues id=c → [1]\nq: which? id=d → [x]\n"+
		"o: id=a\no: id=b\no: id=c\no: id=d\nu: x id=e\no: id=e\n", Config{},
		"16:7-16:8 W002 Observation references unknown call id: e")
	expect(t, "W003 cut to 50 characters", okHeader+"x: "+strings.Repeat("é", 60)+"\n", Config{},
		"7:1-7:64 W003 Unknown line format: x: "+strings.Repeat("é", 44)+"...")
	expect(t, "W004 decreasing steps, equal is fine, last wins", okHeader+
		"u: step=3\na: step=3\n# step=1\na: step=2\n", Config{},
		"9:8-9:9 W004 Step 1 is less than previous step 3")
	expect(t, "W005", okHeader+
		"u: a ts=2025-13-45T99:99:99Z\nu: b ts=yesterday\nu: c ts=2025-12-19T20:29:02.123+02:00\nu: d ts=2025-12-19T20:29:02\nu: e ts=2025-12-19T20:29:02.5Z\n", Config{},
		"7:9-7:29 W005 Invalid timestamp format: 2025-13-45T99:99:99Z",
		"8:9-8:18 W005 Invalid timestamp format: yesterday")
	expect(t, "W006", okHeader+"t:r id=x → [ok]\no: id=x → @blob sha256=abc12 @blob sha256=abcdef12\n", Config{},
		"8:24-8:29 W006 Blob sha256 too short: abc12")
	expect(t, "W007 on the start line, in file order; t: needs a result", okHeader+
		"t!:B id=b → [running]\nt!:A id=a → [running]\nt!:C id=c → [running]\nt:C id=c\nt!:D id=d\no: id=d\n", Config{},
		"7:9-7:10 W007 Tool start 'b' has no completion",
		"8:9-8:10 W007 Tool start 'a' has no completion",
		"9:9-9:10 W007 Tool start 'c' has no completion")
	expect(t, "W010 duplicate start", okHeader+
		"x:Explore id=s → [started]\nt!:Task id=s → [running]\nt!:Read id=s → [running]\no: id=s → [ok]\n", Config{},
		"9:12-9:13 W010 Call id 's' was already started on line 8")
	expect(t, "W011 ascii arrow", okHeader+"t:read src/auth.rs -> [186 lines]\na: x -> y\n", Config{},
		"7:20-7:22 W011 `->` is not a result arrow: write `→` so the result is read")
	expect(t, "W012 W013", okHeader+"a: bad \xff byte\na: nul \x00 byte\n", Config{},
		"7:8-7:9 W012 Line is not valid UTF-8 (the invalid bytes are shown as \uFFFD)",
		"8:8-8:9 W013 Line contains a NUL byte")
	expect(t, "H001 H002", okHeader+"@start\n@startup x\n@wait-approval\n@chekpoint\na: [REDACTED] and [redacted:key]\n@end\n", Config{},
		"8:2-8:9 H001 Unknown lifecycle event `@startup` (did you mean `@start`?)",
		"10:2-10:11 H001 Unknown lifecycle event `@chekpoint` (did you mean `@checkpoint`?)",
		"11:4-11:14 H002 `[REDACTED]` is counted as a redaction, but rlog/1 writes `[redacted:kind]`")
}

func TestSessionRules(t *testing.T) {
	long := okHeader + strings.Repeat("a: x\n", 51)
	expect(t, "I001 after 50 body lines", long, Config{},
		"1:1-1:4 I001 Long session without @start lifecycle event")
	expect(t, "no I001 at 50", okHeader+strings.Repeat("a: x\n", 50), Config{})
	expect(t, "I002 prefix semantics: @endpoint ends", okHeader+"@startup\n@endpoint\n", Config{Disabled: map[string]bool{"H001": true}})
	expect(t, "I002", okHeader+"@start\n", Config{},
		"1:1-1:4 I002 Session has @start but no @end")
	fs := Check(grammar.Parse([]byte(okHeader+"a: x\n@start\n")), Config{})
	if len(fs) != 1 || len(fs[0].Related) != 1 || fs[0].Related[0].Line != 7 {
		t.Fatalf("I002 should point at the @start line: %+v", fs)
	}
}

func TestOrderAndDisable(t *testing.T) {
	src := "---\nformat: rlog/1\nid: a\nrepo_sha: abc\n---\n@start\nwat\no: id=zz\nt!:X id=q\n"
	expect(t, "header, lines in file order, then session", src, Config{},
		"4:11-4:14 W009 repo_sha 'abc' has unusual length (expected 6-40 hex chars)",
		"1:1-1:4 I004 No runner specified (recommended for replay)",
		"7:1-7:4 W003 Unknown line format: wat",
		"8:7-8:9 W002 Observation references unknown call id: zz",
		"9:9-9:10 W007 Tool start 'q' has no completion",
		"1:1-1:4 I002 Session has @start but no @end")
	cfg, unknown := DisableCodes([]string{"w009", " I004", "W003", "X999", ""})
	if len(unknown) != 1 || unknown[0] != "X999" {
		t.Fatalf("unknown codes %v", unknown)
	}
	expect(t, "disabled", src, cfg,
		"8:7-8:9 W002 Observation references unknown call id: zz",
		"9:9-9:10 W007 Tool start 'q' has no completion",
		"1:1-1:4 I002 Session has @start but no @end")
}

func TestPositionsOnHostileLines(t *testing.T) {
	// CRLF, emoji and tabs before the id: the span must still cover the id.
	src := strings.ReplaceAll(okHeader, "\n", "\r\n") + "o: 😀\tid=nope → [ok]\r\n"
	expect(t, "crlf emoji tab", src, Config{},
		"7:9-7:13 W002 Observation references unknown call id: nope")
}

func TestStatsCountUsageOncePerMessage(t *testing.T) {
	src := okHeader +
		// autopilot: every block of one message repeats the same usage
		"a: one tokens_in=2 tokens_out=2 tokens_cached=100\n" +
		"t!:Read id=a  → [running] tokens_in=2 tokens_out=2 tokens_cached=100\n" +
		"o: id=a → [ok]\n" +
		"t!:Read id=b  → [running] tokens_in=4 tokens_out=32 tokens_cached=200\n" +
		"o: id=b → [ok]\n" +
		// converter: message_id groups entries even when not adjacent
		"th: x message_id=\"m1\" tokens_in=9 tokens_out=4 tokens_cached=10 tokens_cache_create=7\n" +
		"u: result\n" +
		"a: y message_id=\"m1\" tokens_in=9 tokens_out=4 tokens_cached=10 tokens_cache_create=7\n" +
		"a: z message_id=\"m2\" tokens_in=9 tokens_out=4 tokens_cached=10 tokens_cache_create=7\n" +
		"@end tokens_in=1000 tokens_out=1000\n" +
		"x:Explore id=c → [started] [REDACTED] [redacted:k] @blob sha256=abcdef\n"
	s := SessionStats(grammar.Parse([]byte(src)))
	if s.TokensIn != 2+4+9+9 || s.TokensOut != 2+32+4+4 || s.TokensCached != 100+200+10+10 || s.TokensCacheCreate != 14 || s.Messages != 4 {
		t.Fatalf("token totals %+v", s)
	}
	if s.ToolCalls != 2 || s.Observations != 2 || s.UniqueCallIDs != 3 || s.Subagents != 1 || s.LifecycleEvents != 1 ||
		s.RedactedValues != 2 || s.LegacyRedactions != 1 || s.BlobReferences != 1 || s.ThinkingBlocks != 1 || s.TotalLines != 11 {
		t.Fatalf("counters %+v", s)
	}
}

// TestDiagnosticsDocCoversEveryCode keeps docs/diagnostics.md in step with
// the rule catalogue: every code has a section with an example and a fix.
func TestDiagnosticsDocCoversEveryCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := regexp.MustCompile(`(?m)^## ([A-Z]\d{3})\b`).FindAllStringSubmatchIndex(string(doc), -1)
	found := map[string]string{}
	for i, m := range sections {
		end := len(doc)
		if i+1 < len(sections) {
			end = sections[i+1][0]
		}
		found[string(doc[m[2]:m[3]])] = string(doc[m[0]:end])
	}
	for _, r := range Rules {
		sec, ok := found[r.Code]
		if !ok {
			t.Errorf("docs/diagnostics.md has no section for %s", r.Code)
			continue
		}
		if !strings.Contains(sec, "```") || !strings.Contains(strings.ToLower(sec), "fix") {
			t.Errorf("%s: section needs an example block and a fix", r.Code)
		}
		delete(found, r.Code)
	}
	for code := range found {
		t.Errorf("docs/diagnostics.md documents %s, which no rule reports", code)
	}
}

func TestSeverityOverrides(t *testing.T) {
	src := "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\napi_key: sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5\n---\n" +
		"u: password=Tr0ub4dor3xK\nwat\n"
	tree := grammar.Parse([]byte(src))
	severities := func(cfg Config) string {
		var out []string
		for _, f := range Check(tree, cfg) {
			out = append(out, fmt.Sprintf("%s:%d:%s", f.Code, f.Line+1, f.Severity))
		}
		return strings.Join(out, " ")
	}
	// A credential is an error by default, in the header and in the body.
	if got, want := severities(Config{}), "I004:1:info S001:5:error S001:7:error W003:8:warning"; got != want {
		t.Fatalf("defaults: %s, want %s", got, want)
	}
	cfg, problems := Config{}.SetSeverities(map[string]string{"s001": "Warning", "W003": "error", "I004": " hint "})
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if got, want := severities(cfg), "I004:1:hint S001:5:warning S001:7:warning W003:8:error"; got != want {
		t.Fatalf("overridden: %s, want %s", got, want)
	}
	// The analyzer an editor keeps applies them too, after edits.
	a := NewAnalyzer(tree)
	a.Update(tree.Edit(len(src)-4, len(src)-1, []byte("huh")))
	var got []string
	for _, f := range a.Findings(cfg) {
		got = append(got, f.Code+":"+f.Severity.String())
	}
	if strings.Join(got, " ") != "I004:hint S001:warning S001:warning W003:error" {
		t.Fatalf("analyzer: %v", got)
	}
	// Bad entries are reported and left out; the good ones still apply.
	cfg, problems = cfg.SetSeverities(map[string]string{"Z999": "error", "W003": "loud", "W002": "error"})
	if strings.Join(problems, "; ") != `W003: unknown severity "loud" (error, warning, info or hint); unknown code "Z999"` ||
		cfg.Severities["W002"] != Error || cfg.Severities["W003"] != Error || cfg.Severities["S001"] != Warning {
		t.Fatalf("%v %v", problems, cfg.Severities)
	}
}

// TestStatsAddCoversEveryField: a counter added to Stats must be added up
// in totals too.
func TestStatsAddCoversEveryField(t *testing.T) {
	var one Stats
	v := reflect.ValueOf(&one).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.Uint64:
			f.SetUint(uint64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		}
	}
	var sum Stats
	sum.Add(one)
	sum.Add(one)
	s := reflect.ValueOf(sum)
	for i := range s.NumField() {
		name := s.Type().Field(i).Name
		switch f := s.Field(i); f.Kind() {
		case reflect.Int, reflect.Uint64:
			want := 2 * (i + 1)
			if name == "MaxStep" {
				want = i + 1
			}
			if got := fmt.Sprint(f.Interface()); got != fmt.Sprint(want) {
				t.Errorf("%s: %s, want %d", name, got, want)
			}
		case reflect.Bool:
			if !f.Bool() {
				t.Errorf("%s not carried", name)
			}
		}
	}
}
