// Package canon produces canonical JSON as REPLAY.jsonl and the receipt
// hashes define it (OpenAgents ADR-0006): object keys sorted by their
// bytes, no whitespace, arrays in order, strings escaped the way serde_json
// escapes them (only `"`, `\` and control characters), numbers as written.
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// member is one key and value of an object.
type member struct {
	k string
	v []byte
}

// Append appends the canonical form of the valid JSON value v to dst.
func Append(dst, v []byte) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	switch v[0] {
	case '{':
		var arr [16]member
		kvs := arr[:0]
		jsonscan.Members(v, func(k, val []byte) error {
			// Insertion sort, stable: objects have few members.
			m := member{key(k), val}
			i := len(kvs)
			kvs = append(kvs, m)
			for ; i > 0 && kvs[i-1].k > m.k; i-- {
				kvs[i] = kvs[i-1]
			}
			kvs[i] = m
			return nil
		})
		// Duplicate keys: the last one wins, as in serde_json.
		dst = append(dst, '{')
		n := 0
		for i, m := range kvs {
			if i+1 < len(kvs) && kvs[i+1].k == m.k {
				continue
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst = String(dst, m.k)
			dst = append(dst, ':')
			dst = Append(dst, m.v)
		}
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		jsonscan.Array(v, func(i int, el []byte) error {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = Append(dst, el)
			return nil
		})
		return append(dst, ']')
	case '"':
		if len(v) < 2 || v[len(v)-1] != '"' {
			s, _ := jsonscan.String(v) // (not valid JSON)
			return String(dst, s)
		}
		inner := v[1 : len(v)-1]
		if jsonw.PlainASCII(asString(inner)) == len(inner) {
			// Printable ASCII without escapes (most paths, names and
			// words): canonical as it is.
			return append(dst, v...)
		}
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			// Nothing to decode: escaped where it is, not copied first.
			return String(dst, asString(inner))
		}
		s, _ := jsonscan.String(v)
		return String(dst, s)
	default:
		return append(dst, v...)
	}
}

// key is the raw key k of a member decoded (jsonscan.Key): k itself,
// not a copy, when it is its own decoding (nearly always), valid while
// the value it is in is.
func key(k []byte) string {
	if jsonscan.PlainKey(k) {
		return asString(k)
	}
	return jsonscan.Key(k)
}

// asString is b as a string, without a copy: b is not changed while the
// string is used.
func asString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Writer makes b write canonical JSON where each value goes, what Append
// makes of what b would write compact (jsonw.Buf.WriteCanonical): a writer
// whose output is canonical writes it so instead of reading it again.
// Its strings are escaped by String, which is jsonw.AppendSerdeString
// (nil: called directly, without the copy a function value needs).
func Writer(b *jsonw.Buf) { b.WriteCanonical(nil, Append) }

// Marshal returns the canonical form of the valid JSON value v.
func Marshal(v []byte) []byte { return Append(nil, v) }

