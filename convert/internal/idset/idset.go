// Package idset is a compact set of ids, for the checks that need every
// id of a session (an id used twice; a result whose call came before it):
// each id is kept as a 64-bit hash in one open-addressed table, 11 to 22
// bytes an id (a Go map of the same hashes takes about 50), so a session of
// two million calls costs at most 44 MB, not the ids themselves. Two ids with one
// hash (about one in 10^19) would be taken for one.
package idset

import "hash/fnv"

// Set holds id hashes. The zero value is an empty set.
type Set struct {
	slots []uint64 // 0 is an empty slot
	n     int
	zero  bool // the hash 0, which cannot be stored in a slot
}

// Hash is an id's 64-bit FNV-1a hash.
func Hash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// Add adds id and reports whether it was not in the set.
func (s *Set) Add(id string) bool { return s.AddHash(Hash(id)) }

// Has reports whether id is in the set.
func (s *Set) Has(id string) bool { return s.HasHash(Hash(id)) }

// AddHash adds a hash and reports whether it was not in the set.
func (s *Set) AddHash(h uint64) bool {
	if h == 0 {
		added := !s.zero
		s.zero = true
		return added
	}
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	p := s.slot(h)
	if *p == h {
		return false
	}
	*p = h
	s.n++
	return true
}

// HasHash reports whether a hash is in the set.
func (s *Set) HasHash(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	return *s.slot(h) == h
}

// slot is the slot that holds h, or the empty one where h goes: the set
// has slots, and one at least is empty.
func (s *Set) slot(h uint64) *uint64 {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if c := s.slots[i]; c == h || c == 0 {
			return &s.slots[i]
		}
	}
}

// Len is the number of hashes in the set.
func (s *Set) Len() int {
	if s.zero {
		return s.n + 1
	}
	return s.n
}

func (s *Set) grow() {
	old := s.slots
	s.slots = make([]uint64, max(2*len(old), 1024))
	s.n = 0
	for _, h := range old {
		if h != 0 {
			s.AddHash(h)
		}
	}
}
