package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// insightDoc has emoji and CJK before every place a lens or hint goes, so
// UTF-16 and UTF-8 columns differ, a phase named in CJK, and CRLF on two
// lines. ⟦pN⟧…⟦pNe⟧ are the phase lenses' ranges, ⟦lN⟧ the latency hints,
// ⟦gN⟧ the pause hints.
var insightDoc = mark("---\n" +
	"format: rlog/1\n" +
	"id: insight\n" +
	"repo_sha: 4f2a9c1\n" +
	"runner: ci\n" +
	"---\n" +
	"@start id=s ts=2025-12-19T20:00:00Z\n" +
	"u: 😀 start 漢字 ts=2025-12-19T20:00:00Z\n" +
	"⟦p1⟧@phase 探索 ts=2025-12-19T20:00:01Z⟦p1e⟧\n" +
	"t!:Read id=c1 file_path=😀.rs → [running] ts=2025-12-19T20:00:02Z\n" +
	"o: id=c1 → [ok] 漢字😀 ts=2025-12-19T20:00:05.200Z⟦l1⟧\n" +
	"⟦g1⟧u: after a pause 😀 ts=2025-12-19T20:03:15.200Z\r\n" +
	"⟦p2⟧@phase fix 🔧 ts=2025-12-19T20:03:16Z⟦p2e⟧\r\n" +
	"t!:Bash id=c2 cmd=\"テスト\" → [running] tokens_in=5 tokens_out=70 ts=2025-12-19T20:03:17Z\n" +
	"o: id=c2 → [error] 😀😀 failed ts=2025-12-19T20:03:47Z⟦l2⟧\n" +
	"t!:Bash id=c3 → [running] ts=2025-12-19T20:03:48Z\n" +
	"a: done 漢字 ts=2025-12-19T20:04:00Z\n")

const insightURI = protocol.DocumentURI("file:///work/insight.rlog")

type wireLens struct {
	Range   protocol.Range    `json:"range"`
	Command *protocol.Command `json:"command"`
	Data    json.RawMessage   `json:"data"`
}

// callFor makes a request and decodes its answer into a T.
func callFor[T any](t *testing.T, c *lsptest.Client, method string, params any) T {
	t.Helper()
	var v T
	raw := call(t, c, method, params)
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %s: %v", method, raw, err)
	}
	return v
}

func lensesOf(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI) []wireLens {
	t.Helper()
	return callFor[[]wireLens](t, c, protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": uri}})
}

func resolve(t *testing.T, c *lsptest.Client, l wireLens) wireLens {
	t.Helper()
	return callFor[wireLens](t, c, protocol.MethodCodeLensResolve, l)
}

// inBothEncodings runs f with the insight document open in a server that
// counts in UTF-16 and in one that counts in UTF-8, and the markers'
// positions in that encoding.
func inBothEncodings(t *testing.T, f func(t *testing.T, c *lsptest.Client, pos map[string]protocol.Position)) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			c := start(t, enc, nil)
			open(t, c, insightURI, insightDoc.text)
			pos := insightDoc.utf16
			if enc == "utf-8" {
				pos = insightDoc.utf8
			}
			f(t, c, pos)
		})
	}
}

