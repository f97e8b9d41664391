package report

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

func build(t *testing.T, src string) *Data {
	t.Helper()
	tree := grammar.Parse([]byte(src))
	findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, DefaultMaxFindings)
	return Build(tree, analysis.SessionOf(tree), findings, more, Options{Name: "x.rlog"})
}

// TestTimedFixtureData: the data of testdata/logs/timed.rlog, as the page gets
// it, compared with testdata/timed.json (go test ./report -update
// rewrites it). Read it beside the log: lines are 1-based, times in ms
// since 20:29:02.
func TestTimedFixtureData(t *testing.T) {
	src, err := os.ReadFile("../testdata/logs/timed.rlog")
	if err != nil {
		t.Fatal(err)
	}
	tree := grammar.Parse(src)
	findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, DefaultMaxFindings)
	d := Build(tree, analysis.SessionOf(tree), findings, more, Options{Name: "timed.rlog", Generator: "rlog-ls test"})
	got, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.CheckFile(t, "testdata/timed.json", got)
}

// Calls that overlap go to separate rows; a call of a subagent (by its
// tid=) to the subagent's rows; the subagents that overlap to separate
// subagent rows.
func TestLanes(t *testing.T) {
	d := build(t, "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n"+
		"t!:A id=a → [running]\n"+ // 6
		"t!:B id=b → [running]\n"+ // 7: while a runs
		"o: id=a → [ok]\n"+
		"o: id=b → [error]\n"+
		"t!:C id=c → [running]\n"+ // 10: a and b are done: row 0 again
		"x:Explore id=x1 → [started] tid=t1\n"+
		"x:Plan id=x2 → [started] tid=t2\n"+ // overlaps x1
		"t!:D id=d → [running] tid=t1\n"+
		"t!:E id=e → [running] tid=t1\n"+
		"o: id=d → [ok] tid=t1\n"+
		"o: id=e → [ok] tid=t1\n"+
		"t!:F id=f → [running] tid=t2\n"+
		"o: id=f → [ok] tid=t2\n"+
		"x:Explore id=x1 → [done] tid=t1\n"+
		"x:Plan id=x2 → [done] tid=t2\n"+
		"o: id=c → [ok]\n")
	c := d.Calls
	got := fmt.Sprint(c.Line, c.End, c.Outcome, c.Group, c.Lane)
	want := "[6 7 10 13 14 17] [8 9 21 15 16 18] [1 2 1 1 1 1] [-1 -1 -1 0 0 1] [0 1 0 0 1 0]"
	if got != want {
		t.Errorf("calls\n got %s\nwant %s", got, want)
	}
	if fmt.Sprint(d.Lanes.Main, d.Lanes.Subagents) != "2 [2 1]" {
		t.Errorf("lanes %+v", d.Lanes)
	}
	if len(d.Subagents) != 2 || d.Subagents[0].Lane != 0 || d.Subagents[1].Lane != 1 || d.Subagents[0].Calls != 2 || d.Subagents[1].Calls != 1 {
		t.Errorf("subagents %+v", d.Subagents)
	}
	// Names index the tools, most calls first.
	for i, tool := range c.Tool {
		if name := d.Tools[tool].Name; name != string("ABCDEF"[i]) {
			t.Errorf("call %d is %s", i, name)
		}
	}
}

// Unfinished calls hold their row to the end; rows are capped, the rest
// sharing the last.
func TestLanesCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n")
	for i := range maxMainLanes + 5 {
		fmt.Fprintf(&b, "t!:Bash id=c%d → [running]\n", i)
	}
	d := build(t, b.String())
	if d.Lanes.Main != maxMainLanes {
		t.Fatalf("%d rows", d.Lanes.Main)
	}
	for i, lane := range d.Calls.Lane {
		if want := min(i, maxMainLanes-1); int(lane) != want {
			t.Errorf("call %d in row %d, want %d", i, lane, want)
		}
		if d.Calls.End[i] != 0 || d.Calls.Outcome[i] != 0 {
			t.Errorf("call %d: end %d outcome %d", i, d.Calls.End[i], d.Calls.Outcome[i])
		}
	}
}

// Times: the anchors the page interpolates between. A time that goes back
// is held at the latest before it; a run of one time keeps its ends.
func TestTimes(t *testing.T) {
	d := build(t, "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n"+
		"u: a ts=2025-01-01T00:00:00Z\n"+ // 6
		"u: b ts=2025-01-01T00:00:10Z\n"+
		"u: c ts=2025-01-01T00:00:10Z\n"+
		"u: d ts=2025-01-01T00:00:10Z\n"+
		"u: e ts=2025-01-01T00:00:10Z\n"+ // 10
		"u: f ts=2025-01-01T00:00:05Z\n"+ // back in time: held at 10 s
		"u: g\n"+
		"u: h ts=2025-01-01T00:00:20.5Z\n")
	if fmt.Sprint(d.Times.Line, d.Times.MS) != "[6 7 11 13] [0 10000 10000 20500]" || !d.Timed {
		t.Errorf("times %v %v", d.Times.Line, d.Times.MS)
	}
	// No timestamps, or one: no anchors, not timed.
	for _, src := range []string{"u: a\n", "@start id=x ts=2025-01-01T00:00:00Z\nu: a\n"} {
		if d := build(t, "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n"+src); d.Timed || len(d.Times.Line) != 0 || d.Summary.DurationMS != nil {
			t.Errorf("%q: %+v", src, d.Times)
		}
	}
}

