package rlog

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// recordedTree copies a recorded scenario's folder (an agent's home) into
// a new folder and returns the copies of the session file and of its
// sub-agent's file, named by their paths under the scenario's folder.
func recordedTree(t *testing.T, scenario, parent, child string) (string, string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(scenario, parent)); err != nil {
		t.Skipf("recorded scenario missing: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "home")
	if err := os.CopyFS(dir, os.DirFS(scenario)); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, parent), filepath.Join(dir, child)
}

func prepareHierarchy(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI, p protocol.Position) []protocol.CallHierarchyItem {
	t.Helper()
	return callFor[[]protocol.CallHierarchyItem](t, c, protocol.MethodTextDocumentPrepareCallHierarchy, at(uri, p))
}

func outgoingCalls(t *testing.T, c *lsptest.Client, it protocol.CallHierarchyItem) []protocol.CallHierarchyOutgoingCall {
	t.Helper()
	return callFor[[]protocol.CallHierarchyOutgoingCall](t, c, protocol.MethodCallHierarchyOutgoingCalls, map[string]any{"item": it})
}

func incomingCalls(t *testing.T, c *lsptest.Client, it protocol.CallHierarchyItem) []protocol.CallHierarchyIncomingCall {
	t.Helper()
	return callFor[[]protocol.CallHierarchyIncomingCall](t, c, protocol.MethodCallHierarchyIncomingCalls, map[string]any{"item": it})
}

// linesWith are the ranges (UTF-16, without trailing blanks) of the lines
// of text that start with prefix and hold each of parts, counted here
// from the text, independently of the server.
func linesWith(text, prefix string, parts ...string) []protocol.Range {
	return linesIn(false, text, prefix, parts...)
}

// linesIn is linesWith in UTF-8 (utf8 true) or UTF-16.
func linesIn(utf8 bool, text, prefix string, parts ...string) []protocol.Range {
	var out []protocol.Range
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if !strings.HasPrefix(line, prefix) || slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
			continue
		}
		end := uint32(len(utf16.Encode([]rune(line))))
		if utf8 {
			end = uint32(len(line))
		}
		out = append(out, protocol.Range{Start: protocol.Position{Line: uint32(n)}, End: protocol.Position{Line: uint32(n), Character: end}})
	}
	return out
}

