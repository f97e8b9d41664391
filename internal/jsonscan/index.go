package jsonscan

import (
	"encoding/json"
	"errors"
	"math"
	"unicode/utf8"
	"unsafe"
)

// Index remembers where the objects and arrays of one validated input end,
// so that Members and Array over its values jump over nested containers
// instead of scanning them again: a transcript's message content is
// otherwise scanned once per level it is nested in (message, content list,
// block). The zero value is ready to use, and an Index is meant to be
// reused from one line to the next. A nil *Index indexes nothing.
type Index struct {
	input []byte
	// containers are the objects and arrays of input, in order of their
	// starts (each is recorded when it opens).
	containers []container
	// recorded are the members of the objects in containers, each
	// object's linked in order; lists has, for each container while
	// listing, where its list starts and ends (memberList). Apart from
	// containers, so that an index that lists nothing (Object) keeps its
	// containers at 12 bytes.
	recorded []member
	lists    []memberList
	// inputUTF8 is 1 when input is valid UTF-8, -1 when not, 0 until
	// String or Copy first needs to know; an input ix validated knows it
	// from its validation (validated).
	inputUTF8 int8
	// badUTF8 says a string of the input being validated is not valid
	// UTF-8 (str).
	badUTF8 bool
	// escapes are where input's strings that have an escape are, in
	// order, recorded by the validator (str); escapesKnown says they are
	// input's, all of them: String then looks here, not through each
	// string, for a backslash.
	escapes      []span32
	escapesKnown bool
	// restored says input was validated before and given back (Restore):
	// the next Object of it walks its members without validating it again.
	restored bool
	// tooLarge says the input is too large to be indexed (begin).
	tooLarge bool
	// handed says input was indexed whole by a Walker (IndexedValue): the
	// next ValidSpans of it lists its members from the index.
	handed bool
	// listing says the validator records the members of input's objects:
	// inputs whose member lists are made (ObjectSpans, IndexedValue; and
	// ValidSpans records them), not those Object walks, whose callers
	// read nested members with Members and Array.
	listing bool
	// keyBuf is where Keys lays a list's keys end to end, reused; keys are
	// the strings it made of them, by a hash of their bytes, kept from one
	// input to the next (a reader's records name the same keys again).
	keyBuf []byte
	keys   *[256]keptKeys
	// maker makes the strings String takes as they are (MakeStrings);
	// nil: each an allocation of its own. ids makes those ID takes: the
	// Maker MakeIDs gave (ownIDs), else maker. Kept from one input to
	// the next (Reset does not forget them).
	maker, ids Maker
	ownIDs     bool
}

// Maker makes a string of b's bytes, as string(b) does, and never
// changes it afterwards: a reader that keeps many short strings gives its
// Index one that makes them many to an allocation
// (convert/internal/strblock.Room).
type Maker interface{ Of(b []byte) string }

// MakeStrings has String make the strings it takes as they are, without
// decoding (most of them), with m; nil makes each an allocation of its
// own, as the zero Index does. The strings are then m's: a consumer that
// keeps a few of them long after the read copies them.
func (ix *Index) MakeStrings(m Maker) {
	ix.maker = m
	if !ix.ownIDs {
		ix.ids = m
	}
}

// MakeIDs has ID make the strings it takes as they are with m, apart
// from String's: a reader gives it the room of the strings a consumer
// may keep long after their event (the call ids a writer matches its
// results to, the times), so that one kept pins a block of ids, not one
// of texts. nil makes them as String does.
func (ix *Index) MakeIDs(m Maker) {
	ix.ids, ix.ownIDs = m, m != nil
	if m == nil {
		ix.ids = ix.maker
	}
}

// keptKeys is a string Keys made, and whether its keys need no decoding
// (PlainKey), asked once when it was made.
type keptKeys struct {
	s     string
	plain bool
}

// Kept is what an Index knew of the input it indexed last (Keep), to be
// given back later (Restore) so that the input is not validated again: a
// reader that looks at a line before its turn (the head of a transcript,
// held until it names the session) validates it once.
type Kept struct {
	input      []byte
	containers []container
	inputUTF8  int8
}

// Keep is what ix knows of the input its last Object validated, a copy
// that later calls do not change; its zero value when that Object failed.
func (ix *Index) Keep() Kept {
	if ix.input == nil {
		return Kept{}
	}
	return Kept{input: ix.input, containers: append([]container(nil), ix.containers...), inputUTF8: ix.inputUTF8}
}