// The cumulative tokens: one point per counted message, or when they are
// more than maxTokenPoints, one after every 2nd, 4th... (the smallest step
// that keeps at most maxTokenPoints), and one after the last.
func TestTokenSeries(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n")
	n := maxTokenPoints*2 + 7
	for i := range n {
		// Each message reads another cache (as each request of a session
		// does); the same message again, without an id, reads the same.
		fmt.Fprintf(&b, "a: m%d tokens_in=1 tokens_out=%d tokens_cached=%d\n", i, 2+i%2, i)
		if i == 0 {
			b.WriteString("a: the same message again tokens_in=1 tokens_out=2 tokens_cached=0\n")
		}
	}
	d := build(t, b.String())
	ts := d.Tokens
	// 4,007 messages: every 4th (1,001 points), and the last.
	if len(ts.Line) != n/4+1 || ts.In[len(ts.In)-1] != uint64(n) || d.Summary.Tokens.In != uint64(n) {
		t.Fatalf("%d points, last in %d, total %d", len(ts.Line), ts.In[len(ts.In)-1], d.Summary.Tokens.In)
	}
	for i := range n / 4 {
		if ts.In[i] != uint64(4*(i+1)) {
			t.Fatalf("point %d is after %d messages, want %d", i, ts.In[i], 4*(i+1))
		}
	}
	// As many messages as points: one point each.
	exact := build(t, strings.Repeat("a: x tokens_in=1\na: y tokens_in=2\n", maxTokenPoints/2)).Tokens
	if len(exact.Line) != maxTokenPoints || exact.In[len(exact.In)-1] != uint64(3*maxTokenPoints/2) {
		t.Fatalf("%d messages: %d points, last %d", maxTokenPoints, len(exact.Line), exact.In[len(exact.In)-1])
	}
	for i := 1; i < len(ts.Line); i++ {
		if ts.Line[i] <= ts.Line[i-1] || ts.Out[i] < ts.Out[i-1] {
			t.Fatalf("point %d goes back", i)
		}
	}
	if small := build(t, "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\na: x tokens_out=5\na: y tokens_out=5\na: z tokens_in=3 tokens_out=1\n").Tokens; fmt.Sprint(small.Line, small.Out) != "[6 8] [5 6]" {
		t.Errorf("small: %v %v", small.Line, small.Out)
	}
}

// Findings beyond the cap are counted, not listed; gaps beyond theirs
// keep the longest, in line order.
func TestCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: x\n---\n")
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxGaps + 10 {
		at = at.Add(time.Minute + time.Duration(i)*time.Second)
		fmt.Fprintf(&b, "o: id=nope%d → [ok] ts=%s\n", i, at.Format(time.RFC3339))
	}
	tree := grammar.Parse([]byte(b.String()))
	findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, 50)
	d := Build(tree, analysis.SessionOf(tree), findings, more, Options{})
	if len(d.Findings) != 50 || d.FindingsOmitted != more || more < maxGaps+10-50 {
		t.Errorf("%d findings listed, %d omitted", len(d.Findings), d.FindingsOmitted)
	}
	if len(d.Gaps) != maxGaps || d.Gaps[0].Line != 7+10 || d.Gaps[len(d.Gaps)-1].MS != float64((60+maxGaps+9)*1000) {
		t.Errorf("%d gaps, first before line %d, last %v", len(d.Gaps), d.Gaps[0].Line, d.Gaps[len(d.Gaps)-1])
	}
}

