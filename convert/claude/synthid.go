package claude

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"hash"
	"strconv"
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
// input, no copy of the digest, no second write for the padding. (The
// standard library gives a digest's state only so, whole: its 12 bytes
// cannot be read alone.) A block is kept for each kind (idKind: an
// entry's uuid and a response's message id take turns), found by its
// index, so that from one id to the next only the counter's digits change
// in it, carried up where they stand (idBlock.count), and, when their
// number changes, the padding. On a CPU with SHA extensions the hash of a
// block is a few hundred instructions, and the work around it was more
// than the hash.
type blockSum struct {
	h      hash.Hash
	state  encoding.BinaryAppender // h's
	usable bool                    // h is set, and its state is the sum (stateIsSum)
	buf    []byte                  // the state, reused
	seed   string                  // the blocks' seed (another empties them)
	blocks [idKinds]idBlock
}

// idKind is the kind of a made-up id, which its input names.
type idKind uint8

const (
	uuidID idKind = iota
	msgID
	sessionID
	idKinds
)

// idKindNames are the kinds' names in an id's input.
var idKindNames = [idKinds]string{"uuid", "msg", "session"}

// idBlock is the block of one kind: seed/kind/, the counter n's digits,
// and the padding of the input of end bytes (end is 0 until the block
// holds digits; prefix is 0 until it is made, and -1 when the seed and
// kind leave no room for a digit).
type idBlock struct {
	prefix, end int
	n           uint64
	b           [sha256.BlockSize]byte
}

// maxBlockInput is the longest input whose padding fits in its block.
const maxBlockInput = sha256.BlockSize - 9

// sum12 is the first 12 bytes of the SHA-256 of seed/kind/n (n in
// decimal), and true; false when the input does not fit in one block, or
// the state a digest gives is not its sum (then sha256.Sum256 makes it).
func (s *blockSum) sum12(seed string, kind idKind, n uint64) (sum [12]byte, ok bool) {
	if s.h == nil || seed != s.seed {
		s.start(seed)
	}
	k := &s.blocks[kind]
	if !s.usable || k.prefix < 0 || k.prefix == 0 && !k.make(seed, idKindNames[kind]) || !k.count(n) {
		return sum, false
	}
	return s.hash12(k)
}

// hash12 is sum12 of k's input, with s.h set.
func (s *blockSum) hash12(k *idBlock) (sum [12]byte, ok bool) {
	s.h.Reset()
	s.h.Write(k.b[:])
	st, err := s.state.AppendBinary(s.buf[:0])
	s.buf = st
	if err != nil || len(st) < 4+12 || string(st[:4]) != "sha\x03" {
		return sum, false
	}
	copy(sum[:], st[4:])
	return sum, true
}

// start sets the digest, the first time, and empties the blocks, which
// are seed's from now on.
func (s *blockSum) start(seed string) {
	if s.h == nil {
		s.h = sha256.New()
		s.state, s.usable = s.h.(encoding.BinaryAppender)
		s.usable = s.usable && stateIsSum()
	}
	s.seed = seed
	for i := range s.blocks {
		s.blocks[i].prefix = 0
	}
}

// make writes seed/kind/ in k, and reports whether a digit fits after it.
func (k *idBlock) make(seed, kind string) bool {
	if len(seed)+1+len(kind)+1+1 > maxBlockInput {
		k.prefix = -1
		return false
	}
	i := copy(k.b[:], seed)
	k.b[i] = '/'
	i += 1 + copy(k.b[i+1:], kind)
	k.b[i] = '/'
	k.prefix, k.end = i+1, 0
	return true
}

// count writes n's digits after k's prefix, and its padding when their
// number changed; false when they do not fit. From the digits of a
// counter at most 9 below n (the last id of the kind, the others' ids
// between), n is added to the last digit and carried up where the
// digits stand, without formatting it; otherwise, and when the digits
// grow, they are formatted.
func (k *idBlock) count(n uint64) bool {
	if k.end > 0 && n-k.n <= 9 {
		i := k.end - 1
		c := k.b[i] + byte(n-k.n)
		for c > '9' {
			k.b[i] = c - 10
			if i--; i < k.prefix {
				return k.format(n)
			}
			c = k.b[i] + 1
		}
		k.b[i] = c
		k.n = n
		return true
	}
	return k.format(n)
}

// format writes n's digits and the padding after them.
func (k *idBlock) format(n uint64) bool {
	var d [20]byte
	digits := strconv.AppendUint(d[:0], n, 10)
	end := k.prefix + len(digits)
	if end > maxBlockInput {
		k.end = 0
		return false
	}
	copy(k.b[k.prefix:], digits)
	k.n = n
	if end != k.end {
		k.b[end] = 0x80
		clear(k.b[end+1 : maxBlockInput+1])
		binary.BigEndian.PutUint64(k.b[maxBlockInput+1:], uint64(end)*8)
		k.end = end
	}
	return true
}

// stateIsSum is whether a digest's state after a padded block, as
// sum12 reads it, is the sum sha256.Sum256 makes of the block's input:
// asked once in a process, so that a digest whose state is encoded
// otherwise (another Go) makes blockSum give the ids to sha256.Sum256,
// never other ids.
var stateIsSum = sync.OnceValue(func() bool {
	s := blockSum{h: sha256.New(), seed: "-"}
	var ok bool
	if s.state, ok = s.h.(encoding.BinaryAppender); !ok {
		return false
	}
	for _, in := range [...]struct {
		seed string
		n    uint64
	}{{"", 0}, {"0123456789abcdef0123456789abcdef", 1}, {"0123456789abcdef0123456789abcdef", 2}, {"seed-of-48-bytes-so-that-the-input-is-55-long...", 9}} {
		k := &s.blocks[uuidID]
		if in.seed != s.seed {
			s.seed = in.seed
			k.make(in.seed, "uuid")
		}
		k.count(in.n)
		got, ok := s.hash12(k)
		want := sha256.Sum256([]byte(in.seed + "/uuid/" + strconv.FormatUint(in.n, 10)))
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
