package model

import (
	"strconv"
	"testing"
)

// FuzzElemPath holds elemPath, written into a buffer, to the path
// concatenated.
func FuzzElemPath(f *testing.F) {
	f.Add("steps", 0)
	f.Add("messages", 4093)
	f.Add("a key longer than the sixty-four bytes of the buffer on the stack", -1)
	f.Add("", 1<<62)
	f.Fuzz(func(t *testing.T, key string, i int) {
		if got, want := elemPath(key, i), "$."+key+"["+strconv.Itoa(i)+"]"; got != want {
			t.Fatalf("elemPath(%q, %d) = %q, want %q", key, i, got, want)
		}
	})
}