// Hash returns "sha256:<lowercase hex>" of the canonical form of v.
func Hash(v []byte) string {
	sum := sha256.Sum256(Marshal(v))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// HashString hashes a string value (its canonical JSON form, with quotes).
func HashString(s string) string {
	sum := sha256.Sum256(String(nil, s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// String appends s as a JSON string escaped like serde_json: quotes,
// backslashes and control characters escaped (\b, \f, \n, \r, \t by
// their letters, the others as \u00XX), other characters as they are, and
// each byte of invalid UTF-8 replaced by U+FFFD. It is
// jsonw.AppendSerdeString, whose escaping loop is jsonw's strings' own:
// runs of plain ASCII copied whole, a short string plain throughout
// tested and stored a word at a time.
func String(dst []byte, s string) []byte { return jsonw.AppendSerdeString(dst, s) }

// Object builds one canonical JSON object member by member, each value
// made canonical as it is added, and writes it with its keys sorted: what
// Append does to an object, without writing the object first and parsing
// it again. A member set twice keeps the last value. Reset reuses one
// Object (and its buffers) for the next.
type Object struct {
	keys  []string
	spans []span // each key's value in vals
	vals  []byte
	order []int
	tmp   []byte
	// orders are the last key lists AppendTo sorted, with their orders
	// (next is the one to replace): a writer's lines of one kind set
	// the same keys in the same order, line after line.
	orders [8]keyOrder
	next   int
}

// keyOrder is a list of keys as they were set and the order that sorts
// them.
type keyOrder struct {
	keys  []string
	order []int
}

type span struct{ start, end int }

// Reset empties o.
func (o *Object) Reset() {
	o.keys, o.spans, o.vals = o.keys[:0], o.spans[:0], o.vals[:0]
}

func (o *Object) index(k string) int {
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

// set makes vals[start:] the value of k.
func (o *Object) set(k string, start int) {
	s := span{start, len(o.vals)}
	if i := o.index(k); i >= 0 {
		o.spans[i] = s
		return
	}
	o.keys = append(o.keys, k)
	o.spans = append(o.spans, s)
}

// String sets k to the string s.
func (o *Object) String(k, s string) {
	start := len(o.vals)
	o.vals = String(o.vals, s)
	o.set(k, start)
}

// Raw sets k to the valid JSON value v (empty: null), made canonical.
func (o *Object) Raw(k string, v []byte) {
	start := len(o.vals)
	o.vals = Append(o.vals, v)
	o.set(k, start)
}

// Canonical sets k to v, canonical JSON already (written by a Buf of
// Writer's): copied as it is.
func (o *Object) Canonical(k string, v []byte) {
	start := len(o.vals)
	o.vals = append(o.vals, v...)
	o.set(k, start)
}

// Int sets k to the number n.
func (o *Object) Int(k string, n int64) {
	start := len(o.vals)
	o.vals = strconv.AppendInt(o.vals, n, 10)
	o.set(k, start)
}

// Ints sets k to an object of numbers: keys[i] to vals[i], the keys given
// sorted.
func (o *Object) Ints(k string, keys []string, vals []int64) {
	start := len(o.vals)
	o.vals = append(o.vals, '{')
	for i, key := range keys {
		if i > 0 {
			o.vals = append(o.vals, ',')
		}
		o.vals = String(o.vals, key)
		o.vals = append(o.vals, ':')
		o.vals = strconv.AppendInt(o.vals, vals[i], 10)
	}
	o.vals = append(o.vals, '}')
	o.set(k, start)
}

// HashOf sets k to Hash of the value of the member of, set before: its
// canonical form is there already, and is hashed where it is instead of
// being made again (a ToolCall's params_hash of its params, a
// ToolResult's output_hash of an output_preview that is the whole
// output). Nothing is set when of is not.
func (o *Object) HashOf(k, of string) {
	if v, ok := o.Get(of); ok {
		o.hash(k, v)
	}
}

// HashString sets k to HashString(s).
func (o *Object) HashString(k, s string) {
	o.tmp = String(o.tmp[:0], s)
	o.hash(k, o.tmp)
}

// hash sets k to the hash of the canonical JSON c, which may be a value
// of o's: it is hashed before o.vals grows.
func (o *Object) hash(k string, c []byte) {
	sum := sha256.Sum256(c)
	start := len(o.vals)
	o.vals = appendHash(o.vals, &sum)
	o.set(k, start)
}

// Get is the canonical value of k.
func (o *Object) Get(k string) ([]byte, bool) {
	if i := o.index(k); i >= 0 {
		return o.vals[o.spans[i].start:o.spans[i].end], true
	}
	return nil, false
}

// Delete removes k.
func (o *Object) Delete(k string) {
	if i := o.index(k); i >= 0 {
		o.keys = append(o.keys[:i], o.keys[i+1:]...)
		o.spans = append(o.spans[:i], o.spans[i+1:]...)
	}
}

// AppendTo appends the object to dst, its keys sorted by their bytes.
func (o *Object) AppendTo(dst []byte) []byte {
	order := o.sorted()
	dst = append(dst, '{')
	for n, i := range order {
		if n > 0 {
			dst = append(dst, ',')
		}
		dst = String(dst, o.keys[i])
		dst = append(dst, ':')
		dst = append(dst, o.vals[o.spans[i].start:o.spans[i].end]...)
	}
	return append(dst, '}')
}

// sorted is the order of o's keys sorted by their bytes. A list of keys
// AppendTo sorted before (the same strings: where their bytes are and
// their length) takes the order found then, once the keys are checked
// to be in order by it, one comparison a key (a string's bytes may be
// another's now, if it was made over a buffer since reused: the check,
// not the strings' places, makes the order right); any other is sorted,
// and remembered in place of the oldest.
func (o *Object) sorted() []int {
	for i := range o.orders {
		if r := &o.orders[i]; sameStrings(r.keys, o.keys) && inOrder(o.keys, r.order) {
			return r.order
		}
	}
	o.order = o.order[:0]
	for i := range o.keys {
		// Insertion sort: an object has a dozen members.
		j := len(o.order)
		o.order = append(o.order, i)
		for ; j > 0 && o.keys[o.order[j-1]] > o.keys[i]; j-- {
			o.order[j] = o.order[j-1]
		}
		o.order[j] = i
	}
	r := &o.orders[o.next]
	o.next = (o.next + 1) % len(o.orders)
	r.keys = append(r.keys[:0], o.keys...)
	r.order = append(r.order[:0], o.order...)
	return o.order
}

// sameStrings reports whether a and b hold the same strings, each where
// the other's bytes are and as long.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || unsafe.StringData(a[i]) != unsafe.StringData(b[i]) {
			return false
		}
	}
	return true
}

// inOrder reports whether keys taken in order come in increasing order of
// their bytes.
func inOrder(keys []string, order []int) bool {
	for n := 1; n < len(order); n++ {
		if keys[order[n-1]] >= keys[order[n]] {
			return false
		}
	}
	return true
}

// Key is a key of an object whose members a writer gives in their keys'
// order itself (Members): the key as canonical JSON, with its colon,
// made once, and in a block of keySize bytes when it fits (nearly every
// key: "cache_creation_input_tokens": is 30 bytes), which Members stores
// whole, two moves of sixteen bytes, instead of appending it.
type Key struct {
	json   string
	padded [keySize]byte
	fits   bool
}

// keySize is a Key's padded block's size.
const keySize = 32

// NewKey is k as a Key.
func NewKey(k string) Key {
	key := Key{json: string(append(String(nil, k), ':'))}
	key.fits = copy(key.padded[:], key.json) == len(key.json)
	return key
}

// Members writes one canonical object member by member in the order the
// writer gives them, which must be the order of their keys' bytes, each
// key once: the bytes an Object of the same members writes (AppendTo),
// without collecting the members and sorting their keys. It is for a
// writer whose objects have keys known ahead (a REPLAY line of one
// kind), which it writes in their sorted order; its tests hold what it
// writes to Object's, and to Append's (the object is canonical). The
// zero Members is ready for Begin.
type Members struct {
	B []byte
	n int
}

// Begin starts the object at the end of dst.
func (m *Members) Begin(dst []byte) {
	m.B = append(dst, '{')
	m.n = 0
}

// End ends the object and returns the buffer.
func (m *Members) End() []byte {
	m.B = append(m.B, '}')
	return m.B
}

// key writes the separator before the next member and its key.
func (m *Members) key(k *Key) {
	m.B = putKey(m.B, k, m.n > 0)
	m.n++
}

// putKey appends a comma when comma says so and the key k to b: when b
// has the room, the comma stored where b ends whether it is wanted or
// not and k's block stored whole after it or over it, with no call;
// else appended.
func putKey(b []byte, k *Key, comma bool) []byte {
	if l := len(b); k.fits && cap(b)-l > keySize {
		b = b[:l+1+keySize]
		b[l] = ','
		if comma {
			l++
		}
		*(*[keySize]byte)(b[l:]) = k.padded
		return b[:l+len(k.json)]
	}
	if comma {
		b = append(b, ',')
	}
	return append(b, k.json...)
}

// Key writes k, whose value the caller appends to B next (a nested
// object of its own Members, begun at B and ended into B).
func (m *Members) Key(k *Key) { m.key(k) }

// String writes k with the string s.
func (m *Members) String(k *Key, s string) {
	m.key(k)
	m.B = String(m.B, s)
}

// Raw writes k with the valid JSON value v (empty: null), made canonical.
func (m *Members) Raw(k *Key, v []byte) {
	m.key(k)
	m.B = Append(m.B, v)
}

// Canonical writes k with v, canonical JSON already, as it is.
func (m *Members) Canonical(k *Key, v []byte) {
	m.key(k)
	m.B = append(m.B, v...)
}

// Int writes k with the number n.
func (m *Members) Int(k *Key, n int64) {
	m.key(k)
	m.B = appendInt(m.B, n)
}

// StringInt writes k with the string of prefix and the decimal digits
// of n after it (String of prefix+strconv.FormatInt(n, 10)), without
// making that string: the digits go where prefix's closing quote was.
// (A made-up id, "step-12".)
func (m *Members) StringInt(k *Key, prefix string, n int64) {
	m.key(k)
	m.B = String(m.B, prefix)
	m.B = append(appendInt(m.B[:len(m.B)-1], n), '"')
}

// Ints writes k with an object of numbers: keys[i] with vals[i], the
// keys given in order (Object.Ints). The room of the whole object is
// made once (a usage's four keys and numbers), each key's block stored
// whole into it and each number's digits two at a time.
func (m *Members) Ints(k *Key, keys []Key, vals []int64) {
	m.key(k)
	b := m.B
	if room := 2 + len(keys)*(keySize+1+maxInt); cap(b)-len(b) < room {
		b = slices.Grow(b, room)
	}
	b = append(b, '{')
	for i := range keys {
		b = appendInt(putKey(b, &keys[i], i > 0), vals[i])
	}
	m.B = append(b, '}')
}

// maxInt is the most bytes appendInt appends.
const maxInt = 20

// appendInt appends n in decimal, strconv.AppendInt's bytes: a number
// from 0 to 99,999,999 (a token count, a latency) made in a word, two
// digits at a time from its last (digitPairs), the first digit in its
// lowest byte, and stored at once where b ends when b has the room,
// without strconv's calls and the copy of its digits; any other through
// strconv.
func appendInt(b []byte, n int64) []byte {
	l := len(b)
	if n < 0 || n >= 1e8 || cap(b)-l < 8 {
		return strconv.AppendInt(b, n, 10)
	}
	var w uint64
	d := 0
	for n >= 100 {
		q := n / 100
		w = w<<16 | uint64(digitPairs[n-100*q])
		d += 2
		n = q
	}
	if n >= 10 {
		w = w<<16 | uint64(digitPairs[n])
		d += 2
	} else {
		w = w<<8 | uint64('0'+n)
		d++
	}
	binary.LittleEndian.PutUint64(b[l:l+8], w)
	return b[:l+d]
}

// digitPairs are the numbers 00 to 99's two digits, the first in the
// low byte (as they are stored).
var digitPairs = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16('0'+i/10) | uint16('0'+i%10)<<8
	}
	return t
}()

