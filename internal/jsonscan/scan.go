// Package jsonscan walks JSON objects member by member without building
// values, validating the syntax as it goes. Readers use it to pick the few
// fields they need from large JSONL records and keep the rest as raw JSON,
// which is several times faster than decoding whole records with
// encoding/json and lets unknown keys pass through untouched.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
)

// SyntaxError is a JSON syntax error at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// ErrNotObject is returned by Object for input that is valid JSON but not an
// object (a bare string, number or array line).
var ErrNotObject = errors.New("not a JSON object")

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// Object calls fn for each member of the JSON object b, with the raw key
// (without quotes, still escaped; see Key) and the raw value. It validates
// the whole input, including trailing bytes; fn is only called after the
// object has been validated, so a malformed record never yields members.
func Object(b []byte, fn func(key, value []byte) error) error {
	var found [32]Span
	spans, err := objectSpans(b, found[:0], nil)
	if err != nil {
		return err
	}
	for _, m := range spans {
		if err := fn(b[m.KeyStart:m.KeyEnd], b[m.ValueStart:m.ValueEnd]); err != nil {
			return err
		}
	}
	return nil
}

// Span is where one member of an object is, as offsets into the object's
// bytes: its key without the quotes (still escaped) and its value.
type Span struct{ KeyStart, KeyEnd, ValueStart, ValueEnd int }

// ObjectSpans is Object returning where the members are, appended to dst,
// rather than calling a function with them. It validates as Object does
// and returns the same errors.
func ObjectSpans(b []byte, dst []Span) ([]Span, error) {
	return objectSpans(b, dst, nil)
}

func objectSpans(b []byte, dst []Span, ix *Index) ([]Span, error) {
	i := skipWS(b, 0)
	if i >= len(b) {
		return dst, &SyntaxError{i, "empty input"}
	}
	if b[i] != '{' {
		end, err := value(b, i, 0, nil)
		if err != nil {
			return dst, err
		}
		if j := skipWS(b, end); j != len(b) {
			return dst, &SyntaxError{j, "trailing data"}
		}
		return dst, ErrNotObject
	}
	n := len(dst)
	end, spans, err := object(b, i, 0, dst, ix, spansSlot)
	if err != nil {
		return spans[:n], err
	}
	if j := skipWS(b, end); j != len(b) {
		return spans[:n], &SyntaxError{j, "trailing data"}
	}
	return spans, nil
}

// MemberSpans is ObjectSpans for an object already known to be valid (a
// value handed out by Object or ObjectSpans, or a copy of one): it finds
// the members without validating them again.
func MemberSpans(b []byte, dst []Span) ([]Span, error) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return dst, ErrNotObject
	}
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return dst, nil
	}
	for {
		keyEnd := skipString(b, i)
		keyStart := i + 1
		i = skipWS(b, keyEnd)
		i = skipWS(b, i+1) // ':'
		valueEnd := skip(b, i)
		dst = append(dst, Span{keyStart, keyEnd - 1, i, valueEnd})
		i = skipWS(b, valueEnd)
		if b[i] == '}' {
			return dst, nil
		}
		i = skipWS(b, i+1) // ','
	}
}

// Members is Object for a value already known to be valid (a value handed
// out by Object); it does not validate again.
func Members(b []byte, fn func(key, value []byte) error) error {
	return (*Index)(nil).Members(b, fn)
}

