package recent

import (
	"strconv"
	"testing"
)

func TestMapRemembersTheLatestOnly(t *testing.T) {
	m := New[int](100)
	for i := range 100000 {
		m.Set(strconv.Itoa(i), i)
		if m.Len() > 200 {
			t.Fatalf("%d entries after %d sets", m.Len(), i+1)
		}
	}
	for i := 100000 - 100; i < 100000; i++ {
		if v, ok := m.Get(strconv.Itoa(i)); !ok || v != i {
			t.Fatalf("latest key %d forgotten", i)
		}
	}
	if _, ok := m.Get("5"); ok {
		t.Error("an old key is remembered")
	}
	m.Set("99999", -1)
	m.Delete("99998")
	if v, _ := m.Get("99999"); v != -1 {
		t.Error("Set did not replace")
	}
	if _, ok := m.Get("99998"); ok {
		t.Error("Delete did not forget")
	}
}

// Add is Get, then Set when the key is not remembered: the same keys
// remembered after every step, across the generations' rotations, with
// keys added again while they are in either generation.
func TestAddIsGetThenSet(t *testing.T) {
	for _, c := range []int{1, 2, 3, 7, 64} {
		got, want := New[struct{}](c), New[struct{}](c)
		for i := range 2000 {
			k := strconv.Itoa(i * 7919 % 97 % (3*c + 2))
			_, was := want.Get(k)
			if !was {
				want.Set(k, struct{}{})
			}
			if added := Add(got, k); added == was {
				t.Fatalf("cap %d, step %d: Add(%q) = %v, the key was remembered: %v", c, i, k, added, was)
			}
			if got.Len() != want.Len() || len(got.cur) != len(want.cur) {
				t.Fatalf("cap %d, step %d: %d (%d current) keys, want %d (%d)", c, i, got.Len(), len(got.cur), want.Len(), len(want.cur))
			}
			for k := range want.cur {
				if _, ok := got.cur[k]; !ok {
					t.Fatalf("cap %d, step %d: %q not in the current generation", c, i, k)
				}
			}
			for k := range want.prev {
				if _, ok := got.prev[k]; !ok {
					t.Fatalf("cap %d, step %d: %q not in the older generation", c, i, k)
				}
			}
		}
	}
}
