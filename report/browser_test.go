package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/chromium"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

var bigCalls = flag.Int("report.calls", 20000, "tool calls in the large page of the browser test (100000 for the figures in docs/performance.md)")

// startBrowser starts Chromium, or skips the test when it is not
// installed (fails under RLOG_REQUIRE_EDITORS=1, as CI sets it).
func startBrowser(t *testing.T) *chromium.Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("a browser test; -short skips it")
	}
	path := chromium.Path()
	if path == "" {
		if os.Getenv("RLOG_REQUIRE_EDITORS") != "" {
			t.Fatal("Chromium is not installed and RLOG_REQUIRE_EDITORS is set (apt-get install chromium)")
		}
		t.Skip("Chromium is not installed (apt-get install chromium); .ci/run installs it")
	}
	b, err := chromium.Start(path)
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// writePage writes the session view of src to a file and returns its path.
func writePage(t testing.TB, dir, name string, src []byte) string {
	t.Helper()
	tree := grammar.Parse(src)
	findings, more := analysis.NewAnalyzer(tree).FindingsUpTo(analysis.Config{}, DefaultMaxFindings)
	d := Build(tree, analysis.SessionOf(tree), findings, more, Options{Name: name, Generator: "rlog-ls test"})
	page, err := HTML(d, NewNonce())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, strings.TrimSuffix(name, ".rlog")+".html")
	if err := os.WriteFile(p, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openPage opens a file in a new tab, with everything that could go wrong
// recorded, and waits until the page says it is drawn.
func openPage(t *testing.T, ctx context.Context, b *chromium.Browser, file string, width, height int) *chromium.Page {
	t.Helper()
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, domain := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		if err := p.Call(ctx, domain, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}
	u := url.URL{Scheme: "file", Path: file}
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": u.String()}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(ctx, `document.body && document.body.dataset.ready === '1'`); err != nil {
		problems(t, p)
		t.Fatal(err)
	}
	return p
}

// problems fails the test for every console error, uncaught exception,
// browser log error (a CSP violation is one), failed request, and any
// request that is not for the page's own file: the page loads nothing.
func problems(t *testing.T, p *chromium.Page) {
	t.Helper()
	for _, e := range p.Events() {
		var v map[string]any
		_ = json.Unmarshal(e.Params, &v)
		switch e.Method {
		case "Runtime.consoleAPICalled":
			if typ, _ := v["type"].(string); typ == "error" || typ == "assert" {
				t.Errorf("console %s: %s", typ, e.Params)
			}
		case "Runtime.exceptionThrown":
			t.Errorf("exception: %s", e.Params)
		case "Log.entryAdded":
			if entry, _ := v["entry"].(map[string]any); entry["level"] == "error" {
				t.Errorf("browser log error: %s", e.Params)
			}
		case "Network.loadingFailed":
			t.Errorf("failed request: %s", e.Params)
		case "Network.requestWillBeSent":
			req, _ := v["request"].(map[string]any)
			if u, _ := req["url"].(string); !strings.HasPrefix(u, "file:") {
				t.Errorf("the page requested %s", u)
			}
		}
	}
}

