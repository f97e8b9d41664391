package lsp

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

const diagURI = protocol.DocumentURI("file:///d.rlog")

func withDebounce(ms int) map[string]any {
	return map[string]any{"diagnostics": map[string]any{"debounceMs": ms}}
}

func versions(pubs []lsptest.Published) []int32 {
	var out []int32
	for _, p := range pubs {
		v := int32(-1) // no version: a clear
		if p.Version != nil {
			v = *p.Version
		}
		out = append(out, v)
	}
	return out
}

func sameInts(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Edits closer together than the debounce publish once, for the last
// version only.
func TestDiagnosticsDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startServer(t, testOptions(t))
		c.Initialize(initParams(withDebounce(100)))
		openDoc(c, diagURI, 1, "TODO")
		synctest.Wait() // an opened document is diagnosed at once
		time.Sleep(60 * time.Millisecond)
		change(c, diagURI, 2, ContentChange{Range: rng(0, 4, 0, 4), Text: jsonString(" FIXME")})
		time.Sleep(60 * time.Millisecond)
		change(c, diagURI, 3, ContentChange{Range: rng(0, 0, 0, 4), Text: jsonString("done")})
		synctest.Wait()
		if pubs := c.Diagnostics(diagURI); !sameInts(versions(pubs), []int32{1}) {
			t.Fatalf("published during the debounce: %v", versions(pubs))
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		pubs := c.Diagnostics(diagURI)
		if !sameInts(versions(pubs), []int32{1, 3}) || len(pubs[1].Diagnostics) != 1 || pubs[1].Diagnostics[0].Code != "fixme" {
			t.Fatalf("got versions %v: %+v", versions(pubs), pubs)
		}
	})
}

// An opened document is diagnosed at once; an edit after the debounce,
// which follows the setting (100 ms by default).
func TestDiagnosticsDefaultDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startServer(t, testOptions(t))
		c.Initialize(nil)
		start := time.Now()
		openDoc(c, diagURI, 1, "TODO")
		c.WaitDiagnostics(diagURI, lsptest.AtVersion(1))
		if waited := time.Since(start); waited != 0 {
			t.Fatalf("open published after %v (fake clock), want at once", waited)
		}
		start = time.Now()
		change(c, diagURI, 2, ContentChange{Text: jsonString("TODO TODO")})
		c.WaitDiagnostics(diagURI, lsptest.AtVersion(2))
		if waited := time.Since(start); waited != 100*time.Millisecond {
			t.Fatalf("edit published after %v (fake clock), want 100ms", waited)
		}
	})
}

// Lines appended at the end of a document (a log growing on disk, which
// the editor reloads) are diagnosed at once, ranged or whole; any other
// edit waits for the debounce.
func TestAppendedLinesSkipTheDebounce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startServer(t, testOptions(t))
		c.Initialize(nil)
		openDoc(c, diagURI, 1, "ok\n")
		c.WaitDiagnostics(diagURI, lsptest.AtVersion(1))
		for i, ch := range []ContentChange{
			{Range: rng(1, 0, 1, 0), Text: jsonString("TODO\n")},
			{Text: jsonString("ok\nTODO\nFIXME\n")},
		} {
			v := int32(i + 2)
			start := time.Now()
			change(c, diagURI, v, ch)
			c.WaitDiagnostics(diagURI, lsptest.AtVersion(v))
			if waited := time.Since(start); waited != 0 {
				t.Fatalf("version %d: appended lines published after %v (fake clock), want at once", v, waited)
			}
		}
		start := time.Now()
		change(c, diagURI, 4, ContentChange{Range: rng(0, 0, 0, 0), Text: jsonString("TODO ")})
		c.WaitDiagnostics(diagURI, lsptest.AtVersion(4))
		if waited := time.Since(start); waited != 100*time.Millisecond {
			t.Fatalf("an edit at the start published after %v (fake clock), want 100ms", waited)
		}
	})
}

// A run for an old version never publishes after a newer version's: here
// the old run is still computing when the new version is published.
func TestStaleDiagnosticsNeverPublished(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		opts := testOptions(t)
		opts.Features.Diagnose = func(ctx context.Context, dc *DocumentContext[*plainText]) Diagnostics {
			if strings.HasPrefix(dc.Doc.Text.String(), "slow") {
				<-release // ignores ctx on purpose: a slow analysis that does not look
			}
			return toyDiagnose(ctx, dc)
		}
		c := startServer(t, opts)
		c.Initialize(initParams(noDebounce))
		openDoc(c, diagURI, 1, "slow TODO")
		synctest.Wait() // version 1 is being diagnosed
		change(c, diagURI, 2, ContentChange{Text: jsonString("fast FIXME")})
		c.WaitDiagnostics(diagURI, lsptest.AtVersion(2))
		close(release)
		synctest.Wait()
		if got := versions(c.Diagnostics(diagURI)); !sameInts(got, []int32{2}) {
			t.Fatalf("published versions %v, want [2]", got)
		}
	})
}

