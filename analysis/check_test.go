package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

const okHeader = "---\nformat: rlog/1\nid: s1\nrepo_sha: abc123\nrunner: local\n---\n"

func TestDisableCodes(t *testing.T) {
	cfg, unknown := DisableCodes([]string{"w009", " I004", "W003", "X999", ""})
	if len(unknown) != 1 || unknown[0] != "X999" || len(cfg.Disabled) != 3 || !cfg.Disabled["W009"] || !cfg.Disabled["I004"] {
		t.Fatalf("%v %v", cfg, unknown)
	}
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
		got = append(got, string(f.Code)+":"+f.Severity.String())
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