// TestCallHierarchyOfRecordedSubagents walks each agent's recorded
// sub-agent both ways through the views: from the session's view to the
// sub-agent's (a view the server converts, not open), and back from it to
// the session at the x: lines that started it.
func TestCallHierarchyOfRecordedSubagents(t *testing.T) {
	const agents = "../../testdata/agents/"
	for _, c := range []struct {
		name, scenario, parent, child, agentID, typ string
	}{
		{"claude-code", agents + "claude-code/2.1.328/subagent/claude", "projects/-tmp-rlog-producers-claude-subagent-work/8d6b59c6-27db-4aed-8b2b-f2f27d16e2de.jsonl",
			"projects/-tmp-rlog-producers-claude-subagent-work/8d6b59c6-27db-4aed-8b2b-f2f27d16e2de/subagents/agent-ad1d58fb8290d2b47.jsonl", "ad1d58fb8290d2b47", "general-purpose"},
		{"codex", agents + "codex/0.169.0/subagent/codex-home", "sessions/2026/11/27/rollout-2026-11-27T09-48-01-01a21c67-9be1-7b83-8662-aabac1099a87.jsonl",
			"sessions/2026/11/27/rollout-2026-11-27T09-48-02-01a21c67-9d75-7080-b481-7627893935f7.jsonl", "01a21c67-9d75-7080-b481-7627893935f7", "counter"},
		{"codex-fork", agents + "codex/0.169.0/subagent-fork/codex-home", "sessions/2026/11/27/rollout-2026-11-27T09-48-08-01a21c67-b692-7a00-8ce6-c7a01fd12fbc.jsonl",
			"sessions/2026/11/27/rollout-2026-11-27T09-48-09-01a21c67-b85a-7722-bdf2-840f953e6eb4.jsonl", "01a21c67-b85a-7722-bdf2-840f953e6eb4", "counter"},
		{"gemini-cli", agents + "gemini-cli/0.61.0/subagent/gemini", "tmp/work/chats/session-2026-11-27T10-01-887c44e3.jsonl",
			"tmp/work/chats/887c44e3-04f8-423e-bcfd-fd8605af5163/ffc9d7a8-867a-42a4-9528-86e06e6d7630.jsonl", "ffc9d7a8-867a-42a4-9528-86e06e6d7630", "generalist"},
		{"gemini-cli-incomplete", agents + "gemini-cli/0.61.0/subagent-incomplete/gemini", "tmp/work/chats/session-2026-11-27T10-01-186c4290.jsonl",
			"tmp/work/chats/186c4290-c39a-4181-a350-d419c0d6210d/2de99d95-0db3-49c7-8fd1-6d37299eb3a5.jsonl", "2de99d95-0db3-49c7-8fd1-6d37299eb3a5", "generalist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent, child := recordedTree(t, c.scenario, c.parent, c.child)
			cl := start(t, "", nil)
			v, err := requestView(t, cl, fileURI(parent))
			if err != nil {
				t.Fatal(err)
			}
			open(t, cl, v.URI, v.Text)
			xLines := linesWith(v.Text, "x:", "tid="+c.agentID)
			if len(xLines) == 0 {
				t.Fatalf("no x: line names %s in the view:\n%s", c.agentID, v.Text)
			}

			// The session, from its header.
			items := prepareHierarchy(t, cl, v.URI, protocol.Position{})
			if len(items) != 1 || items[0].URI != v.URI || items[0].Name != filepath.Base(parent) {
				t.Fatalf("prepare on the header: %+v", items)
			}
			if id := posOf(t, v.Text, "id: ", 4, false); items[0].SelectionRange.Start != id {
				t.Errorf("the session's selection %+v, want the header's id at %+v", items[0].SelectionRange, id)
			}
			if in := incomingCalls(t, cl, items[0]); len(in) != 0 {
				t.Errorf("incoming calls of a main session: %+v", in)
			}
			out := outgoingCalls(t, cl, items[0])
			if len(out) != 1 {
				t.Fatalf("outgoing calls: %+v", out)
			}
			if out[0].To.URI != viewURI(child) || out[0].To.Name != c.typ || !slices.Equal(out[0].FromRanges, xLines) {
				t.Errorf("outgoing call to %s %q from %+v; want %s %q from %+v", out[0].To.URI, out[0].To.Name, out[0].FromRanges, viewURI(child), c.typ, xLines)
			}

			// The sub-agent, from its x: line: its own view, which is not
			// open, and back.
			items = prepareHierarchy(t, cl, v.URI, xLines[0].Start)
			if len(items) != 1 || items[0].URI != viewURI(child) {
				t.Fatalf("prepare on the x: line: %+v", items)
			}
			if items[0].Range != out[0].To.Range || items[0].SelectionRange != out[0].To.SelectionRange {
				t.Errorf("the sub-agent's item from its line %+v and from the session %+v", items[0], out[0].To)
			}
			checkParent := func(it protocol.CallHierarchyItem) {
				t.Helper()
				in := incomingCalls(t, cl, it)
				if len(in) != 1 || in[0].From.URI != v.URI || !slices.Equal(in[0].FromRanges, xLines) {
					t.Errorf("incoming calls of the sub-agent: %+v; want from %s at %+v", in, v.URI, xLines)
				}
			}
			checkParent(items[0])
			if out := outgoingCalls(t, cl, items[0]); len(out) != 0 {
				t.Errorf("outgoing calls of the sub-agent: %+v", out)
			}

			// The sub-agent's view opened: the same from its header.
			sv, err := requestView(t, cl, fileURI(child))
			if err != nil {
				t.Fatal(err)
			}
			open(t, cl, sv.URI, sv.Text)
			items = prepareHierarchy(t, cl, sv.URI, protocol.Position{Line: 1})
			if len(items) != 1 || items[0].URI != sv.URI || items[0].Name != c.typ {
				t.Fatalf("prepare in the sub-agent's view: %+v", items)
			}
			checkParent(items[0])
		})
	}
}

