// Package jsonw builds JSON objects with a fixed key order straight into a
// buffer. Writers use it so that output key order is the format's own (Claude
// Code's entry order, ATIF's field order) and no map or reflection is needed
// per record.
//
// What it writes is compact, or indented as json.Indent(dst, src, "", "  ")
// indents the compact document (a Buf told to with Indent): then each member
// and element starts on a line of its own, written with it, and the bytes
// are appended once. Only a value that comes already encoded (Raw) is read
// again, to indent it (AppendIndent). A Buf told to Quote writes the
// compact document as it stands inside a JSON string (a document kept as a
// string value): each string escaped once for both.
package jsonw

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Obj writes one JSON object. Start it with Begin, end with End.
type Obj struct {
	B *Buffer
	n int
	// in is the Buf that indents the object, nil when it is compact.
	in *Buf
}

// Begin starts an object in b.
func Begin(b *Buffer) *Obj {
	b.WriteByte('{')
	return &Obj{B: b}
}

func (o *Obj) key(k string) {
	if o.in != nil {
		o.B.buf = o.member(k, 0)
		return
	}
	o.B.buf = o.appendKey(k, 0)
}

// free is b's bytes, grown first to have room for about n more, so that
// what is appended to them is written in place and kept by setting b's
// bytes to the result (b.buf = dst): no copy of it is made.
func free(b *Buffer, n int) []byte {
	if dst := b.buf; cap(dst)-len(dst) >= n+8 {
		return dst
	}
	b.Grow(n + 8)
	return b.buf
}

// appendKey is the bytes of a compact object's buffer, grown to hold the
// next member's separator and key and about n bytes more, with those
// appended, so that a member is appended where the buffer's bytes end and
// kept by setting them. free's test of the room is made here, where
// free, too big to be inlined, is called only to grow the buffer.
func (o *Obj) appendKey(k string, n int) []byte {
	dst := o.B.buf
	if cap(dst)-len(dst) < len(k)+n+8 {
		dst = free(o.B, len(k)+n)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	return append(AppendString(dst, k), ':')
}

// indentedMember is the bytes of an indented object's buffer, grown
// to hold the next member's separator, line break, indentation and key and
// about n bytes more, with those appended. (Each member's method tests
// for indentation first and keeps its compact case apart, so that the
// compact writers pay one test.)
//
// Its bytes are stored a word at a time where the free space has room for
// whole words: the line break and the indentation (putNewline), and a key
// of 4 to 16 bytes plain throughout (most keys: "step_id", "role",
// "tool_call_id"), loaded as two words that overlap, tested at once and
// stored, as appendEscaped stores a short string; free is called only to
// grow the buffer, and no append copies through memmove. Any other key
// is appended by AppendString.
func (o *Obj) indentedMember(k string, n int) []byte {
	depth := o.in.depth
	dst := o.B.buf
	// The comma, the line break and indentation and putNewline's words
	// past them, the key's quotes, ": " and n.
	if room := len(k) + n + 2*depth + 40; cap(dst)-len(dst) < room {
		dst = free(o.B, room)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	dst = putNewline(dst, depth)
	if m, l := len(k), len(dst); m >= 4 && m <= 16 {
		w := dst[l : l+m+4]
		if m < 8 {
			w0, w1 := word4(k), word4(k[m-4:])
			if jsonscan.NotPlainASCII8(uint64(w0)|uint64(w1)<<32) == 0 {
				binary.LittleEndian.PutUint32(w[1:], w0)
				binary.LittleEndian.PutUint32(w[m-3:], w1)
				w[0], w[m+1], w[m+2], w[m+3] = '"', '"', ':', ' '
				return dst[:l+m+4]
			}
		} else {
			w0, w1 := word(k), word(k[m-8:])
			if jsonscan.NotPlainASCII8(w0)|jsonscan.NotPlainASCII8(w1) == 0 {
				binary.LittleEndian.PutUint64(w[1:], w0)
				binary.LittleEndian.PutUint64(w[m-7:], w1)
				w[0], w[m+1], w[m+2], w[m+3] = '"', '"', ':', ' '
				return dst[:l+m+4]
			}
		}
	}
	return append(AppendString(dst, k), ':', ' ')
}

// member is indentedMember, or quotedMember when o's Buf quotes, or
// canonicalMember when it writes canonical JSON.
func (o *Obj) member(k string, n int) []byte {
	if o.in.quote {
		return o.quotedMember(k, n)
	}
	if o.in.canon != nil {
		return o.canonicalMember(k, n)
	}
	return o.indentedMember(k, n)
}

// quotedMember is the bytes of a quoting object's buffer, grown to
// hold the next member's separator and key, escaped as they stand in a
// string, and about n bytes more, with those appended.
func (o *Obj) quotedMember(k string, n int) []byte {
	dst := free(o.B, 2*len(k)+n+6)
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	return append(appendQuotedString(dst, k), ':')
}

// room is how much an indented member's line break and indentation take.
func (o *Obj) room() int {
	if o.in == nil || o.in.quote {
		return 0
	}
	return 3 + 2*o.in.depth
}

// Raw writes a key with a raw JSON value; an empty value is written as null.
func (o *Obj) Raw(k string, v []byte) {
	o.key(k)
	o.value(v)
}

// RawKey writes a member whose key is given quoted already, with a raw
// JSON value as Raw writes it.
func (o *Obj) RawKey(quoted []byte, v []byte) {
	if o.in != nil && o.in.canon != nil {
		// Written again the canonical way, and sorted by what it says.
		k, _ := jsonscan.String(quoted)
		o.Raw(k, v)
		return
	}
	if o.n > 0 {
		o.B.WriteByte(',')
	}
	o.n++
	switch {
	case o.in != nil && o.in.quote:
		o.B.buf = appendStringBody(free(o.B, 2*len(quoted)), string(quoted))
		o.B.WriteByte(':')
	case o.in != nil:
		o.B.buf = appendNewline(free(o.B, o.room()), o.in.depth)
		o.B.Write(quoted)
		o.B.WriteString(": ")
	default:
		o.B.Write(quoted)
		o.B.WriteByte(':')
	}
	o.value(v)
}

// value writes the raw JSON value v of a member: null when it is empty,
// indented at the object's depth, quoted, or compact (WriteCompact).
func (o *Obj) value(v []byte) {
	switch {
	case len(v) == 0:
		o.B.WriteString("null")
	case o.in != nil && o.in.quote:
		writeQuotedRaw(o.B, v)
	case o.in != nil && o.in.canon != nil:
		o.B.buf = o.in.canon.appendRaw(free(o.B, len(v)), v)
	case o.in != nil:
		o.B.buf = AppendIndent(free(o.B, len(v)+len(v)/2), v, o.in.depth)
	default:
		WriteCompact(o.B, v)
	}
}

// writeQuotedRaw writes the valid JSON value v as WriteCompact writes it,
// escaped as it stands inside a string.
func writeQuotedRaw(b *Buffer, v []byte) {
	if bytes.IndexByte(v, '\n') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
		var c Buffer
		WriteCompact(&c, v)
		v = c.Bytes()
	}
	b.buf = appendStringBody(free(b, len(v)+len(v)/4), unsafe.String(unsafe.SliceData(v), len(v)))
}

// WriteCompact writes the valid JSON value v without insignificant
// whitespace when it has line breaks (values kept from pretty-printed
// sources), so JSONL output stays one record per line.
func WriteCompact(b *Buffer, v []byte) {
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		b.Write(v)
		return
	}
	var c bytes.Buffer // (json.Compact's; a value with line breaks is rare)
	if err := json.Compact(&c, v); err != nil {
		b.Write(v)
		return
	}
	b.Write(c.Bytes())
}

