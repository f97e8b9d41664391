package jsonscan

import (
	"bytes"
	"strconv"

	"github.com/rlog-ls/rlog-ls/internal/jsonstr"
)

// Replacement is one string of a JSON value whose decoding writes U+FFFD
// that the input does not hold: Path is its JSON path from the value
// (`$.message.content[0].text`; a key is reported at the path of its
// member), Offset where its literal starts in the value.
type Replacement struct {
	Path   string
	Offset int
	// Invalid counts invalid UTF-8 sequences, Surrogates escaped lone
	// UTF-16 surrogates.
	Invalid, Surrogates int
}

// Replacements calls fn for each string of the valid JSON value v (keys
// included) that decodes with a U+FFFD the input does not hold, in order.
func Replacements(v []byte, fn func(Replacement)) {
	replacements(v, 0, "$", fn)
}

func replacements(v []byte, base int, path string, fn func(Replacement)) {
	i := skipWS(v, 0)
	if i >= len(v) {
		return
	}
	switch v[i] {
	case '"':
		if inv, sur := jsonstr.Replacements(bytes.TrimRight(v[i:], " \t\r\n")); inv+sur > 0 {
			fn(Replacement{Path: path, Offset: base + i, Invalid: inv, Surrogates: sur})
		}
	case '{':
		Members(v, func(k, val []byte) error {
			key := Key(k)
			p := path + memberPath(key)
			koff := base + offsetIn(v, k) - 1
			if inv, sur := jsonstr.Replacements(v[koff-base : koff-base+len(k)+2]); inv+sur > 0 {
				fn(Replacement{Path: p, Offset: koff, Invalid: inv, Surrogates: sur})
			}
			replacements(val, base+offsetIn(v, val), p, fn)
			return nil
		})
	case '[':
		Array(v, func(n int, val []byte) error {
			replacements(val, base+offsetIn(v, val), path+"["+strconv.Itoa(n)+"]", fn)
			return nil
		})
	}
}

// offsetIn returns where sub, a slice of v, starts in v.
func offsetIn(v, sub []byte) int {
	return cap(v) - cap(sub)
}

// memberPath is ".key", or `["key"]` for a key that is not a plain word.
func memberPath(key string) string {
	plain := key != ""
	for _, c := range []byte(key) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + key
	}
	return "[" + strconv.Quote(key) + "]"
}