// Diagnostics are never null, version 0 is kept (pitfall 12), and closing
// clears them with [] (pitfall 3).
func TestDiagnosticsWireShapes(t *testing.T) {
	c := startInitialized(t)
	openDoc(c, diagURI, 0, "all good")
	p := c.WaitDiagnostics(diagURI, nil)
	lsptest.AssertJSON(t, p.Raw, `{"uri":"file:///d.rlog","version":0,"diagnostics":[]}`)
	closeDoc(c, diagURI)
	p = c.WaitDiagnostics(diagURI, lsptest.Cleared)
	lsptest.AssertJSON(t, p.Raw, `{"uri":"file:///d.rlog","diagnostics":[]}`)
}

// startWithPendingRun starts a server with a debounce of 100 ms and opens
// diagURI; its first diagnostics published, a change leaves a run pending
// in the debounce.
func startWithPendingRun(t *testing.T) *lsptest.Client {
	t.Helper()
	c := startServer(t, testOptions(t))
	c.Initialize(initParams(withDebounce(100)))
	openDoc(c, diagURI, 1, "TODO")
	c.WaitDiagnostics(diagURI, lsptest.AtVersion(1))
	change(c, diagURI, 2, ContentChange{Text: jsonString("TODO TODO")})
	return c
}

// Closing a document with a run pending publishes only the clear.
func TestCloseCancelsPendingDiagnostics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startWithPendingRun(t)
		closeDoc(c, diagURI)
		time.Sleep(time.Second)
		synctest.Wait()
		if got := versions(c.Diagnostics(diagURI)); !sameInts(got, []int32{1, -1}) {
			t.Fatalf("published %v, want version 1, then only the clear", got)
		}
	})
}

// Re-running with the same result publishes nothing; a setting that changes
// the result publishes again.
func TestIdenticalPublishSkippedAndSettingsRerun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startInitialized(t)
		openDoc(c, diagURI, 1, "TODO FIXME")
		c.WaitDiagnostics(diagURI, nil)
		push := func(settings string) {
			c.SendRaw(`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"rlog":` + settings + `}}}`)
			synctest.Wait()
		}
		push(`{"diagnostics":{"debounceMs":0},"outline":{"maxItems":5}}`) // changes nothing diagnostics show
		if n := len(c.Diagnostics(diagURI)); n != 1 {
			t.Fatalf("%d publishes, want 1", n)
		}
		push(`{"diagnostics":{"debounceMs":0},"disabledCodes":["todo"]}`)
		pubs := c.Diagnostics(diagURI)
		if len(pubs) != 2 || len(pubs[1].Diagnostics) != 1 || pubs[1].Diagnostics[0].Code != "fixme" {
			t.Fatalf("got %+v", pubs)
		}
	})
}

// A new version with the same findings is published again, so the editor
// ties them to the version it shows.
func TestNewVersionRepublishes(t *testing.T) {
	c := startInitialized(t)
	openDoc(c, diagURI, 1, "TODO")
	c.WaitDiagnostics(diagURI, lsptest.AtVersion(1))
	change(c, diagURI, 2, ContentChange{Range: rng(0, 0, 0, 0), Text: jsonString(" ")})
	c.WaitDiagnostics(diagURI, lsptest.AtVersion(2))
}

func TestDiagnosticsCap(t *testing.T) {
	c := startServer(t, testOptions(t))
	c.Initialize(initParams(map[string]any{"diagnostics": map[string]any{"debounceMs": 0, "maxPerDocument": 2}}))
	openDoc(c, diagURI, 1, "TODO\nTODO\nTODO\nTODO\nTODO")
	p := c.WaitDiagnostics(diagURI, nil)
	if len(p.Diagnostics) != 3 {
		t.Fatalf("got %d diagnostics", len(p.Diagnostics))
	}
	last := p.Diagnostics[2]
	if last.Severity != protocol.DiagnosticSeverityInformation || !strings.HasPrefix(last.Message, "3 more diagnostics not shown") ||
		last.Range.Start.Line != 2 {
		t.Fatalf("last diagnostic %+v", last)
	}
}

