package jsonscan

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzInputValidUTF8 holds what an index knows of its input's UTF-8 from
// the validator's pass (str checks only the runs of bytes of 0x80 or more
// it stops at) to utf8.Valid of the whole input, for every way an input is
// validated into an index: ObjectSpans, Object, a Walker's IndexedValue
// (in its buffer, and its end found first when handed over a byte at a
// time). The answer must be known after the validation, not left to
// InputValidUTF8's own check. And str, with an index or without, ends and
// fails where it did, and tells the index a valid string is bad exactly
// when its text is not valid UTF-8.
func FuzzInputValidUTF8(f *testing.F) {
	for _, s := range []string{
		`{"a":"plain"}`,
		"{\"a\":\"0123456\xe2\x86\x92\"}",                       // a sequence across two words
		"{\"a\":\"0123456789abcde\xe2\x86\x92 and more text\"}", // across the 16-byte step
		"{\"a\":\"0123456789abcd\xe2\x86\"}",                    // cut short by the quote
		"{\"k\xff\":1}",                                         // in a key
		"{\"a\":[\"\xc3\xa9\",\"\xed\xa0\x80\"]}",               // a surrogate's bytes
		"{\"a\":\"\xc0\xaf\"}",                                  // overlong
		"{\"a\":\"\xef\xbf\xbd\"}",                              // U+FFFD, valid
		"{\"a\":\"\xf0\x9f\x9a\x80\xf0\x9f\x98\x80\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xc3\x9cn\xc3\xafc\xc3\xb6d\xc3\xa9\"}",
		"{\"a\":1}\xff", // outside a string: not JSON
		"{\"a\":\"\\u00e9\xff\\n\xfe\"}",
		"[\"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\"]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := utf8.Valid(b)
		var ix Index
		if _, err := ix.ObjectSpans(b, nil); err == nil {
			if ix.inputUTF8 == 0 || ix.InputValidUTF8() != want {
				t.Fatalf("ObjectSpans(%q): UTF-8 %d, utf8.Valid %v", b, ix.inputUTF8, want)
			}
		}
		if err := ix.Object(b, func(_, _ []byte) error { return nil }); err == nil {
			if ix.inputUTF8 == 0 || ix.InputValidUTF8() != want {
				t.Fatalf("Object(%q): UTF-8 %d, utf8.Valid %v", b, ix.inputUTF8, want)
			}
		}
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(b)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			w := NewWalker(r, false)
			v, _, err := w.IndexedValue(&ix)
			if err != nil {
				continue
			}
			if ix.inputUTF8 == 0 || ix.InputValidUTF8() != utf8.Valid(v) {
				t.Fatalf("IndexedValue(%q) (a byte at a time %v) = %q: UTF-8 %d, utf8.Valid %v", b, oneByte, v, ix.inputUTF8, utf8.Valid(v))
			}
		}
		if len(b) > 0 && b[0] == '"' {
			ix.Reset()
			end, err := str(b, 0, &ix)
			wantEnd, wantErr := strByByte(b, 0)
			if end != wantEnd || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("str(%q) = %d, %v; byte by byte: %d, %v", b, end, err, wantEnd, wantErr)
			}
			if err == nil && ix.badUTF8 == utf8.Valid(b[1:end-1]) {
				t.Fatalf("str(%q): bad UTF-8 %v", b, ix.badUTF8)
			}
		}
	})
}
