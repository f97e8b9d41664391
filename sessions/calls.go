package sessions

import (
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// Call is a tool call of the session (not a sub-agent's): its tool, what
// it is about (Target), and the session file's line where it is. ID is
// the call's id until its line is found (placeAll), then dropped: the
// changes file keeps a line, not an id.
type Call struct {
	Line   int    `json:"line"`
	Tool   string `json:"tool"`
	Target string `json:"target,omitempty"`
	ID     string `json:"id,omitempty"`
}

// Phase is where a part of the session starts: an @phase line (by its
// name), a compaction (@compact, with its trigger), a resumed run
// (@resume); at the session file's line, which the reader gives (ID
// names it for placeAll when the reader gave none).
type Phase struct {
	Line int    `json:"line"`
	Name string `json:"name"`
	ID   string `json:"id,omitempty"`
}

// maxPhasesKept bounds what one session keeps of its phases.
const maxPhasesKept = 1000

// phaseOf is the phase e starts, if it starts one.
func phaseOf(e *model.Event) (Phase, bool) {
	var name string
	switch {
	case e.Kind == model.KindCompaction:
		name = "@" + grammar.VerbCompact
		if e.Compaction != nil && e.Compaction.Trigger != "" {
			name += " " + e.Compaction.Trigger
		}
	case e.Kind == model.KindLifecycle && e.Name == grammar.VerbPhase:
		// The rlog reader gives the line's text after @phase: its first
		// word is the name (the outline's).
		fields := strings.Fields(e.Text)
		if len(fields) == 0 {
			return Phase{}, false
		}
		name = firstLine(fields[0], TitleChars)
	case e.Kind == model.KindLifecycle && e.Name == grammar.VerbResume:
		name = "@" + grammar.VerbResume
	default:
		return Phase{}, false
	}
	p := Phase{Name: name}
	if e.Loc.File == "" && e.Loc.Line > 0 {
		p.Line = e.Loc.Line
	} else {
		p.ID = ownCopy(e.ID)
	}
	return p, true
}
