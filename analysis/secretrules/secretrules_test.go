package secretrules

import (
	"sync"
	"testing"
)

// TestRuleExpressionsCompileOnceOnUse: each rule's expression and its
// loosened form, compiled on first use, are the expressions the table
// compiled eagerly before: every rule's compile (a bad one would panic in
// a scan, not here otherwise), once however many goroutines ask at once,
// and the same text (regexp.MustCompile of the rule's, or of loosen's).
func TestRuleExpressionsCompileOnceOnUse(t *testing.T) {
	c := load()
	n := 0
	for i := range c.rules {
		r := &c.rules[i]
		if r.Rule.Regex == "" {
			if r.re != nil || r.loose != nil {
				t.Errorf("%s: no expression, but a lazy one", r.ID)
			}
			continue
		}
		for _, want := range []struct {
			expr     string
			loosened bool
		}{{r.Rule.Regex, false}, {loosen(r.Rule.Regex), true}} {
			fresh := &lazyRegexp{expr: r.Rule.Regex, loosened: want.loosened}
			if fresh.re != nil {
				t.Fatalf("%s: compiled before use", r.ID)
			}
			var got [8]any
			var wg sync.WaitGroup
			for g := range got {
				wg.Go(func() { got[g] = fresh.get() })
			}
			wg.Wait()
			for g := range got {
				if got[g] != got[0] {
					t.Fatalf("%s: compiled more than once", r.ID)
				}
			}
			if s := fresh.get().String(); s != want.expr {
				t.Errorf("%s (loosened %v): compiled %q, want %q", r.ID, want.loosened, s, want.expr)
			}
			n++
		}
		if r.re.get().String() != r.Rule.Regex || r.loose.get().String() != loosen(r.Rule.Regex) {
			t.Errorf("%s: the table's expressions are not the rule's", r.ID)
		}
	}
	if n < 300 {
		t.Errorf("%d expressions compiled; the table has about 200 rules with two each", n)
	}
}
