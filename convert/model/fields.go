package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Field is one key of a JSON object with its value kept as raw JSON, so that
// numbers, nested objects and key order survive a round trip untouched.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Fields is an ordered JSON object. Go maps lose key order, and several
// formats (tool arguments, `extra` blocks) are compared byte for byte in
// round-trip tests, so order is kept.
type Fields []Field

// Get returns the raw value of key and whether it is present.
func (f Fields) Get(key string) (json.RawMessage, bool) {
	for i := range f {
		if f[i].Key == key {
			return f[i].Value, true
		}
	}
	return nil, false
}

// String returns the value of key if it is a JSON string.
func (f Fields) String(key string) (string, bool) {
	v, ok := f.Get(key)
	if !ok {
		return "", false
	}
	// The member scanner's decoder, not encoding/json: this is the
	// readers' hottest call, and the value was validated when parsed.
	return jsonscan.String(bytes.TrimSpace(v))
}

// StringIn is String for a list made from the record ix indexed last
// (ParseRecord, ParseIn, views or copies): a value that lies in the
// record, which the index knows to be valid UTF-8, is decoded without
// checking its UTF-8 again (Index.String); any other value (a copy, a
// record that is not valid UTF-8) is checked as String checks it.
func (f Fields) StringIn(ix *jsonscan.Index, key string) (string, bool) {
	v, ok := f.Get(key)
	if !ok {
		return "", false
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		// A list's values are exact, quotes first and last; a value
		// set by hand may have white space around it.
		v = bytes.TrimSpace(v)
	}
	return ix.String(v)
}

// IDIn is StringIn for a string a consumer may keep after its event (an
// id, a time), made where the index makes those (Index.ID).
func (f Fields) IDIn(ix *jsonscan.Index, key string) (string, bool) {
	v, ok := f.Get(key)
	if !ok {
		return "", false
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		v = bytes.TrimSpace(v) // as StringIn
	}
	return ix.ID(v)
}

// Set replaces the value of key, or appends it when absent.
func (f *Fields) Set(key string, value json.RawMessage) {
	for i := range *f {
		if (*f)[i].Key == key {
			(*f)[i].Value = value
			return
		}
	}
	*f = append(*f, Field{Key: key, Value: value})
}

// SetString sets key to a JSON string.
func (f *Fields) SetString(key, s string) { f.Set(key, StringJSON(s)) }

// SetAny sets key to the JSON encoding of v.
func (f *Fields) SetAny(key string, v any) { f.Set(key, MustJSON(v)) }

// Delete removes key if present.
func (f *Fields) Delete(key string) {
	for i := range *f {
		if (*f)[i].Key == key {
			*f = append((*f)[:i], (*f)[i+1:]...)
			return
		}
	}
}

// Clone returns a copy that does not share the slice.
func (f Fields) Clone() Fields {
	if f == nil {
		return nil
	}
	return append(Fields(nil), f...)
}

