package companion

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

// pairCase is a log beside its companion, with the findings the join
// gives (line, code, the start of the message).
type pairCase struct {
	name     string
	log      string // "" when the corpus does not have the pair
	findings []string
	outputs  bool // whether the log has o: lines with a record
}

// fixturePairs are the pairs of testdata/companions that are one session.
func fixturePairs() []pairCase {
	return []pairCase{
		{"sdk", fixtures + "/sdk/222000-fix-locked-login.rlog", nil, true},
		{"trajectory", fixtures + "/trajectory/1610-list-the-cargo-files.rlog", nil, true},
		{"claude", fixtures + "/claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.rlog", nil, true},
		{"disagree", fixtures + "/disagree/224500-disagree.rlog", []string{
			"3 W015 Line 7 of 224500-disagree.jsonl cannot be read",
			"21 I006 224500-disagree.jsonl has this call's result (line 8)",
			"29 I006 224500-disagree.jsonl has a call the log does not have",
			"34 I005 Call Zz9xY8wQ is not in",
			"35 I005 The result of call Zz9xY8wQ is not in",
		}, true},
	}
}

// The real pairs of the corpus: autopilot logs and the companion the
// autopilot wrote beside each (kept in separate folders there).
// findings are where they disagree: the SDK files were copied while the
// session was still running, a line or two behind its log.
var corpusPairs = []struct {
	log, record string
	findings    []string
}{
	{"rlog/openagents-docs-logs/20251222/162040-call-issue-ready-now-to.rlog", "autopilot-sdk-jsonl/openagents-docs-logs/20251222/162040-call-issue-ready-now-to.jsonl",
		[]string{"496 I005 The result of call pr5jMXpN", "497 I005 Call DhgiQSgm"}},
	{"rlog/openagents-docs-logs/20251222/143545-call-issue-ready-now-to.rlog", "autopilot-sdk-jsonl/openagents-docs-logs/20251222/143545-call-issue-ready-now-to.jsonl",
		[]string{"166 I005 The result of call QfeRZEuN", "167 I005 Call YqaYZRDJ"}},
	{"rlog/openagents-docs-logs/20251223/082302-call-issue-ready-now-to.rlog", "autopilot-sdk-jsonl/openagents-docs-logs/20251223/082302-call-issue-ready-now-to.jsonl",
		[]string{"872 I005 The result of call QLjjxcFx"}},
	{"rlog/openagents-docs-logs/20251219/1609-say-hello-and-tell.rlog", "autopilot-trajectory-json/openagents-docs-logs/20251219/1609-say-hello-and-tell.json", nil},
	{"rlog/openagents-docs-logs/20251219/1610-list-the-cargo-toml-files.rlog", "autopilot-trajectory-json/openagents-docs-logs/20251219/1610-list-the-cargo-toml-files.json", nil},
	{"rlog/openagents-docs-logs/20251219/1916-use-issue-ready-to-get.rlog", "autopilot-trajectory-json/openagents-docs-logs/20251219/1916-use-issue-ready-to-get.json", nil},
}

// pairs are the fixture pairs, then the corpus pairs (named by the log's
// file name) when there is a corpus.
func pairs(t *testing.T) []pairCase {
	out := fixturePairs()
	if _, ok := corpus.Sweep(t); !ok {
		return out
	}
	for _, pr := range corpusPairs {
		c := pairCase{name: filepath.Base(pr.log), findings: pr.findings, outputs: !strings.Contains(pr.log, "1609")}
		c.log = pairCorpus(t, pr.log, pr.record)
		out = append(out, c)
	}
	return out
}