// Str writes a string member.
func (o *Obj) Str(k, s string) {
	if o.in != nil {
		if o.in.quote {
			o.B.buf = appendQuotedString(o.quotedMember(k, len(s)+4), s)
			return
		}
		if c := o.in.canon; c != nil {
			o.B.buf = c.appendString(o.canonicalMember(k, len(s)+2), s)
			return
		}
		o.B.buf = AppendString(o.indentedMember(k, len(s)), s)
		return
	}
	// A compact member, the most common, written without appendKey's
	// and AppendString's calls: what they append, in one body. A key of
	// 4 to 16 bytes plain throughout (nearly every key: "type", "uuid",
	// "timestamp") is stored with its quotes, colon and the value's quote
	// as two words that overlap, tested at once, as indentedMember stores
	// an indented one, without appendEscaped's call; any other key is
	// escaped by it.
	dst := o.B.buf
	if cap(dst)-len(dst) < len(k)+len(s)+8 {
		dst = free(o.B, len(k)+len(s))
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	if m, l := len(k), len(dst); m >= 4 && m <= 16 {
		w := dst[l : l+m+4]
		if m < 8 {
			w0, w1 := word4(k), word4(k[m-4:])
			if jsonscan.NotPlainASCII8(uint64(w0)|uint64(w1)<<32) == 0 {
				binary.LittleEndian.PutUint32(w[1:], w0)
				binary.LittleEndian.PutUint32(w[m-3:], w1)
				w[0], w[m+1], w[m+2], w[m+3] = '"', '"', ':', '"'
				dst = appendEscaped(dst[:l+m+4], s, jsonEscapes)
				o.B.buf = append(dst, '"')
				return
			}
		} else {
			w0, w1 := word(k), word(k[m-8:])
			if jsonscan.NotPlainASCII8(w0)|jsonscan.NotPlainASCII8(w1) == 0 {
				binary.LittleEndian.PutUint64(w[1:], w0)
				binary.LittleEndian.PutUint64(w[m-7:], w1)
				w[0], w[m+1], w[m+2], w[m+3] = '"', '"', ':', '"'
				dst = appendEscaped(dst[:l+m+4], s, jsonEscapes)
				o.B.buf = append(dst, '"')
				return
			}
		}
	}
	dst = appendEscaped(append(dst, '"'), k, jsonEscapes)
	dst = appendEscaped(append(dst, '"', ':', '"'), s, jsonEscapes)
	o.B.buf = append(dst, '"')
}

// StrOrNull writes s, or null when s is "".
func (o *Obj) StrOrNull(k, s string) {
	if s == "" {
		o.Raw(k, nil)
		return
	}
	o.Str(k, s)
}

// Int writes an integer member.
func (o *Obj) Int(k string, n int64) {
	if o.in != nil {
		o.B.buf = strconv.AppendInt(o.member(k, 20), n, 10)
		return
	}
	o.B.buf = strconv.AppendInt(o.appendKey(k, 20), n, 10)
}

// Float writes a number member.
func (o *Obj) Float(k string, f float64) {
	if o.in != nil {
		o.B.buf = strconv.AppendFloat(o.member(k, 24), f, 'g', -1, 64)
		return
	}
	o.B.buf = strconv.AppendFloat(o.appendKey(k, 24), f, 'g', -1, 64)
}

// Bool writes a boolean member.
func (o *Obj) Bool(k string, v bool) {
	o.key(k)
	if v {
		o.B.WriteString("true")
	} else {
		o.B.WriteString("false")
	}
}

// Strings writes a list of strings, [] when there are none. Each is
// written as String writes it, which is what encoding/json writes for
// valid UTF-8 without U+2028 and U+2029 (the ids and names it is used
// for).
func (o *Obj) Strings(k string, list []string) {
	room := o.room()
	var dst []byte
	quote := o.in != nil && o.in.quote
	var canon *canonical
	if o.in != nil && !quote {
		canon = o.in.canon
	}
	indent := o.in != nil && !quote && canon == nil
	if o.in != nil {
		dst = o.member(k, (12+room)*len(list))
	} else {
		dst = o.appendKey(k, 8*len(list))
	}
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch {
		case indent:
			dst = AppendString(appendNewline(dst, o.in.depth+1), s)
		case quote:
			dst = appendQuotedString(dst, s)
		case canon != nil:
			dst = canon.appendString(dst, s)
		default:
			dst = AppendString(dst, s)
		}
	}
	if indent && len(list) > 0 {
		dst = appendNewline(dst, o.in.depth)
	}
	o.B.buf = append(dst, ']')
}

