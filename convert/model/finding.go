package model

import (
	"fmt"
	"strconv"
)

// Finding is one problem a format's validator found in a file: the rule
// (Code, as documented in docs/diagnostics.md), where it is and what.
// Every finding is an error: the file breaks its format's rules.
type Finding struct {
	Code string
	// Path names the value in the format's own terms (Harbor's dotted
	// `trajectory.steps.0.step_id`, `$.event` for a JSONL line).
	Path    string
	Message string
	// Line and Col are 1-based (Col counts characters), 0 when unknown.
	// EndLine and EndCol are the exclusive end: the key a finding names, a
	// short value, or the first character of a long one.
	Line, Col       int
	EndLine, EndCol int
}

func (f Finding) String() string {
	where := ""
	if f.Line > 0 {
		where = strconv.Itoa(f.Line) + ":" + strconv.Itoa(max(f.Col, 1)) + ": "
	}
	if f.Path != "" {
		return fmt.Sprintf("%s%s %s: %s", where, f.Code, f.Path, f.Message)
	}
	return fmt.Sprintf("%s%s %s", where, f.Code, f.Message)
}

// Rule is one rule of a format's validator, for the documentation and for
// turning codes off.
type Rule struct {
	Code  string
	Title string
}