// Restore gives ix back what Keep kept: the next Object of the same input
// (the same bytes, where they were) walks its members, without validating
// them again. A zero Kept restores nothing.
func (ix *Index) Restore(k Kept) {
	if k.input == nil {
		return
	}
	// Object records no members: there are none to keep.
	ix.input, ix.containers, ix.recorded, ix.lists = k.input, append(ix.containers[:0], k.containers...), ix.recorded[:0], ix.lists[:0]
	ix.inputUTF8, ix.restored, ix.handed, ix.listing = k.inputUTF8, true, false, false
	ix.escapes, ix.escapesKnown = ix.escapes[:0], false
}

// container is one object or array of the input: where it starts and
// ends, and next, the slot after its last descendant (the first container
// that starts after it ends), so that a walk over its parent's members
// jumps over it to the next container in one step. Offsets are 32 bits
// (12 bytes a container): an input of 2 GB or more is not indexed (begin).
type container struct{ start, end, next int32 }

// member is one member of an object the index holds, as offsets into the
// input: its key without the quotes (still escaped) and its value, and
// next, one more than the slot of the object's next member, 0 after its
// last. A member is recorded once its value is, after the members of the
// objects in that value, so an object's members are not side by side;
// the object's memberList keeps its last, so that the validator's loop
// keeps no variable of its own for them.
type member struct{ keyStart, keyEnd, valueStart, valueEnd, next int32 }

// memberList is where the members of one container are in recorded:
// first and last are one more than the slots of its first and last
// member, 0 while none is recorded (an array, an empty object); first is
// -1 when its members are not recorded (the index was full). n is how
// many are recorded (Recorded.Len: the room a list made of them needs).
type memberList struct{ first, last, n int32 }

// begin forgets the last input (Reset) before b is indexed; when b is too
// large for a container's offsets, nothing of it is recorded.
func (ix *Index) begin(b []byte) {
	ix.Reset()
	ix.tooLarge = len(b) > math.MaxInt32
}

// Reset forgets the indexed input: nothing is part of it until the next
// Object, ObjectSpans or ValidSpans. A reader that reuses its line buffer
// resets an Index whose line could not be indexed, so that the next line's
// values (in the same bytes) are not looked up in the last line's index.
func (ix *Index) Reset() {
	if cap(ix.recorded) > keptMembers {
		// A record with many members does not leave its room behind for
		// every record after it.
		ix.recorded = nil
	}
	if cap(ix.containers) > keptContainers {
		ix.containers, ix.lists = nil, nil
	}
	if cap(ix.escapes) > keptMembers {
		ix.escapes = nil
	}
	ix.input, ix.containers, ix.recorded, ix.lists, ix.escapes = nil, ix.containers[:0], ix.recorded[:0], ix.lists[:0], ix.escapes[:0]
	ix.inputUTF8, ix.restored, ix.handed, ix.listing, ix.badUTF8, ix.escapesKnown = 0, false, false, false, false, false
}

// validated makes b, which ix has just validated whole (begin, then the
// validator's pass), the indexed input, valid UTF-8 or not as the
// validator found its strings: a valid JSON text is ASCII outside its
// strings, so it is valid UTF-8 when each string is.
func (ix *Index) validated(b []byte) {
	ix.input, ix.inputUTF8, ix.escapesKnown = b, 1, !ix.tooLarge
	if ix.badUTF8 {
		ix.inputUTF8 = -1
	}
}

// ObjectSpans is the package's ObjectSpans, indexing b as Object does: b
// is the indexed input until the next call.
func (ix *Index) ObjectSpans(b []byte, dst []Span) ([]Span, error) {
	ix.begin(b)
	ix.listing = true
	spans, err := objectSpans(b, dst, ix)
	if err != nil {
		ix.containers, ix.recorded, ix.lists = ix.containers[:0], ix.recorded[:0], ix.lists[:0]
		return spans, err
	}
	ix.validated(b)
	return spans, nil
}

