package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/internal/canon"
	"github.com/rlog-ls/rlog-ls/convert/internal/idset"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// The validator's rules, one code each (rlog-ls check --disable REPLAY002).
const (
	CodeSyntax     = "REPLAY001"
	CodeCanonical  = "REPLAY002"
	CodeEventTag   = "REPLAY003"
	CodeHeader     = "REPLAY004"
	CodeRequired   = "REPLAY005"
	CodeStatus     = "REPLAY006"
	CodeHashForm   = "REPLAY007"
	CodeParamsHash = "REPLAY008"
	CodeOrder      = "REPLAY009"
	CodeVersion    = "REPLAY010"
)

// Rules lists the validator's rules.
var Rules = []model.Rule{
	{Code: CodeSyntax, Title: "Line that is not a JSON object"},
	{Code: CodeCanonical, Title: "Line that is not canonical JSON"},
	{Code: CodeEventTag, Title: "Line without an event tag"},
	{Code: CodeHeader, Title: "ReplayHeader missing or not first"},
	{Code: CodeRequired, Title: "Required field missing"},
	{Code: CodeStatus, Title: "Status that is not allowed"},
	{Code: CodeHashForm, Title: "Hash that is not sha256:<64 hex>"},
	{Code: CodeParamsHash, Title: "params_hash that does not match params"},
	{Code: CodeOrder, Title: "ToolResult without a ToolCall before it"},
	{Code: CodeVersion, Title: "replay_version other than 1"},
}

// Validate checks a REPLAY.jsonl stream: every line one canonical JSON
// object (keys sorted, no whitespace) with an `event` tag; the first line a
// ReplayHeader with replay_version 1; the required fields of each core
// event; `sha256:<64 hex>` hashes (params_hash recomputed over params);
// and each ToolResult after a ToolCall with its id. Unknown events are
// allowed, as the spec tells consumers to ignore them.
//
// The ids of the calls seen so far are kept as 64-bit hashes: checking
// that each result follows its call needs the whole session's set.
func Validate(r io.Reader, report func(model.Finding)) error {
	var text []byte // the line being checked
	add := func(code string, line int, path, msg string) {
		f := model.Finding{Code: code, Path: path, Message: msg, Line: line, Col: 1, EndLine: line, EndCol: 2}
		if path != "" && line > 0 {
			if s, e, ok := jsonscan.Locate(text, strings.Split(strings.TrimPrefix(path, "$."), ".")); ok {
				f.Col = utf8.RuneCount(text[:s]) + 1
				f.EndCol = f.Col + utf8.RuneCount(text[s:e])
			}
		}
		report(f)
	}
	var calls idset.Set
	first := true
	var canonBuf []byte
	tooLong := func(n int, err error) {
		text = nil
		add(CodeSyntax, n, "", err.Error())
	}
	err := jsonl.Each(r, func(line []byte, n int) error {
		text = line
		f, perr := model.ParseFields(line)
		if perr != nil || f == nil {
			var se *jsonscan.SyntaxError
			if errors.As(perr, &se) {
				col := utf8.RuneCount(line[:min(se.Offset, len(line))]) + 1
				report(model.Finding{Code: CodeSyntax, Message: "not a JSON object: " + se.Msg, Line: n, Col: col, EndLine: n, EndCol: col + 1})
				first = false
				return nil
			}
			add(CodeSyntax, n, "", "not a JSON object")
			first = false
			return nil
		}
		canonBuf = canon.Append(canonBuf[:0], line)
		if !bytes.Equal(canonBuf, line) {
			add(CodeCanonical, n, "", "not canonical JSON (keys sorted, no whitespace)")
		}
		typ, ok := f.String("event")
		if !ok {
			add(CodeEventTag, n, "$.event", "missing event tag")
			first = false
			return nil
		}
		if first {
			first = false
			if typ != EventHeader {
				add(CodeHeader, n, "$.event", "the first line must be ReplayHeader, got "+typ)
			}
		} else if typ == EventHeader {
			add(CodeHeader, n, "$.event", "ReplayHeader after the first line")
		}
		if sc := schemaOf(typ); sc != nil {
			for _, k := range sc.required {
				if _, ok := f.Get(k); !ok {
					add(CodeRequired, n, "$."+k, typ+" without required field "+k)
				}
			}
			if st, _ := f.String("status"); sc.statuses != nil && !slices.Contains(sc.statuses, st) {
				add(CodeStatus, n, "$.status", fmt.Sprintf("%s status %q is not one of %s", typ, st, strings.Join(sc.statuses, ", ")))
			}
		}
		for _, k := range hashFields {
			if h, ok := f.String(k); ok && !validHash(h) {
				add(CodeHashForm, n, "$."+k, "hash is not sha256:<64 lowercase hex>")
			}
		}
		switch typ {
		case EventHeader:
			if v, _ := f.Get("replay_version"); string(v) != "1" {
				add(CodeVersion, n, "$.replay_version", "replay_version must be 1")
			}
		case EventToolCall:
			id, _ := f.String("id")
			calls.Add(id)
			if p, ok := f.Get("params"); ok {
				if h, _ := f.String("params_hash"); validHash(h) && h != canon.Hash(p) {
					add(CodeParamsHash, n, "$.params_hash", "params_hash is not the sha256 of the canonical params")
				}
			}
		case EventToolResult:
			id, _ := f.String("id")
			if !calls.Has(id) {
				add(CodeOrder, n, "$.id", fmt.Sprintf("ToolResult %q does not follow a ToolCall with that id", id))
			}
		}
		return nil
	}, tooLong)
	if err != nil {
		return err
	}
	if first {
		add(CodeHeader, 1, "", "empty file: no ReplayHeader")
	}
	return nil
}

func validHash(h string) bool {
	hex, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
