package difftest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Shrink makes a failing script smaller while it still diverges in the
// same probe: it keeps the steps up to the divergence, asks only that
// probe, and then drops what it can of the steps, the edits, the text
// opened and the long texts inserted, replaying each candidate on a new
// server, for at most budget.
func Shrink(t testing.TB, o Options, s *Script, d *Divergence, budget time.Duration) (*Script, *Divergence) {
	deadline := time.Now().Add(budget)
	best, bestD := clone(s), d
	best.Steps = best.Steps[:d.Step+1]
	// fails reports whether candidate c still diverges in d's probe. One
	// that diverges in another probe is another finding: it is saved.
	others := 0
	fails := func(c *Script) bool {
		if time.Now().After(deadline) {
			return false
		}
		_, cd := Run(t, o, c)
		if cd == nil {
			return false
		}
		if cd.Probe != d.Probe {
			others++
			path := filepath.Join(os.TempDir(), fmt.Sprintf("difftest-%d-other-%d.json", s.Seed, others))
			if err := c.Save(path); err == nil {
				t.Logf("while shrinking, a candidate diverged elsewhere: %v (saved in %s)", cd, path)
			}
			return false
		}
		best, bestD = c, cd
		return true
	}
	only := []string{d.Probe}
	// The comparisons ask only the probe that diverged.
	c := clone(best)
	for _, st := range c.Steps {
		if st.Compare != nil {
			st.Compare.Probes = only
		}
	}
	fails(c)
	// Steps before the last. Each ddmin builds its candidates from the
	// script as it was when it began (its indices are into that one).
	base := clone(best)
	ddmin(len(base.Steps)-1, func(keep []int) bool {
		c := clone(base)
		var steps []Step
		for _, i := range keep {
			steps = append(steps, c.Steps[i])
		}
		c.Steps = append(steps, c.Steps[len(c.Steps)-1])
		return fails(c)
	})
	// Edits within each version of each change (a version may end up
	// with none: a didChange with no changes).
	for i := range best.Steps {
		for v := range best.Steps[i].Change {
			base := clone(best)
			ddmin(len(base.Steps[i].Change[v]), func(keep []int) bool {
				c := clone(base)
				edits := []Edit{}
				for _, k := range keep {
					edits = append(edits, base.Steps[i].Change[v][k])
				}
				c.Steps[i].Change[v] = edits
				return fails(c)
			})
		}
	}
	// The lines of the text opened.
	base = clone(best)
	lines := bytes.SplitAfter([]byte(base.Text), []byte("\n"))
	ddmin(len(lines), func(keep []int) bool {
		c := clone(base)
		var b []byte
		for _, k := range keep {
			b = append(b, lines[k]...)
		}
		c.Text = Raw(b)
		return fails(c)
	})
	// Long texts inserted: halved while it still fails.
	for i := range best.Steps {
		for v := range best.Steps[i].Change {
			for k := range best.Steps[i].Change[v] {
				for len(best.Steps[i].Change[v][k].Text) > 16 {
					c := clone(best)
					e := &c.Steps[i].Change[v][k]
					e.Text = e.Text[:len(e.Text)/2]
					if !fails(c) {
						break
					}
				}
			}
		}
	}
	return best, bestD
}

// ddmin calls try with subsets of 0..n-1 (in order), removing ever smaller
// runs of them, and keeps every removal that try accepts. try must accept
// or refuse a subset as a whole.
func ddmin(n int, try func(keep []int) bool) {
	keep := make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	for size := max(len(keep)/2, 1); size >= 1 && len(keep) > 0; {
		removed := false
		for at := 0; at < len(keep); {
			cand := slices.Concat(keep[:at], keep[min(at+size, len(keep)):])
			if try(cand) {
				keep = cand
				removed = true
				continue
			}
			at += size
		}
		if !removed {
			if size == 1 {
				return
			}
			size /= 2
		}
	}
}

// clone copies a script deeply enough that a candidate's changes do not
// touch it.
func clone(s *Script) *Script {
	c := *s
	c.Steps = make([]Step, len(s.Steps))
	for i, st := range s.Steps {
		if st.Change != nil {
			ch := make([][]Edit, len(st.Change))
			for v := range st.Change {
				ch[v] = slices.Clone(st.Change[v])
			}
			st.Change = ch
		}
		if st.Compare != nil {
			cmp := *st.Compare
			cmp.Sites = slices.Clone(cmp.Sites)
			st.Compare = &cmp
		}
		c.Steps[i] = st
	}
	return &c
}