// ValidSpans is MemberSpans for an object already validated (an element a
// Walker handed out, a line Valid said yes to), indexing it as ObjectSpans
// does without validating it again: one pass over b, as MemberSpans makes,
// that also records where each nested object and array starts and ends,
// and the members of each nested object. The value a Walker handed out
// last with IndexedValue (b is its bytes) is not passed over again: its
// members come from the index the Walker made.
func (ix *Index) ValidSpans(b []byte, dst []Span) ([]Span, error) {
	if ix.handed {
		// A Walker's value, indexed as it was validated: b is its
		// container 0 when it is an object whose members were recorded.
		ix.handed = false
		if len(b) > 0 && len(b) == len(ix.input) && &b[0] == &ix.input[0] && b[0] == '{' &&
			len(ix.lists) > 0 && ix.containers[0].start == 0 && ix.lists[0].first > 0 {
			return ix.MemberSpans(b, dst)
		}
	}
	ix.begin(b)
	ix.listing = true
	if i := skipWS(b, 0); i < len(b) && b[i] == '{' {
		ix.input = b
	}
	return ix.memberSpans(b, dst, -1, true)
}

// index is skip over the valid value at b[i], recording its containers
// and their members as validating it would have (value): ValidSpans's
// pass.
func (ix *Index) index(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{':
		slot := ix.openAt(i)
		i = skipWS(b, i+1)
		if b[i] != '}' {
			for {
				keyEnd := skipString(b, i)
				keyStart := i + 1
				i = skipWS(b, keyEnd)
				valueStart := skipWS(b, i+1) // after ':'
				i = ix.index(b, valueStart)
				if slot >= 0 {
					ix.addMember(slot, keyStart, keyEnd-1, valueStart, i)
				}
				i = skipWS(b, i)
				if b[i] == '}' {
					break
				}
				i = skipWS(b, i+1) // ','
			}
		}
		ix.close(slot, i+1)
		return i + 1
	case '[':
		slot := ix.openAt(i)
		i = skipWS(b, i+1)
		if b[i] != ']' {
			for {
				i = skipWS(b, ix.index(b, i))
				if b[i] == ']' {
					break
				}
				i = skipWS(b, i+1) // ','
			}
		}
		ix.close(slot, i+1)
		return i + 1
	default:
		return skip(b, i)
	}
}

// MemberSpans is the package's MemberSpans, jumping over each nested
// object and array in one step when b is part of the indexed input, and
// when b is an object whose members the index holds, listing them without
// reading b at all.
func (ix *Index) MemberSpans(b []byte, dst []Span) ([]Span, error) {
	off := ix.offset(b)
	if off < 0 {
		return MemberSpans(b, dst)
	}
	// recordedList's test, written out: called, it costs a read of the
	// trajectory reader, which lists its rests here, 0.2M instructions.
	if len(b) > 0 && b[0] == '{' {
		if c := ix.after(off, -1); c < len(ix.lists) {
			if ct := &ix.containers[c]; ix.lists[c].first > 0 && int(ct.start) == off && int(ct.end) == off+len(b) {
				for m := ix.lists[c].first; m != 0; {
					r := &ix.recorded[m-1]
					dst = append(dst, Span{int(r.keyStart) - off, int(r.keyEnd) - off, int(r.valueStart) - off, int(r.valueEnd) - off})
					m = r.next
				}
				return dst, nil
			}
		}
	}
	return ix.memberSpans(b, dst, off, false)
}

// recordedList is the list of b's members in recorded, when b, which
// starts at off in the indexed input, is an object whose members the
// index holds; else nil (b is not an object of the index, its members
// were not recorded, or it has none).
func (ix *Index) recordedList(b []byte, off int) *memberList {
	if off < 0 || len(b) == 0 || b[0] != '{' {
		return nil
	}
	if c := ix.after(off, -1); c < len(ix.lists) {
		if ct := &ix.containers[c]; ix.lists[c].first > 0 && int(ct.start) == off && int(ct.end) == off+len(b) {
			return &ix.lists[c]
		}
	}
	return nil
}

// Recorded is the members of an object of the indexed input as the index
// recorded them when it validated the input (Index.Recorded), given one
// at a time with their keys as Keys gives them: a list made from it
// (model.ParseIn) reads each member where the index holds it, in one
// walk, not copied into a span and walked again for its keys. Valid
// until the index's next input.
type Recorded struct {
	ix *Index
	// first and at are one more than the slots of its first member and
	// of the one Next gives next (0 after the last).
	first, at int32
	// n is how many members it has.
	n int32
	// keys is the kept string the keys are looked for in, keyAt where
	// the next key should start in it; plain says no key of keys needs
	// decoding. slot is where keys is kept, to be replaced on a miss.
	keys  string
	keyAt int
	plain bool
	// slot is where the list's hash keeps its keys, other the second
	// slot, whose keys are tried at the first miss (tried); a new string
	// goes in slot, the one it had moves to other.
	slot, other *keptKeys
	tried       bool
}

