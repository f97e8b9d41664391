package rlog

import (
	"encoding/json"
	"fmt"
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

// insightDoc has two phases (one named in CJK), timed calls, a pause and
// CRLF on two lines: the session the lens and hint tests edit and
// configure (testdata/markers/lenses.txtar and hints.txtar have its
// answers).
var insightDoc = mark("---\n" +
	"format: rlog/1\n" +
	"id: insight\n" +
	"repo_sha: 4f2a9c1\n" +
	"runner: ci\n" +
	"---\n" +
	"@start id=s ts=2025-12-19T20:00:00Z\n" +
	"u: 😀 start 漢字 ts=2025-12-19T20:00:00Z\n" +
	"@phase 探索 ts=2025-12-19T20:00:01Z\n" +
	"t!:Read id=c1 file_path=😀.rs → [running] ts=2025-12-19T20:00:02Z\n" +
	"o: id=c1 → [ok] 漢字😀 ts=2025-12-19T20:00:05.200Z\n" +
	"u: after a pause 😀 ts=2025-12-19T20:03:15.200Z\r\n" +
	"@phase fix 🔧 ts=2025-12-19T20:03:16Z\r\n" +
	"t!:Bash id=c2 cmd=\"テスト\" → [running] tokens_in=5 tokens_out=70 ts=2025-12-19T20:03:17Z\n" +
	"o: id=c2 → [error] 😀😀 failed ts=2025-12-19T20:03:47Z\n" +
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
