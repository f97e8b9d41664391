package secretrules

import (
	"regexp"
	"slices"
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

// TestAllowlistsCompileOnceOnUse: each rule's allowlists and the global
// ones are compiled once, whichever goroutines ask first, into what their
// configuration states.
func TestAllowlistsCompileOnceOnUse(t *testing.T) {
	c := load()
	check := func(name string, get func() []allowlist, src []Allowlist) {
		var got [8][]allowlist
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() { got[g] = get() })
		}
		wg.Wait()
		if len(got[0]) != len(src) {
			t.Fatalf("%s: %d allowlists, want %d", name, len(got[0]), len(src))
		}
		for g := range got {
			if len(src) > 0 && &got[g][0] != &got[0][0] {
				t.Fatalf("%s: compiled more than once", name)
			}
		}
		for i, a := range got[0] {
			want := compileAllowlist(src[i])
			same := func(x, y *regexp.Regexp) bool {
				return (x == nil) == (y == nil) && (x == nil || x.String() == y.String())
			}
			if a.all != want.all || a.target != want.target || !same(a.paths, want.paths) || !same(a.regexes, want.regexes) ||
				(a.stopwords == nil) != (want.stopwords == nil) || a.stopwords != nil && !slices.Equal(a.stopwords.words, want.stopwords.words) {
				t.Errorf("%s: allowlist %d is not its configuration's", name, i)
			}
		}
	}
	n := 0
	for i := range c.rules {
		r := &c.rules[i]
		check(r.ID, r.allow, r.Allowlists)
		n += len(r.Allowlists)
	}
	check("global", c.global, gitleaksGlobalAllowlists)
	if n < 10 || len(gitleaksGlobalAllowlists) == 0 {
		t.Errorf("%d rules' allowlists and %d global ones: more expected", n, len(gitleaksGlobalAllowlists))
	}
}