// Recorded returns b's members as the index recorded them, and whether it
// holds them: b is an object of the indexed input (its own bytes, not a
// copy) with at least one member, recorded (not past maxMembers); else
// the caller lists b with MemberSpans. The kept string its keys are
// looked for in is found by a hash of its first, second and last keys,
// which the index reaches without a walk: each key is compared with it as
// Next gives it, and the keys are laid end to end only when one differs.
func (ix *Index) Recorded(b []byte) (Recorded, bool) {
	off := ix.offset(b)
	l := ix.recordedList(b, off)
	if l == nil {
		return Recorded{}, false
	}
	in := ix.input
	f, last := &ix.recorded[l.first-1], &ix.recorded[l.last-1]
	second := f
	if f.next != 0 {
		second = &ix.recorded[f.next-1]
	}
	// The first and last keys' first and last bytes (an empty key's is
	// a quote), the first two keys' lengths and the last's.
	h := uint64(in[f.keyStart]) | uint64(in[last.keyEnd-1])<<8 | uint64(in[second.keyStart])<<16 |
		uint64(f.keyEnd-f.keyStart)<<24 | uint64(second.keyEnd-second.keyStart)<<32 | uint64(last.keyEnd-last.keyStart)<<40
	// Two slots, the second by another multiplier, either of which may
	// keep its keys: lists with the same first, second and last keys and
	// others between them (a message with a field of its own) are both
	// kept, and a list whose first slot another list's keys took (the
	// same slot, other keys) is not laid again every time either. (The
	// slot beside the first instead: 158 allocations more a read of the
	// generated mini-prophet session than before, against 7.)
	slot := ix.keptFor(h)
	other := &ix.keys[(h*0xc2b2ae3d27d4eb4f)>>56]
	return Recorded{ix: ix, first: l.first, at: l.first, n: l.n, keys: slot.s, plain: slot.plain, slot: slot, other: other}, true
}

// Len is how many members r has, as the index counted them. (Not the
// count of the list whose keys a slot keeps: another object's keys may
// share the slot's, or begin them, and its count would size every list
// made after it.)
func (r *Recorded) Len() int { return int(r.n) }

// Next returns the next member's key, decoded, and its value (the
// input's bytes, capped at its end), and false after the last. The key is
// a part of a string the index keeps (never changed), laid anew when the
// kept one does not have it where it should be.
func (r *Recorded) Next() (string, []byte, bool) {
	if r.at == 0 {
		return "", nil, false
	}
	m := &r.ix.recorded[r.at-1]
	r.at = m.next
	k := r.ix.input[m.keyStart:m.keyEnd]
	var key string
	if end := r.keyAt + len(k); end <= len(r.keys) && r.keys[r.keyAt:end] == string(k) && r.plain {
		key, r.keyAt = r.keys[r.keyAt:end], end
	} else {
		key = r.key(k)
	}
	return key, r.ix.input[m.valueStart:m.valueEnd:m.valueEnd], true
}

// key is Next's key k when the kept string does not have it where it
// should be (its keys are laid anew, a miss) or its keys need decoding.
func (r *Recorded) key(k []byte) string {
	if end := r.keyAt + len(k); end > len(r.keys) || r.keys[r.keyAt:end] != string(k) {
		if o := r.other; !r.tried && len(o.s) >= end && o.s[:r.keyAt] == r.keys[:r.keyAt] && o.s[r.keyAt:end] == string(k) {
			// The keys before this one are the same in the other
			// slot's, and this one follows them there.
			r.keys, r.plain = o.s, o.plain
		} else {
			r.miss()
		}
		r.tried = true
	}
	key := r.keys[r.keyAt : r.keyAt+len(k)]
	r.keyAt += len(k)
	if !r.plain {
		key = Key(k)
	}
	return key
}

