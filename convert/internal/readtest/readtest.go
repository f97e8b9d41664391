// Package readtest holds what the readers' differential tests share: the
// comparison of two readings of one input, a fast path and the simple one
// it replaces.
package readtest

import (
	"reflect"
	"testing"
)

// Same fails t when read gives another result (a session), report or
// error with fast than without it. events lists a result's parts, so that
// a failure names the first that differs.
func Same[S any, E any](t *testing.T, read func(fast bool) (S, string, error), events func(S) []E) {
	t.Helper()
	got, gotRep, gotErr := read(true)
	want, wantRep, wantErr := read(false)
	if (gotErr == nil) != (wantErr == nil) || gotRep != wantRep {
		t.Fatalf("error %v, report\n%s\nthe simple reading: error %v, report\n%s", gotErr, gotRep, wantErr, wantRep)
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	g, w := events(got), events(want)
	for i := range min(len(g), len(w)) {
		if !reflect.DeepEqual(g[i], w[i]) {
			t.Fatalf("event %d\n      fast %+v\nthe simple %+v", i, g[i], w[i])
		}
	}
	t.Fatalf("results differ beyond their events (%d and %d events)", len(g), len(w))
}
