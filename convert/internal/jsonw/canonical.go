package jsonw

import (
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
)

// WriteCanonical makes b write, from here on, canonical JSON as package canon
// defines it (REPLAY.jsonl's lines and hashes): what canon.Append makes
// of what b would write compact, written where it goes instead of being
// written compact and read again. Each string is escaped by str and each
// raw value made canonical by raw (canon.String and canon.Append, which
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

// canonical is what a Buf writing canonical JSON keeps: the members of
// the objects open, each object's after those of the object around it.
type canonical struct {
	str func(dst []byte, s string) []byte
	raw func(dst, v []byte) []byte
	// members are the members of the objects open, innermost last;
	// opened is, for each object open, where its members start in members.
	members []canonicalMember
	opened  []int
	// order and tmp are end's, reused.
	order []int
	tmp   []byte
}

// canonicalMember is a member of an open object: its key as the canonical
// JSON says it (what the object is sorted by), and where it starts in the
// buffer, after the comma before it.
type canonicalMember struct {
	key   string
	start int
}

func (c *canonical) open() { c.opened = append(c.opened, len(c.members)) }

// canonicalMember is the free space of a canonical object's buffer,
// grown to hold the next member's separator and key and about n bytes
// more, with those appended; the member is noted for sorting, by its key
// as the canonical JSON says it: k, or, when k is not UTF-8, what was
// written of it decoded (each invalid byte is U+FFFD there).
func (o *Obj) canonicalMember(k string, n int) []byte {
	c := o.in.canon
	dst := free(o.B, len(k)+n+4)
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	at := len(dst)
	dst = c.str(dst, k)
	key := k
	if !utf8.ValidString(k) {
		u, _ := jsonstr.Unquote(nil, dst[at:], jsonstr.Replace)
		key = string(u)
	}
	c.members = append(c.members, canonicalMember{key: key, start: o.B.Len() + at})
	return append(dst, ':')
}

// end closes the innermost object open in b: its members, written in the
// order they came, are put in the order of their keys, and of members of
// one key only the last is kept. An object written in order, as most
// are, is left as it is.
func (c *canonical) end(b *Buf) {
	base := c.opened[len(c.opened)-1]
	c.opened = c.opened[:len(c.opened)-1]
	ms := c.members[base:]
	c.members = c.members[:base]
	inOrder := true
	for i := 1; i < len(ms); i++ {
		if ms[i-1].key >= ms[i].key {
			inOrder = false
			break
		}
	}
	if !inOrder {
		c.sort(b, ms)
	}
	b.WriteByte('}')
}

// sort rewrites the members ms, the last ones in b, in the order of their
// keys, keeping the last of each key. Each member's bytes run from its
// start to the comma before the next one's (or the end of b).
func (c *canonical) sort(b *Buf, ms []canonicalMember) {
	// Insertion sort, stable: an object has a few dozen members at most.
	c.order = c.order[:0]
	for i := range ms {
		j := len(c.order)
		c.order = append(c.order, i)
		for ; j > 0 && ms[c.order[j-1]].key > ms[i].key; j-- {
			c.order[j] = c.order[j-1]
		}
		c.order[j] = i
	}
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
	for x, i := range c.order {
		if x+1 < len(c.order) && ms[c.order[x+1]].key == ms[i].key {
			continue // a later member of the same key wins
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(c.tmp[ms[i].start-first : end(i)])
	}
}