// miss lays r's keys end to end as a new string, which r's slot keeps
// from now on (when not too long; the one it kept moves to the slot
// beside it): the keys Next gave before are the same in it, where they
// were.
func (r *Recorded) miss() {
	ix := r.ix
	kb := ix.keyBuf[:0]
	for m := r.first; m != 0; {
		rec := &ix.recorded[m-1]
		kb = append(kb, ix.input[rec.keyStart:rec.keyEnd]...)
		m = rec.next
	}
	if cap(kb) <= maxKeptKeys {
		ix.keyBuf = kb
	}
	s := string(kb)
	r.keys, r.plain = s, PlainKey(kb)
	if len(s) > 0 && len(s) <= maxKeptKeys {
		*r.other, *r.slot = *r.slot, keptKeys{s, r.plain}
	}
}

// keptFor is the slot of the kept strings for hash h, the table made on
// first use (an index that makes no lists, Object's, does not carry it).
func (ix *Index) keptFor(h uint64) *keptKeys {
	if ix.keys == nil {
		ix.keys = new([256]keptKeys)
	}
	return &ix.keys[(h*0x9e3779b97f4a7c15)>>56]
}

// memberSpans is MemberSpans of b, which starts at off in the indexed
// input, or with indexing, ValidSpans's pass (b is the input, not yet
// indexed; off is not used).
func (ix *Index) memberSpans(b []byte, dst []Span, off int, indexing bool) ([]Span, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return dst, ErrNotObject
	}
	c := -1
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return dst, nil
	}
	for {
		keyEnd := skipString(b, i)
		keyStart := i + 1
		i = skipWS(b, keyEnd)
		i = skipWS(b, i+1) // ':'
		var valueEnd int
		if indexing {
			valueEnd = ix.index(b, i)
		} else {
			valueEnd, c = ix.jump(b, off, i, c)
		}
		dst = append(dst, Span{keyStart, keyEnd - 1, i, valueEnd})
		i = skipWS(b, valueEnd)
		if b[i] == '}' {
			return dst, nil
		}
		i = skipWS(b, i+1) // ','
	}
}

// Object is the package's Object, indexing b for Members and Array calls
// on its values until the next call.
func (ix *Index) Object(b []byte, fn func(key, value []byte) error) error {
	if ix.restored {
		ix.restored = false
		if len(b) > 0 && len(b) == len(ix.input) && &b[0] == &ix.input[0] {
			return ix.members(b, 0, skipWS(b, 0), fn)
		}
	}
	ix.begin(b)
	var found [32]Span
	spans, err := objectSpans(b, found[:0], ix)
	if err != nil {
		ix.containers, ix.recorded, ix.lists = ix.containers[:0], ix.recorded[:0], ix.lists[:0]
		return err
	}
	ix.validated(b)
	for _, m := range spans {
		if err := fn(b[m.KeyStart:m.KeyEnd], b[m.ValueStart:m.ValueEnd]); err != nil {
			return err
		}
	}
	return nil
}

// Members is the package's Members, using the index when b is part of the
// indexed input.
func (ix *Index) Members(b []byte, fn func(key, value []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	return ix.members(b, ix.offset(b), i, fn)
}

// Array is the package's Array, using the index when b is part of the
// indexed input.
func (ix *Index) Array(b []byte, fn func(i int, value []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errors.New("not a JSON array")
	}
	off := ix.offset(b)
	c := -1
	i = skipWS(b, i+1)
	if b[i] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		var vEnd int
		if off < 0 {
			vEnd = skip(b, i)
		} else {
			vEnd, c = ix.jump(b, off, i, c)
		}
		if err := fn(n, b[i:vEnd]); err != nil {
			return err
		}
		i = skipWS(b, vEnd)
		if b[i] == ']' {
			return nil
		}
		i = skipWS(b, i+1)
	}
}