// MarshalJSON writes the fields as an object in their order. A nil or empty
// value is written as null so the output stays valid JSON.
func (f Fields) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, fl := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(fl.Key)
		b.Write(k)
		b.WriteByte(':')
		switch {
		case len(fl.Value) == 0:
			b.WriteString("null")
		case bytes.IndexByte(fl.Value, '\n') >= 0 || bytes.IndexByte(fl.Value, '\r') >= 0:
			// Values kept from pretty-printed sources: one line, so JSONL
			// writers stay line-oriented.
			if err := json.Compact(&b, fl.Value); err != nil {
				b.Write(fl.Value)
			}
		default:
			b.Write(fl.Value)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ErrNotObject is returned when ordered decoding meets something other than
// a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// UnmarshalJSON decodes an object keeping key order. Duplicate keys keep the
// last value, as encoding/json does for structs.
func (f *Fields) UnmarshalJSON(b []byte) error {
	fs, err := ParseFields(b)
	if err != nil {
		return err
	}
	*f = fs
	return nil
}

// ReadDocument reads a whole JSON document (an object) from r, for formats
// that are one document rather than lines; format names it in errors.
func ReadDocument(r io.Reader, format string) (Fields, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	root, err := ParseFields(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	if root == nil {
		return nil, fmt.Errorf("%s: empty document", format)
	}
	return root, nil
}

// ParseFields decodes a JSON object into ordered fields. null gives nil.
// It validates the whole input with the member scanner and copies each
// value once, which is several times faster than json.Decoder tokens.
func ParseFields(b []byte) (Fields, error) {
	return parseFields(nil, nil, false, b, true, false)
}

// ParseValidFields is ParseFields for a value already validated: a value
// of Fields that ParseFields (or ReadDocument) made. A document is
// validated once, not again for every object a reader parses inside it.
// Anything else must go through ParseFields.
func ParseValidFields(b []byte) (Fields, error) {
	return parseFields(nil, nil, false, b, true, true)
}

// ParseFieldsView is ParseFields without the copies: the values are b's
// own bytes, valid while b is, and not yet checked for invalid UTF-8. A
// reader that decodes most values of a record and keeps few copies those
// (jsonscan.Copy, or Fields.Copy) and saves an allocation per value.
func ParseFieldsView(b []byte) (Fields, error) {
	return parseFields(nil, nil, false, b, false, false)
}

// ParseValidFieldsView is ParseFieldsView for a value already validated
// (see ParseValidFields).
func ParseValidFieldsView(b []byte) (Fields, error) {
	return parseFields(nil, nil, false, b, false, true)
}

// ParseRecord parses b, a record (a line, a step of a document), as
// ParseFields or ParseValidFields (copyValues) or their views do, and
// makes it the input ix indexes: ix remembers where each object and array
// inside b ends, so that ParseIn of an object of b jumps over each value
// nested in it instead of passing over it again (a step's message, its
// tool calls, their arguments: each level's list would otherwise pass
// over everything below it). b is validated unless validated says it was
// (then indexing it is one pass, as finding its members is). ix forgets
// the record before even when b is not an object: a reader's next record
// may be in the same bytes.
func ParseRecord(ix *jsonscan.Index, b []byte, copyValues, validated bool) (Fields, error) {
	return parseFields(nil, ix, true, b, copyValues, validated)
}

// ParseIn parses b, an object validated already, as ParseValidFields
// (copyValues) or ParseValidFieldsView do; when b is part of the record
// ix indexed last (ParseRecord: b is one of its values, or inside one, in
// the record's own bytes, not a copy), each nested value is jumped over
// in one step. Any other b is scanned as ParseValidFields scans it. The
// record's bytes must not have changed since ParseRecord.
func ParseIn(ix *jsonscan.Index, b []byte, copyValues bool) (Fields, error) {
	return parseFields(nil, ix, false, b, copyValues, true)
}

// Copy returns the fields with every value copied as ParseFields would
// have copied it.
func (f Fields) Copy() Fields {
	if f == nil {
		return nil
	}
	out := make(Fields, len(f))
	for i, fl := range f {
		out[i] = Field{Key: fl.Key, Value: jsonscan.Copy(fl.Value)}
	}
	return out
}

// CopyValues copies every value of f in place, as ParseValidFields would
// have copied it: a reader that parsed an object as a view (ParseIn
// without copies) and took out what it reads but does not keep (a list
// of rests) keeps the rest this way.
func (f Fields) CopyValues() {
	for i := range f {
		f[i].Value = jsonscan.Copy(f[i].Value)
	}
}

// CopyValuesIn is CopyValues for a list made from the record ix indexed
// last: a value that lies in the record, which the index knows to be
// valid UTF-8, is copied without checking it again (Index.Copy).
func (f Fields) CopyValuesIn(ix *jsonscan.Index) {
	for i := range f {
		f[i].Value = ix.Copy(f[i].Value)
	}
}

// Scratch is room for a member list that a reader reads and does not
// keep (a step's record, its metrics, a tool call of it): its ParseRecord
// and ParseIn list into the room the list before had, instead of
// allocating a list each time. The list each returns is valid until the
// next call on the same Scratch; a reader keeps one Scratch for each list
// it holds at once (a step, and a tool call inside it). What the reader
// keeps of a list's values it copies, as with any list. The zero value is
// ready to use. A list of more than maxScratch members is not kept for
// the next (a record with many members does not leave its room behind).
type Scratch struct {
	list Fields
	// spans is room for the member spans a list is made from, reused as
	// list is (a list's spans are read once, while it is made).
	spans []jsonscan.Span
}

// maxScratch is the most members a Scratch keeps room for.
const maxScratch = 64

// ParseRecord is the package's ParseRecord, listing into s.
func (s *Scratch) ParseRecord(ix *jsonscan.Index, b []byte, copyValues, validated bool) (Fields, error) {
	return parseFields(s, ix, true, b, copyValues, validated)
}

// ParseIn is the package's ParseIn, listing into s.
func (s *Scratch) ParseIn(ix *jsonscan.Index, b []byte, copyValues bool) (Fields, error) {
	return parseFields(s, ix, false, b, copyValues, true)
}

// room is a list of n members made in s's room when it has room for
// them, else a new one: never nil, as an object's list is not.
func (s *Scratch) room(n int) Fields {
	if s == nil || cap(s.list) < n || s.list == nil {
		return make(Fields, 0, n)
	}
	return s.list[:0]
}

// keepSpans remembers spans, listed into s.spans's room (and perhaps
// grown out of it), for the next list made in s, unless it is larger than
// a list's room.
func (s *Scratch) keepSpans(spans []jsonscan.Span) {
	if cap(spans) <= maxScratch {
		s.spans = spans
	}
}

// keep remembers out, the list room gave, for the next room; the members
// the list before held past out's end are forgotten, so that the values
// they point to are not held.
func (s *Scratch) keep(out Fields) {
	if s == nil || cap(out) > maxScratch {
		return
	}
	if len(s.list) > len(out) && unsafe.SliceData(s.list) == unsafe.SliceData(out) {
		clear(s.list[len(out):])
	}
	s.list = out
}

// parseFields is every Parse function: record says b starts ix anew
// (ParseRecord), else ix (nil: none) may hold b (ParseIn); the list is
// made in room's room (nil: a list of its own).
func parseFields(room *Scratch, ix *jsonscan.Index, record bool, b []byte, copyValues, validated bool) (Fields, error) {
	if len(b) == 0 || b[0] != '{' || b[len(b)-1] != '}' {
		// Nearly every object is given without white space around it.
		b = bytes.TrimSpace(b)
	}
	if len(b) == 0 || b[0] != '{' {
		if record {
			ix.Reset()
		}
		if len(b) == 0 || string(b) == "null" {
			return nil, nil
		}
		if !validated && !jsonscan.Valid(b) {
			return nil, &json.SyntaxError{}
		}
		return nil, ErrNotObject
	}
	if ix != nil && !record {
		// ParseIn of an object whose members the index recorded: the
		// list is made from them where they are.
		if r, ok := ix.Recorded(b); ok {
			return parseRecorded(room, ix, &r, b, copyValues), nil
		}
	}
	// The spans are listed into room's room, reused, else into room on
	// the stack for the members of most records (more are appended to a
	// slice of their own), zeroed at every call, so not larger. Two
	// variables, so that the stack's room is never room's.
	var spans []jsonscan.Span
	var err error
	if room != nil {
		kept, e := listSpans(ix, record, validated, b, room.spans[:0])
		room.keepSpans(kept)
		spans, err = kept, e
	} else {
		var stack [16]jsonscan.Span
		spans, err = listSpans(ix, record, validated, b, stack[:0])
	}
	if err != nil {
		return nil, err
	}
	// The keys share one string, and the fields are allocated once at
	// their size. With an index, the string is the one the same keys had
	// in an earlier list when the index still keeps it (records name the
	// same keys again); without, it is made on an allocation of its own
	// (nothing else refers to it).
	var allKeys string
	var plainKeys bool
	if ix != nil {
		allKeys, plainKeys = ix.Keys(b, spans)
	} else {
		n := 0
		for _, m := range spans {
			n += m.KeyEnd - m.KeyStart
		}
		kb := make([]byte, 0, n)
		for _, m := range spans {
			kb = append(kb, b[m.KeyStart:m.KeyEnd]...)
		}
		allKeys = unsafe.String(unsafe.SliceData(kb), len(kb))
		// Nearly always no key needs decoding: asked once of them all
		// (Keys asks it once of the lists it keeps).
		plainKeys = jsonscan.PlainKey(kb)
	}
	out := room.room(len(spans))
	// A key named twice keeps its first place and its last value (Set).
	// Set looks for the key among those before it; seen, a bit for each
	// key's length and last byte, says when it cannot be there.
	var seen uint64
	off := 0
	for _, m := range spans {
		key := allKeys[off : off+m.KeyEnd-m.KeyStart]
		off += len(key)
		if !plainKeys {
			key = jsonscan.Key(b[m.KeyStart:m.KeyEnd])
		}
		v := b[m.ValueStart:m.ValueEnd:m.ValueEnd]
		if copyValues {
			// Through the index: a value of a record it knows to be
			// valid UTF-8 is copied without checking it again.
			v = ix.Copy(v)
		}
		bit := uint64(1) << (len(key) & 63)
		if len(key) > 0 {
			bit = bits.RotateLeft64(bit, int(key[len(key)-1]))
		}
		if seen&bit == 0 {
			seen |= bit
			out = append(out, Field{Key: key, Value: v})
		} else {
			out.Set(key, v)
		}
	}
	room.keep(out)
	return out, nil
}

// parseRecorded is parseFields of b, an object whose members ix recorded
// (r), made from them in one walk, without listing their spans first:
// the same list.
func parseRecorded(room *Scratch, ix *jsonscan.Index, r *jsonscan.Recorded, b []byte, copyValues bool) Fields {
	out := room.room(r.Len())
	var seen uint64
	for {
		key, v, ok := r.Next()
		if !ok {
			break
		}
		if copyValues {
			v = ix.Copy(v)
		}
		bit := uint64(1) << (len(key) & 63)
		if len(key) > 0 {
			bit = bits.RotateLeft64(bit, int(key[len(key)-1]))
		}
		if seen&bit == 0 {
			seen |= bit
			out = append(out, Field{Key: key, Value: v})
		} else {
			out.Set(key, v)
		}
	}
	room.keep(out)
	return out
}

// listSpans lists the members of b, an object, into dst as parseFields
// asks (see there).
func listSpans(ix *jsonscan.Index, record, validated bool, b []byte, dst []jsonscan.Span) ([]jsonscan.Span, error) {
	switch {
	case ix == nil && validated:
		return jsonscan.MemberSpans(b, dst)
	case ix == nil:
		return jsonscan.ObjectSpans(b, dst)
	case record && validated:
		return ix.ValidSpans(b, dst)
	case record:
		return ix.ObjectSpans(b, dst)
	default:
		// ParseIn: b not part of ix's input is scanned (MemberSpans).
		return ix.MemberSpans(b, dst)
	}
}

// MustJSON encodes v, which must be encodable (strings, numbers, maps of
// them, Fields). It never escapes HTML, so `<` and `&` in tool output stay
// readable in the converted files.
func MustJSON(v any) json.RawMessage {
	if f, ok := v.(Fields); ok {
		return f.AppendJSON(nil)
	}
	if s, ok := v.(string); ok {
		// Readers quote header values and texts per record: skip the
		// encoder (and its buffers).
		return StringJSON(s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("model.MustJSON(%T): %v", v, err))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// StringJSON is MustJSON(s) without s put in an interface (an allocation
// of its own when the interface escapes, as MustJSON's does): one
// allocation, of the length of s and its quotes when nothing in it is
// escaped.
func StringJSON(s string) json.RawMessage {
	return AppendStringJSON(make(json.RawMessage, 0, len(s)+2), s)
}

// AppendStringJSON appends s as MustJSON writes it, as encoding/json
// writes a string with its HTML escaping off: `"` and `\` escaped, \b,
// \f, \n, \r and \t by name and the other control bytes as \u00XX, each
// byte that is not UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and
// \u2029, everything else as it is. The runs that need none of it are
// found eight bytes at a time (jsonw.PlainASCII) and copied whole.
// (jsonw.AppendString writes \b, \f, U+2028 and U+2029 otherwise.)
// FuzzMustJSONString holds it to the encoder.
func AppendStringJSON(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start, i := 0, jsonw.PlainASCII(s)
	for i < len(s) {
		c, size := s[i], 1
		if c >= utf8.RuneSelf {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				dst = append(append(dst, s[start:i]...), `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigit[r&0xF])
			default:
				i += size
				i += jsonw.PlainASCII(s[i:])
				continue
			}
		} else {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xF])
			}
		}
		i += size
		start = i
		i += jsonw.PlainASCII(s[i:])
	}
	return append(append(dst, s[start:]...), '"')
}

const hexDigit = "0123456789abcdef"

// AppendJSON appends to dst what MustJSON(f) was before it had this fast
// path, encoding/json's encoding of f.MarshalJSON: the object with the
// keys quoted as json.Marshal quotes them, null for empty values, and
// every value without the white space between its tokens. The writers
// encode a step's or entry's extra with it; values that are plain keys
// and have no white space outside their strings (nearly all of them) are
// copied without going through the encoder. FuzzFieldsAppendJSON holds
// it to the encoder. Values must be valid JSON, as for MustJSON.
func (f Fields) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, fl := range f {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendValue(appendKey(dst, fl.Key), fl.Value)
	}
	return append(dst, '}')
}

// appendKey appends AppendJSON's key k and its colon.
func appendKey(dst []byte, k string) []byte {
	if plainKey(k) {
		dst = append(append(append(dst, '"'), k...), '"')
	} else {
		q, _ := json.Marshal(k)
		dst = append(dst, q...)
	}
	return append(dst, ':')
}

// appendValue appends AppendJSON's value v.
func appendValue(dst, v []byte) []byte {
	switch {
	case len(v) == 0:
		return append(dst, "null"...)
	case !spaceBetweenTokens(v):
		return append(dst, v...)
	default:
		b := bytes.NewBuffer(dst)
		if err := json.Compact(b, v); err != nil {
			panic(fmt.Sprintf("model.MustJSON(Fields): %v", err))
		}
		return b.Bytes()
	}
}

// WriteJSONWith writes f as WriteJSON does with one more member, key
// (plain ASCII, no '<', '>' or '&'), in place of f's own key if it has
// one, else last, its value written by value where it goes in b: what
// f.Set(key, v) written by WriteJSON writes, without v made apart first
// (a step's rests, written where they stand), when value writes v as
// WriteJSON writes a value (in a compact b, compacted whole).
func (f Fields) WriteJSONWith(b *jsonw.Buf, key string, value func(*jsonw.Buf)) {
	if b.Quoting() {
		var v jsonw.Buf
		f.WriteJSONWith(&v, key, value)
		b.Raw(v.Bytes())
		return
	}
	written := false
	if !b.Indenting() {
		dst := append(b.AvailableBuffer(), '{')
		for i, fl := range f {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendKey(dst, fl.Key)
			if fl.Key == key {
				b.Write(dst)
				value(b)
				dst, written = b.AvailableBuffer(), true
				continue
			}
			dst = appendValue(dst, fl.Value)
		}
		if !written {
			if len(f) > 0 {
				dst = append(dst, ',')
			}
			b.Write(appendKey(dst, key))
			value(b)
			dst = b.AvailableBuffer()
		}
		b.Write(append(dst, '}'))
		return
	}
	o := b.Begin()
	for _, fl := range f {
		if fl.Key == key {
			o.Key(key)
			value(b)
			written = true
			continue
		}
		writeMember(o, fl)
	}
	if !written {
		o.Key(key)
		value(b)
	}
	o.End()
}

// WriteJSON writes f into b as AppendJSON encodes it, indented when b
// indents: each value is indented where it stands (jsonw.AppendIndent),
// not encoded first and indented after. A Buf that quotes escapes the
// encoding; a canonical one writes it canonical, member by member.
func (f Fields) WriteJSON(b *jsonw.Buf) {
	if b.Quoting() {
		b.Raw(f.AppendJSON(nil))
		return
	}
	if !b.Indenting() && !b.Canonical() {
		b.Write(f.AppendJSON(b.AvailableBuffer()))
		return
	}
	o := b.Begin()
	for _, fl := range f {
		writeMember(o, fl)
	}
	o.End()
}

// writeMember writes fl as a member of o, its key quoted as json.Marshal
// quotes it.
func writeMember(o *jsonw.Obj, fl Field) {
	if plainKey(fl.Key) {
		o.Raw(fl.Key, fl.Value)
	} else {
		k, _ := json.Marshal(fl.Key)
		o.RawKey(k, fl.Value)
	}
}

// plainKey reports whether json.Marshal writes k unchanged between quotes:
// plainString without the bytes it escapes for HTML.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return plainString(k)
}

// SpaceBetweenTokens reports whether the JSON value v has white space
// outside its strings, which Fields.AppendJSON takes out of a value.
func SpaceBetweenTokens(v []byte) bool { return spaceBetweenTokens(v) }

// spaceBetweenTokens reports whether the JSON value v has white space
// outside its strings, which json.Compact removes. Strings are jumped
// over to their closing quote.
func spaceBetweenTokens(v []byte) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case ' ', '\t', '\n', '\r':
			return true
		case '"':
			for {
				q := bytes.IndexByte(v[i+1:], '"')
				if q < 0 {
					return true // not valid JSON: json.Compact says so
				}
				i += 1 + q
				bs := 0
				for j := i - 1; j >= 0 && v[j] == '\\'; j-- {
					bs++
				}
				if bs%2 == 0 {
					break
				}
			}
		}
	}
	return false
}

// plainString reports whether encoding/json writes s unchanged between
// quotes (with HTML escaping off): no quote, backslash or control byte,
// valid UTF-8, and neither U+2028 nor U+2029, which it escapes.
func plainString(s string) bool {
	high := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		high = high || c >= utf8.RuneSelf
	}
	return !high || utf8.ValidString(s) && !strings.ContainsRune(s, '\u2028') && !strings.ContainsRune(s, '\u2029')
}

// ScalarText renders a JSON scalar the way a human would type it: strings
// unquoted, numbers and booleans as written. Objects and arrays are returned
// as compact JSON and ok is false.
func ScalarText(v json.RawMessage) (text string, ok bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s, true
		}
		return string(v), false
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, v) == nil {
			return b.String(), false
		}
		return string(v), false
	default:
		return string(v), true
	}
}

// Quote returns s as a JSON string literal without HTML escaping.
func Quote(s string) string { return string(AppendStringJSON(make([]byte, 0, 64), s)) }

// Itoa is strconv.FormatInt for int64 counters.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