// Any writes the JSON encoding of v (no HTML escaping).
func (o *Obj) Any(k string, v any) {
	if o.in != nil {
		// Encoded, then indented where it stands.
		var b Buffer
		encode(&b, v)
		o.Raw(k, b.Bytes())
		return
	}
	o.key(k)
	encode(o.B, v)
}

// encode appends the JSON encoding of v to b, without HTML escaping and
// without the newline json.Encoder adds.
func encode(b *Buffer, v any) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	if n := b.Len(); n > 0 && b.Bytes()[n-1] == '\n' {
		b.Truncate(n - 1)
	}
}

// Members writes n members encoded already: obj is an object that a
// compact Obj wrote, whose members these are (a writer's members that
// repeat from record to record, encoded once and kept). A compact Obj
// copies them whole; one that indents, quotes or writes canonical JSON
// writes each again as RawKey does.
func (o *Obj) Members(obj []byte, n int) {
	if n == 0 {
		return
	}
	if o.in != nil {
		spans, _ := jsonscan.ObjectSpans(obj, nil)
		for _, m := range spans {
			o.RawKey(obj[m.KeyStart-1:m.KeyEnd+1], obj[m.ValueStart:m.ValueEnd])
		}
		return
	}
	if o.n > 0 {
		o.B.WriteByte(',')
	}
	o.n += n
	o.B.Write(obj[1 : len(obj)-1])
}

// Key starts a member whose value the caller writes itself.
func (o *Obj) Key(k string) { o.key(k) }

// Len is the number of members written.
func (o *Obj) Len() int { return o.n }

// End closes the object.
func (o *Obj) End() {
	if o.in != nil && !o.in.quote {
		if o.in.canon != nil {
			o.in.canon.end(o.in)
			return
		}
		o.endIndented()
		return
	}
	o.B.WriteByte('}')
}

const hex = "0123456789abcdef"

// String writes s as a JSON string: no HTML escaping, control characters
// escaped, invalid UTF-8 replaced by U+FFFD (AppendString).
func String(b *Buffer, s string) {
	b.buf = AppendString(free(b, len(s)), s)
}

// StringOfBytes writes s's bytes as a JSON string: String(b, string(s)),
// without the string's copy.
func StringOfBytes(b *Buffer, s []byte) {
	b.buf = AppendString(free(b, len(s)), unsafe.String(unsafe.SliceData(s), len(s))) // read only, here
}

// AppendString appends s as a JSON string, as String writes it. Runs of
// plain ASCII, most of any text, are found eight bytes at a time
// (PlainASCII) and copied whole.
func AppendString(dst []byte, s string) []byte {
	return append(appendStringBody(append(dst, '"'), s), '"')
}

// appendStringBody appends what AppendString puts between the quotes.
func appendStringBody(dst []byte, s string) []byte { return appendEscaped(dst, s, jsonEscapes) }

// appendQuotedString appends AppendString(s) as it stands inside a JSON
// string: what appendStringBody(AppendString(s)) appends, in one pass.
func appendQuotedString(dst []byte, s string) []byte {
	return append(appendEscaped(append(dst, '\\', '"'), s, quotedEscapes), '\\', '"')
}

// AppendSerdeString appends s as a JSON string escaped as serde_json
// escapes it, which canonical JSON's strings are (package canon's
// String): as AppendString, but for a backspace and a form feed, written
// \b and \f, and invalid UTF-8, each byte replaced by U+FFFD itself, not
// its escape. Its short plain strings take appendEscaped's words.
func AppendSerdeString(dst []byte, s string) []byte {
	return append(appendEscaped(append(dst, '"'), s, serdeEscapes), '"')
}

// escaping is how appendEscaped escapes: as AppendString does, twice
// (quoted: as those bytes stand inside another string), or as
// serde_json does (AppendSerdeString).
type escaping uint8

const (
	jsonEscapes escaping = iota
	quotedEscapes
	serdeEscapes
)