// Objects calls fn with each element of the array b, as Array does, and
// where the element's members are, as MemberSpans of it gives them
// (appended to dst[:0]; ErrNotObject for an element that is not an
// object): an object of the indexed input whose members the index
// recorded is listed from them where the walk over b finds it, without a
// search for its place (MemberSpans's, once an element). The spans are
// valid until fn returns. An element fn is given is b's own bytes, with
// no space around it.
func (ix *Index) Objects(b []byte, dst []Span, fn func(v []byte, spans []Span, err error)) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errors.New("not a JSON array")
	}
	off := ix.offset(b)
	c := -1
	i = skipWS(b, i+1)
	if b[i] == ']' {
		return nil
	}
	for {
		var vEnd int
		var spans []Span
		var err error
		if off >= 0 && b[i] == '{' {
			if c < 0 {
				c = ix.after(off, i-1)
			}
			if c < len(ix.containers) && int(ix.containers[c].start) == off+i {
				// The element is the container at c: its end and the next
				// container are known, and its members when recorded.
				ct := &ix.containers[c]
				vEnd = int(ct.end) - off
				if c < len(ix.lists) && ix.lists[c].first > 0 {
					at := off + i
					spans = dst[:0]
					for m := ix.lists[c].first; m != 0; {
						r := &ix.recorded[m-1]
						spans = append(spans, Span{int(r.keyStart) - at, int(r.keyEnd) - at, int(r.valueStart) - at, int(r.valueEnd) - at})
						m = r.next
					}
				} else {
					spans, err = ix.MemberSpans(b[i:vEnd], dst[:0])
				}
				c = int(ct.next)
			} else {
				vEnd, c = ix.jump(b, off, i, c)
				spans, err = ix.MemberSpans(b[i:vEnd], dst[:0])
			}
		} else {
			if off < 0 {
				vEnd = skip(b, i)
			} else {
				vEnd, c = ix.jump(b, off, i, c)
			}
			spans, err = ix.MemberSpans(b[i:vEnd], dst[:0])
		}
		fn(b[i:vEnd], spans, err)
		i = skipWS(b, vEnd)
		if b[i] == ']' {
			return nil
		}
		i = skipWS(b, i+1)
	}
}