func eval[T any](t *testing.T, ctx context.Context, p *chromium.Page, expr string) T {
	t.Helper()
	var v T
	if err := p.Eval(ctx, expr, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func screenshot(t *testing.T, ctx context.Context, p *chromium.Page, path string) {
	t.Helper()
	var shot struct {
		Data string `json:"data"`
	}
	// The top of the page: the totals, the timeline and the tokens.
	clip := map[string]any{"x": 0, "y": 0, "width": 1280, "height": 1000, "scale": 1}
	if err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "clip": clip}, &shot); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func click(t *testing.T, ctx context.Context, p *chromium.Page, x, y float64) {
	t.Helper()
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		params := map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}
		if typ == "mouseMoved" {
			params["button"] = "none"
		}
		if err := p.Call(ctx, "Input.dispatchMouseEvent", params, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPageInChromium opens session views in headless Chromium from
// file://: a timed session, an untimed one and a large one. Any console
// error, exception, CSP violation, failed or outgoing request fails it. It
// clicks a bar (the details name its line), zooms, switches the axis, and
// compares the page's duration format with FormatDuration's.
func TestPageInChromium(t *testing.T) {
	b := startBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()

	t.Run("timed", func(t *testing.T) {
		src, err := os.ReadFile("../testdata/logs/timed.rlog")
		if err != nil {
			t.Fatal(err)
		}
		p := openPage(t, ctx, b, writePage(t, dir, "timed.rlog", src), 1280, 1400)
		defer problems(t, p)
		text := strings.ToLower(eval[string](t, ctx, p, `document.body.innerText`)) // labels are upper case by style
		for _, want := range []string{"3m 58s", "Tool calls\n11", "1 error, 1 unfinished", "APM\n4.54", "Longest pause\n2m 10s",
			"explore", "Bash", "toolu_03Task", "W007", "Tool start 'toolu_10Bash' has no completion"} {
			if !strings.Contains(text, strings.ToLower(want)) {
				t.Errorf("the page does not say %q:\n%s", want, text)
			}
		}
		if eval[bool](t, ctx, p, `!document.getElementById('notice').hidden`) {
			t.Error("a timed log shows the no-timestamps notice")
		}
		if axis := eval[string](t, ctx, p, `rlogReport.axis()`); axis != "time" {
			t.Errorf("axis %q", axis)
		}
		// Tables: one row per tool; the line links name their lines.
		if n := eval[int](t, ctx, p, `document.querySelectorAll('#tools tbody tr').length`); n != 7 {
			t.Errorf("%d tool rows", n)
		}
		// Clicking the failed Bash call's bar shows its line.
		pt := eval[struct{ X, Y float64 }](t, ctx, p, `(() => { const c = rlogReport.callPoint(6); return {x: c.x, y: c.y}; })()`)
		click(t, ctx, p, pt.X, pt.Y)
		if d := eval[string](t, ctx, p, `document.getElementById('details').innerText`); !strings.Contains(d, "Bash — error") || !strings.Contains(d, "line 38") {
			t.Errorf("details after clicking the failed call: %q", d)
		}
		if h := eval[string](t, ctx, p, `location.hash`); h != "#L38" {
			t.Errorf("hash %q", h)
		}
		// The subagent's calls are in its lane (its tid=).
		if g := eval[[]int](t, ctx, p, `JSON.parse(document.getElementById('rlog-data').textContent).calls.group`); fmt.Sprint(g) != "[-1 -1 -1 0 0 -1 -1 -1 -1 -1 -1]" {
			t.Errorf("call groups %v", g)
		}
		if golden.Updating() { // go test -update rewrites docs/report.png
			screenshot(t, ctx, p, "../docs/report.png")
		}
		// What the VS Code extension sends: a place to show (a phase's line
		// zooms to the phase), then new data (redrawn, the zoom kept).
		whole := eval[map[string]float64](t, ctx, p, `rlogReport.view()`)
		if err := p.Eval(ctx, `window.postMessage({type: 'focus', line: 17}, '*')`, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitFor(ctx, `document.getElementById('details').innerText.includes('phase explore')`); err != nil {
			t.Error(err)
		}
		zoomed := eval[map[string]float64](t, ctx, p, `rlogReport.view()`)
		// explore lasts from 1 s to 19 s of the session's 3m 58s.
		if !(zoomed["d0"] < 1000 && zoomed["d1"] > 19000 && zoomed["d1"] < 25000) {
			t.Errorf("focus on the explore phase: view %v, whole %v", zoomed, whole)
		}
		if err := p.Eval(ctx, `(() => { const d = JSON.parse(document.getElementById('rlog-data').textContent);
			d.file = 'edited.rlog'; d.summary.tool_calls = 12; window.postMessage({type: 'data', data: d}, '*'); })()`, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitFor(ctx, `document.getElementById('title').textContent === 'edited.rlog'`); err != nil {
			t.Error(err)
		}
		if v := eval[map[string]float64](t, ctx, p, `rlogReport.view()`); v["d0"] != zoomed["d0"] || v["d1"] != zoomed["d1"] {
			t.Errorf("new data lost the zoom: %v, was %v", v, zoomed)
		}
		if !strings.Contains(eval[string](t, ctx, p, `document.getElementById('summary').innerText`), "12") {
			t.Error("new data not drawn")
		}
		if err := p.Eval(ctx, `window.postMessage({type: 'focus', line: 1}, '*')`, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitFor(ctx, fmt.Sprintf(`rlogReport.view().d1 - rlogReport.view().d0 >= %f`, whole["d1"]-whole["d0"])); err != nil {
			t.Error(err)
		}
		// Zoom in on the wheel, then the order axis.
		before := eval[map[string]float64](t, ctx, p, `rlogReport.view()`)
		if err := p.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseWheel", "x": 600, "y": pt.Y, "deltaX": 0, "deltaY": -400}, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitFor(ctx, fmt.Sprintf(`rlogReport.view().d1 - rlogReport.view().d0 < %f`, (before["d1"]-before["d0"])*0.9)); err != nil {
			t.Error(err)
		}
		if err := p.Eval(ctx, `document.getElementById('axis-order').click()`, nil); err != nil {
			t.Fatal(err)
		}
		if axis := eval[string](t, ctx, p, `rlogReport.axis()`); axis != "order" {
			t.Errorf("axis %q after the switch", axis)
		}
		// The page writes durations as FormatDuration does.
		for _, d := range []time.Duration{0, 999 * time.Millisecond, 1500 * time.Millisecond, 9960 * time.Millisecond, 30499 * time.Millisecond,
			59500 * time.Millisecond, 175 * time.Second, 3599 * time.Second, 45130 * time.Second} {
			if got := eval[string](t, ctx, p, fmt.Sprintf("rlogReport.fmtDuration(%d)", d.Milliseconds())); got != analysis.FormatDuration(d) {
				t.Errorf("page %q, FormatDuration %q for %v", got, analysis.FormatDuration(d), d)
			}
		}
	})

	t.Run("untimed", func(t *testing.T) {
		src, err := os.ReadFile("../testdata/sample.rlog")
		if err != nil {
			t.Fatal(err)
		}
		// The real autopilot writer's shape: one ts= (on @start) and none after.
		src = bytes.ReplaceAll(src, []byte(" ts=2025-12-19T20:31:40Z"), nil)
		src = bytes.ReplaceAll(src, []byte("fix it? ts=2025-12-19T20:29:02Z"), []byte("fix it?"))
		p := openPage(t, ctx, b, writePage(t, dir, "untimed.rlog", src), 1280, 900)
		defer problems(t, p)
		notice := eval[string](t, ctx, p, `document.getElementById('notice').hidden ? '' : document.getElementById('notice').innerText`)
		if !strings.Contains(notice, "one timestamp") || !strings.Contains(notice, "line order") {
			t.Errorf("notice %q", notice)
		}
		if axis := eval[string](t, ctx, p, `rlogReport.axis()`); axis != "order" {
			t.Errorf("axis %q", axis)
		}
		if !eval[bool](t, ctx, p, `document.getElementById('axis-time').disabled`) {
			t.Error("the time axis is offered without timestamps")
		}
		if text := eval[string](t, ctx, p, `document.getElementById('summary').innerText`); !strings.Contains(text, "unknown") {
			t.Errorf("summary %q", text)
		}
	})

	// An autopilot log with one timestamp and its companion, which counts
	// more messages and calls (the subagent's) over a known span: the
	// cards agree with each other (the duration was "unknown" while APM
	// said "/ 2.5 min"; 6 calls and 3 messages against APM's 7 and 5).
	t.Run("companion", func(t *testing.T) {
		src, err := os.ReadFile("../testdata/companions/sdk/222000-fix-locked-login.rlog")
		if err != nil {
			t.Fatal(err)
		}
		tree := grammar.Parse(src)
		start := time.Date(2025, 12, 22, 22, 20, 0, 0, time.UTC)
		opts := analysis.SessionOptions{Companion: &analysis.ActionCounts{Source: "222000-fix-locked-login.jsonl", Messages: 5, ToolCalls: 7,
			Start: start, End: start.Add(147 * time.Second)}}
		d := Build(tree, analysis.BuildSession(tree, opts), nil, 0, Options{Name: "companion.rlog"})
		page, err := HTML(d, NewNonce())
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "companion.html")
		if err := os.WriteFile(file, page, 0o644); err != nil {
			t.Fatal(err)
		}
		p := openPage(t, ctx, b, file, 1280, 900)
		defer problems(t, p)
		text := eval[string](t, ctx, p, `document.getElementById('summary').innerText`)
		for _, want := range []string{"2m 27s", "from the companion 222000-fix-locked-login.jsonl (the log has one timestamp)",
			"7 tool calls in the companion, which APM counts", "5 messages in the companion, which APM counts",
			"(5 messages + 7 tool calls) / 2.5 min, counted in the companion 222000-fix-locked-login.jsonl"} {
			if !strings.Contains(text, want) {
				t.Errorf("the totals do not say %q:\n%s", want, text)
			}
		}
		if strings.Contains(strings.ToLower(text), "unknown") {
			t.Errorf("a card says unknown:\n%s", text)
		}
	})

	t.Run("many calls", func(t *testing.T) {
		var buf bytes.Buffer
		// About 1.9 KB of log per call.
		if err := gen.Write(&buf, gen.Options{Bytes: int64(*bigCalls) * 560, FindingRate: 0.01, Seed: 3, Timed: true}); err != nil {
			t.Fatal(err)
		}
		calls := sessionCalls(buf.Bytes())
		page := writePage(t, dir, "large.rlog", buf.Bytes())
		start := time.Now()
		p := openPage(t, ctx, b, page, 1400, 900)
		defer problems(t, p)
		t.Logf("%d calls: page of %d KB drawn %v after navigating", calls, fileSize(t, page)>>10, time.Since(start).Round(time.Millisecond))
		var st struct {
			DrawMs              float64
			Drawn, Binned, Bins int
		}
		var last struct{ DrawMs float64 }
		// Whole session: far more calls than pixels, so they are binned.
		if err := p.Eval(ctx, `({drawMs: rlogReport.stats.drawMs, drawn: rlogReport.stats.drawn, binned: rlogReport.stats.binned, bins: rlogReport.stats.bins})`, &st); err != nil {
			t.Fatal(err)
		}
		if st.Binned < calls/2 || st.Bins > 1400*40 {
			t.Errorf("whole session: %+v", st)
		}
		// Zoomed far in: bars are drawn one by one and few are binned.
		for range 12 {
			if err := p.Eval(ctx, `document.getElementById('zoom-in').click()`, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.WaitFor(ctx, `rlogReport.stats.draws > 2 && rlogReport.stats.drawn > rlogReport.stats.binned`); err != nil {
			t.Error(err)
		}
		if err := p.Eval(ctx, `({drawMs: rlogReport.stats.drawMs})`, &last); err != nil {
			t.Fatal(err)
		}
		t.Logf("draw: whole session %.1f ms (%d drawn, %d binned into %d columns), zoomed in %.1f ms", st.DrawMs, st.Drawn, st.Binned, st.Bins, last.DrawMs)
	})
}

// sessionCalls counts a log's tool calls.
func sessionCalls(src []byte) int { return len(analysis.SessionOf(grammar.Parse(src)).Calls) }

func fileSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
