package analysis

import (
	"bytes"
	"slices"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// FoldKind says what a folding range holds.
type FoldKind uint8

const (
	FoldRegion  FoldKind = iota + 1 // phases, the session, subagents, continuation runs
	FoldComment                     // runs of comment lines
	FoldHeader                      // the YAML header
)

// Fold is a range of whole lines that an editor can collapse.
type Fold struct {
	StartLine, EndLine int
	Kind               FoldKind
}

// Folds lists the foldable ranges in start order: the header, each @phase
// section, @start...@end, a subagent from [started] to [done], a line with
// its continuation lines, and runs of two or more comments.
func Folds(t *grammar.Tree) []Fold {
	var out []Fold
	r := t.Region()
	if r.HeaderStart >= 0 && r.BodyStart-1 > r.HeaderStart {
		out = append(out, Fold{StartLine: r.HeaderStart, EndLine: r.BodyStart - 1, Kind: FoldHeader})
	}
	var (
		lastNonEmpty  = -1
		phaseStart    = -1
		sessionStart  = -1
		parent        = -1 // the line continuation lines belong to
		lastCont      = -1
		commentStart  = -1
		lastComment   = -1
		openSubagents = map[string]int{}
	)
	flushCont := func() {
		if parent >= 0 && lastCont > parent {
			out = append(out, Fold{StartLine: parent, EndLine: lastCont, Kind: FoldRegion})
		}
		parent, lastCont = -1, -1
	}
	flushComments := func() {
		if commentStart >= 0 && lastComment > commentStart {
			out = append(out, Fold{StartLine: commentStart, EndLine: lastComment, Kind: FoldComment})
		}
		commentStart, lastComment = -1, -1
	}
	flushPhase := func() {
		if phaseStart >= 0 && lastNonEmpty > phaseStart {
			out = append(out, Fold{StartLine: phaseStart, EndLine: lastNonEmpty, Kind: FoldRegion})
		}
		phaseStart = -1
	}
	for l := range t.Body() {
		switch l.Kind {
		case grammar.Empty:
			continue
		case grammar.Continuation:
			if parent >= 0 {
				lastCont = l.Num
			}
			lastNonEmpty = l.Num
			continue
		}
		flushCont()
		parent = l.Num
		if l.Kind == grammar.Comment {
			if commentStart < 0 || lastComment != l.Num-1 {
				flushComments()
				commentStart = l.Num
			}
			lastComment = l.Num
		} else {
			flushComments()
		}
		switch l.Kind {
		case grammar.Phase:
			flushPhase()
			phaseStart = l.Num
		case grammar.Lifecycle:
			content := t.Slice(l.Content, l.TrimEnd)
			if bytes.HasPrefix(content, []byte("start")) && sessionStart < 0 {
				sessionStart = l.Num
			} else if bytes.HasPrefix(content, []byte("end")) && sessionStart >= 0 {
				out = append(out, Fold{StartLine: sessionStart, EndLine: l.Num, Kind: FoldRegion})
				sessionStart = -1
			}
		case grammar.Subagent:
			if l.ID.Valid() {
				id := string(t.Slice(l.ID.Start, l.ID.End))
				content := t.Slice(l.Content, l.TrimEnd)
				if start, open := openSubagents[id]; open && isSubagentEnd(content) {
					out = append(out, Fold{StartLine: start, EndLine: l.Num, Kind: FoldRegion})
					delete(openSubagents, id)
				} else if !open && bytes.Contains(content, []byte("[started]")) {
					openSubagents[id] = l.Num
				}
			}
		}
		lastNonEmpty = l.Num
	}
	flushCont()
	flushComments()
	flushPhase()
	sortFolds(out)
	return out
}

func sortFolds(f []Fold) {
	slices.SortStableFunc(f, func(a, b Fold) int {
		if a.StartLine != b.StartLine {
			return a.StartLine - b.StartLine
		}
		return b.EndLine - a.EndLine
	})
}
