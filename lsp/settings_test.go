package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// testLanguage are a language's own options, for the tests of their
// plumbing (rlog's are lsp/rlog's).
type testLanguage struct {
	MaxItems int `json:"maxItems"`
}

func (l testLanguage) Overlay(raw json.RawMessage) (LanguageSettings, error) {
	out := l
	err := json.Unmarshal(raw, &out)
	return out, err
}

func TestSettingsOverlay(t *testing.T) {
	def := DefaultSettings(testLanguage{MaxItems: 7})
	for _, tc := range []struct {
		name    string
		raw     string
		want    func(*Settings)
		wantErr bool
	}{
		{"null", `null`, func(*Settings) {}, false},
		{"empty", ``, func(*Settings) {}, false},
		{"direct", `{"disabledCodes":["W001"],"maxItems":10}`, func(s *Settings) {
			s.DisabledCodes = []string{"W001"}
			s.Language = testLanguage{MaxItems: 10}
		}, false},
		{"nested under rlog", `{"rlog":{"diagnostics":{"maxPerDocument":5},"maxItems":4}}`, func(s *Settings) {
			s.Diagnostics.MaxPerDocument = 5
			s.Language = testLanguage{MaxItems: 4}
		}, false},
		{"negative values fall back to defaults", `{"diagnostics":{"debounceMs":-3,"maxPerDocument":-1}}`, func(*Settings) {}, false},
		{"zero is a value", `{"diagnostics":{"debounceMs":0,"maxPerDocument":0}}`, func(s *Settings) {
			s.Diagnostics.DebounceMs = 0
			s.Diagnostics.MaxPerDocument = 0
		}, false},
		{"unknown keys are ignored", `{"future":{"x":1},"maxItems":3}`, func(s *Settings) { s.Language = testLanguage{MaxItems: 3} }, false},
		{"a wrong type is an error", `{"diagnostics":{"debounceMs":"soon"}}`, func(*Settings) {}, true},
		{"a wrong type of the language's is an error", `{"maxItems":"many"}`, func(*Settings) {}, true},
	} {
		got, err := def.overlay("rlog", json.RawMessage(tc.raw))
		want := DefaultSettings(testLanguage{MaxItems: 7})
		tc.want(&want)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, want)
		}
	}
}

