package usage

import "testing"

// TestCodex: a Codex response's usage, whose input holds its cached tokens
// and whose output holds its reasoning, sums to its total_tokens (input +
// output), with input and cache apart; counts that do not add up (cached
// above input) leave no negative input.
func TestCodex(t *testing.T) {
	c := Codex(3400, 2900, 0, 15)
	if c != (Counts{In: 500, Out: 15, Cached: 2900}) || c.In+c.Out+c.Cached+c.CacheCreate != 3400+15 {
		t.Errorf("Codex(3400, 2900, 0, 15) = %+v", c)
	}
	if c := Codex(100, 60, 40, 7); c != (Counts{In: 0, Out: 7, Cached: 60, CacheCreate: 40}) {
		t.Errorf("cache writes: %+v", c)
	}
	if c := Codex(10, 50, 0, 1); c.In != 0 || c.Cached != 50 {
		t.Errorf("cached above input: %+v", c)
	}
}