// pairCorpus puts a real pair side by side, as the autopilot wrote them,
// or returns "" (logged) when the corpus lacks one of the two.
func pairCorpus(t *testing.T, log, record string) string {
	t.Helper()
	dir := t.TempDir()
	dst := filepath.Join(dir, filepath.Base(log))
	for rel, to := range map[string]string{log: dst, record: strings.TrimSuffix(dst, ".rlog") + filepath.Ext(record)} {
		src, ok := corpus.SweepFile(t, rel)
		if !ok {
			return ""
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// appended matches the key=value words a writer appends to an o: line
// after its output (ts=, tid=, …).
var appended = regexp.MustCompile(`(\s+\w+=\S*)+$`)

// shownOutput is the output an o: line's result shows: after its [status],
// without the words appended to the line and the "..." that marks a cut.
func shownOutput(result string) string {
	shown := strings.TrimSpace(result[strings.IndexByte(result, ']')+1:])
	shown = appended.ReplaceAllString(shown, "")
	return strings.TrimSpace(strings.TrimSuffix(shown, "..."))
}

// TestPairsShowWholeOutputs: on every pair, each line the writer cut
// short joins the record it was cut from, and the hover shows the whole of
// it: every o: line's output in full starts as the line does. The
// findings are the pair's.
func TestPairsShowWholeOutputs(t *testing.T) {
	for _, pr := range pairs(t) {
		if pr.log == "" {
			continue
		}
		t.Run(pr.name, func(t *testing.T) {
			tr, s := openPair(t, pr.log)
			p := Join(tr, s)
			if p.Mismatch {
				t.Fatal("the pair is not one session")
			}
			var got []string
			for _, f := range p.Findings() {
				got = append(got, fmt.Sprintf("%d %s %s", f.Line+1, f.Code, f.Message))
			}
			if len(got) != len(pr.findings) {
				t.Errorf("findings:\n%s", strings.Join(got, "\n"))
			}
			for i := range min(len(got), len(pr.findings)) {
				if !strings.HasPrefix(got[i], pr.findings[i]) {
					t.Errorf("finding %q, want %q…", got[i], pr.findings[i])
				}
			}
			outputs := 0
			for l := range tr.Body() {
				if l.Kind != grammar.Observation {
					continue
				}
				ref, ok := p.Record(l.Num)
				if !ok {
					continue // reported by the findings, checked above
				}
				c, err := s.Content(ref)
				if err != nil {
					t.Fatalf("line %d: %v", l.Num+1, err)
				}
				shown := shownOutput(string(tr.Slice(l.Result.Start, l.Result.End)))
				first, _, _ := strings.Cut(c.Text, "\n")
				if !strings.HasPrefix(strings.TrimSpace(first), shown) {
					t.Errorf("line %d shows %q, its record starts %.100q", l.Num+1, shown, first)
				}
				md := Markdown(c, s.Files[ref.File].Path, int(s.Files[ref.File].Record(int(ref.Rec)).Line))
				if c.Text != "" && !strings.Contains(md, strings.TrimRight(first, " ")) {
					t.Errorf("line %d: the hover lacks the output's first line", l.Num+1)
				}
				outputs++
			}
			if (outputs > 0) != pr.outputs {
				t.Errorf("%d outputs joined", outputs)
			}
		})
	}
}

// outputPin is what the hover shows of one output, pinned exactly: its
// length in characters and its SHA-256, what it is, and the line of the
// companion its record starts on.
type outputPin struct {
	pair   string // a pairCase's name
	line   string // the log line, as written
	record int    // the record's line in the companion, 1-based
	chars  int
	sha    string
	title  string
}

// TestPinnedOutputs pins outputs of the fixture pairs (each the whole
// tool_result of its record, a sub-agent's answer among them), then of the
// corpus pairs when there is a corpus.
func TestPinnedOutputs(t *testing.T) {
	pins := []outputPin{
		{"sdk", "o: id=v678oiff → [ok]      1→use crate::session::{Session, SessionStore};...", 4, 872, "58c44f6bb1410fdef1b72ce401f22db79800475fdb146e629578c3bd7b91fcf4", "Output of Read"},
		{"sdk", "o: id=DZYW3CfJ → [ok] Found 3 callers of `create_session`: `login` (src/auth/login.rs:11), `refresh` (src/auth/refresh....", 10, 275, "2fecf44bd2fea2d4cae7c3cbe7c6a2358216525fcd48997f038c293f19bbcfaa", "Output of Task"},
		{"trajectory", "o: id=toolu_01 → [ok]      1→[workspace]...", 63, 381, "1a399c8be3b34f8a15bad495c5938289d32116e598a932a36c698b5c30b9e1b8", "Output of Read"},
		{"claude", "o: id=toolu_018BphSNPxHyxFD8EioXnZGv → [ok] price_cart runs `db.product(id)` and `db.tax_rate(region, category)` inside the loop over cart it... ts=2025-12-11T21:28:40.100Z", 7, 259, "624caa420d908030cadcbe695aa60c8accbd6a5a874c4ac06d883620d35d4239", "Output of Task"},
		{"162040-call-issue-ready-now-to.rlog", "o: id=wrsPQhGu → [ok] {", 7, 11539, "38319fc24267da0c9db66e801e0810864d5c13c974e2893ef6ed8b5d604033aa", "Output of mcp__issues__directive_get"},
		{"162040-call-issue-ready-now-to.rlog", "o: id=ycohCjKF → [ok] {", 16, 41158, "5b704ff1b8f99bc6093b9f5c0f21fd73d667da81f228c802dde1461a91cf02bc", "Output of mcp__issues__directive_get"},
		{"162040-call-issue-ready-now-to.rlog", "o: id=ZZiYgV5N → [ok] No ready issues available", 4, 25, "e84fe1bf53e56e75806cf8a2144899341caf11ad9709ccdb47a755a26093f1bb", "Output of mcp__issues__issue_ready"},
		{"082302-call-issue-ready-now-to.rlog", "o: id=28qtn8Pj → [ok] {", 7, 13443, "587885b8a90616d58ed1e09b98b4f747a1e9cb8c75018655a4712e1663f84a50", "Output of mcp__issues__directive_get"},
		{"1916-use-issue-ready-to-get.rlog", "o: id=toolu_01 → [ok] {", 47, 360, "3dd1010c671d095b4573c2c7f8c7f7bac5570b52988461a8098175d9ee980b48", "Output of mcp__issues__issue_ready"},
		{"1916-use-issue-ready-to-get.rlog", "o: id=toolu_01 → [ok]      1→//! Autopilot CLI - Run autonomous tasks with Claude and log trajectories", 238, 15990, "d23f5215ec3a56e2354a9f855eb4f671d9c2f65402eb14762402ff1f35686319", "Output of Read"},
	}
	type pair struct {
		tr *grammar.Tree
		s  *Snapshot
		p  *Pairing
	}
	opened := map[string]pair{}
	for _, pc := range pairs(t) {
		if pc.log != "" {
			tr, s := openPair(t, pc.log)
			opened[pc.name] = pair{tr, s, Join(tr, s)}
		}
	}
	for _, pin := range pins {
		pp, ok := opened[pin.pair]
		if !ok {
			continue // a corpus pair, without the corpus: logged by pairs
		}
		found := false
		for l := range pp.tr.Body() {
			if string(pp.tr.Text(l)) != pin.line {
				continue
			}
			found = true
			ref, ok := pp.p.Record(l.Num)
			if !ok {
				t.Fatalf("%q has no record", pin.line)
			}
			c, err := pp.s.Content(ref)
			if err != nil {
				t.Fatal(err)
			}
			rec := pp.s.Files[ref.File].Record(int(ref.Rec))
			sum := fmt.Sprintf("%x", sha256.Sum256([]byte(c.Text)))
			if int(rec.Line)+1 != pin.record || utf8.RuneCountInString(c.Text) != pin.chars || sum != pin.sha || c.What != pin.title {
				t.Errorf("%s: %q: record line %d, %d characters, sha256 %s, %q", pin.pair, pin.line, rec.Line+1, utf8.RuneCountInString(c.Text), sum, c.What)
			}
			break
		}
		if !found {
			t.Errorf("%s: no line %q", pin.pair, pin.line)
		}
	}
}