// The page: everything inline, the data unable to end its element, the
// CSP nonce on the style and the script and nowhere usable by the log.
func TestPage(t *testing.T) {
	d := build(t, "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\n"+
		"u: </script><script>alert(1)</script> & \u2028 <!-- ts=2025-01-01T00:00:00Z\n"+
		"t!:Read id=a → [running] ts=2025-01-01T00:00:01Z\n")
	d.File = `a"b<c>.rlog`
	page, err := HTML(d, "N0nce")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if strings.Count(s, "</script>") != 2 || strings.Contains(s, "<script>alert") || strings.Contains(s, "\u2028") {
		t.Error("the log's text escaped the data element")
	}
	if strings.Count(s, "'nonce-N0nce'") != 2 || strings.Count(s, `nonce="N0nce"`) != 2 {
		t.Error("nonce placement")
	}
	for _, ph := range []string{phNonce, phTitle, phStyle, phScript, phData} {
		if strings.Contains(s[:strings.Index(s, "<script")], ph) || strings.HasSuffix(strings.TrimSpace(s), ph+"</script>\n</body>\n</html>") {
			t.Errorf("%s left in the page", ph)
		}
	}
	if !strings.Contains(s, "<title>Session a&#34;b&lt;c&gt;.rlog</title>") {
		t.Errorf("title: %s", regexp.MustCompile(`<title>.*</title>`).FindString(s))
	}
	// The data reads back as it was.
	i := strings.Index(s, `id="rlog-data">`) + len(`id="rlog-data">`)
	var back Data
	if err := json.Unmarshal([]byte(s[i:i+strings.Index(s[i:], "</script>")]), &back); err != nil || back.File != d.File || back.Summary.ToolCalls != 1 {
		t.Errorf("data: %v %+v", err, back.Summary)
	}
	for _, bad := range []string{"", `a"b`, "a b", "<x>"} {
		if _, err := HTML(d, bad); err == nil {
			t.Errorf("nonce %q accepted", bad)
		}
	}
	if a, b := NewNonce(), NewNonce(); a == b || len(a) < 20 {
		t.Errorf("nonces %q %q", a, b)
	}
}

// The assets keep to what the Content-Security-Policy allows, and nothing
// in them can end the element they are put in.
func TestAssetsKeepToTheCSP(t *testing.T) {
	html, css, js := mustRead("assets/report.html"), style, script
	for name, text := range map[string]string{"report.css": css, "report.js": js} {
		if strings.Contains(strings.ToLower(text), "</style") || strings.Contains(strings.ToLower(text), "</script") {
			t.Errorf("%s could end its element", name)
		}
	}
	if regexp.MustCompile(`(?i)\s(on[a-z]+|style)\s*=`).MatchString(html) {
		t.Error("report.html has an inline handler or style attribute, which the CSP blocks")
	}
	for _, bad := range []string{".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('style'", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(js, bad) {
			t.Errorf("report.js uses %s", bad)
		}
	}
	for _, bad := range []string{"@import", "url(", "@font-face"} {
		if strings.Contains(css, bad) {
			t.Errorf("report.css uses %s: the page loads nothing", bad)
		}
	}
	var known []string
	for _, p := range pageParts {
		if strings.HasPrefix(p, "{{") {
			known = append(known, p)
		}
	}
	if fmt.Sprint(known) != "[{{nonce}} {{nonce}} {{title}} {{nonce}} {{style}} {{data}} {{nonce}} {{script}}]" {
		t.Errorf("placeholders %v", known)
	}
}

// The findings are listed in line order: the analyzer reports the
// session-level I001 (a long session without @start), on the header, after
// the body's findings, and the page listed it last.
func TestFindingsInLineOrder(t *testing.T) {
	for _, name := range []string{"long-session.rlog", "subagent-unfinished.rlog", "hand-edited.rlog"} {
		src, err := os.ReadFile("../testdata/logs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		d := build(t, string(src))
		if len(d.Findings) < 2 {
			t.Fatalf("%s: %d findings", name, len(d.Findings))
		}
		for i := 1; i < len(d.Findings); i++ {
			if d.Findings[i].Line < d.Findings[i-1].Line {
				t.Errorf("%s: finding %d (line %d) after line %d: %+v", name, i, d.Findings[i].Line, d.Findings[i-1].Line, d.Findings)
				break
			}
		}
	}
}

// The data names the companion relative to the log's folder, whatever
// path the session statistics had it by: a page is made to be shared.
func TestCompanionNamedBesideTheLog(t *testing.T) {
	tree := grammar.Parse([]byte("---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\n---\nu: hi\n"))
	s := analysis.SessionFor(tree, analysis.SessionOptions{Companion: &analysis.ActionCounts{Source: "/home/ada/logs/run.jsonl", Messages: 1}})
	for _, c := range []struct{ path, want string }{
		{"/home/ada/logs/run.rlog", "run.jsonl"},
		{"", "run.jsonl"},                        // the editor gives no path
		{"/elsewhere/run.rlog", "run.jsonl"},     // never a path that climbs out
		{"/home/ada/run.rlog", "logs/run.jsonl"}, // below the log's folder
	} {
		d := Build(tree, s, nil, 0, Options{Name: "run.rlog", Path: c.path})
		if d.Summary.APM.Companion != c.want {
			t.Errorf("log at %q: companion %q, want %q", c.path, d.Summary.APM.Companion, c.want)
		}
		if d.Path != "" {
			t.Errorf("log at %q: the data has its path without --link", c.path)
		}
	}
}
