// Package recent is a map that remembers only its latest entries. Writers
// use it for ids they may need again soon (the call a result answers, the
// sub-agent type of a Task call) without keeping every id of a session: a
// 1 GB log then costs no more memory than a small one.
package recent

// Map holds at least the last Cap keys set, and at most 2*Cap: entries live
// in two generations, and when the current one is full the older one is
// dropped. Its zero value is not usable; make one with New.
type Map[V any] struct {
	cap       int
	cur, prev map[string]V
}

// New returns a Map that remembers the last cap keys.
func New[V any](cap int) *Map[V] {
	return &Map[V]{cap: max(cap, 1), cur: map[string]V{}}
}

// Get returns the value of k, if k is still remembered.
func (m *Map[V]) Get(k string) (V, bool) {
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.prev[k]
	return v, ok
}

// Set sets k to v.
func (m *Map[V]) Set(k string, v V) {
	if len(m.cur) >= m.cap {
		// (Tested first: a key's lookup only when the map is full.)
		if _, ok := m.cur[k]; !ok {
			m.rotate()
		}
	}
	delete(m.prev, k)
	m.cur[k] = v
}

// rotate drops the older generation and starts a new one in its map,
// emptied: the two maps' room is made once, not again at every rotation.
func (m *Map[V]) rotate() {
	old := m.prev
	if old == nil {
		old = make(map[string]V, m.cap)
	} else {
		clear(old)
	}
	m.prev, m.cur = m.cur, old
}

// Add sets k in a set (a Map of nothing) and reports whether it was not
// remembered: a key remembered stays where it is, as it is. One hash of k
// where a Get and a Set took two (the length of the map tells whether
// the assignment added k).
func Add(m *Map[struct{}], k string) bool {
	if _, ok := m.prev[k]; ok {
		return false
	}
	if len(m.cur) >= m.cap {
		if _, ok := m.cur[k]; ok {
			return false
		}
		m.rotate()
	}
	n := len(m.cur)
	m.cur[k] = struct{}{}
	return len(m.cur) > n
}

// Delete forgets k.
func (m *Map[V]) Delete(k string) {
	delete(m.cur, k)
	delete(m.prev, k)
}

// Len is how many keys are remembered.
func (m *Map[V]) Len() int { return len(m.cur) + len(m.prev) }
