package idset

import (
	"strconv"
	"testing"
)

func TestSet(t *testing.T) {
	var s Set
	if s.Has("a") || s.Len() != 0 {
		t.Fatal("empty set has something")
	}
	for i := range 100000 {
		if !s.Add("toolu_" + strconv.Itoa(i)) {
			t.Fatalf("id %d was there already", i)
		}
	}
	for i := range 100000 {
		if s.Add("toolu_"+strconv.Itoa(i)) || !s.Has("toolu_"+strconv.Itoa(i)) {
			t.Fatalf("id %d lost", i)
		}
	}
	if s.Has("toolu_100000") || s.Len() != 100000 {
		t.Errorf("len %d", s.Len())
	}
	if !s.AddHash(0) || s.AddHash(0) || !s.HasHash(0) || s.Len() != 100001 {
		t.Error("the zero hash")
	}
	// At most 22 bytes an id once grown (load between 3/8 and 3/4).
	if len(s.slots)*8 > 22*s.Len()+8192 {
		t.Errorf("%d slots for %d ids", len(s.slots), s.Len())
	}
}
