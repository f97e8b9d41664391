package recent

import "hash/maphash"

// Set is a set of strings that remembers what a Map of nothing does with
// Add (at least its last Cap keys, at most 2*Cap, in two generations), in
// tables of its own, open addressed: a key is hashed once an Add, and
// once when its table grows (a Go map's growth, which moves its keys
// table by table, was most of what the Claude Code writer's set of call
// ids cost). A slot is a string and a byte, as a Go map's is. Its zero
// value is not usable; make one with NewSet.
type Set struct {
	cap       int
	seed      maphash.Seed
	cur, prev setTable
}

// setTable is one generation: keys by open addressing (the next slot
// when one is taken, from the slot of the hash's low bits), each with a
// tag, its hash's top seven bits with the eighth set, so that 0 marks a
// free slot and most other keys are passed over without comparing them.
type setTable struct {
	keys []string
	tags []uint8
	n    int
}

// NewSet returns a Set that remembers the last cap keys.
func NewSet(cap int) *Set {
	return &Set{cap: max(cap, 1), seed: maphash.MakeSeed()}
}

// Add adds k and reports whether it was not remembered: Add(m, k) of a
// Map m. A key remembered stays where it is.
func (s *Set) Add(k string) bool {
	h := maphash.String(s.seed, k)
	if s.prev.n > 0 && s.prev.has(h, k) {
		return false
	}
	if s.cur.n >= s.cap {
		if s.cur.has(h, k) {
			return false
		}
		s.rotate()
	}
	if 4*(s.cur.n+1) > 3*len(s.cur.tags) {
		s.grow(&s.cur)
	}
	return s.cur.add(h, k)
}

// tag is the tag of a key whose hash is h.
func tag(h uint64) uint8 { return uint8(h>>57) | 0x80 }

// Len is how many keys are remembered.
func (s *Set) Len() int { return s.cur.n + s.prev.n }

// rotate drops the older generation and starts a new one in its tables,
// emptied (their room made once, as Map's rotate keeps its maps').
func (s *Set) rotate() {
	old := s.prev
	clear(old.keys) // (the strings are not kept alive)
	clear(old.tags)
	old.n = 0
	s.prev, s.cur = s.cur, old
}

// has reports whether t holds k, whose hash is h.
func (t *setTable) has(h uint64, k string) bool {
	if t.n == 0 {
		return false
	}
	mask, g := len(t.tags)-1, tag(h)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch t.tags[i] {
		case 0:
			return false
		case g:
			if t.keys[i] == k {
				return true
			}
		}
	}
}

// add adds k, whose hash is h, and reports whether t did not hold it; t
// has a free slot.
func (t *setTable) add(h uint64, k string) bool {
	mask, g := len(t.tags)-1, tag(h)
	i := int(h) & mask
	for ; t.tags[i] != 0; i = (i + 1) & mask {
		if t.tags[i] == g && t.keys[i] == k {
			return false
		}
	}
	t.tags[i], t.keys[i] = g, k
	t.n++
	return true
}

// grow doubles t's room (eight slots at first), moving each key to its
// slot in the new room: a table is at most three quarters full.
func (s *Set) grow(t *setTable) {
	keys, tags := t.keys, t.tags
	size := max(8, 2*len(tags))
	t.keys, t.tags = make([]string, size), make([]uint8, size)
	mask := size - 1
	for j, g := range tags {
		if g == 0 {
			continue
		}
		i := int(maphash.String(s.seed, keys[j])) & mask
		for t.tags[i] != 0 {
			i = (i + 1) & mask
		}
		t.tags[i], t.keys[i] = g, keys[j]
	}
}
