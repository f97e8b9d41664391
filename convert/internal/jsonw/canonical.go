package jsonw

import (
	"bytes"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
)

// WriteCanonical makes b write, from here on, canonical JSON as package canon
// defines it (REPLAY.jsonl's lines and hashes): what canon.Append makes
// of what b would write compact, written where it goes instead of being
// written compact and read again. Each string is escaped by str (nil:
// AppendSerdeString's escaping, serde_json's, canon.String's, called
// directly) and each raw value made canonical by raw (canon.Append, which
// this package cannot import); an object's members are written in the
// order they come, and sorted by their keys' bytes when the object ends
// (a key written twice keeps its last value). A Buf that indents or
// quotes does not write canonical JSON, and an object of a canonical Buf
// is not continued (Continue).
func (b *Buf) WriteCanonical(str func(dst []byte, s string) []byte, raw func(dst, v []byte) []byte) {
	b.canon = &canonical{str: str, raw: raw}
}

// Canonical reports whether b writes canonical JSON (WriteCanonical).
func (b *Buf) Canonical() bool { return b.canon != nil }

// Swap makes buf b's bytes, what b writes next following them where they
// are, and returns the bytes b had: a writer that builds a line in a
// slice of its own writes a piece of it through b where it goes (a
// REPLAY line's rest, after the line's members before it) instead of
// writing it apart and copying it in, and swaps b's own bytes back.
// (Only the bytes: an object open in b stays open.)
func (b *Buf) Swap(buf []byte) []byte {
	old := b.buf
	b.buf = buf
	return old
}

// canonical is what a Buf writing canonical JSON keeps: the members of
// the objects open, each object's after those of the object around it.
//
// Nothing a caller passes (a key, a string, a raw value) goes to str or
// raw, or is kept: it is copied first (arg, keys). A function value or a
// field keeping it would make that argument of every Obj method escape to
// the heap in every writer, canonical or not (a []byte("null") allocated
// at each call). A string of a Buf whose str is nil goes to
// AppendSerdeString, a function, not a value, without a copy.
type canonical struct {
	str func(dst []byte, s string) []byte
	raw func(dst, v []byte) []byte
	// members are the members of the objects open, innermost last;
	// opened is, for each object open, where its members start in members;
	// keys holds their keys.
	members []canonicalMember
	opened  []int
	keys    []byte
	// inOrder says the innermost object open is one whose members come
	// in the order of their keys (BeginInOrder): they are not noted, and
	// its opened is ^ where its members would start.
	inOrder bool
	// arg is the copy of what goes to str or raw; order and tmp are
	// end's; all reused.
	arg   []byte
	order []int
	tmp   []byte
	// orders are the last lists of keys sort put in order, with their
	// orders (next is the one to replace): a writer writes objects of
	// the same keys in the same order again and again (every event's
	// rest starts with kind and goes on in WriteRestCarried's order).
	orders [8]keyOrder
	next   int
}

// keyOrder is a list of an object's keys, as they came, and the order
// that sorts them.
type keyOrder struct {
	keys  []byte // the keys end to end
	ends  []int  // where each key ends in keys
	order []int
}

// canonicalMember is a member of an open object: its key as the canonical
// JSON says it (what the object is sorted by; keys[key:keyEnd]), and
// where it starts in the buffer, after the comma before it.
type canonicalMember struct {
	key, keyEnd int
	start       int
}

func (c *canonical) open() {
	c.opened = append(c.opened, len(c.members))
	c.inOrder = false
}

// BeginInOrder starts an object in b whose members the caller writes in
// the order of their keys' bytes, each key once, as canonical JSON has
// them, when inOrder is set: a Buf that writes canonical JSON writes them
// as they come, with no note of their keys and nothing to sort at the end
// (what it writes is what Begin's object of the same members writes, when
// they are in that order). Any other Buf, or inOrder false, writes it as
// Begin's. (A writer whose objects have keys known ahead writes them so
// when b.Canonical(): a rest. It takes inOrder, not a second function, so
// that a writer choosing at run time keeps its Obj off the heap, as
// Begin's.)
func (b *Buf) BeginInOrder(inOrder bool) *Obj { return &Obj{B: &b.Buffer, in: b.openInOrder(inOrder)} }