// skip returns the end of the valid value at b[i] without validating it
// again: strings end at the first unescaped quote, containers when the
// depth returns to zero.
func skip(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			case ' ', '\n':
				// White space: an indented document's line break and
				// indentation, then a value. Between strings only quotes
				// and brackets matter, so the run up to the next one is
				// jumped over eight bytes at a time. (Compact JSON has
				// no white space, and a byte or two between strings,
				// which the loop reads faster than a jump.)
				i = structural(b, i)
				continue
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		// An escaped quote has an odd number of backslashes before it.
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// Array calls fn for each element of a JSON array already validated by
// Object. It returns ErrNotObject-like errors for non-arrays.
func Array(b []byte, fn func(i int, value []byte) error) error {
	return (*Index)(nil).Array(b, fn)
}

// Valid reports whether b is one JSON value.
func Valid(b []byte) bool {
	i := skipWS(b, 0)
	if i >= len(b) {
		return false
	}
	end, err := value(b, i, 0, nil)
	return err == nil && skipWS(b, end) == len(b)
}

// String decodes a raw JSON string value (one that passed validation).
// The fast path (no escapes, valid UTF-8) is a plain copy; escapes are
// decoded here rather than through encoding/json, which would validate and
// reflect again. Invalid UTF-8 becomes U+FFFD, as encoding/json does. ok is
// false when v is not a string.
func String(v []byte) (s string, ok bool) {
	return decodeString(v, false)
}

// decodeString is String; validUTF8 says v is known to be valid UTF-8.
func decodeString(v []byte, validUTF8 bool) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	invalid := jsonstr.Replace
	if validUTF8 || utf8.Valid(inner) {
		if bytes.IndexByte(inner, '\\') < 0 {
			return string(inner), true
		}
		invalid = jsonstr.Keep // nothing to replace: skip Unquote's own check
	}
	// Escapes only shrink a valid string, so one allocation holds the text,
	// and the string is made on it rather than copied out of it: nothing
	// else refers to out.
	out, ok := jsonstr.Unquote(make([]byte, 0, len(inner)), v, invalid)
	if !ok || len(out) == 0 {
		return "", ok
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// Key decodes a raw key as handed to an Object callback.
func Key(k []byte) string {
	if PlainKey(k) {
		return string(k)
	}
	q := make([]byte, 0, len(k)+2)
	q = append(append(append(q, '"'), k...), '"')
	s, _ := String(q)
	return s
}

// KeyBytes is Key as bytes: k itself when it needs no decoding, which is
// nearly always. A reader that switches on string(KeyBytes(k)) allocates a
// key string only for the keys it keeps.
func KeyBytes(k []byte) []byte {
	if PlainKey(k) {
		return k
	}
	return []byte(Key(k))
}

// PlainKey reports whether the raw key k is its own decoding (no escape,
// no byte that UTF-8 decoding could replace). It tests eight bytes at a
// time (the high bit of every byte, and the backslash by the test for a
// zero byte of k^'\\'), so a reader may ask it once of all the keys of a
// record laid end to end.
func PlainKey(k []byte) bool {
	for len(k) >= 8 {
		w := binary.LittleEndian.Uint64(k)
		bs := w ^ ones*'\\'
		if (w|(bs-ones)&^bs)&highs != 0 {
			return false
		}
		k = k[8:]
	}
	for _, c := range k {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// IsNull reports whether v is the literal null.
func IsNull(v []byte) bool { return len(v) == 4 && string(v) == "null" }

// skipWS returns the index of the first byte at or after i that is not
// JSON white space (space, tab, line feed, carriage return), or len(b):
// the one home of that rule for every pass of the package. Every byte
// that ends a run but a control byte is above the space, so one compare
// ends most calls. A line feed in an indented document is followed by its
// indentation, which is jumped over eight bytes at a time: the word xor
// eight spaces is zero while every byte is a space, and its lowest byte
// that is not gives the first other one (which the loop then looks at,
// as it is maybe a tab or another line feed). Compact JSON has no line
// feed between its values, and a document's single spaces (after a
// colon) are read by the byte loop, fewer instructions than a word's
// test. FuzzSkipWS holds it to the byte loop.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		if c > ' ' {
			return i
		}
		if c == '\n' {
			// i <= len(b)-8 rather than i+8 <= len(b): with it, the
			// compiler knows b[i:i+8] is in bounds.
			for i++; i <= len(b)-8; i += 8 {
				if x := binary.LittleEndian.Uint64(b[i:i+8]) ^ ones*' '; x != 0 {
					i += int(uint(bits.TrailingZeros64(x)) / 8)
					break
				}
			}
			continue
		}
		// The other three spaces by a bit each (c <= ' ' here, so the
		// shift fits in 64 bits).
		if uint64(1)<<c&(1<<' '|1<<'\t'|1<<'\r') == 0 {
			return i
		}
		i++
	}
	return i
}

// value validates the value starting at b[i] and returns its end.
func value(b []byte, i, depth int, ix *Index) (int, error) {
	if depth > maxDepth {
		return i, &SyntaxError{i, "nesting too deep"}
	}
	if i >= len(b) {
		return i, &SyntaxError{i, "unexpected end of input"}
	}
	switch c := b[i]; {
	case c == '"':
		return str(b, i, ix)
	case c == '{':
		slot := ix.openAt(i)
		members := slot
		if slot >= 0 && !ix.listing {
			members = -1 // Object's input: its members are not recorded
		}
		end, _, err := object(b, i, depth, nil, ix, members)
		if err == nil {
			ix.close(slot, end)
		}
		return end, err
	case c == '[':
		slot := ix.openAt(i)
		end, err := array(b, i, depth, ix)
		if err == nil {
			ix.close(slot, end)
		}
		return end, err
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return number(b, i)
	default:
		return i, &SyntaxError{i, fmt.Sprintf("unexpected character %q", c)}
	}
}

// spansSlot is object's slot for an object whose members are appended to
// ms; -1 is for one whose members are not kept.
const spansSlot = -2

// object validates the object at b[i] and returns its end. With slot
// spansSlot it also appends its members to ms, so that ObjectSpans's
// callers need not walk the object again to find them; with a slot of ix
// (not -1: the object is a container ix recorded, and ix is listing), it
// records them there, for ix.MemberSpans. (One test of slot a member, whatever is kept:
// validation without keeping anything is the most common.)
func object(b []byte, i, depth int, ms []Span, ix *Index, slot int) (int, []Span, error) {
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, ms, nil
	}
	for {
		if i >= len(b) {
			return i, ms, &SyntaxError{i, "unexpected end of input"}
		}
		if b[i] != '"' {
			return i, ms, &SyntaxError{i, "expected object key"}
		}
		keyStart := i
		end, err := str(b, i, ix)
		if err != nil {
			return end, ms, err
		}
		keyEnd := end
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return i, ms, &SyntaxError{i, "expected ':'"}
		}
		valueStart := skipWS(b, i+1)
		if i, err = value(b, valueStart, depth+1, ix); err != nil {
			return i, ms, err
		}
		if slot != -1 {
			if slot == spansSlot {
				ms = append(ms, Span{keyStart + 1, keyEnd - 1, valueStart, i})
			} else {
				ix.addMember(slot, keyStart+1, keyEnd-1, valueStart, i)
			}
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, ms, &SyntaxError{i, "unexpected end of object"}
		}
		if b[i] == '}' {
			return i + 1, ms, nil
		}
		if b[i] != ',' {
			return i, ms, &SyntaxError{i, "expected ',' or '}'"}
		}
		i = skipWS(b, i+1)
	}
}

