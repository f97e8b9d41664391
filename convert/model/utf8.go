package model

import (
	"bytes"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// DetailInvalidUTF8 is the detail of LossInvalidUTF8 entries.
const DetailInvalidUTF8 = "invalid UTF-8 replaced by U+FFFD"

// InvalidUTF8 reports, as LossInvalidUTF8, each string of the valid JSON
// value record that holds bytes that are not UTF-8, which decoding
// replaces with U+FFFD. loc is where record is (its line, file and path);
// each entry gets the string's JSON path below it, and its line when
// record spans several. A valid record costs one UTF-8 check (none when
// the reader already knows, see jsonscan.Index.InputValidUTF8). The JSON
// escape of a lone UTF-16 surrogate (\ud800), which every JSON decoder
// also turns into U+FFFD, is not invalid UTF-8 and is not reported.
func (r *Report) InvalidUTF8(record []byte, loc Loc) {
	if r == nil || utf8.Valid(record) {
		return
	}
	line, lineStart := loc.Line, 0
	if line == 0 {
		line = 1
	}
	jsonscan.Replacements(record, func(x jsonscan.Replacement) {
		line += bytes.Count(record[lineStart:x.Offset], []byte{'\n'})
		lineStart = x.Offset
		if x.Invalid > 0 {
			r.Add(LossInvalidUTF8, DetailInvalidUTF8, Loc{File: loc.File, Line: line, Path: joinPath(loc.Path, x.Path)})
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
