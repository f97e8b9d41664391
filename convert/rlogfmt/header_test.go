package rlogfmt_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// TestHeaderGolden writes the YAML header of each session in
// testdata/header/*.txtar: session.json is a model.Session (its Header, and
// Events when the totals come from them), options.json the writer's options;
// header.rlog is the header written, losses what the report says of it
// (and what the user can do about it).
// Every header written must read back through the header parser with the
// values it was given.
func TestHeaderGolden(t *testing.T) {
	golden.Run(t, "testdata/header/*.txtar", func(t *testing.T, a *golden.Archive) {
		var s model.Session
		if err := json.Unmarshal(a.File(t, "session.json"), &s); err != nil {
			t.Fatal(err)
		}
		var opt model.Options
		if b, ok := a.Get("options.json"); ok {
			if err := json.Unmarshal(b, &opt); err != nil {
				t.Fatal(err)
			}
		}
		out, rep := write(t, &s, opt)
		end := strings.Index(out[4:], "\n---\n")
		if !strings.HasPrefix(out, "---\n") || end < 0 {
			t.Fatalf("no header:\n%s", out)
		}
		a.Check(t, "header.rlog", []byte(out[:4+end+len("\n---\n")]))
		var losses strings.Builder
		for _, l := range rep.Losses {
			fmt.Fprintf(&losses, "%s: %s ×%d\n", l.Kind, l.Detail, l.Count)
			if l.Remedy != "" {
				fmt.Fprintf(&losses, "  remedy: %s\n", l.Remedy)
			}
		}
		a.Check(t, "losses", []byte(losses.String()))

		h := grammar.Parse([]byte(out)).Header()
		if len(h.Errors) > 0 {
			t.Fatalf("the header does not read back: %+v", h.Errors)
		}
		for key, was := range map[string]string{"id": s.Header.ID, "agent": s.Header.AgentName, "version": s.Header.AgentVersion,
			"model": s.Header.Model, "branch": s.Header.Branch, "cwd": s.Header.Cwd} {
			if got, _ := h.Get(key); was != "" && got != strings.ToValidUTF8(was, "\uFFFD") {
				t.Errorf("%s reads back as %q, was %q", key, got, was)
			}
		}
		for _, f := range s.Header.Extra {
			var str string
			if json.Unmarshal(f.Value, &str) != nil || strings.Contains(losses.String(), "header field "+f.Key+" (") {
				continue // not a string, or not written
			}
			if got, ok := h.Get(f.Key); ok && got != str {
				t.Errorf("%s reads back as %q, was %q", f.Key, got, str)
			}
		}
	})
}