// array validates the array at b[i] and returns its end.
func array(b []byte, i, depth int, ix *Index) (int, error) {
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = value(b, i, depth+1, ix); err != nil {
			return i, err
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return i, &SyntaxError{i, "unexpected end of array"}
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, &SyntaxError{i, "expected ',' or ']'"}
		}
		i = skipWS(b, i+1)
	}
}

func literal(b []byte, i int, lit string) (int, error) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), nil
	}
	return i, &SyntaxError{i, "invalid literal"}
}

// plain marks bytes that need no attention inside a string: ASCII but for
// a quote, a backslash and the control bytes. A byte of 0x80 or more
// starts a UTF-8 sequence, whose run str checks (highRun).
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Masks for testing the eight bytes of a word at once (the "has less than"
// and "has zero byte" tricks): both give an exact yes/no for the word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainEnd returns the index of the first quote, backslash, control byte
// or byte of 0x80 or more at or after i, or len(b). Most of a transcript is
// string text: it is skipped sixteen bytes at a time. (str does the same
// with the first word written out in its own loop, so that an escape costs
// no call.)
func plainEnd(b []byte, i int) int {
	// Keys and most values are short: the first eight bytes alone first.
	if i+8 <= len(b) {
		if m := NotPlainASCII8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return plainRun(b, i)
}

// plainRun is plainEnd without the first word's test, and stopping at a
// byte of 0x80 or more too (for str, which checks the UTF-8 from there):
// sixteen bytes a step, then byte by byte.
func plainRun(b []byte, i int) int {
	// The masks as variables, loaded once: the loop keeps them in
	// registers, where as constants each was made again at every use.
	k02, k21, k5c, k01, kh := masks.x02, masks.x21, masks.x5c, masks.x01, masks.highs
	for ; i <= len(b)-16; i += 16 {
		w0 := binary.LittleEndian.Uint64(b[i:])
		w1 := binary.LittleEndian.Uint64(b[i+8:])
		// NotPlainASCII8's marks, written out (a call inlined here
		// leaves a no-op instruction of its own in the loop).
		m0 := (w0 ^ k02 - k21) | (w0 ^ k5c - k01) | w0
		m1 := (w1 ^ k02 - k21) | (w1 ^ k5c - k01) | w1
		if (m0|m1)&kh != 0 { // one test of the two words
			if m0 &= kh; m0 != 0 {
				return i + bits.TrailingZeros64(m0)/8
			}
			return i + 8 + bits.TrailingZeros64(m1&kh)/8
		}
	}
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// masks holds the words of NotPlainASCII8's tests for plainRun's loop.
var masks = struct{ x02, x21, x5c, x01, highs uint64 }{ones * 0x02, ones * 0x21, ones * '\\', ones, highs}

// structural is the index of the first quote or bracket ('"', '{', '[',
// '}', ']') in b at or after i, or len(b). It tests eight bytes at a time:
// '[' and ']' are '{' and '}' without the bit 0x20, so setting that bit in
// every byte leaves two bytes to look for besides the quote, and no other
// byte becomes either of them. FuzzStructural holds it to a loop over
// every byte.
func structural(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		v := w | 0x2020202020202020
		q := w ^ ones*'"'
		o := v ^ ones*'{'
		c := v ^ ones*'}'
		// A byte of x is zero where x-ones borrows into its high bit and
		// x's own high bit is clear; the lowest such byte is exact.
		m := ((q - ones) &^ q) | ((o - ones) &^ o) | ((c - ones) &^ c)
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case '"', '{', '[', '}', ']':
			return i
		}
	}
	return i
}

// NotPlain8 marks the bytes of w (eight bytes, little endian) that are a
// quote, a backslash or a control character: zero when there are none.
// (The writers' jsonw.PlainASCII adds the bytes of UTF-8 sequences.)
// Marks above the first one may be wrong (a borrow runs on), but the lowest
// mark is always the first such byte.
//
// Two tests of the "has less than" trick, (y - n) &^ y: y = x^0x02 is
// below 0x21 for exactly the control bytes and '"', and y = x^'\\' below 1
// for the backslash. Neither xor changes the high bit of a byte, so the
// two &^ y are one &^ w. (FuzzNotPlain8 holds it to the two tests written
// out.)
func NotPlain8(w uint64) uint64 {
	return ((w ^ ones*0x02 - ones*0x21) | (w ^ ones*'\\' - ones)) &^ w & highs
}

// NotPlainASCII8 is NotPlain8 that also marks the bytes of 0x80 or more:
// NotPlain8(w) | w&highs, in one expression (y &^ w | w is y | w), fewer
// operations than NotPlain8's own. The lowest mark is the first such byte.
// (FuzzNotPlain8 holds it to NotPlain8 and the high bits.)
func NotPlainASCII8(w uint64) uint64 {
	return ((w ^ ones*0x02 - ones*0x21) | (w ^ ones*'\\' - ones) | w) & highs
}

// str validates the string at b[i] and returns its end. With ix, it also
// records it when it has an escape (Index.escaped), and tells ix whether the
// string is valid UTF-8 (badUTF8), so that ix knows
// whether its input is without reading it again, at no cost for ASCII
// text: the search for the string's end also stops at a byte of 0x80 or
// more (NotPlainASCII8, an operation fewer than NotPlain8), and only the
// run of such bytes from there is checked. (A UTF-8 sequence holds no
// ASCII byte, so a string is valid UTF-8 when each such run in it is.)
func str(b []byte, i int, ix *Index) (int, error) {
	start := i
	i++
	// esc says the string has an escape, recorded in ix.
	esc := false
	for {
		// plainEnd written out, so that an escape does not cost a call:
		// the first eight bytes here, a longer run in plainRun.
		if i+8 <= len(b) {
			if m := NotPlainASCII8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
			} else if i = plainRun(b, i+8); i >= len(b) {
				break
			}
		} else if i = plainRun(b, i); i >= len(b) {
			break
		}
		switch b[i] {
		case '"':
			if esc {
				ix.escapedEnd(i + 1)
			}
			return i + 1, nil
		case '\\':
			if i+1 >= len(b) {
				return i, &SyntaxError{i, "unterminated escape"}
			}
			if !esc && ix != nil {
				esc = true
				ix.escaped(start)
			}
			switch escapeLen[b[i+1]] {
			case 2:
				i += 2
			case 6:
				if i+6 > len(b) {
					return i, &SyntaxError{i, "short \\u escape"}
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return i, &SyntaxError{i, "invalid \\u escape"}
					}
				}
				i += 6
			default:
				return i, &SyntaxError{i, "invalid escape"}
			}
		default: // plainRun stops at nothing else
			if b[i] < utf8.RuneSelf {
				return i, &SyntaxError{i, "control character in string"}
			}
			// Text that is not ASCII: its run is checked here (passed
			// over without ix).
			end := highRun(b, i)
			if ix != nil && !ix.badUTF8 && !utf8.Valid(b[i:end]) {
				ix.badUTF8 = true
			}
			i = end
		}
	}
	return start, &SyntaxError{start, "unterminated string"}
}

