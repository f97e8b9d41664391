package recent

// RingMap is a Map whose latest few keys are held in a small ring in
// front of it, for keys that are set and soon deleted (a tool call
// waiting for its result, which nearly always comes before more than a
// few other calls are made): while they stay few, no key is hashed, and
// the map behind takes the keys that wait longer. It remembers and
// forgets exactly as a Map of its cap does (the ring's keys are in the
// map's current generation, as the map counts them: a rotation moves
// them into the map first), which FuzzRingMapAsMap holds. Its zero value
// is not usable; make one with NewRingMap.
type RingMap[V any] struct {
	m    Map[V]
	ring [ringSize]ringEntry[V]
	n    int // the ring's entries, ring[:n]
}

// ringSize is how many keys the ring holds.
const ringSize = 8

type ringEntry[V any] struct {
	k string
	v V
}

// NewRingMap returns a RingMap that remembers the last cap keys.
func NewRingMap[V any](cap int) *RingMap[V] {
	return &RingMap[V]{m: Map[V]{cap: max(cap, 1), cur: map[string]V{}}}
}

// find is the index of k in the ring, or -1.
func (r *RingMap[V]) find(k string) int {
	for i := range r.ring[:r.n] {
		if r.ring[i].k == k {
			return i
		}
	}
	return -1
}

// mapEmpty reports whether the map behind the ring holds no key (the
// usual case: then a key not in the ring is not hashed).
func (r *RingMap[V]) mapEmpty() bool { return len(r.m.cur) == 0 && len(r.m.prev) == 0 }

// Get returns the value of k, if k is still remembered.
func (r *RingMap[V]) Get(k string) (V, bool) {
	if i := r.find(k); i >= 0 {
		return r.ring[i].v, true
	}
	if r.mapEmpty() {
		var v V
		return v, false
	}
	return r.m.Get(k)
}

// Set sets k to v, as Map.Set does.
func (r *RingMap[V]) Set(k string, v V) {
	if i := r.find(k); i >= 0 {
		r.ring[i].v = v // in the current generation already
		return
	}
	if !r.mapEmpty() {
		if _, ok := r.m.cur[k]; ok {
			r.m.cur[k] = v
			return
		}
	}
	if len(r.m.cur)+r.n >= r.m.cap {
		// Map.Set's rotation, with the ring's keys in the generation
		// that becomes the older.
		r.spill()
		r.m.rotate()
	}
	delete(r.m.prev, k)
	if r.n == ringSize {
		// The ring's first key waits longest: the map holds it, in the
		// current generation where it was.
		r.m.cur[r.ring[0].k] = r.ring[0].v
		r.remove(0)
	}
	r.ring[r.n] = ringEntry[V]{k, v}
	r.n++
}

// spill moves the ring's keys into the map's current generation.
func (r *RingMap[V]) spill() {
	for _, e := range r.ring[:r.n] {
		r.m.cur[e.k] = e.v
	}
	clear(r.ring[:r.n])
	r.n = 0
}

// remove takes the ring's entry i out, the later ones moved down (the
// ring stays in the order its keys were set).
func (r *RingMap[V]) remove(i int) {
	copy(r.ring[i:r.n], r.ring[i+1:r.n])
	r.n--
	r.ring[r.n] = ringEntry[V]{}
}

// Delete forgets k.
func (r *RingMap[V]) Delete(k string) {
	if i := r.find(k); i >= 0 {
		r.remove(i)
		return
	}
	if !r.mapEmpty() {
		r.m.Delete(k)
	}
}

// Take returns the value of k, if k is still remembered, and forgets k:
// Get, then Delete, with one search of the ring.
func (r *RingMap[V]) Take(k string) (V, bool) {
	if i := r.find(k); i >= 0 {
		v := r.ring[i].v
		r.remove(i)
		return v, true
	}
	var v V
	if r.mapEmpty() {
		return v, false
	}
	v, ok := r.m.Get(k)
	r.m.Delete(k)
	return v, ok
}

// Len is how many keys are remembered.
func (r *RingMap[V]) Len() int { return r.m.Len() + r.n }
