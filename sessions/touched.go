package sessions

import "path/filepath"

// Touch is one call that changed a file: the session file and its line
// where the call is, the tool and the file as the call named it resolved
// against the session's folder.
type Touch struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Tool   string `json:"tool"`
	Target string `json:"target"`
	// Session is the session's id.
	Session string `json:"session"`
}

// Touched are the calls of the sessions (newest first, as listed) that
// changed the file at path (absolute, clean), in each session's order.
func Touched(list []*Session, path string) []Touch {
	var out []Touch
	for _, s := range list {
		for _, c := range s.Changes {
			if filepath.Clean(c.Target) == path {
				out = append(out, Touch{File: s.Row.File, Line: c.Line, Tool: c.Tool, Target: c.Target, Session: s.Row.ID})
			}
		}
	}
	return out
}
