package model

import "slices"

// Head is what detection learns from the start of an input: the first
// JSON object's top-level keys (in order) and short string values, and the
// keys one level down; or, for text, its first bytes. Each format's probe
// (its Detect) judges it, never a whole document: the scan stops after the
// first top-level list, whose first element it looks into.
type Head struct {
	// Name is the input's base name in lower case ("" for stdin).
	Name string
	// Empty is set for an input with nothing but white space.
	Empty bool
	// Text is the start of an input that is not JSON (up to 64 KB).
	Text []byte
	// Keys are the top-level keys of the first JSON object, in order, as
	// far as the scan got.
	Keys []string
	// Strings holds the top-level string values (up to 1 KB each).
	Strings map[string]string
	// Inner holds, for a top-level object value, its keys, and for a
	// top-level list, the keys of its first element when it is an object.
	Inner map[string][]string
	// Stopped is why the scan ended before the first object did: a
	// syntax error, or the end of what could be seen (DetectReader sees
	// as far as its buffer). Nil when the object was seen to its end or
	// the scan stopped at its first list on purpose.
	Stopped error
	// JSONArray is set when the input is a JSON array, which no format is.
	JSONArray bool
}

// Has reports whether the first object has any of keys.
func (h *Head) Has(keys ...string) bool {
	for _, k := range keys {
		if slices.Contains(h.Keys, k) {
			return true
		}
	}
	return false
}

// HasOnly reports whether every key of the first object seen is one of
// keys (and there is one).
func (h *Head) HasOnly(keys ...string) bool {
	for _, k := range h.Keys {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return len(h.Keys) > 0
}

// String is the top-level string value of key ("" when absent).
func (h *Head) String(key string) string { return h.Strings[key] }

// InnerHas reports whether the object under key (or the first element of
// the list under key) has inner.
func (h *Head) InnerHas(key, inner string) bool { return slices.Contains(h.Inner[key], inner) }

// IsJSON reports whether the input starts with a JSON value.
func (h *Head) IsJSON() bool { return !h.Empty && h.Text == nil }

// Evidence is how strongly a format's probe claims an input from its Head.
// Detection takes the format with the strongest claim; so a probe judges
// only its own format's evidence, and never looks for other formats' keys
// to rule them out: a format that shares a key with another claims it
// weakly, one that has a key of its own strongly.
type Evidence int

// The strengths of a claim.
const (
	// NoEvidence: the input is not this format, or nothing shows it is.
	NoEvidence Evidence = iota
	// Weak: keys or values this format has that others may have too (a
	// `type` of "user", a `session_id`).
	Weak
	// Strong: keys or values only this format writes, or a shape no other
	// has (its record types, its header's keys together).
	Strong
	// Certain: a marker by which the input names its format or variant
	// (a format tag, a header line of its own).
	Certain
)

// String names the strength, for messages and tests.
func (e Evidence) String() string {
	switch e {
	case Weak:
		return "weak"
	case Strong:
		return "strong"
	case Certain:
		return "certain"
	}
	return "none"
}