// Code lenses: the session's above the header, each phase's above its
// @phase line, with exact ranges in UTF-16 and UTF-8; titles and the
// command come in codeLens/resolve.
func TestCodeLenses(t *testing.T) {
	inBothEncodings(t, func(t *testing.T, c *lsptest.Client, pos map[string]protocol.Position) {
		lenses := lensesOf(t, c, insightURI)
		wantRanges := []protocol.Range{
			{Start: protocol.Position{}, End: protocol.Position{Character: 3}},
			{Start: pos["p1"], End: pos["p1e"]},
			{Start: pos["p2"], End: pos["p2e"]},
		}
		if len(lenses) != 3 {
			t.Fatalf("%d lenses: %+v", len(lenses), lenses)
		}
		for i, l := range lenses {
			if l.Range != wantRanges[i] {
				t.Errorf("lens %d at %+v, want %+v", i, l.Range, wantRanges[i])
			}
			if l.Command != nil {
				t.Errorf("lens %d is resolved already: the numbers wait for codeLens/resolve", i)
			}
		}
		titles := []string{
			"Session: 4m 0s · tokens 5 in, 70 out, 0 cached · 3 tool calls, 1 error, 1 unfinished · APM 1.50",
			"探索: 3m 15s · 1 tool call, 0 errors · 0 tokens out",
			"fix: 44s · 2 tool calls, 1 error · 70 tokens out",
		}
		for i, l := range lenses {
			r := resolve(t, c, l)
			if r.Command == nil || r.Command.Title != titles[i] || r.Command.Command != CommandShowSessionView {
				t.Errorf("lens %d resolved to %+v, want %q", i, r.Command, titles[i])
				continue
			}
			if r.Range != l.Range {
				t.Errorf("resolve moved the lens: %+v", r.Range)
			}
			args, _ := json.Marshal(r.Command.Arguments)
			want := fmt.Sprintf(`[{"uri":%q,"line":%d}]`, insightURI, []int{0, 8, 12}[i])
			lsptest.AssertJSON(t, args, want)
		}
	})
}

// A lens resolved after an edit gets the numbers of the document as it is
// now; one of a closed document says so; bad data is InvalidParams.
func TestCodeLensResolveAfterChanges(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, insightURI, insightDoc.text)
	lenses := lensesOf(t, c, insightURI)
	// Remove the failing Bash result: the fix phase has no error now.
	edit := strings.Index(insightDoc.text, "o: id=c2")
	lineEnd := edit + strings.Index(insightDoc.text[edit:], "\n") + 1
	m := lsp.Mapper{Text: Parse([]byte(insightDoc.text)), Encoding: lsp.UTF16}
	r := m.Range(edit, lineEnd)
	c.Change(insightURI, 2, lsptest.Change{Range: &r, Text: ""})
	if got := resolve(t, c, lenses[2]); got.Command == nil || !strings.Contains(got.Command.Title, "0 errors") {
		t.Errorf("after the edit: %+v", got.Command)
	}
	c.Close(insightURI)
	if got := resolve(t, c, lenses[0]); got.Command == nil || !strings.Contains(got.Command.Title, "closed") {
		t.Errorf("closed: %+v", got.Command)
	}
	var res json.RawMessage
	err := c.Call(protocol.MethodCodeLensResolve, map[string]any{"range": protocol.Range{}, "data": "nothing"}, &res)
	if err == nil || !strings.Contains(err.Error(), "uri, line, phase") {
		t.Errorf("bad data: %v", err)
	}
}

type wireHint struct {
	Position     protocol.Position `json:"position"`
	Label        string            `json:"label"`
	Tooltip      string            `json:"tooltip"`
	PaddingLeft  bool              `json:"paddingLeft"`
	PaddingRight bool              `json:"paddingRight"`
}

func hintsIn(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI, r protocol.Range) []wireHint {
	t.Helper()
	return callFor[[]wireHint](t, c, lsp.MethodTextDocumentInlayHint, map[string]any{"textDocument": map[string]any{"uri": uri}, "range": r})
}

var wholeDoc = protocol.Range{End: protocol.Position{Line: 1 << 20}}