// appendEscaped appends s escaped as a JSON string's bytes, as esc says.
// Plain runs are copied as they are (a string that is one run, most of
// them, with one append and no loop); each escape sequence starts with a
// backslash, which quotedEscapes escapes, and is followed by a letter or
// digits, or by the quote or backslash it escapes, which quotedEscapes
// escapes too.
func appendEscaped(dst []byte, s string, esc escaping) []byte {
	// Most strings (keys, ids, names) are short and plain throughout:
	// their words are loaded once, tested and stored (the first and last
	// four bytes of a string shorter than eight, the first and last eight
	// of one up to sixteen, the first and last sixteen of one up to 32,
	// the first 32 and last sixteen of one up to 48, a UUID, which overlap; a word has no mark exactly when its bytes are all
	// plain), without a call to PlainASCII and memmove. dst's room is
	// free()'s, which every member's method asks for.
	if n, l := len(s), len(dst); n >= 4 && n <= 48 && cap(dst)-l >= n {
		switch {
		case n > 32:
			// (A UUID's 36 bytes: its first 32 and last 16.)
			w0, w1, w2, w3 := word(s), word(s[8:]), word(s[16:]), word(s[24:])
			w4, w5 := word(s[n-16:]), word(s[n-8:])
			if jsonscan.NotPlainASCII8(w0)|jsonscan.NotPlainASCII8(w1)|jsonscan.NotPlainASCII8(w2)|jsonscan.NotPlainASCII8(w3)|
				jsonscan.NotPlainASCII8(w4)|jsonscan.NotPlainASCII8(w5) == 0 {
				dst = dst[:l+n]
				binary.LittleEndian.PutUint64(dst[l:], w0)
				binary.LittleEndian.PutUint64(dst[l+8:], w1)
				binary.LittleEndian.PutUint64(dst[l+16:], w2)
				binary.LittleEndian.PutUint64(dst[l+24:], w3)
				binary.LittleEndian.PutUint64(dst[l+n-16:], w4)
				binary.LittleEndian.PutUint64(dst[l+n-8:], w5)
				return dst
			}
		case n > 16:
			w0, w1, w2, w3 := word(s), word(s[8:]), word(s[n-16:]), word(s[n-8:])
			if jsonscan.NotPlainASCII8(w0)|jsonscan.NotPlainASCII8(w1)|jsonscan.NotPlainASCII8(w2)|jsonscan.NotPlainASCII8(w3) == 0 {
				dst = dst[:l+n]
				binary.LittleEndian.PutUint64(dst[l:], w0)
				binary.LittleEndian.PutUint64(dst[l+8:], w1)
				binary.LittleEndian.PutUint64(dst[l+n-16:], w2)
				binary.LittleEndian.PutUint64(dst[l+n-8:], w3)
				return dst
			}
		case n < 8:
			w0, w1 := word4(s), word4(s[n-4:])
			if jsonscan.NotPlainASCII8(uint64(w0)|uint64(w1)<<32) == 0 {
				dst = dst[:l+n]
				binary.LittleEndian.PutUint32(dst[l:], w0)
				binary.LittleEndian.PutUint32(dst[l+n-4:], w1)
				return dst
			}
		default:
			w0, w1 := word(s), word(s[n-8:])
			if jsonscan.NotPlainASCII8(w0)|jsonscan.NotPlainASCII8(w1) == 0 {
				dst = dst[:l+n]
				binary.LittleEndian.PutUint64(dst[l:], w0)
				binary.LittleEndian.PutUint64(dst[l+n-8:], w1)
				return dst
			}
		}
	}
	return appendEscapedRuns(dst, s, esc)
}