// openInOrder is open('{') for BeginInOrder.
//
//go:noinline
func (b *Buf) openInOrder(inOrder bool) *Buf {
	c := b.canon
	if !inOrder || c == nil || b.indent || b.quote {
		return b.open('{')
	}
	b.WriteByte('{')
	c.opened = append(c.opened, ^len(c.members))
	c.inOrder = true
	return b
}

// key is m's key.
func (c *canonical) key(m canonicalMember) []byte { return c.keys[m.key:m.keyEnd] }

// appendString appends s as str escapes it, through a copy (see
// canonical), or as it is between quotes when it is plain throughout; as
// AppendSerdeString escapes it when str is nil, without a copy (its own
// test of a short plain string is the words of appendEscaped).
func (c *canonical) appendString(dst []byte, s string) []byte {
	if c.str == nil {
		return AppendSerdeString(dst, s)
	}
	if PlainASCII(s) == len(s) {
		// Plain throughout (most ids, times and names): between its
		// quotes as it is, as every JSON string escapes it.
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	c.arg = append(c.arg[:0], s...)
	dst = c.str(dst, asString(c.arg))
	c.release()
	return dst
}

// asString is b as a string, without a copy: b is not changed while the
// string is used.
func asString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendRaw appends v as raw makes it canonical, through a copy.
func (c *canonical) appendRaw(dst, v []byte) []byte {
	c.arg = append(c.arg[:0], v...)
	dst = c.raw(dst, c.arg)
	c.release()
	return dst
}

// release lets go of a copy of a large value (a tool's whole output), so
// that the writer does not hold one more buffer of its size to its end.
func (c *canonical) release() {
	if cap(c.arg) > 1<<16 {
		c.arg = nil
	}
}

// canonicalMember is the bytes of a canonical object's buffer,
// grown to hold the next member's separator and key and about n bytes
// more, with those appended; the member is noted for sorting, by its key
// as the canonical JSON says it: k, or, when k is not UTF-8, what was
// written of it decoded (each invalid byte is U+FFFD there). An object
// whose members come in order (BeginInOrder) notes none.
func (o *Obj) canonicalMember(k string, n int) []byte {
	c := o.in.canon
	dst := free(o.B, len(k)+n+4)
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	if c.inOrder {
		return append(c.appendString(dst, k), ':')
	}
	at := len(dst)
	m := canonicalMember{key: len(c.keys), start: at}
	c.keys = append(c.keys, k...)
	m.keyEnd = len(c.keys)
	if c.str == nil {
		dst = AppendSerdeString(dst, k)
	} else {
		dst = c.str(dst, asString(c.keys[m.key:]))
	}
	if !utf8.ValidString(k) {
		c.keys, _ = jsonstr.Unquote(c.keys[:m.key], dst[at:], jsonstr.Replace)
		m.keyEnd = len(c.keys)
	}
	c.members = append(c.members, m)
	return append(dst, ':')
}

// wholeNames reports whether b writes a member whose key is k and value
// v (a string value, or k itself when the value is not a Name) as a
// compact object does, storing their escaped forms whole (Name's padded
// blocks): b writes canonical JSON with serde_json's escaping (str nil),
// the innermost object's members in order, so that nothing is noted, and
// k's and v's compact forms are canonical JSON's. (A rest's constant keys
// and kinds, REPLAY's.)
func (b *Buf) wholeNames(k, v *Name) bool {
	c := b.canon
	return c != nil && c.inOrder && c.str == nil && !b.quote && k.canonical && v.canonical
}

// wholeList is wholeNames of the key k and every name of list.
func (b *Buf) wholeList(k *Name, list []*Name) bool {
	if !b.wholeNames(k, k) {
		return false
	}
	for _, n := range list {
		if !n.canonical {
			return false
		}
	}
	return true
}

// canonicalStrName is StrName's bytes of o's buffer in a Buf that writes
// canonical JSON: the key and the value's opening quote stored whole, as
// a compact object stores them, and the value escaped as serde_json
// escapes it, when wholeNames says so; else the member noted or written
// in order as Str's.
func (o *Obj) canonicalStrName(k *Name, s string) []byte {
	if !o.in.wholeNames(k, k) {
		c := o.in.canon
		return c.appendString(o.canonicalMember(k.s, len(s)+2), s)
	}
	m := len(k.compact) + 1
	dst := o.B.buf
	if hasRoom(dst, m+len(s)+1) && k.fits[compactForm] {
		dst = o.putMember(dst, k, compactForm, m)
	} else {
		dst = o.nameMemberSlow(k, compactForm, m, len(s)+1)
	}
	return append(appendEscaped(dst, s, serdeEscapes), '"')
}

// end closes the innermost object open in b: its members, written in the
// order they came, are put in the order of their keys, and of members of
// one key only the last is kept. An object written in order, as most
// are, is left as it is.
func (c *canonical) end(b *Buf) {
	base := c.opened[len(c.opened)-1]
	c.opened = c.opened[:len(c.opened)-1]
	c.inOrder = len(c.opened) > 0 && c.opened[len(c.opened)-1] < 0
	if base < 0 {
		b.WriteByte('}') // in order (BeginInOrder)
		return
	}
	ms := c.members[base:]
	c.members = c.members[:base]
	inOrder := true
	for i := 1; i < len(ms); i++ {
		if bytes.Compare(c.key(ms[i-1]), c.key(ms[i])) >= 0 {
			inOrder = false
			break
		}
	}
	if !inOrder {
		c.sort(b, ms)
	}
	if len(ms) > 0 {
		c.keys = c.keys[:ms[0].key]
	}
	b.WriteByte('}')
}

// sort rewrites the members ms, the last ones in b, in the order of their
// keys, keeping the last of each key. Each member's bytes run from its
// start to the comma before the next one's (or the end of b).
func (c *canonical) sort(b *Buf, ms []canonicalMember) {
	order := c.sorted(ms)
	first := ms[0].start
	c.tmp = append(c.tmp[:0], b.Bytes()[first:]...)
	end := func(i int) int {
		if i+1 < len(ms) {
			return ms[i+1].start - 1 - first
		}
		return len(c.tmp)
	}
	b.Truncate(first)
	n := 0
	for x, i := range order {
		if x+1 < len(order) && bytes.Equal(c.key(ms[order[x+1]]), c.key(ms[i])) {
			continue // a later member of the same key wins
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(c.tmp[ms[i].start-first : end(i)])
	}
}

// sorted is the order of the members ms by their keys, stable. The keys
// of an object's members are end to end in c.keys (a nested object's
// are let go when it ends): when they are, byte for byte and key for
// key, a list sorted before, its order is theirs; any other list is
// sorted, and remembered in place of the oldest.
func (c *canonical) sorted(ms []canonicalMember) []int {
	base := ms[0].key
	keys := c.keys[base:ms[len(ms)-1].keyEnd]
	for i := range c.orders {
		if r := &c.orders[i]; len(r.ends) == len(ms) && bytes.Equal(r.keys, keys) && sameEnds(r.ends, ms, base) {
			return r.order
		}
	}
	// Insertion sort, stable: an object has a few dozen members at most.
	c.order = c.order[:0]
	for i := range ms {
		j := len(c.order)
		c.order = append(c.order, i)
		for ; j > 0 && bytes.Compare(c.key(ms[c.order[j-1]]), c.key(ms[i])) > 0; j-- {
			c.order[j] = c.order[j-1]
		}
		c.order[j] = i
	}
	r := &c.orders[c.next]
	c.next = (c.next + 1) % len(c.orders)
	r.keys = append(r.keys[:0], keys...)
	r.ends = r.ends[:0]
	for _, m := range ms {
		r.ends = append(r.ends, m.keyEnd-base)
	}
	r.order = append(r.order[:0], c.order...)
	return c.order
}

// sameEnds reports whether the keys of ms end where ends says, counted
// from base.
func sameEnds(ends []int, ms []canonicalMember, base int) bool {
	for i, m := range ms {
		if ends[i] != m.keyEnd-base {
			return false
		}
	}
	return true
}
