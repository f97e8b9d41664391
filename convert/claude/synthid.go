package claude

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"hash"
	"sync"
)

// blockSum makes the SHA-256 of a made-up id's input (seed/kind/counter,
// synthHex) with less work around the hash than sha256.Sum256. The input
// nearly always fits in one of SHA-256's 64-byte blocks with its padding
// (a 0x80 byte, zeros, and its length in bits in the last eight bytes):
// then the block, padding included, is kept here and written to a digest
// kept for it, which hashes it where it is. After that block the digest's
// state is the input's sum, and its encoding.BinaryAppender gives the
// state ("sha\x03", the eight words big-endian, ...): no copy of the
// input, no copy of the digest, no second write for the padding. A block
// is kept for each of the last two kinds (an entry's uuid and a
// response's message id take turns), so that from one id to the next
// only the counter's digits and, when their number changes, the padding
// are written. On a CPU with SHA extensions the hash of a block is a few
// hundred instructions, and the work around it was more than the hash.
type blockSum struct {
	h      hash.Hash
	state  encoding.BinaryAppender // h's
	usable bool                    // h is set, and its state is the sum (stateIsSum)
	buf    []byte                  // the state, reused
	blocks [2]idBlock
	next   int // the block a new kind takes
}

// idBlock is the block of a seed and kind: seed/kind/ and the padding of
// the input of n bytes.
type idBlock struct {
	seed, kind string
	prefix, n  int
	b          [sha256.BlockSize]byte
}

// of is whether k is the block of seed and kind (k.prefix is 0 until k is
// made one's).
func (k *idBlock) of(seed, kind string) bool {
	return k.prefix > 0 && k.kind == kind && k.seed == seed
}

// maxBlockInput is the longest input whose padding fits in its block.
const maxBlockInput = sha256.BlockSize - 9

// sum12 is the first 12 bytes of the SHA-256 of seed/kind/digits, and
// true; false when the input does not fit in one block, or the state a
// digest gives is not its sum (then sha256.Sum256 makes it).
func (s *blockSum) sum12(seed, kind string, digits []byte) (sum [12]byte, ok bool) {
	if len(seed)+1+len(kind)+1+len(digits) > maxBlockInput {
		return sum, false
	}
	if s.h == nil {
		s.h = sha256.New()
		s.state, s.usable = s.h.(encoding.BinaryAppender)
		s.usable = s.usable && stateIsSum()
	}
	if !s.usable {
		return sum, false
	}
	return s.blockSum12(seed, kind, digits)
}

// blockSum12 is sum12 of an input that fits in one block, with s.h set.
func (s *blockSum) blockSum12(seed, kind string, digits []byte) (sum [12]byte, ok bool) {
	k := &s.blocks[0]
	if !k.of(seed, kind) {
		k = &s.blocks[1]
		if !k.of(seed, kind) {
			k = &s.blocks[s.next]
			s.next ^= 1
			k.seed, k.kind, k.n = seed, kind, -1
			i := copy(k.b[:], seed)
			k.b[i] = '/'
			i += 1 + copy(k.b[i+1:], kind)
			k.b[i] = '/'
			k.prefix = i + 1
		}
	}
	b := &k.b
	i := k.prefix + copy(b[k.prefix:], digits)
	b[i] = 0x80
	if i != k.n {
		clear(b[i+1 : maxBlockInput+1])
		binary.BigEndian.PutUint64(b[maxBlockInput+1:], uint64(i)*8)
		k.n = i
	}
	s.h.Reset()
	s.h.Write(b[:])
	st, err := s.state.AppendBinary(s.buf[:0])
	s.buf = st
	if err != nil || len(st) < 4+12 || string(st[:4]) != "sha\x03" {
		return sum, false
	}
	copy(sum[:], st[4:])
	return sum, true
}

// stateIsSum is whether a digest's state after a padded block, as
// blockSum12 reads it, is the sum sha256.Sum256 makes of the block's
// input: asked once in a process, so that a digest whose state is
// encoded otherwise (another Go) makes blockSum give the ids to
// sha256.Sum256, never other ids.
var stateIsSum = sync.OnceValue(func() bool {
	s := blockSum{h: sha256.New()}
	var ok bool
	if s.state, ok = s.h.(encoding.BinaryAppender); !ok {
		return false
	}
	for _, in := range [...][3]string{{"", "", ""}, {"0123456789abcdef0123456789abcdef", "uuid", "1"}, {"seed-of-51-bytes-so-that-the-input-is-55-long......", "m", ""}} {
		got, ok := s.blockSum12(in[0], in[1], []byte(in[2]))
		want := sha256.Sum256([]byte(in[0] + "/" + in[1] + "/" + in[2]))
		if !ok || [12]byte(want[:12]) != got {
			return false
		}
	}
	return true
})

// hex24 is the lower-case hex of sum, as hex.Encode writes it: each four
// bytes' eight nibbles are spread to a byte each, and a nibble of 10 or
// more gets 'a'-'0'-10 more than '0' does, all eight at once.
func hex24(sum [12]byte) (h [24]byte) {
	for i := range 3 {
		x := uint64(binary.BigEndian.Uint32(sum[4*i:]))
		x = (x | x<<16) & 0x0000ffff0000ffff
		x = (x | x<<8) & 0x00ff00ff00ff00ff
		x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
		x += 0x3030303030303030 + ((x+0x0606060606060606)>>4&0x0101010101010101)*('a'-'0'-10)
		binary.BigEndian.PutUint64(h[8*i:], x)
	}
	return h
}