// Keys returns the keys of the members spans (of b, still escaped) laid
// end to end, as a string, and whether none of them needs decoding
// (PlainKey of the string): the string an earlier call made for the same
// bytes while the index still keeps it (it keeps 256, of at most
// maxKeptKeys bytes each, the last made for each hash), else a new one.
// A kept string is compared with the keys where they are, key by key, not
// laid end to end first: nearly every list's keys are those of one made
// before. The strings are never changed, so what a caller keeps of them
// (a member's key) may be kept for good.
func (ix *Index) Keys(b []byte, spans []Span) (string, bool) {
	n := 0
	for i := range spans {
		n += spans[i].KeyEnd - spans[i].KeyStart
	}
	if n == 0 || n > maxKeptKeys {
		s := ix.layKeys(b, spans)
		return s, PlainKey(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	// The hash asks a few bytes where they are: the first key's first
	// and the last key's last (an empty key's is its quote), the middle
	// key's first, the first key's length, how many keys, how long.
	first, mid, last := &spans[0], &spans[len(spans)/2], &spans[len(spans)-1]
	h := uint64(n) | uint64(len(spans))<<8 | uint64(b[first.KeyStart])<<16 | uint64(b[last.KeyEnd-1])<<24 |
		uint64(b[mid.KeyStart])<<32 | uint64(first.KeyEnd-first.KeyStart)<<40
	kept := ix.keptFor(h)
	if len(kept.s) == n && sameKeys(kept.s, b, spans) {
		return kept.s, kept.plain
	}
	s := ix.layKeys(b, spans)
	*kept = keptKeys{s, PlainKey(unsafe.Slice(unsafe.StringData(s), len(s)))}
	return s, kept.plain
}

// layKeys returns the keys of the members spans laid end to end, as a
// new string, laid in keyBuf first (its room kept when not too large).
func (ix *Index) layKeys(b []byte, spans []Span) string {
	kb := ix.keyBuf[:0]
	for i := range spans {
		kb = append(kb, b[spans[i].KeyStart:spans[i].KeyEnd]...)
	}
	if cap(kb) <= maxKeptKeys {
		ix.keyBuf = kb
	}
	return string(kb)
}

// sameKeys reports whether s is the keys of the members spans laid end to
// end; s is as long as they are together.
func sameKeys(s string, b []byte, spans []Span) bool {
	off := 0
	for i := range spans {
		k := b[spans[i].KeyStart:spans[i].KeyEnd]
		if s[off:off+len(k)] != string(k) {
			return false
		}
		off += len(k)
	}
	return true
}

// maxKeptKeys is the longest run of keys Keys keeps (256 of them at most
// hold 64 KB).
const maxKeptKeys = 256

// maxContainers bounds the index, so that a line of a million empty
// arrays costs no more memory than the line itself. Containers past it are
// not recorded and are skipped by scanning.
const maxContainers = 1 << 16

// maxMembers bounds the members recorded as maxContainers bounds the
// containers (20 bytes each); an object whose members do not fit is
// listed by scanning.
const maxMembers = 1 << 16

// keptContainers and keptMembers are the room an Index keeps from one
// input to the next (Reset): an input that needed more leaves it to the
// collector, so that one large record does not hold its index's room for
// the rest of a read.
const (
	keptContainers = 1 << 12
	keptMembers    = 1 << 13
)

// String is the package's String. A value of the indexed input is not
// checked for invalid UTF-8 again when the whole input is valid: the
// values of a record overlap (a tool result's text is in its content and
// again in toolUseResult), so checking the line once is less work.
//
// A string of it that holds no escape, as the validator recorded them
// (noEscape), is made of its bytes without looking through it for a
// backslash, by the index's Maker when it has one (MakeStrings).
func (ix *Index) String(v []byte) (string, bool) { return ix.stringBy(v, false) }

// ID is String for a string a consumer may keep after its event (an id, a
// time): made by the index's Maker of ids when it has one (MakeIDs).
func (ix *Index) ID(v []byte) (string, bool) { return ix.stringBy(v, true) }

// stringBy is String, or ID when id. (A flag, not the Maker: a Maker is
// two words to pass at every call, and most strings have no maker.)
func (ix *Index) stringBy(v []byte, id bool) (string, bool) {
	off := ix.offset(v)
	// (An input known valid is not asked again: InputValidUTF8 is a
	// call.)
	if off < 0 || ix.inputUTF8 <= 0 && !ix.InputValidUTF8() {
		return decodeString(v, false)
	}
	if n := len(v); n >= 2 && v[0] == '"' && v[n-1] == '"' && ix.noEscape(off, n) {
		m := ix.maker
		if id {
			m = ix.ids
		}
		if n == 2 || m == nil {
			return string(v[1 : n-1]), true
		}
		return m.Of(v[1 : n-1]), true
	}
	return decodeString(v, true)
}

// noEscape reports whether the n bytes at off in the input hold no
// backslash, as the validator recorded the strings that have an escape
// (escapesKnown): none of them overlaps the bytes (outside strings, valid
// JSON has no backslash); false when they are not known.
func (ix *Index) noEscape(off, n int) bool {
	if !ix.escapesKnown {
		return false
	}
	e := ix.escapes
	if len(e) == 0 {
		return true
	}
	// The first that ends after off (they are in order, apart), by
	// binary search.
	lo, hi := 0, len(e)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(e[mid].end) <= off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo == len(e) || int(e[lo].start) >= off+n
}

// span32 is where a string of the input is: its opening quote, and the
// byte after its closing one.
type span32 struct{ start, end int32 }

// escaped records that the string at b[start] of the input being
// validated has an escape (str), when its offsets fit in 32 bits
// (begin); escapedEnd then records its end.
func (ix *Index) escaped(start int) {
	if !ix.tooLarge {
		ix.escapes = append(ix.escapes, span32{int32(start), 0})
	}
}

func (ix *Index) escapedEnd(end int) {
	if n := len(ix.escapes); n > 0 && !ix.tooLarge {
		ix.escapes[n-1].end = int32(end)
	}
}

// Copy is the package's Copy, checking UTF-8 as String does.
func (ix *Index) Copy(v []byte) json.RawMessage {
	return copyValue(v, ix.validUTF8(v))
}

// InputValidUTF8 reports whether the indexed input is valid UTF-8 (known
// from its validation, or checked once per input, and shared with String
// and Copy).
func (ix *Index) InputValidUTF8() bool {
	if ix.inputUTF8 == 0 && len(ix.input) > 0 {
		ix.inputUTF8 = -1
		if utf8.Valid(ix.input) {
			ix.inputUTF8 = 1
		}
	}
	return ix.inputUTF8 >= 0
}

// ValidUTF8 reports whether v is part of the indexed input and known to
// be valid UTF-8, so that Copy(v) has v's own bytes.
func (ix *Index) ValidUTF8(v []byte) bool { return ix.validUTF8(v) }

// validUTF8 reports whether v is part of the indexed input and that input
// is valid UTF-8 (so v is too: values start and end at ASCII bytes).
func (ix *Index) validUTF8(v []byte) bool {
	if ix.offset(v) < 0 {
		return false
	}
	return ix.InputValidUTF8()
}

// openAt records a container starting at i and returns its slot, or -1
// when it is not recorded.
func (ix *Index) openAt(i int) int {
	if ix == nil || ix.tooLarge || len(ix.containers) >= maxContainers {
		return -1
	}
	ix.containers = append(ix.containers, container{start: int32(i)})
	if ix.listing {
		ix.lists = append(ix.lists, memberList{})
	}
	return len(ix.containers) - 1
}

// addMember records a member of the object in slot, once its value is
// validated (its own members are recorded before it), after the member
// recorded last for that object. When the index is full, the object's
// members are not recorded (first -1, those already recorded left
// unlinked): it is listed by scanning, and the index stays full for the
// rest of the input, so none of its later members is recorded either.
func (ix *Index) addMember(slot, keyStart, keyEnd, valueStart, valueEnd int) {
	l := &ix.lists[slot]
	if len(ix.recorded) >= maxMembers {
		l.first = -1
		return
	}
	ix.recorded = append(ix.recorded, member{int32(keyStart), int32(keyEnd), int32(valueStart), int32(valueEnd), 0})
	m := int32(len(ix.recorded))
	if l.last == 0 {
		l.first = m
	} else {
		ix.recorded[l.last-1].next = m
	}
	l.last = m
	l.n++
}

// close records the end of the container in slot; the containers
// recorded since it opened are its descendants.
func (ix *Index) close(slot, end int) {
	if slot >= 0 {
		ix.containers[slot].end = int32(end)
		ix.containers[slot].next = int32(len(ix.containers))
	}
}

// offset returns where b starts in the indexed input, or -1 when b is not
// part of it (a copy, or a value of another input).
func (ix *Index) offset(b []byte) int {
	if ix == nil || len(ix.input) == 0 || len(b) == 0 {
		return -1
	}
	// Only compared, never turned back into a pointer.
	d := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(ix.input)))
	if d >= uintptr(len(ix.input)) || uintptr(len(b)) > uintptr(len(ix.input))-d {
		return -1
	}
	return int(d)
}