// Inlay hints: latencies at the end of o: lines and pauses at the start of
// lines, at exact positions in UTF-16 and UTF-8, on the wire as LSP 3.17
// has them.
func TestInlayHints(t *testing.T) {
	inBothEncodings(t, func(t *testing.T, c *lsptest.Client, pos map[string]protocol.Position) {
		got := hintsIn(t, c, insightURI, wholeDoc)
		want := []wireHint{
			{Position: pos["l1"], Label: "3.2s", PaddingLeft: true},
			{Position: pos["g1"], Label: "+3m 10s", PaddingRight: true},
			{Position: pos["l2"], Label: "30s", PaddingLeft: true},
		}
		if len(got) != len(want) {
			t.Fatalf("hints %+v", got)
		}
		for i := range want {
			g := got[i]
			g.Tooltip = ""
			if g != want[i] {
				t.Errorf("hint %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		if got[2].Tooltip != "Bash call (line 14): error, 30s, from the ts= of line 14 to this line's" {
			t.Errorf("tooltip %q", got[2].Tooltip)
		}
	})
	// The wire shape, exactly.
	c := start(t, "", nil)
	open(t, c, insightURI, insightDoc.text)
	raw := call(t, c, lsp.MethodTextDocumentInlayHint, map[string]any{"textDocument": map[string]any{"uri": insightURI},
		"range": protocol.Range{Start: protocol.Position{Line: 11}, End: protocol.Position{Line: 12}}})
	lsptest.AssertJSON(t, raw, `[{"position":{"line":11,"character":0},"label":"+3m 10s","paddingRight":true,
	  "tooltip":"3m 10s since the timestamp on line 11 (pauses of 1m 0s or more are shown)"}]`)
}

// A hint lies in the range asked about, even when its rlog line, which
// holds a lone CR, starts on an editor line above the range.
func TestInlayHintsInTheRangeAcrossALoneCR(t *testing.T) {
	c := start(t, "", nil)
	text := "---\nformat: rlog/1\nid: s\n---\nu: one ts=2025-01-01T00:00:00Z\nu: two\rstill two ts=2025-01-01T00:30:00Z\n"
	open(t, c, insightURI, text)
	labels := func(from, to uint32) []string {
		var out []string
		for _, h := range hintsIn(t, c, insightURI, protocol.Range{Start: protocol.Position{Line: from}, End: protocol.Position{Line: to, Character: 3}}) {
			out = append(out, fmt.Sprintf("%d:%s", h.Position.Line, h.Label))
		}
		return out
	}
	if got := labels(6, 6); len(got) != 0 {
		t.Errorf("range on the line after the CR: %v, want none", got)
	}
	if got := labels(5, 6); len(got) != 1 || got[0] != "5:+30m 0s" {
		t.Errorf("range from the rlog line's start: %v", got)
	}
}

// The hints follow the settings: each kind turns off, the threshold
// applies, and a change of settings asks the editor to fetch them again.
func TestInlayHintSettings(t *testing.T) {
	c := start(t, "", map[string]any{"workspace": map[string]any{"inlayHint": map[string]any{"refreshSupport": true}}})
	c.OnRequest(lsp.MethodWorkspaceInlayHintRefresh, func(json.RawMessage) (any, error) { return nil, nil })
	open(t, c, insightURI, insightDoc.text)
	labels := func() string {
		var out []string
		for _, h := range hintsIn(t, c, insightURI, wholeDoc) {
			out = append(out, h.Label)
		}
		return strings.Join(out, " ")
	}
	settings := func(s string) {
		c.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": json.RawMessage(s)})
	}
	if got := labels(); got != "3.2s +3m 10s 30s" {
		t.Fatalf("defaults: %q", got)
	}
	settings(`{"rlog":{"inlayHints":{"latency":false}}}`)
	c.WaitFrame("a refresh", func(f lsptest.Frame) bool { return f.IsRequest() && f.Method == lsp.MethodWorkspaceInlayHintRefresh })
	if got := labels(); got != "+3m 10s" {
		t.Errorf("latency off: %q", got)
	}
	settings(`{"rlog":{"inlayHints":{"gaps":false}}}`)
	if got := labels(); got != "3.2s 30s" {
		t.Errorf("gaps off: %q", got)
	}
	settings(`{"rlog":{"inlayHints":{"gapThresholdSeconds":200}}}`)
	if got := labels(); got != "3.2s 30s" {
		t.Errorf("a 200 s threshold: %q", got)
	}
	// 20 s: also the 30 s wait before the Bash result, at its line's start.
	settings(`{"rlog":{"inlayHints":{"gapThresholdSeconds":20}}}`)
	if got := labels(); got != "3.2s +3m 10s +30s 30s" {
		t.Errorf("a 20 s threshold: %q", got)
	}
	settings(`{"rlog":{"inlayHints":{"gaps":false,"latency":false}}}`)
	if got := labels(); got != "" {
		t.Errorf("all off: %q", got)
	}
}

// A request for lines 100 to 150 of a large log gives the hints of those
// lines, and only those (the analysis package checks that computing them
// costs the range); a range past the end or upside down is clamped.
func TestInlayHintsRangeLimited(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: big\nrepo_sha: 4f2a9c1\nrunner: ci\n---\n")
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		fmt.Fprintf(&b, "t!:Bash id=c%d cmd=\"😀 %d\" → [running] ts=%s\n", i, i, at.Format(time.RFC3339Nano))
		at = at.Add(time.Duration(1+i%5) * time.Second)
		if i%7 == 0 {
			at = at.Add(90 * time.Second)
		}
		fmt.Fprintf(&b, "o: id=c%d → [ok] 漢字 ts=%s\n", i, at.Format(time.RFC3339Nano))
	}
	text := b.String()
	c := start(t, "", nil)
	open(t, c, insightURI, text)
	all := hintsIn(t, c, insightURI, wholeDoc)
	window := hintsIn(t, c, insightURI, protocol.Range{Start: protocol.Position{Line: 100}, End: protocol.Position{Line: 151}})
	var want []wireHint
	for _, h := range all {
		if h.Position.Line >= 100 && h.Position.Line <= 150 {
			want = append(want, h)
		}
	}
	if len(window) == 0 || len(window) != len(want) {
		t.Fatalf("%d hints for lines 100-150, want %d", len(window), len(want))
	}
	for i := range want {
		if window[i] != want[i] {
			t.Errorf("hint %d: %+v, want %+v", i, window[i], want[i])
		}
	}
	if n := len(all); n < 3000 {
		t.Fatalf("%d hints in all", n)
	}
	// Upside down and past the end.
	if got := hintsIn(t, c, insightURI, protocol.Range{Start: protocol.Position{Line: 151}, End: protocol.Position{Line: 100}}); len(got) != len(want) {
		t.Errorf("an upside-down range: %d hints", len(got))
	}
	if got := hintsIn(t, c, insightURI, protocol.Range{Start: protocol.Position{Line: 1 << 30}, End: protocol.Position{Line: 1 << 31}}); len(got) != 0 {
		t.Errorf("past the end: %+v", got)
	}
}

// rlog/sessionReport gives the session view's data or the page; a wrong
// format is InvalidParams, a document that is not open null.
func TestSessionReportRequest(t *testing.T) {
	c := start(t, "", nil)
	open(t, c, insightURI, insightDoc.text)
	params := func(format string) map[string]any {
		p := map[string]any{"textDocument": map[string]any{"uri": insightURI}}
		if format != "" {
			p["format"] = format
		}
		return p
	}
	var data struct {
		Version int    `json:"version"`
		File    string `json:"file"`
		Timed   bool   `json:"timed"`
		Summary struct {
			ToolCalls int `json:"tool_calls"`
			Errors    int `json:"errors"`
		} `json:"summary"`
		Phases []struct {
			Name string `json:"name"`
			Line int    `json:"line"`
		} `json:"phases"`
		Findings []struct {
			Code string `json:"code"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(call(t, c, MethodSessionReport, params("")), &data); err != nil {
		t.Fatal(err)
	}
	if data.Version != 1 || data.File != "insight.rlog" || !data.Timed || data.Summary.ToolCalls != 3 || data.Summary.Errors != 1 ||
		len(data.Phases) != 2 || data.Phases[0].Name != "探索" || data.Phases[1].Line != 13 {
		t.Errorf("data %+v", data)
	}
	if len(data.Findings) == 0 || !strings.Contains(fmt.Sprint(data.Findings), "W007") {
		t.Errorf("findings %+v", data.Findings)
	}
	var page struct {
		HTML string `json:"html"`
	}
	if err := json.Unmarshal(call(t, c, MethodSessionReport, params("html")), &page); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page.HTML, "<!doctype html>") || !strings.Contains(page.HTML, "script-src 'nonce-") || !strings.Contains(page.HTML, `"file":"insight.rlog"`) {
		t.Errorf("page %.300s", page.HTML)
	}
	var res json.RawMessage
	if err := c.Call(MethodSessionReport, params("pdf"), &res); err == nil || !strings.Contains(err.Error(), `not "pdf"`) {
		t.Errorf("format pdf: %v", err)
	}
	if raw := call(t, c, MethodSessionReport, map[string]any{"textDocument": map[string]any{"uri": "file:///nowhere.rlog"}}); string(raw) != "null" {
		t.Errorf("not open: %s", raw)
	}
}

// The server's own rlog-ls.showSessionView writes the page to a new
// temporary folder and asks the editor to open it in a browser at the
// line; an editor that cannot is told where the page is.
func TestShowSessionViewCommand(t *testing.T) {
	for _, canShow := range []bool{true, false} {
		caps := map[string]any{}
		if canShow {
			caps["window"] = map[string]any{"showDocument": map[string]any{"support": true}}
		}
		c := start(t, "", caps)
		open(t, c, insightURI, insightDoc.text)
		res, err := execute(t, c, CommandShowSessionView, map[string]any{"uri": insightURI, "line": 12})
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(res, &out)
		u, err := url.Parse(out.URI)
		if err != nil || u.Scheme != "file" || u.Fragment != "L13" || filepath.Base(u.Path) != "insight.report.html" {
			t.Fatalf("result %s", res)
		}
		t.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(u.Path)) })
		page, err := os.ReadFile(u.Path)
		if err != nil || !strings.Contains(string(page), `"file":"insight.rlog"`) {
			t.Fatalf("the page: %v", err)
		}
		if fi, _ := os.Stat(u.Path); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode())
		}
		shows := c.Requests(protocol.MethodShowDocument)
		if canShow {
			if len(shows) != 1 {
				t.Fatalf("%d showDocument requests", len(shows))
			}
			lsptest.AssertJSON(t, shows[0].Params, fmt.Sprintf(`{"uri":%q,"external":true}`, out.URI))
		} else {
			if len(shows) != 0 {
				t.Fatal("showDocument sent to a client that did not offer it")
			}
			if m := messages(c, protocol.MethodWindowShowMessage); len(m) != 1 || !strings.Contains(m[0].Message, u.Path) {
				t.Errorf("messages %+v", m)
			}
		}
		if _, err := execute(t, c, CommandShowSessionView, "nothing"); err == nil {
			t.Error("a bad argument was accepted")
		}
	}
}

// The capabilities: code lenses with resolve, inlay hints as LSP 3.17
// names them.
func TestInsightCapabilities(t *testing.T) {
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
	})
	var init struct {
		Capabilities struct {
			CodeLensProvider  json.RawMessage `json:"codeLensProvider"`
			InlayHintProvider json.RawMessage `json:"inlayHintProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(c.Initialize(nil), &init); err != nil {
		t.Fatal(err)
	}
	lsptest.AssertJSON(t, init.Capabilities.CodeLensProvider, `{"resolveProvider":true}`)
	lsptest.AssertJSON(t, init.Capabilities.InlayHintProvider, `true`)
}
