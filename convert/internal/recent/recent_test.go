package recent

import (
	"hash/maphash"
	"strconv"
	"strings"
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

// A Set answers Add as a Map of nothing does with Add, and remembers as
// many keys, in each generation: caps of 1 to 64, keys added again while
// in either generation, across rotations and the tables' growth.
func TestSetAsMap(t *testing.T) {
	for _, c := range []int{1, 2, 3, 5, 7, 8, 13, 64, 100} {
		got, want := NewSet(c), New[struct{}](c)
		for i := range 3000 {
			k := strconv.Itoa(i * 7919 % 211 % (3*c + 2))
			checkSetStep(t, got, want, k, c, i)
		}
	}
}

func checkSetStep(t *testing.T, got *Set, want *Map[struct{}], k string, c, i int) {
	t.Helper()
	if g, w := got.Add(k), Add(want, k); g != w {
		t.Fatalf("cap %d, step %d: Add(%q) = %v, want %v", c, i, k, g, w)
	}
	if got.Len() != want.Len() || got.cur.n != len(want.cur) {
		t.Fatalf("cap %d, step %d: %d (%d current) keys, want %d (%d)", c, i, got.Len(), got.cur.n, want.Len(), len(want.cur))
	}
	for k := range want.cur {
		if !got.cur.has(maphash.String(got.seed, k), k) {
			t.Fatalf("cap %d, step %d: %q not in the current generation", c, i, k)
		}
	}
	for k := range want.prev {
		if !got.prev.has(maphash.String(got.seed, k), k) {
			t.Fatalf("cap %d, step %d: %q not in the older generation", c, i, k)
		}
	}
}

// FuzzSetAsMap holds Set.Add to Add on a Map, as TestSetAsMap does, for
// any sequence of keys (each byte of ops one of 256 keys, the empty one
// among them) and caps of 1 to 32.
func FuzzSetAsMap(f *testing.F) {
	f.Add(uint8(3), []byte("abcabcdefgaaaa\x00\x01\x02"))
	f.Add(uint8(1), []byte("xyxyxyxyzz"))
	f.Fuzz(func(t *testing.T, c uint8, ops []byte) {
		cap := int(c%32) + 1
		got, want := NewSet(cap), New[struct{}](cap)
		for i, op := range ops {
			k := ""
			if op > 0 {
				k = strings.Repeat("k", int(op%8)) + strconv.Itoa(int(op>>3))
			}
			checkSetStep(t, got, want, k, cap, i)
		}
	})
}
