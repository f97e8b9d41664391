// Package jsonw builds JSON objects with a fixed key order straight into a
// buffer. Writers use it so that output key order is the format's own (Claude
// Code's entry order, ATIF's field order) and no map or reflection is needed
// per record.
package jsonw

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Obj writes one JSON object. Start it with Begin, end with End.
type Obj struct {
	B *bytes.Buffer
	n int
}

// Begin starts an object in b.
func Begin(b *bytes.Buffer) *Obj {
	b.WriteByte('{')
	return &Obj{B: b}
}

func (o *Obj) key(k string) {
	o.B.Write(o.appendKey(free(o.B, len(k)), k))
}

// free is b's free space, grown first to hold about n more bytes, so that
// what is appended there is written without a copy made elsewhere first.
func free(b *bytes.Buffer, n int) []byte {
	if dst := b.AvailableBuffer(); cap(dst) >= n+8 {
		return dst
	}
	b.Grow(n + 8)
	return b.AvailableBuffer()
}

// appendKey appends the separator before the next member and its key,
// so that a member is built in the buffer's free space and written with
// one call.
func (o *Obj) appendKey(dst []byte, k string) []byte {
	if o.n > 0 {
		dst = append(dst, ',')
	}
	o.n++
	return append(AppendString(dst, k), ':')
}

// Raw writes a key with a raw JSON value; an empty value is written as null.
func (o *Obj) Raw(k string, v []byte) {
	o.key(k)
	if len(v) == 0 {
		o.B.WriteString("null")
		return
	}
	WriteCompact(o.B, v)
}

// WriteCompact writes the valid JSON value v without insignificant
// whitespace when it has line breaks (values kept from pretty-printed
// sources), so JSONL output stays one record per line.
func WriteCompact(b *bytes.Buffer, v []byte) {
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		b.Write(v)
		return
	}
	if err := json.Compact(b, v); err != nil {
		b.Write(v)
	}
}

// Str writes a string member.
func (o *Obj) Str(k, s string) {
	o.B.Write(AppendString(o.appendKey(free(o.B, len(k)+len(s)), k), s))
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
	o.B.Write(strconv.AppendInt(o.appendKey(free(o.B, len(k)+20), k), n, 10))
}

// Float writes a number member.
func (o *Obj) Float(k string, f float64) {
	o.B.Write(strconv.AppendFloat(o.appendKey(free(o.B, len(k)+24), k), f, 'g', -1, 64))
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
	dst := append(o.appendKey(free(o.B, len(k)+8*len(list)), k), '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	o.B.Write(append(dst, ']'))
}

// Any writes the JSON encoding of v (no HTML escaping).
func (o *Obj) Any(k string, v any) {
	o.key(k)
	enc := json.NewEncoder(o.B)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	// Encode adds a newline.
	if n := o.B.Len(); n > 0 && o.B.Bytes()[n-1] == '\n' {
		o.B.Truncate(n - 1)
	}
}

// Key starts a member whose value the caller writes itself.
func (o *Obj) Key(k string) { o.key(k) }

// Len is the number of members written.
func (o *Obj) Len() int { return o.n }

// End closes the object.
func (o *Obj) End() { o.B.WriteByte('}') }

const hex = "0123456789abcdef"

// String writes s as a JSON string: no HTML escaping, control characters
// escaped, invalid UTF-8 replaced by U+FFFD (AppendString).
func String(b *bytes.Buffer, s string) {
	b.Write(AppendString(free(b, len(s)), s))
}

// AppendString appends s as a JSON string, as String writes it. Runs of
// plain ASCII, most of any text, are found eight bytes at a time
// (PlainASCII) and copied whole.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		i += PlainASCII(s[i:])
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// highBits has the high bit of each byte of a word set.
const highBits = 0x8080808080808080

// PlainASCII is the length of the longest prefix of s that a JSON string
// holds as it is: ASCII from 0x20 up, without '"' and '\\'. It tests eight
// bytes at a time: jsonscan.NotPlain8 marks quotes, backslashes and
// control bytes, the high bits mark the bytes of UTF-8 sequences, and the
// lowest mark is the byte that ends the run.
func PlainASCII(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8] // one load, no bounds checks
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if m := jsonscan.NotPlain8(x) | x&highBits; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// Buf is a buffer to build JSON pieces in.
type Buf struct{ bytes.Buffer }

// Begin starts an object in b.
func (b *Buf) Begin() *Obj { return Begin(&b.Buffer) }

// Continue returns an Obj that adds members to an object whose opening
// and n members were written before, in another piece.
func (b *Buf) Continue(n int) *Obj { return &Obj{B: &b.Buffer, n: n} }
