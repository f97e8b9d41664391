package analysis

import (
	"errors"
	"fmt"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// callLine reports whether lines of kind k carry a call's id: the lines
// that start or register a call (t!:, t:, x:, c:, q:) and those that refer
// to one (o:, t~:).
func callLine(k grammar.Kind) bool {
	return k.RegistersID() || k == grammar.Observation || k == grammar.ToolProgress
}

// ErrNotRenamable is PrepareRename's answer off a call id.
var ErrNotRenamable = errors.New("only a call id can be renamed: put the cursor on the id= of a t!:, t:, o:, x: or t~: line")

// PrepareRename returns the call id at off and where it is written, or
// ErrNotRenamable when the cursor is on anything else (a message id, a
// session id, text).
func PrepareRename(t *grammar.Tree, off int) (SymbolRef, error) {
	ref, ok := RefAt(t, off)
	if !ok || ref.Kind != CallRef || !callLine(t.Line(t.LineAt(ref.Span.Start)).Kind) {
		return SymbolRef{}, ErrNotRenamable
	}
	return ref, nil
}

// Rename returns the edits that rename the call id at off to newName on
// every line that carries it, in file order. The new name must be a word
// (\w+, as the parser reads ids) that no other call uses.
func Rename(t *grammar.Tree, off int, newName string) ([]Edit, error) {
	ref, err := PrepareRename(t, off)
	if err != nil {
		return nil, err
	}
	if newName == "" || !isWord(newName) {
		return nil, fmt.Errorf("%q cannot be a call id: ids are letters, digits and underscores (the parser reads \\w+ after id=)", newName)
	}
	if newName == ref.Name {
		return []Edit{}, nil
	}
	if used := Occurrences(t, SymbolRef{Kind: CallRef, Name: newName}); len(used) > 0 {
		for _, o := range used {
			if callLine(t.Line(o.Line).Kind) {
				return nil, fmt.Errorf("call id %s is already used on line %d", newName, o.Line+1)
			}
		}
	}
	var edits []Edit
	for _, o := range Occurrences(t, ref) {
		if callLine(t.Line(o.Line).Kind) {
			edits = append(edits, Edit{Start: o.Span.Start, End: o.Span.End, NewText: newName})
		}
	}
	return edits, nil
}

func isWord(s string) bool {
	for i := range len(s) {
		if c := s[i]; !isAlnum(c) && c != '_' {
			return false
		}
	}
	return true
}