// highRun returns the end of the run of bytes of 0x80 or more at b[i]:
// text that is not ASCII, whole words of it at a time.
func highRun(b []byte, i int) int {
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&highs == highs {
		i += 8
	}
	for i < len(b) && b[i] >= utf8.RuneSelf {
		i++
	}
	return i
}

// escapeLen is the length of an escape by the byte after its backslash:
// 6 for \u and its four hex digits, 0 for a byte no escape has.
var escapeLen = func() (t [256]uint8) {
	for _, c := range `"\/bfnrt` {
		t[c] = 2
	}
	t['u'] = 6
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func number(b []byte, i int) (int, error) {
	start := i
	if b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return start, &SyntaxError{start, "invalid number"}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return start, &SyntaxError{start, "invalid number"}
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return start, &SyntaxError{start, "invalid number"}
		}
	}
	return i, nil
}

// Element is where one element of an array is, as offsets into the input
// of ElementSpans, and for an element that is an object where its members
// are: the N spans from First of what ElementSpans returned, with offsets
// into the element's own bytes, as MemberSpans of the element gives them.
// N is -1 for an element that is no object.
type Element struct{ Start, End, First, N int }

// ElementSpans validates b as one JSON value, as Valid does, and when it
// is an array appends where its elements are to elems and where the
// members of those that are objects are to spans: in one pass, what Valid,
// then Array, then MemberSpans of each element would find. A valid b that
// is no array gives ErrNotArray. FuzzElementSpans holds it to those three.
func ElementSpans(b []byte, spans []Span, elems []Element) ([]Span, []Element, error) {
	i := skipWS(b, 0)
	if i >= len(b) {
		return spans, elems, &SyntaxError{i, "empty input"}
	}
	if b[i] != '[' {
		end, err := value(b, i, 0, nil)
		if err != nil {
			return spans, elems, err
		}
		if j := skipWS(b, end); j != len(b) {
			return spans, elems, &SyntaxError{j, "trailing data"}
		}
		return spans, elems, ErrNotArray
	}
	// The array's elements are at depth 1, as value and array have them.
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		i++
	} else {
		for {
			start, end, first, n := i, 0, len(spans), -1
			var err error
			if i < len(b) && b[i] == '{' {
				end, spans, err = object(b, i, 1, spans, nil, spansSlot)
				if err == nil {
					for k := first; k < len(spans); k++ {
						s := &spans[k]
						s.KeyStart, s.KeyEnd, s.ValueStart, s.ValueEnd = s.KeyStart-start, s.KeyEnd-start, s.ValueStart-start, s.ValueEnd-start
					}
					n = len(spans) - first
				}
			} else {
				end, err = value(b, i, 1, nil)
			}
			if err != nil {
				return spans, elems, err
			}
			elems = append(elems, Element{start, end, first, n})
			i = skipWS(b, end)
			if i >= len(b) {
				return spans, elems, &SyntaxError{i, "unexpected end of array"}
			}
			if b[i] == ']' {
				i++
				break
			}
			if b[i] != ',' {
				return spans, elems, &SyntaxError{i, "expected ',' or ']'"}
			}
			i = skipWS(b, i+1)
		}
	}
	if j := skipWS(b, i); j != len(b) {
		return spans, elems, &SyntaxError{j, "trailing data"}
	}
	return spans, elems, nil
}
