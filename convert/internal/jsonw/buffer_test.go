package jsonw

import (
	"bytes"
	"testing"
)

// FuzzBufferEqualsBytesBuffer holds Buffer, jsonw's own, to bytes.Buffer,
// the buffer it replaces: the same writes (ops picks each one: Write,
// WriteString, WriteByte, WriteRune, Grow, Truncate, Reset, and an
// append to the free space kept as Obj's members keep theirs, or to
// Free's kept with Keep) leave the same bytes, and Grow and Free leave at
// least the room asked for.
func FuzzBufferEqualsBytesBuffer(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, "abc")
	f.Add([]byte{4, 4, 0, 5, 7, 7, 1, 6, 2}, "\xff\u2028x")
	f.Fuzz(func(t *testing.T, ops []byte, s string) {
		var got Buffer
		var want bytes.Buffer
		for i, op := range ops {
			n := int(op >> 3)
			switch op & 7 {
			case 0:
				got.Write([]byte(s))
				want.Write([]byte(s))
			case 1:
				got.WriteString(s)
				want.WriteString(s)
			case 2:
				got.WriteByte(op)
				want.WriteByte(op)
			case 3:
				got.WriteRune(rune(op) * 0x301)
				want.WriteRune(rune(op) * 0x301)
			case 4:
				got.Grow(n)
				want.Grow(n)
				if got.Available() < n {
					t.Fatalf("op %d: Grow(%d) left %d bytes of room", i, n, got.Available())
				}
			case 5:
				n = min(n, got.Len())
				got.Truncate(n)
				want.Truncate(n)
			case 6:
				if n%4 == 0 {
					got.Reset()
					want.Reset()
				}
			case 7:
				// A member built where the bytes end, grown by append
				// when there is no room, and kept; or built in Free's
				// room (n bytes asked for, s appended: within or past
				// the room) and kept with Keep.
				if n%2 == 0 {
					got.buf = append(append(got.buf, ','), s...)
				} else {
					dst := got.Free(n)
					if cap(dst)-len(dst) < n {
						t.Fatalf("op %d: Free(%d) left %d bytes of room", i, n, cap(dst)-len(dst))
					}
					got.Keep(append(append(dst, ','), s...))
				}
				want.WriteByte(',')
				want.WriteString(s)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) || got.Len() != want.Len() || got.String() != want.String() {
				t.Fatalf("op %d (%d): %q, want %q", i, op, got.Bytes(), want.Bytes())
			}
			if len(got.AvailableBuffer()) != 0 || cap(got.AvailableBuffer()) != got.Available() {
				t.Fatalf("op %d: AvailableBuffer has length %d and room %d, want 0 and %d", i, len(got.AvailableBuffer()), cap(got.AvailableBuffer()), got.Available())
			}
		}
	})
}

// TestBufferTruncateOutOfRange: as bytes.Buffer's, Truncate past the end
// panics instead of keeping bytes that were not written.
func TestBufferTruncateOutOfRange(t *testing.T) {
	var b Buffer
	b.WriteString("ab")
	defer func() {
		if recover() == nil {
			t.Fatal("Truncate(3) of 2 bytes did not panic")
		}
	}()
	b.Truncate(3)
}
