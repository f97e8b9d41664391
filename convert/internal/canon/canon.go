// Package canon produces canonical JSON as REPLAY.jsonl and the receipt
// hashes define it (OpenAgents ADR-0006): object keys sorted by their
// bytes, no whitespace, arrays in order, strings escaped the way serde_json
// escapes them (only `"`, `\` and control characters), numbers as written.
package canon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
)

// Append appends the canonical form of the valid JSON value v to dst.
func Append(dst, v []byte) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	switch v[0] {
	case '{':
		type kv struct {
			k string
			v []byte
		}
		var kvs []kv
		jsonscan.Members(v, func(k, val []byte) error {
			kvs = append(kvs, kv{jsonscan.Key(k), val})
			return nil
		})
		sort.SliceStable(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
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
		s, _ := jsonscan.String(v)
		return String(dst, s)
	default:
		return append(dst, v...)
	}
}

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

const hexDigits = "0123456789abcdef"

// String appends s as a JSON string escaped like serde_json.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				dst = append(dst, '\\', '"')
			case c == '\\':
				dst = append(dst, '\\', '\\')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
