package secretrules

import (
	"regexp"
	"sync"
	"testing"
)

// TestRuleExpressionsCompileOnceOnUse: each rule's expression and its
// loosened form, compiled on first use, are the expressions the table
// compiled eagerly before: every rule's compiles (a bad one would panic in
// a scan, not here, otherwise), once however many goroutines ask at once,
// and to the same text (the rule's, or loosen's of it).
func TestRuleExpressionsCompileOnceOnUse(t *testing.T) {
	c := load()
	n := 0
	for i := range c.rules {
		r := &c.rules[i]
		if r.Rule.Regex == "" {
			if r.re != nil || r.loose != nil {
				t.Errorf("%s: no expression, but a compiled one", r.ID)
			}
			continue
		}
		re, loose := compileOnUse(r.Rule.Regex)
		for _, e := range []struct {
			get, table func() *regexp.Regexp
			want       string
		}{{re, r.re, r.Rule.Regex}, {loose, r.loose, loosen(r.Rule.Regex)}} {
			var got [8]*regexp.Regexp
			var wg sync.WaitGroup
			for g := range got {
				wg.Go(func() { got[g] = e.get() })
			}
			wg.Wait()
			for g := range got {
				if got[g] != got[0] {
					t.Fatalf("%s: %q compiled more than once", r.ID, e.want)
				}
			}
			if s := got[0].String(); s != e.want {
				t.Errorf("%s: compiled %q, want %q", r.ID, s, e.want)
			}
			if s := e.table().String(); s != e.want {
				t.Errorf("%s: the table's is %q, want %q", r.ID, s, e.want)
			}
			n++
		}
	}
	if n < 300 {
		t.Errorf("%d expressions compiled; the table has about 200 rules with two each", n)
	}
}