// Settings values are shared by snapshots; overlaying must not write into
// the slice of the value it starts from.
func TestSettingsOverlayDoesNotModifyBase(t *testing.T) {
	base, _ := DefaultSettings(nil).overlay("rlog", json.RawMessage(`{"disabledCodes":["A","B"]}`))
	if _, err := base.overlay("rlog", json.RawMessage(`{"disabledCodes":["C"]}`)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(base.DisabledCodes, []string{"A", "B"}) {
		t.Fatalf("base changed: %v", base.DisabledCodes)
	}
}

// An older configuration read that is answered late does not override a
// newer one; each read applies over the base, not over the previous read.
func TestSettingsSourceOrdering(t *testing.T) {
	src := newSettingsSource("rlog", testLanguage{MaxItems: 7})
	if err := src.setBase(json.RawMessage(`{"disabledCodes":["BASE"]}`)); err != nil {
		t.Fatal(err)
	}
	g1, g2 := src.begin(), src.begin()
	if changed, _ := src.apply(g2, json.RawMessage(`{"maxItems":2}`)); !changed {
		t.Fatal("apply reported no change")
	}
	if changed, _ := src.apply(g1, json.RawMessage(`{"maxItems":1}`)); changed {
		t.Fatal("a stale read was applied")
	}
	cur := src.current()
	if cur.Language != (testLanguage{MaxItems: 2}) || !reflect.DeepEqual(cur.DisabledCodes, []string{"BASE"}) {
		t.Fatalf("got %+v", cur)
	}
	g3 := src.begin()
	src.apply(g3, nil) // the user removed every setting: back to the base
	if cur := src.current(); cur.Language != (testLanguage{MaxItems: 7}) {
		t.Fatalf("got %+v", cur)
	}
}

func TestInitializationOptionsApply(t *testing.T) {
	c := startServer(t, testOptions(t))
	c.Initialize(initParams(map[string]any{"diagnostics": map[string]any{"debounceMs": 0}, "disabledCodes": []string{"todo"}}))
	openDoc(c, diagURI, 1, "TODO FIXME")
	p := c.WaitDiagnostics(diagURI, nil)
	if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != "fixme" {
		t.Fatalf("got %s", p.Raw)
	}
}

// A client that answers workspace/configuration is asked after initialized
// and again on every didChangeConfiguration; the answer applies over the
// initializationOptions and re-runs diagnostics. It is also asked to send
// didChangeConfiguration, when it allows dynamic registration.
func TestWorkspaceConfiguration(t *testing.T) {
	c := startServer(t, testOptions(t))
	var answer atomic.Value
	answer.Store(`{"disabledCodes":["fixme"]}`)
	c.OnRequest(protocol.MethodWorkspaceConfiguration, func(params json.RawMessage) (any, error) {
		return []json.RawMessage{json.RawMessage(answer.Load().(string))}, nil
	})
	params := initParams(noDebounce)
	params["capabilities"] = map[string]any{"workspace": map[string]any{
		"configuration":          true,
		"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
	}}
	c.Initialize(params)

	req := c.WaitFrame("workspace/configuration", func(f lsptest.Frame) bool {
		return f.IsRequest() && f.Method == protocol.MethodWorkspaceConfiguration
	})
	lsptest.AssertJSON(t, req.Params, `{"items":[{"section":"rlog"}]}`)
	reg := c.WaitFrame("client/registerCapability", func(f lsptest.Frame) bool {
		return f.IsRequest() && f.Method == protocol.MethodClientRegisterCapability
	})
	lsptest.AssertJSON(t, reg.Params, `{"registrations":[{"id":"rlog-ls.didChangeConfiguration","method":"workspace/didChangeConfiguration"}]}`)

	openDoc(c, diagURI, 1, "TODO FIXME")
	c.WaitDiagnostics(diagURI, func(p lsptest.Published) bool {
		return len(p.Diagnostics) == 1 && p.Diagnostics[0].Code == "todo"
	})

	answer.Store(`{"disabledCodes":["todo"]}`)
	c.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": nil})
	c.WaitDiagnostics(diagURI, func(p lsptest.Published) bool {
		return len(p.Diagnostics) == 1 && p.Diagnostics[0].Code == "fixme"
	})
	if n := len(c.Requests(protocol.MethodWorkspaceConfiguration)); n != 2 {
		t.Fatalf("%d configuration requests, want 2", n)
	}
}

// A client whose configuration answer fails is still served.
func TestWorkspaceConfigurationFailure(t *testing.T) {
	c := startServer(t, testOptions(t))
	c.OnRequest(protocol.MethodWorkspaceConfiguration, func(json.RawMessage) (any, error) {
		return nil, errors.New("no configuration here")
	})
	params := initParams(noDebounce)
	params["capabilities"] = map[string]any{"workspace": map[string]any{"configuration": true}}
	c.Initialize(params)
	c.WaitFrame("workspace/configuration", func(f lsptest.Frame) bool { return f.Method == protocol.MethodWorkspaceConfiguration })
	openDoc(c, diagURI, 1, "TODO")
	if p := c.WaitDiagnostics(diagURI, nil); len(p.Diagnostics) != 1 {
		t.Fatalf("got %s", p.Raw)
	}
}

// A settings change asks for the inlay hints again, of a client that says
// it answers workspace/inlayHint/refresh, when the features give hints;
// never of one that does not say so.
func TestSettingsChangeRefreshesInlayHints(t *testing.T) {
	for _, supports := range []bool{true, false} {
		opts := testOptions(t)
		opts.Features.Requests[MethodTextDocumentInlayHint] = DocumentRequest(func(context.Context, *DocumentContext[*plainText], *InlayHintParams) (any, error) {
			return []InlayHint{}, nil
		})
		opts.Features.Settings = testLanguage{MaxItems: 7}
		c := startServer(t, opts)
		c.OnRequest(MethodWorkspaceInlayHintRefresh, func(json.RawMessage) (any, error) { return nil, nil })
		params := initParams(noDebounce)
		params["capabilities"] = map[string]any{"workspace": map[string]any{"inlayHint": map[string]any{"refreshSupport": supports}}}
		c.Initialize(params)
		c.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"maxItems": 5}})
		// The same settings again change nothing, and ask for nothing.
		c.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"maxItems": 5}})
		if supports {
			c.WaitFrame("inlay hint refresh", func(f lsptest.Frame) bool { return f.IsRequest() && f.Method == MethodWorkspaceInlayHintRefresh })
		} else {
			time.Sleep(100 * time.Millisecond) // a refresh would be sent in the background: give it the time
		}
		// A round trip after the notifications: anything they sent is in.
		var res json.RawMessage
		if err := c.Call("toy/text", documentParams{}, &res); err != nil {
			t.Fatal(err)
		}
		if n := len(c.Requests(MethodWorkspaceInlayHintRefresh)); n != map[bool]int{true: 1, false: 0}[supports] {
			t.Fatalf("refreshSupport %v: %d refresh requests", supports, n)
		}
	}
}
