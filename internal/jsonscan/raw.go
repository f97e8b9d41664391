package jsonscan

import (
	"encoding/json"
	"unicode/utf8"
)

// Copy returns a copy of a validated raw value that outlives the line
// buffer it came from. Invalid UTF-8 inside strings is replaced (by a
// decode/encode round trip), so what a writer copies out is always valid
// JSON text.
func Copy(v []byte) json.RawMessage {
	return copyValue(v, false)
}

// copyValue is Copy; validUTF8 says v is known to be valid UTF-8.
func copyValue(v []byte, validUTF8 bool) json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	if validUTF8 || utf8.Valid(v) {
		// make and copy, which the compiler turns into one allocation that
		// is not cleared first.
		out := make(json.RawMessage, len(v))
		copy(out, v)
		return out
	}
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(x)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// Digits reads b when it is 1 to 18 ASCII digits, a count no int64
// overflows; ok is false for anything else (a sign, a fraction, more
// digits), which callers that accept more leave to strconv.
func Digits(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Int decodes a JSON number as int64; ok is false for anything else.
// Floats are truncated, which matches token counts written as 12.0.
func Int(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	neg := false
	i := 0
	if v[0] == '-' {
		neg = true
		i = 1
	}
	if i >= len(v) {
		return 0, false
	}
	for ; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			var f float64
			if json.Unmarshal(v, &f) != nil {
				return 0, false
			}
			return int64(f), true
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// Float decodes a JSON number; ok is false for anything else (null too,
// which encoding/json would take as "no change").
func Float(v []byte) (float64, bool) {
	var f float64
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') || json.Unmarshal(v, &f) != nil {
		return 0, false
	}
	return f, true
}

// Bool decodes true or false.
func Bool(v []byte) (val, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}