// RawHashed writes k with the valid JSON value v made canonical, and then
// hk with its Hash, hashed where it was written (Object.HashOf): hk must
// be the key after k. It returns the hash as written (a JSON string).
func (m *Members) RawHashed(k, hk *Key, v []byte) []byte {
	m.key(k)
	start := len(m.B)
	m.B = Append(m.B, v)
	sum := sha256.Sum256(m.B[start:])
	m.key(hk)
	start = len(m.B)
	m.B = appendHash(m.B, &sum)
	return m.B[start:]
}

// HashedString writes hk with the Hash of the string s (HashString), and
// then k with s: hk must be the key before k. The hash is of s as it is
// written after it, its room kept until then (a hash is of one length).
func (m *Members) HashedString(hk, k *Key, s string) {
	m.key(hk)
	at := len(m.B)
	m.B = append(m.B, `"sha256:`+zeroHex+`"`...)
	m.key(k)
	start := len(m.B)
	m.B = String(m.B, s)
	sum := sha256.Sum256(m.B[start:])
	appendHash(m.B[at:at], &sum)
}

// Hash writes k with the hash of c, canonical JSON (Object.hash).
func (m *Members) Hash(k *Key, c []byte) {
	sum := sha256.Sum256(c)
	m.key(k)
	m.B = appendHash(m.B, &sum)
}

// zeroHex is a SHA-256 sum's room in hex.
const zeroHex = "0000000000000000000000000000000000000000000000000000000000000000"

// hashSize is what appendHash appends: "sha256:<64 hex digits>" and its
// quotes.
const hashSize = len(`"sha256:`) + 2*sha256.Size + 1

// appendHash appends "sha256:<hex of sum>", as a JSON string
// (hex.AppendEncode's digits): into room made once, each byte's two
// digits stored at once from hexPairs.
func appendHash(dst []byte, sum *[sha256.Size]byte) []byte {
	l := len(dst)
	dst = slices.Grow(dst, hashSize)[:l+hashSize]
	h := (*[hashSize]byte)(dst[l:])
	copy(h[:8], `"sha256:`)
	for i, c := range sum {
		binary.LittleEndian.PutUint16(h[8+2*i:], hexPairs[c])
	}
	h[hashSize-1] = '"'
	return dst
}

// hexPairs are the bytes' two lowercase hex digits, the first in the low
// byte (as they are stored).
var hexPairs = func() (t [256]uint16) {
	const digits = "0123456789abcdef"
	for i := range t {
		t[i] = uint16(digits[i>>4]) | uint16(digits[i&15])<<8
	}
	return t
}()
