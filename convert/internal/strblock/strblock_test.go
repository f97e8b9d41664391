package strblock

import (
	"bytes"
	"testing"
	"unsafe"
)

// checkRoom makes a string of each of parts in r, in order (Of, or Join
// of its two halves), and a slice of every other (bytes, appended to once the next is made), and holds each to
// string(part), then every string and slice made before it to what it
// was: a block is never written over, whatever is made or appended after.
func checkRoom(t *testing.T, r *Room, parts [][]byte) {
	t.Helper()
	var made, want []string
	var last []byte // the last slice made: appended to after each part
	for i, b := range parts {
		var s string
		var c []byte
		if i%2 == 1 {
			c = r.Bytes(b)
			if string(c) != string(b) {
				t.Fatalf("bytes(%q) = %q", b, c)
			}
			s = unsafe.String(unsafe.SliceData(c), len(c))
		} else if i%4 == 2 && len(b) > 0 {
			s = r.Join(string(b[:len(b)/2]), string(b[len(b)/2:]))
		} else {
			s = r.Of(b)
		}
		if s != string(b) {
			t.Fatalf("of(%q) = %q", b, s)
		}
		made, want = append(made, s), append(want, string(b))
		if last != nil {
			_ = append(last, "appended"...) // made elsewhere, never over the block
		}
		if c != nil {
			last = c
		}
		for i := range b {
			b[i] ^= 0xFF // the caller's bytes change: the string does not
		}
		for i := range made {
			if made[i] != want[i] {
				t.Fatalf("string %d changed to %q from %q after %d strings", i, made[i], want[i], len(made))
			}
		}
	}
}

// TestRoom makes strings of every length from 0 to past a block's
// longest, in the zero room, a small one and the ones the rlog reader and the
// Claude Code writer use.
func TestRoom(t *testing.T) {
	rooms := map[string]func() Room{
		"zero":   func() Room { return Room{} },
		"small":  func() Room { return New(16, 8) },
		"ids":    func() Room { return New(2048, 64) },      // the rlog reader's ids
		"lines":  func() Room { return New(16<<10, 2<<10) }, // its lines
		"claude": func() Room { return New(2048, 2048) },    // the Claude Code writer's
	}
	for name, mk := range rooms {
		r := mk()
		var parts [][]byte
		for n := 0; n <= 70; n++ {
			parts = append(parts, bytes.Repeat([]byte{byte('a' + n%26)}, n))
		}
		parts = append(parts, []byte("😀é\xff\x00"), bytes.Repeat([]byte("x"), 3000), []byte("2025-12-19T20:29:02Z"))
		t.Run(name, func(t *testing.T) { checkRoom(t, &r, parts) })
	}
}

// FuzzRoom holds Room.Of, Join and Bytes to string(b) for the strings of one input, cut
// where it holds a newline, made one after another in a small room (a
// block of 16 bytes, strings of 8 at most) and in the reader's rooms.
func FuzzRoom(f *testing.F) {
	f.Add([]byte("id=abc\nts=2025-12-19T20:29:02Z\n\nclaude-sonnet-4-5\n0123456789abcdefg\n"))
	f.Add([]byte("a\nbb\nccc\ndddd\neeeee\nffffff\nggggggg\nhhhhhhhh\niiiiiiiii\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, r := range []Room{New(16, 8), New(2048, 64), New(16<<10, 2<<10), {}} {
			checkRoom(t, &r, bytes.Split(bytes.Clone(in), []byte("\n")))
		}
	})
}
