package model

import (
	"bytes"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonscan"
)

// The details of LossInvalidUTF8 entries.
const (
	DetailInvalidUTF8   = "invalid UTF-8 replaced by U+FFFD"
	DetailLoneSurrogate = "escaped lone UTF-16 surrogate replaced by U+FFFD"
)

// InvalidUTF8 reports, as LossInvalidUTF8, each string of the valid JSON
// value record that decodes with U+FFFD in place of what the input holds:
// invalid UTF-8 bytes, or the escape of a lone UTF-16 surrogate. loc is
// where record is (its line, file and path); each entry gets the string's
// JSON path below it, and its line when record spans several. A record
// with nothing to replace costs one UTF-8 check.
func (r *Report) InvalidUTF8(record []byte, loc Loc) {
	if r == nil || !jsonscan.NeedsReplacement(record) {
		return
	}
	line, lineStart := loc.Line, 0
	if line == 0 {
		line = 1
	}
	jsonscan.Replacements(record, func(x jsonscan.Replacement) {
		line += bytes.Count(record[lineStart:x.Offset], []byte{'\n'})
		lineStart = x.Offset
		at := Loc{File: loc.File, Line: line, Path: joinPath(loc.Path, x.Path)}
		if x.Invalid > 0 {
			r.Add(LossInvalidUTF8, DetailInvalidUTF8, at)
		}
		if x.Surrogates > 0 {
			r.Add(LossInvalidUTF8, DetailLoneSurrogate, at)
		}
	})
}

// InvalidUTF8Text reports a line of text (rlog) that is not valid UTF-8,
// once per line: every writer writes U+FFFD for it (the rlog writer too,
// as invalid UTF-8 is W012).
func (r *Report) InvalidUTF8Text(line []byte, loc Loc) {
	if r != nil && !utf8.Valid(line) {
		r.Add(LossInvalidUTF8, DetailInvalidUTF8, loc)
	}
}

// joinPath puts a JSON path ("$.a[0]") below a base path ("$.steps[3]").
func joinPath(base, sub string) string {
	if base == "" {
		return sub
	}
	return base + sub[1:]
}
