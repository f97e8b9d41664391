package companion

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

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

// pairCorpus puts a real pair side by side, as the autopilot wrote them.
func pairCorpus(t *testing.T, log, record string) string {
	dir := t.TempDir()
	dst := filepath.Join(dir, filepath.Base(log))
	for src, to := range map[string]string{corpus.Path(t, log): dst, corpus.Path(t, record): strings.TrimSuffix(dst, ".rlog") + filepath.Ext(record)} {
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

// TestCorpusPairs: on every real pair, each line the writer cut short
// joins the record it was cut from, and the hover shows the whole of it:
// every o: line's output in full starts as the line does.
func TestCorpusPairs(t *testing.T) {
	for _, pr := range corpusPairs {
		t.Run(filepath.Base(pr.log), func(t *testing.T) {
			tr, s := openPair(t, pairCorpus(t, pr.log, pr.record))
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
					continue // reported by the findings, checked below
				}
				c, err := s.Content(ref)
				if err != nil {
					t.Fatalf("line %d: %v", l.Num+1, err)
				}
				shown := string(tr.Slice(l.Result.Start, l.Result.End))
				shown = strings.TrimSpace(shown[strings.IndexByte(shown, ']')+1:])
				shown = strings.TrimSuffix(shown, "...")
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
			if outputs == 0 && !strings.Contains(pr.log, "1609") {
				t.Error("no output joined")
			}
		})
	}
}

// TestCorpusPinned pins real outputs exactly: the whole output the hover
// shows (its length in characters and its SHA-256), what it is, and the
// line of the companion its record starts on.
func TestCorpusPinned(t *testing.T) {
	pins := []struct {
		pair   int
		line   string // the log line, as written
		record int    // the record's line in the companion, 1-based
		chars  int
		sha    string
		title  string
	}{
		{0, "o: id=wrsPQhGu → [ok] {", 7, 11539, "38319fc24267da0c9db66e801e0810864d5c13c974e2893ef6ed8b5d604033aa", "Output of mcp__issues__directive_get"},
		{0, "o: id=ycohCjKF → [ok] {", 16, 41158, "5b704ff1b8f99bc6093b9f5c0f21fd73d667da81f228c802dde1461a91cf02bc", "Output of mcp__issues__directive_get"},
		{0, "o: id=ZZiYgV5N → [ok] No ready issues available", 4, 25, "e84fe1bf53e56e75806cf8a2144899341caf11ad9709ccdb47a755a26093f1bb", "Output of mcp__issues__issue_ready"},
		{2, "o: id=28qtn8Pj → [ok] {", 7, 13443, "587885b8a90616d58ed1e09b98b4f747a1e9cb8c75018655a4712e1663f84a50", "Output of mcp__issues__directive_get"},
		{5, "o: id=toolu_01 → [ok] {", 47, 360, "3dd1010c671d095b4573c2c7f8c7f7bac5570b52988461a8098175d9ee980b48", "Output of mcp__issues__issue_ready"},
		{5, "o: id=toolu_01 → [ok]      1→//! Autopilot CLI - Run autonomous tasks with Claude and log trajectories", 238, 15990, "d23f5215ec3a56e2354a9f855eb4f671d9c2f65402eb14762402ff1f35686319", "Output of Read"},
	}
	type pair struct {
		tr *grammar.Tree
		s  *Snapshot
		p  *Pairing
	}
	opened := map[int]pair{}
	for _, pin := range pins {
		pp, ok := opened[pin.pair]
		if !ok {
			pr := corpusPairs[pin.pair]
			tr, s := openPair(t, pairCorpus(t, pr.log, pr.record))
			pp = pair{tr, s, Join(tr, s)}
			opened[pin.pair] = pp
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
				t.Errorf("%q: record line %d, %d characters, sha256 %s, %q", pin.line, rec.Line+1, utf8.RuneCountInString(c.Text), sum, c.What)
			}
			break
		}
		if !found {
			t.Fatalf("no line %q", pin.line)
		}
	}
}