// after returns the slot of the first container that starts after b[i],
// b starting at off in the indexed input, by binary search; 0 when b is
// not part of it (off < 0: the slot is not looked at then).
func (ix *Index) after(off, i int) int {
	if off < 0 {
		return 0
	}
	p := off + i
	lo, hi := 0, len(ix.containers)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(ix.containers[mid].start) <= p {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// jump returns the end of the value at b[i], b starting at off in the
// indexed input, and the slot of the first container after that value; c
// is the first container at or after b[i], or -1 before the walk's first
// container is looked up (a walk over strings and numbers looks nothing
// up). A container the index holds is jumped over in one step (its end,
// and its next); one it does not (past maxContainers) is skipped by
// scanning.
func (ix *Index) jump(b []byte, off, i, c int) (end, next int) {
	switch b[i] {
	case '"':
		return skipString(b, i), c
	case '{', '[':
	default:
		return skip(b, i), c
	}
	if c < 0 {
		c = ix.after(off, i-1)
	}
	if c < len(ix.containers) && int(ix.containers[c].start) == off+i {
		ct := &ix.containers[c]
		return int(ct.end) - off, int(ct.next)
	}
	end = skip(b, i)
	return end, ix.after(off, end-1)
}

// members walks the object at b[i]; off is where b starts in the indexed
// input, or -1.
func (ix *Index) members(b []byte, off, i int, fn func(key, value []byte) error) error {
	c := -1
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return nil
	}
	for {
		kEnd := skipString(b, i)
		key := b[i+1 : kEnd-1]
		i = skipWS(b, kEnd)
		i = skipWS(b, i+1) // ':'
		var vEnd int
		if off < 0 {
			vEnd = skip(b, i)
		} else {
			vEnd, c = ix.jump(b, off, i, c)
		}
		if err := fn(key, b[i:vEnd]); err != nil {
			return err
		}
		i = skipWS(b, vEnd)
		if b[i] == '}' {
			return nil
		}
		i = skipWS(b, i+1) // ','
	}
}
