// Package strblock makes many short strings out of one allocation: the
// bytes of each are appended to a block, and the string is a view of
// them. A block is only appended to, never written over, so a string made
// of it never changes; a full block is left to the strings made of it
// and a new one made. A string kept keeps its whole block alive, so a
// caller keeps one Room for each kind of string whose life differs (the
// rlog reader's ids apart from its lines), and a consumer that keeps a
// few strings long after a read copies them (the sessions index).
package strblock

import (
	"bytes"
	"unsafe"
)

// Room makes strings in blocks of Block bytes; a string longer than Most
// is an allocation of its own. The zero Room makes every string an
// allocation of its own.
type Room struct {
	buf   []byte
	block int
	most  int
}

// New is a Room of blocks of block bytes, for strings of up to most.
func New(block, most int) Room { return Room{block: block, most: min(most, block)} }

// place makes room for n bytes, reporting false when a string of n bytes
// is to be an allocation of its own.
func (r *Room) place(n int) bool {
	if n == 0 || n > r.most {
		return false
	}
	if cap(r.buf)-len(r.buf) < n {
		r.buf = make([]byte, 0, r.block)
	}
	return true
}

// Of is string(b).
func (r *Room) Of(b []byte) string {
	if !r.place(len(b)) {
		return string(b)
	}
	at := len(r.buf)
	r.buf = append(r.buf, b...)
	return unsafe.String(&r.buf[at], len(b))
}

// Join is x + y.
func (r *Room) Join(x, y string) string {
	n := len(x) + len(y)
	if !r.place(n) {
		return x + y
	}
	at := len(r.buf)
	r.buf = append(append(r.buf, x...), y...)
	return unsafe.String(&r.buf[at], n)
}

// Bytes is bytes.Clone(b) made as Of makes a string: a slice of the block
// as long as its room (its cap is its length), so that an append to it is
// made elsewhere and never over the block.
func (r *Room) Bytes(b []byte) []byte {
	n := len(b)
	if !r.place(n) {
		return bytes.Clone(b)
	}
	at := len(r.buf)
	r.buf = append(r.buf, b...)
	return r.buf[at : at+n : at+n]
}