// TestCallHierarchyOfAnRlogLog: an autopilot log's sub-agent with its own
// file (NAME.sub-ID.jsonl, opened as it is) and one without (its x:
// lines), with positions in UTF-16 and UTF-8 past non-ASCII text; the
// sub-agent's file leads back to the log, not to the log's companion.
func TestCallHierarchyOfAnRlogLog(t *testing.T) {
	const fixture = "../../testdata/companions/sdk/222000-fix-locked-login"
	dir := t.TempDir()
	for _, ext := range []string{".rlog", ".jsonl", ".sub-DZYW3CfJ.jsonl"} {
		b, err := os.ReadFile(fixture + ext)
		if err != nil {
			t.Fatal(err)
		}
		if ext == ".rlog" {
			// A sub-agent with no file, its lines past emoji and CJK.
			b = append(b, "x:Plan id=pl4n → [started] summary=\"😀 漢字 plan\"\nx:Plan id=pl4n → [done] summary=\"done 😀\"\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, "222000-fix-locked-login"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "222000-fix-locked-login.rlog")
	sub := filepath.Join(dir, "222000-fix-locked-login.sub-DZYW3CfJ.jsonl")
	text, _ := os.ReadFile(log)
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			cl := start(t, enc, nil)
			uri := fileURI(log)
			open(t, cl, uri, string(text))
			items := prepareHierarchy(t, cl, uri, protocol.Position{})
			if len(items) != 1 || items[0].URI != uri {
				t.Fatalf("prepare: %+v", items)
			}
			out := outgoingCalls(t, cl, items[0])
			if len(out) != 2 {
				t.Fatalf("outgoing calls: %+v", out)
			}
			explore := linesIn(enc == "utf-8", string(text), "x:Explore id=DZYW3CfJ")
			if out[0].To.URI != fileURI(sub) || out[0].To.Name != "Explore" || !slices.Equal(out[0].FromRanges, explore) {
				t.Errorf("the call to the sub-agent with a file: %+v; want from %+v", out[0], explore)
			}
			plan := linesIn(enc == "utf-8", string(text), "x:Plan id=pl4n")
			if len(plan) != 2 || out[1].To.URI != uri || out[1].To.Name != "Plan" || out[1].To.Range != plan[0] || !slices.Equal(out[1].FromRanges, plan) {
				t.Errorf("the call to the sub-agent without a file: %+v; want at %+v", out[1], plan)
			}
			in := incomingCalls(t, cl, out[1].To)
			if len(in) != 1 || in[0].From.URI != uri || !slices.Equal(in[0].FromRanges, plan) {
				t.Errorf("incoming calls of the sub-agent without a file: %+v", in)
			}
			in = incomingCalls(t, cl, out[0].To)
			if len(in) != 1 || in[0].From.URI != uri || !slices.Equal(in[0].FromRanges, explore) {
				t.Errorf("incoming calls of the sub-agent's file: %+v; want from the log at %+v", in, explore)
			}
			if items := prepareHierarchy(t, cl, uri, plan[1].End); len(items) != 1 || items[0].Range != plan[1] {
				t.Errorf("prepare on the x: line of a sub-agent without a file: %+v", items)
			}
		})
	}
}

// TestCallHierarchyIsAdvertised: the capability is in the initialize
// result, and a request on a document that is not open is answered with
// null, an item of a file that does not exist with nothing.
func TestCallHierarchyIsAdvertised(t *testing.T) {
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	res := c.Initialize(lsptest.DefaultInitializeParams())
	var init struct {
		Capabilities struct {
			CallHierarchyProvider bool `json:"callHierarchyProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &init); err != nil || !init.Capabilities.CallHierarchyProvider {
		t.Fatalf("callHierarchyProvider not advertised: %s", res)
	}
	missing := fileURI(filepath.Join(t.TempDir(), "gone.rlog"))
	if got := call(t, c, protocol.MethodTextDocumentPrepareCallHierarchy, at(missing, protocol.Position{})); string(got) != "null" {
		t.Errorf("prepare on a document not open: %s", got)
	}
	it := protocol.CallHierarchyItem{Name: "gone", URI: missing}
	for _, m := range []string{protocol.MethodCallHierarchyIncomingCalls, protocol.MethodCallHierarchyOutgoingCalls} {
		if got := call(t, c, m, map[string]any{"item": it}); string(got) != "[]" {
			t.Errorf("%s of a file that does not exist: %s", m, got)
		}
	}
}