// appendEscapedRuns is appendEscaped past its short strings' test.
func appendEscapedRuns(dst []byte, s string, esc escaping) []byte {
	// A string plain throughout is copied at once.
	i := PlainASCII(s)
	if i == len(s) {
		return append(dst, s...)
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size
				i += PlainASCII(s[i:])
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		quoted := esc == quotedEscapes
		if quoted {
			dst = append(dst, '\\')
		}
		switch c {
		case '"', '\\':
			dst = append(dst, '\\')
			if quoted {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			switch {
			case c >= utf8.RuneSelf && esc == serdeEscapes:
				dst = append(dst, "\uFFFD"...) // invalid UTF-8, one byte
			case c >= utf8.RuneSelf:
				dst = append(dst, `\ufffd`...) // invalid UTF-8, one byte
			case c == '\b' && esc == serdeEscapes:
				dst = append(dst, `\b`...)
			case c == '\f' && esc == serdeEscapes:
				dst = append(dst, `\f`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
		}
		i++
		start = i
		i += PlainASCII(s[i:])
	}
	return append(dst, s[start:]...)
}

// highBits has the high bit of each byte of a word set.
const highBits = 0x8080808080808080

// PlainASCII is the length of the longest prefix of s that a JSON string
// holds as it is: ASCII from 0x20 up, without '"' and '\\'. It tests
// sixteen bytes at a time, then eight (jsonscan.NotPlainASCII8): NotPlain8's
// tests mark quotes, backslashes and control bytes, the high bits mark the
// bytes of UTF-8 sequences, and the lowest mark is the byte that ends the
// run.
//
// The bytes after the last whole word are tested as one word too (most
// strings written are keys, ids and times shorter than a few words, whose
// tails a byte loop tested byte by byte): the last eight bytes of s,
// which overlap bytes found plain already, whose marks are none; in a
// string of four to seven bytes, its first four and its last four; in a
// shorter one, its bytes padded with spaces.
func PlainASCII(s string) int {
	if len(s) >= 8 {
		i := 0
		if len(s) >= 16 {
			// Two words a step (the texts and tool outputs the writers
			// copy), with jsonscan.NotPlainASCII8 written as one expression and its
			// masks held in registers (as constants, each was made again
			// at every use in the loop).
			k02, k21, k5c, k01, kh := masks.x02, masks.x21, masks.x5c, masks.x01, masks.highs
			b := unsafe.Slice(unsafe.StringData(s), len(s))
			for ; i <= len(b)-16; i += 16 {
				w0 := binary.LittleEndian.Uint64(b[i:])
				w1 := binary.LittleEndian.Uint64(b[i+8:])
				m0 := (w0 ^ k02 - k21) | (w0 ^ k5c - k01) | w0
				m1 := (w1 ^ k02 - k21) | (w1 ^ k5c - k01) | w1
				if (m0|m1)&kh != 0 {
					if m0 &= kh; m0 != 0 {
						return i + bits.TrailingZeros64(m0)/8
					}
					return i + 8 + bits.TrailingZeros64(m1&kh)/8
				}
			}
		}
		if i+8 <= len(s) {
			if m := jsonscan.NotPlainASCII8(word(s[i : i+8])); m != 0 {
				return i + bits.TrailingZeros64(m)/8
			}
			i += 8
		}
		if i == len(s) {
			return i
		}
		i = len(s) - 8
		if m := jsonscan.NotPlainASCII8(word(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		return len(s)
	}
	if len(s) >= 4 {
		// Shorter than a word, four bytes or more: its first four bytes
		// and its last four, which overlap them. When the first four have
		// no mark, a mark in the last four is a byte from the fifth on
		// (and no borrow runs into them: a borrow starts at a marked byte).
		x := uint64(word4(s)) | uint64(word4(s[len(s)-4:]))<<32
		m := jsonscan.NotPlainASCII8(x)
		if m == 0 {
			return len(s)
		}
		j := bits.TrailingZeros64(m) / 8
		if j < 4 {
			return j
		}
		return len(s) - 8 + j
	}
	// Shorter than four bytes: the bytes from the last down, then spaces.
	x := uint64(spaces)
	for k := len(s) - 1; k >= 0; k-- {
		x = x<<8 | uint64(s[k])
	}
	if m := jsonscan.NotPlainASCII8(x); m != 0 {
		return bits.TrailingZeros64(m) / 8
	}
	return len(s)
}

// masks holds the words of jsonscan.NotPlainASCII8's tests for PlainASCII's loop
// (x &^ w | w is x | w: NotPlain8's marks and the high bits in one).
var masks = struct{ x02, x21, x5c, x01, highs uint64 }{0x0202020202020202, 0x2121212121212121, 0x5c5c5c5c5c5c5c5c, 0x0101010101010101, highBits}

// spaces is a word of eight spaces, bytes a JSON string holds as they are.
const spaces = 0x2020202020202020

// word4 is the first four bytes of w, little endian: one load.
func word4(w string) uint32 {
	w = w[:4]
	return uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
}

// word is the first eight bytes of w, little endian: one load.
func word(w string) uint64 {
	w = w[:8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// Buf is a buffer to build JSON pieces in: compact, or indented once told
// so (Indent). A document may be built piece by piece, each piece in a
// Buf of its own or in one Buf reset between pieces: an indenting Buf
// keeps the depth it is at across Reset.
type Buf struct {
	Buffer
	indent bool
	// quote is set while b writes inside a JSON string (Quote).
	quote bool
	// depth is how many objects and lists are open around what is
	// written next, when indenting.
	depth int
	// canon is set when b writes canonical JSON (WriteCanonical).
	canon *canonical
}

// Indent makes b write indented JSON from here on, what it writes next
// being inside depth objects and lists (0 at the start of a document).
func (b *Buf) Indent(depth int) {
	b.indent = true
	b.depth = depth
}

// Quote makes b write, until Unquote, what it writes compact as it
// stands inside a JSON string: what appendStringBody(compact) would be,
// the compact JSON's strings escaped twice in one pass (appendQuotedString)
// and its other bytes as they are but for its raw values', which are
// escaped once. The caller writes the string's quotes. A Buf that indents
// does not quote.
func (b *Buf) Quote() { b.quote = true }

// Unquote makes b write compact JSON again, after Quote.
func (b *Buf) Unquote() { b.quote = false }

// Quoting reports whether b writes inside a string (Quote).
func (b *Buf) Quoting() bool { return b.quote }

// Raw writes the raw JSON value v where a value goes (an element of a
// list, after Obj.Key): indented at b's depth when b indents, escaped
// when b quotes, or as WriteCompact writes it.
func (b *Buf) Raw(v []byte) {
	if b.quote {
		writeQuotedRaw(&b.Buffer, v)
		return
	}
	if b.canon != nil {
		b.buf = b.canon.appendRaw(free(&b.Buffer, len(v)), v)
		return
	}
	if b.indent {
		b.buf = AppendIndent(free(&b.Buffer, len(v)+len(v)/2), v, b.depth)
		return
	}
	WriteCompact(&b.Buffer, v)
}

// Indenting reports whether b writes indented JSON.
func (b *Buf) Indenting() bool { return b.indent }

// Begin starts an object in b.
func (b *Buf) Begin() *Obj { return &Obj{B: &b.Buffer, in: b.open('{')} }

// open writes the bracket c that opens an object or a list, and returns
// b, one level deeper, when it indents (nil when it is compact). (Begin
// stays small enough to be inlined, and its Obj off the heap.)
//
//go:noinline
func (b *Buf) open(c byte) *Buf {
	b.WriteByte(c)
	if !b.indent {
		if b.quote {
			return b
		}
		if b.canon != nil {
			if c == '{' {
				b.canon.open()
			}
			return b
		}
		return nil
	}
	b.depth++
	return b
}

// Continue returns an Obj that adds members to an object whose opening
// and n members were written before, in another piece (not in a Buf that
// writes canonical JSON, which sorts an object's members when it ends).
func (b *Buf) Continue(n int) *Obj {
	o := &Obj{B: &b.Buffer, n: n}
	if b.indent || b.quote {
		o.in = b
	}
	return o
}

// List writes one JSON list: start it with Buf.List, call Next before
// each element and write the element, end it with End.
type List struct {
	b *Buf
	n int
}

// List starts a list in b.
func (b *Buf) List() *List {
	b.open('[')
	return &List{b: b}
}

// ContinueList returns a List that adds elements to a list whose opening
// and n elements were written before, in another piece.
func (b *Buf) ContinueList(n int) *List { return &List{b: b, n: n} }

// Next starts the next element: the separator, and when indenting its
// line.
func (l *List) Next() {
	b := l.b
	if b.indent && b.depth >= 0 {
		b.buf = l.nextLine(b.buf, b.depth)
		return
	}
	dst := free(&b.Buffer, 3+2*b.depth)
	if l.n > 0 {
		dst = append(dst, ',')
	}
	l.n++
	if b.indent {
		dst = appendNewline(dst, b.depth)
	}
	b.buf = dst
}

// End closes the list.
func (l *List) End() {
	b := l.b
	if b.indent {
		b.depth--
		if l.n > 0 {
			closeIndented(&b.Buffer, b.depth, ']')
			return
		}
	}
	b.WriteByte(']')
}

// Name is a string escaped once and kept, for each way an Obj writes it:
// a writer's constant keys and values (a rest's "kind", "time" and kind
// names), which Str would escape again at every member. Make one with
// NewName and keep it; its members (StrName, KeyName, NameName) write what
// Str, Key and Str of its string write, byte for byte.
type Name struct {
	s string
	// compact is s as a compact object's key: AppendString(s) and ':'
	// (without the colon, as a value).
	compact string
	// quoted is compact as it stands inside a string (Quote):
	// appendQuotedString(s) and ':'.
	quoted string
	// padded is compact and quoted (in that order, as form numbers them),
	// each followed by a string value's opening quote as it stands there
	// ("k":" and \"k\":\"), in a block of padSize bytes, when that fits
	// (fits): nameMember stores the block whole (two moves of sixteen
	// bytes, whatever the name's length) and keeps the bytes it wants.
	padded [2][padSize]byte
	fits   [2]bool
	// opened is the padded blocks' bytes, for a name whose block does not
	// fit.
	opened [2]string
	// canonical says compact is canonical JSON's form of s too (s has no
	// backspace, form feed or invalid UTF-8, which serde_json escapes
	// otherwise): a canonical object written in order stores it whole.
	canonical bool
}

// padSize is a Name's padded forms' size: nearly every name's fit (a
// compact "cache_creation_input_tokens": and its value's quote, 31 bytes).
const padSize = 32

// The forms of a Name, as nameMember takes them.
const (
	compactForm = 0
	quotedForm  = 1
)

// NewName is s escaped for each way an Obj writes it.
func NewName(s string) Name {
	n := Name{
		s:       s,
		compact: string(append(AppendString(nil, s), ':')),
		quoted:  string(append(appendQuotedString(nil, s), ':')),
	}
	n.canonical = n.compact == string(append(AppendSerdeString(nil, s), ':'))
	n.opened = [2]string{n.compact + `"`, n.quoted + `\"`}
	for f, e := range n.opened {
		n.fits[f] = copy(n.padded[f][:], e) == len(e)
	}
	return n
}

// String is the name's string.
func (n *Name) String() string { return n.s }

// form is n's key in form f (compactForm, quotedForm).
func (n *Name) form(f int) string {
	if f == quotedForm {
		return n.quoted
	}
	return n.compact
}

// putName appends the first m bytes of n's form f (its key, and the
// value's opening quote after it) to dst, which has room for padSize
// bytes more: its padded block stored whole when it fits, else the
// bytes appended.
func putName(dst []byte, n *Name, f, m int) []byte {
	if n.fits[f] {
		l := len(dst)
		*(*[padSize]byte)(dst[l : l+padSize]) = n.padded[f]
		return dst[:l+m]
	}
	return append(dst, n.opened[f][:m]...)
}

// nameMember is the bytes of a compact or quoting object's buffer,
// grown to hold the separator, the first m bytes of k's form f (its key,
// and after it the value's opening quote: m is more than the key's
// length by what of it is wanted) and about n bytes more, with those
// appended: putMember's when the buffer has the room (hasRoom) and k's
// block fits, else nameMemberSlow's. The members called most (StrName,
// NameName, nameKey) make the same test and putMember's stores in their
// own bodies, without this call.
func (o *Obj) nameMember(k *Name, f, m, n int) []byte {
	if dst := o.B.buf; hasRoom(dst, m+n) && k.fits[f] {
		return o.putMember(dst, k, f, m)
	}
	return o.nameMemberSlow(k, f, m, n)
}

// hasRoom reports whether dst's free room holds n bytes, a block of
// padSize more and a word to spare: what putMember stores.
func hasRoom(dst []byte, n int) bool { return cap(dst)-len(dst) >= n+padSize+8 }

// putMember appends o's separator and the first m bytes of k's form f
// to dst, whose room hasRoom tested and whose k's block fits: the comma
// stored where the bytes end whether o has a member or not, and the block
// stored whole after it (one byte on) or over it, with no branch and no
// call, small enough to be inlined.
func (o *Obj) putMember(dst []byte, k *Name, f, m int) []byte {
	l := len(dst)
	p := unsafe.Pointer(unsafe.SliceData(dst))
	*(*byte)(unsafe.Add(p, l)) = ','
	if o.n > 0 {
		l++
	}
	o.n++
	*(*[padSize]byte)(unsafe.Add(p, l)) = k.padded[f&1]
	return dst[:l+m]
}

// nameMemberSlow is nameMember when the buffer must grow or k's block
// does not fit.
//
//go:noinline
func (o *Obj) nameMemberSlow(k *Name, f, m, n int) []byte {
	dst := o.B.buf
	if cap(dst)-len(dst) < m+n+padSize+8 {
		dst = free(o.B, m+n+padSize)
	}
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	return putName(dst, k, f, m)
}

// nameKey is the bytes of o's buffer, grown to hold the next member's
// separator and key k, as o writes it, and about n bytes more, with
// those appended: k's escaped form stored when o is compact or quotes,
// or a canonical object written in order (wholeNames), else member's key.
func (o *Obj) nameKey(k *Name, n int) []byte {
	switch {
	case o.in == nil || o.in.wholeNames(k, k):
		if dst := o.B.buf; hasRoom(dst, len(k.compact)+n) && k.fits[compactForm] {
			return o.putMember(dst, k, compactForm, len(k.compact))
		}
		return o.nameMemberSlow(k, compactForm, len(k.compact), n)
	case o.in.quote:
		return o.nameMember(k, quotedForm, len(k.quoted), n)
	case o.in.canon != nil:
		return o.canonicalMember(k.s, n)
	}
	return o.indentedName(k, n)
}

// IntName writes an integer member whose key is k: Int(k.String(), n),
// its number written in place (AppendInt; nameKey made the room).
func (o *Obj) IntName(k *Name, n int64) {
	o.B.buf = AppendInt(o.nameKey(k, 20), n)
}

// Ints is a compact object of integer members whose keys are constants
// (a usage's four counts), the text before each number escaped once
// (`{"input_tokens":`, `,"output_tokens":`): Write writes the object in
// one piece, its room made once, each key's text stored whole (a block of
// padSize bytes, as a Name's) and its number written after it
// (AppendInt), where Begin, an IntName a member and End made the room,
// the separator and the key each time. Make one with NewInts and keep it.
type Ints struct {
	keys []intKey
	room int
}

// intKey is the text before one of Ints' numbers, in a block of padSize
// bytes, and its length.
type intKey struct {
	padded [padSize]byte
	n      int
}

// NewInts is the object of keys, whose values Write takes in that order.
// It panics when a key's text does not fit its block.
func NewInts(keys ...string) Ints {
	x := Ints{keys: make([]intKey, len(keys)), room: 1 + padSize}
	for i, k := range keys {
		sep := byte(',')
		if i == 0 {
			sep = '{'
		}
		t := append(AppendString([]byte{sep}, k), ':')
		if copy(x.keys[i].padded[:], t) != len(t) {
			panic("jsonw.NewInts: a key too long")
		}
		x.keys[i].n = len(t)
		x.room += len(t) + 20 // (the longest int64, -9223372036854775808)
	}
	return x
}

// Write writes the object with the values ns, one a key: what Begin,
// Int(k, n) of each and End write. It panics when ns are not as many as
// the keys.
func (x *Ints) Write(b *Buffer, ns ...int64) {
	if len(ns) != len(x.keys) {
		panic("jsonw.Ints.Write: not one value a key")
	}
	dst := free(b, x.room)
	if len(x.keys) == 0 {
		dst = append(dst, '{')
	}
	for i := range x.keys {
		k := &x.keys[i]
		l := len(dst)
		*(*[padSize]byte)(dst[l : l+padSize]) = k.padded
		dst = AppendInt(dst[:l+k.n], ns[i])
	}
	b.buf = append(dst, '}')
}

// BoolName writes a boolean member whose key is k: Bool(k.String(), v).
func (o *Obj) BoolName(k *Name, v bool) {
	dst := o.nameKey(k, 5)
	if v {
		o.B.buf = append(dst, "true"...)
	} else {
		o.B.buf = append(dst, "false"...)
	}
}

// RawName writes a member whose key is k with a raw JSON value:
// Raw(k.String(), v).
func (o *Obj) RawName(k *Name, v []byte) {
	o.B.buf = o.nameKey(k, 0)
	o.value(v)
}

// StrName writes a string member whose key is k: Str(k.String(), s). An
// object that indents stores k's key escaped once, at any depth
// (indentedName); one that writes canonical JSON writes it as Str does
// (its key noted for sorting; stored whole in a canonical object written
// in order, canonicalStrName).
func (o *Obj) StrName(k *Name, s string) {
	if o.in == nil {
		// The key and the value's opening quote, stored at once.
		m := len(k.compact) + 1
		dst := o.B.buf
		if hasRoom(dst, m+len(s)+1) && k.fits[compactForm] {
			dst = o.putMember(dst, k, compactForm, m)
		} else {
			dst = o.nameMemberSlow(k, compactForm, m, len(s)+1)
		}
		dst = appendEscaped(dst, s, jsonEscapes)
		o.B.buf = append(dst, '"')
		return
	}
	if o.in.quote {
		dst := o.nameMember(k, quotedForm, len(k.quoted)+2, 2*len(s)+2)
		o.B.buf = append(appendEscaped(dst, s, quotedEscapes), '\\', '"')
		return
	}
	if o.in.canon != nil {
		o.B.buf = o.canonicalStrName(k, s)
		return
	}
	o.B.buf = AppendString(o.indentedName(k, len(s)+2), s)
}

// NameName writes a string member whose key is k and value v:
// Str(k.String(), v.String()). A canonical object written in order stores
// both as a compact one does (wholeNames).
func (o *Obj) NameName(k, v *Name) {
	f := compactForm
	if o.in != nil && !o.in.wholeNames(k, v) {
		if !o.in.quote {
			if c := o.in.canon; c != nil {
				o.B.buf = c.appendString(o.canonicalMember(k.s, len(v.s)+2), v.s)
				return
			}
			o.indentedNameValue(k, v)
			return
		}
		f = quotedForm
	}
	// The value is its form without the colon its key ends with (room
	// for its padded block was asked for).
	m := len(k.form(f))
	if dst := o.B.buf; hasRoom(dst, m+padSize) && k.fits[f] && v.fits[f] {
		dst = o.putMember(dst, k, f, m)
		l := len(dst)
		*(*[padSize]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), l)) = v.padded[f&1]
		o.B.buf = dst[:l+len(v.form(f))-1]
		return
	}
	o.B.buf = putName(o.nameMemberSlow(k, f, m, padSize), v, f, len(v.form(f))-1)
}

// StringsName writes a list of strings whose key is k: Strings(k.String(),
// list). An object that indents or writes canonical JSON writes it with
// Strings.
func (o *Obj) StringsName(k *Name, list []string) {
	f := compactForm
	if o.in != nil {
		if !o.in.quote {
			o.Strings(k.s, list)
			return
		}
		f = quotedForm
	}
	dst := append(o.nameMember(k, f, len(k.form(f)), 12*len(list)), '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		if o.in != nil {
			dst = appendQuotedString(dst, s)
		} else {
			dst = AppendString(dst, s)
		}
	}
	o.B.buf = append(dst, ']')
}

// KeyName starts a member whose key is k and whose value the caller
// writes itself: Key(k.String()).
func (o *Obj) KeyName(k *Name) { o.B.buf = o.nameKey(k, 0) }

// NamesName writes a list of names whose key is k: Strings(k.String(),
// the names' strings). A compact or quoting object stores each name as it
// was escaped once (its key form, whose colon becomes the separator or the
// closing bracket), with no test of its bytes, as does a canonical one
// written in order (wholeList), and so does one that indents, each on its
// line (indentedNames); one that writes other canonical JSON writes it
// with Strings. (A rest's "unset" list: the names of the fields a writer
// made up, the same few constants rest after rest.)
func (o *Obj) NamesName(k *Name, list []*Name) {
	if o.in != nil && !o.in.quote && !o.in.wholeList(k, list) {
		if o.in.canon == nil {
			o.indentedNames(k, list)
			return
		}
		var a [8]string
		s := a[:0]
		for _, n := range list {
			s = append(s, n.s)
		}
		o.Strings(k.s, s)
		return
	}
	f, room := compactForm, 1+padSize
	if o.in != nil && o.in.quote {
		f = quotedForm
	}
	for _, n := range list {
		room += len(n.quoted) // (the longer of its two forms)
	}
	// (nameMember's test and stores, in this body.)
	dst, m := o.B.buf, len(k.form(f))
	if hasRoom(dst, m+room) && k.fits[f] {
		dst = o.putMember(dst, k, f, m)
	} else {
		dst = o.nameMemberSlow(k, f, m, room)
	}
	dst = append(dst, '[')
	for _, n := range list {
		// Each name's padded block (room has the names' bytes and a
		// block more), its key's colon made the separator.
		dst = putName(dst, n, f, len(n.form(f)))
		dst[len(dst)-1] = ','
	}
	if len(list) == 0 {
		dst = append(dst, ']')
	} else {
		dst[len(dst)-1] = ']'
	}
	o.B.buf = dst
}

// Run is a run of a compact object's members that are the same at every
// record ("type":"message","role":"assistant"), with their separators,
// encoded once, and after them, when it has one, the key of a member
// whose value the writer writes (RunKey, RunStr): what the members' calls
// one by one write, stored at once. Make one with NewRun and keep it.
type Run struct {
	// obj is the run's members as the object a compact Obj writes
	// (Members' obj), for an object that indents, quotes or writes
	// canonical JSON; n counts them, and members counts the key too.
	obj        []byte
	n, members int
	// key is the last member's key, when the run has one (hasKey).
	key    string
	hasKey bool
	// text is the run as a compact object stores it after a separator:
	// its members and the key's "k": (without a leading comma); padded
	// is text and a string value's opening quote in a block of runSize
	// bytes, when that fits, stored whole as a Name's padded block is.
	text   string
	padded [runSize]byte
	fits   bool
}

// runSize is a Run's padded block's size.
const runSize = 64

// NewRun is the run of obj's members, a compact object's text
// (`{"type":"message","role":"assistant"}`, as Obj writes it), and after
// them key's, when key is given, whose value the writer writes: what
// Raw(k, v) of each member, then Key(key), write. It panics when obj is
// not a JSON object.
func NewRun(obj string, key ...string) Run {
	spans, err := jsonscan.ObjectSpans([]byte(obj), nil)
	if err != nil || len(key) > 1 {
		panic("jsonw.NewRun: not one object and at most one key")
	}
	r := Run{obj: []byte(obj), n: len(spans), text: obj[1 : len(obj)-1]}
	if len(key) == 1 {
		r.key, r.hasKey = key[0], true
		if r.n > 0 {
			r.text += ","
		}
		r.text += string(append(AppendString(nil, r.key), ':'))
	}
	r.members = r.n
	if r.hasKey {
		r.members++
	}
	// (An empty run is appended: its block would store a separator.)
	r.fits = copy(r.padded[:], r.text+`"`) == len(r.text)+1 && r.text != ""
	return r
}

// Run writes r's members and, when r has a key, that key, whose value
// the caller writes next.
func (o *Obj) Run(r *Run) {
	if dst := o.B.buf; o.in == nil && r.fits && cap(dst)-len(dst) >= runSize+8 {
		o.B.buf = o.putRun(dst, r, len(r.text))
		return
	}
	o.runSlow(r, 0)
}

// RunStr writes r's members and its key with the string value s: Run(r)
// and the string as Str writes it. r must have a key.
func (o *Obj) RunStr(r *Run, s string) {
	if dst := o.B.buf; o.in == nil && r.fits && cap(dst)-len(dst) >= len(s)+runSize+8 {
		dst = appendEscaped(o.putRun(dst, r, len(r.text)+1), s, jsonEscapes)
		o.B.buf = append(dst, '"')
		return
	}
	if o.in != nil {
		o.Members(r.obj, r.n)
		o.Str(r.key, s)
		return
	}
	dst := append(o.runSlow(r, len(s)+2), '"')
	dst = appendEscaped(dst, s, jsonEscapes)
	o.B.buf = append(dst, '"')
}

// putRun appends o's separator and the first m bytes of r's block (its
// text, and the value's opening quote after it) to dst, whose room for
// the block was tested: the separator and the block stored as putMember
// stores a Name's.
func (o *Obj) putRun(dst []byte, r *Run, m int) []byte {
	l := len(dst)
	p := unsafe.Pointer(unsafe.SliceData(dst))
	*(*byte)(unsafe.Add(p, l)) = ','
	if o.n > 0 {
		l++
	}
	o.n += r.members
	*(*[runSize]byte)(unsafe.Add(p, l)) = r.padded
	return dst[:l+m]
}

// runSlow writes r as Run does, growing the buffer to have about n bytes
// more, and returns the buffer's bytes: a compact object's appended, an
// indenting, quoting or canonical one's member by member.
//
//go:noinline
func (o *Obj) runSlow(r *Run, n int) []byte {
	if o.in != nil {
		o.Members(r.obj, r.n)
		if r.hasKey {
			o.key(r.key)
		}
		return o.B.buf
	}
	dst := free(o.B, len(r.text)+n)
	if o.n > 0 && len(r.text) > 0 {
		dst = append(dst, ',')
	}
	o.n += r.members
	o.B.buf = append(dst, r.text...)
	return o.B.buf
}
