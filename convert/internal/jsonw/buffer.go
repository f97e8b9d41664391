package jsonw

import "unicode/utf8"

// Buffer is the buffer an Obj, a List and a Buf write into: the writing
// side of bytes.Buffer (Write, WriteByte, WriteString, Grow, Truncate,
// Reset, Bytes), without a reading side.
//
// It is jsonw's own so that a member is appended to the buffer's bytes
// themselves, grown by append when there is no room, and kept by setting
// them (b.buf = dst): a bytes.Buffer takes what was built in its free
// space (AvailableBuffer) only through Write, its bookkeeping and a copy
// of the bytes onto themselves, at every member.
type Buffer struct {
	buf []byte
}

// Bytes is what was written; it is valid until the next write.
func (b *Buffer) Bytes() []byte { return b.buf }

// String is what was written, as a string.
func (b *Buffer) String() string {
	if b == nil {
		return "<nil>"
	}
	return string(b.buf)
}

// Len is how many bytes were written.
func (b *Buffer) Len() int { return len(b.buf) }

// Cap is the capacity of the buffer's bytes.
func (b *Buffer) Cap() int { return cap(b.buf) }

// Available is how many bytes can be written before the buffer grows.
func (b *Buffer) Available() int { return cap(b.buf) - len(b.buf) }

// AvailableBuffer is the buffer's free space, empty, for an append whose
// bytes are then written (Write) as bytes.Buffer's.
func (b *Buffer) AvailableBuffer() []byte { return b.buf[len(b.buf):] }

// Free is the buffer's bytes, grown first to have room for n more: a
// caller appends up to n bytes to them in place and keeps the result
// with Keep, where Write would copy bytes made elsewhere.
func (b *Buffer) Free(n int) []byte {
	if dst := b.buf; cap(dst)-len(dst) >= n {
		return dst
	}
	return free(b, n)
}

// Keep makes p the buffer's bytes: p is what Free returned with bytes
// appended to it (and nothing else).
func (b *Buffer) Keep(p []byte) { b.buf = p }

// Reset empties the buffer, keeping its room.
func (b *Buffer) Reset() { b.buf = b.buf[:0] }

// Truncate keeps the first n bytes written. It panics when n is negative
// or more than Len.
func (b *Buffer) Truncate(n int) {
	if n < 0 || n > len(b.buf) {
		panic("jsonw.Buffer: truncation out of range")
	}
	b.buf = b.buf[:n]
}

// Grow makes room for n more bytes, as bytes.Buffer.Grow does: a first
// buffer of 64 bytes, then the length and n or twice the capacity,
// whichever is more, rounded up to the allocator's size (as append
// rounds it), so that a writer's buffers take the memory they took as
// bytes.Buffers.
func (b *Buffer) Grow(n int) {
	if n < 0 {
		panic("jsonw.Buffer.Grow: negative count")
	}
	if cap(b.buf)-len(b.buf) >= n {
		return
	}
	if b.buf == nil && n <= 64 {
		b.buf = make([]byte, 0, 64)
		return
	}
	c := len(b.buf) + n
	if c < 2*cap(b.buf) {
		c = 2 * cap(b.buf)
	}
	nb := append([]byte(nil), make([]byte, c)...)
	b.buf = nb[:copy(nb, b.buf)]
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// WriteString appends s.
func (b *Buffer) WriteString(s string) (int, error) {
	b.buf = append(b.buf, s...)
	return len(s), nil
}

// WriteByte appends c.
func (b *Buffer) WriteByte(c byte) error {
	b.buf = append(b.buf, c)
	return nil
}

// WriteRune appends r encoded as UTF-8.
func (b *Buffer) WriteRune(r rune) (int, error) {
	n := len(b.buf)
	b.buf = utf8.AppendRune(b.buf, r)
	return len(b.buf) - n, nil
}
