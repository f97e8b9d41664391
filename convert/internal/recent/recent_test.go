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
