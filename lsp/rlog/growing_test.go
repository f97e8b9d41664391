package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// growingLog is a session whose first call has no result yet (W007) and
// enough lines to span several chunks, with a non-ASCII line near its end.
func growingLog() string {
	var b strings.Builder
	b.WriteString("---\nformat: rlog/1\nid: grow\nrepo_sha: abcdef1\nrunner: ci\n---\n@start id=s ts=2025-12-19T20:29:02Z\n")
	b.WriteString("t!:Bash id=late cmd=\"make\" → [running]\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "t!:Read id=c%d file_path=src/f%d.go → [running]\no: id=c%d → [ok] %d lines\n", i, i, i, i)
	}
	b.WriteString("u: 😀 漢字 still going\n")
	return b.String()
}

// freshDiagnostics is what a new server publishes for text.
func freshDiagnostics(t *testing.T, text string) json.RawMessage {
	t.Helper()
	c := start(t, "", nil)
	open(t, c, testURI, text)
	return diagnosticsOnly(c.WaitDiagnostics(testURI, lsptest.AtVersion(1)))
}

func diagnosticsOnly(p lsptest.Published) json.RawMessage {
	b, _ := json.Marshal(p.Diagnostics)
	return b
}

// A log that grows while it is open, in each way editors reload it, gets
// the diagnostics a fresh open of the grown text gets: the server turns the
// reload into an edit of the end and brings the kept analysis up to date.
func TestGrowingLogReloads(t *testing.T) {
	before := growingLog()
	grown := before + "o: id=late → [ok] built\no: id=ghost → [ok] 😀\n"
	want := freshDiagnostics(t, grown)
	if !strings.Contains(string(freshDiagnostics(t, before)), `"W007"`) || strings.Contains(string(want), `"W007"`) ||
		!strings.Contains(string(want), "unknown call id: ghost") {
		t.Fatal("the test log does not exercise a finding that the appended lines resolve and one they add")
	}
	lines := uint32(strings.Count(before, "\n"))
	for name, reload := range map[string]func(c *lsptest.Client) int32{
		// VS Code: one ranged change inserting the new lines at the end.
		"ranged": func(c *lsptest.Client) int32 {
			c.Change(testURI, 2, lsptest.Change{Range: lsptest.Span(lines, 0, lines, 0), Text: grown[len(before):]})
			return 2
		},
		// A client that sends the whole document.
		"whole": func(c *lsptest.Client) int32 {
			c.Change(testURI, 2, lsptest.Change{Text: grown})
			return 2
		},
		// Neovim: didClose, then didOpen with the file's new text.
		"reopen": func(c *lsptest.Client) int32 {
			c.Close(testURI)
			c.Open(testURI, 0, grown)
			return 0
		},
	} {
		c := start(t, "", nil)
		open(t, c, testURI, before)
		c.WaitDiagnostics(testURI, lsptest.AtVersion(1))
		v := reload(c)
		got := diagnosticsOnly(c.WaitDiagnostics(testURI, lsptest.AtVersion(v)))
		if string(got) != string(want) {
			t.Errorf("%s: diagnostics after the reload\n got %.400s\nwant %.400s", name, got, want)
		}
	}
}

// The server logs the form of each didChange, which is how the editors'
// reloads in docs/live.md were found.
func TestDidChangeIsLogged(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Logger: zap.New(core)})
	})
	c.Initialize(nil)
	c.Open(testURI, 1, "u: a\n")
	c.Change(testURI, 2, lsptest.Change{Text: "u: a\nu: b\n"})
	c.WaitDiagnostics(testURI, lsptest.AtVersion(2))
	entries := logs.FilterMessage("didChange").All()
	if len(entries) != 1 {
		t.Fatalf("%d didChange log entries", len(entries))
	}
	got := entries[0].ContextMap()
	want := map[string]any{"uri": string(testURI), "version": int32(2), "wholeDocument": int64(1), "ranged": int64(0),
		"replacedBytes": int64(0), "insertedBytes": int64(5), "appended": true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("didChange log: %v, want %v", got, want)
	}
}