// A Diagnose that panics publishes nothing and the server carries on.
func TestDiagnosePanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := testOptions(t)
		opts.Features.Diagnose = func(ctx context.Context, dc *DocumentContext[*plainText]) Diagnostics {
			if dc.Doc.Text.String() == "panic" {
				panic("analysis bug")
			}
			return toyDiagnose(ctx, dc)
		}
		c := startServer(t, opts)
		c.Initialize(initParams(noDebounce))
		openDoc(c, diagURI, 1, "panic")
		synctest.Wait()
		change(c, diagURI, 2, ContentChange{Text: jsonString("TODO")})
		c.WaitDiagnostics(diagURI, lsptest.AtVersion(2))
		if got := versions(c.Diagnostics(diagURI)); !sameInts(got, []int32{2}) {
			t.Fatalf("published %v", got)
		}
	})
}

// After shutdown nothing more is published, even what was pending.
func TestNoDiagnosticsAfterShutdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := startWithPendingRun(t)
		if err := c.Call(protocol.MethodShutdown, nil, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := versions(c.Diagnostics(diagURI)); !sameInts(got, []int32{1}) {
			t.Fatalf("publishes %v: version 2 was published after shutdown", got)
		}
	})
}

func TestFinalizeDiagnostics(t *testing.T) {
	d := func(code any) protocol.Diagnostic { return protocol.Diagnostic{Code: code, Message: "m"} }
	s := DefaultSettings(nil)
	s.DisabledCodes = []string{"w001", "7"}
	got := finalizeDiagnostics(Diagnostics{List: []protocol.Diagnostic{d("W001"), d("W002"), d(int32(7)), d(float64(7)), d(nil)}}, s)
	if len(got) != 2 || got[0].Code != "W002" || got[1].Code != nil {
		t.Fatalf("got %+v", got)
	}
	if got := finalizeDiagnostics(Diagnostics{}, s); got == nil || len(got) != 0 {
		t.Fatalf("nil in, %#v out", got)
	}
}

// A language that stops at the cap and counts the rest gets the same note
// as one that builds everything.
func TestFinalizeDiagnosticsNotBuilt(t *testing.T) {
	at := func(line uint32) protocol.Diagnostic {
		return protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: line}}, Code: "W002", Message: "m"}
	}
	s := DefaultSettings(nil)
	s.Diagnostics.MaxPerDocument = 2
	all := finalizeDiagnostics(Diagnostics{List: []protocol.Diagnostic{at(1), at(2), at(3), at(4), at(5)}}, s)
	capped := finalizeDiagnostics(Diagnostics{List: []protocol.Diagnostic{at(1), at(2), at(3)}, NotBuilt: 2}, s)
	if !reflect.DeepEqual(all, capped) {
		t.Fatalf("built in full:\n%+v\ncapped by the language:\n%+v", all, capped)
	}
	if len(capped) != 3 || capped[2].Range.Start.Line != 3 || !strings.HasPrefix(capped[2].Message, "3 more diagnostics") {
		t.Fatalf("got %+v", capped)
	}
}

// TestAfterPublishRunsOnceTheDiagnosticsAreOut: the work a Diagnose leaves
// for later runs only after the client has the diagnostics (it waits here
// until the test has seen them, so running it before publishing would
// never publish), and a panic in it leaves the server serving.
func TestAfterPublishRunsOnceTheDiagnosticsAreOut(t *testing.T) {
	seen, ran := make(chan struct{}), make(chan struct{})
	opts := testOptions(t)
	calls := 0
	opts.Features.Diagnose = func(ctx context.Context, dc *DocumentContext[*plainText]) Diagnostics {
		d := toyDiagnose(ctx, dc)
		calls++
		if calls == 1 {
			d.AfterPublish = func() {
				select {
				case <-seen:
				case <-time.After(10 * time.Second):
					t.Error("AfterPublish ran before the diagnostics were published")
				}
				close(ran)
			}
		} else {
			d.AfterPublish = func() { panic("a bug in a cache") }
		}
		return d
	}
	c := startServer(t, opts)
	c.Initialize(initParams(noDebounce))
	openDoc(c, diagURI, 1, "TODO\n")
	if p := c.WaitDiagnostics(diagURI, lsptest.AtVersion(1)); len(p.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %+v, want the TODO", p.Diagnostics)
	}
	close(seen)
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("AfterPublish never ran")
	}
	change(c, diagURI, 2, ContentChange{Text: jsonString("FIXME TODO\n")})
	if p := c.WaitDiagnostics(diagURI, lsptest.AtVersion(2)); len(p.Diagnostics) != 2 {
		t.Fatalf("after a panicking AfterPublish: diagnostics = %+v, want 2", p.Diagnostics)
	}
	change(c, diagURI, 3, ContentChange{Text: jsonString("ok\n")})
	c.WaitDiagnostics(diagURI, lsptest.AtVersion(3))
}
