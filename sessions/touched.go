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

// Doc is a listing as `rlog-ls sessions --format json` writes it and the
// server's rlog/sessions request answers it.
type Doc struct {
	Version  int   `json:"version"`
	Sessions []Row `json:"sessions"`
}

// TouchedDoc is a --touched listing, as `rlog-ls sessions --touched FILE
// --format json` writes it and rlog/sessions answers a touched file.
type TouchedDoc struct {
	Version int     `json:"version"`
	File    string  `json:"file"`
	Changes []Touch `json:"changes"`
}

// DocOf is the listing's document.
func DocOf(l *Listing) Doc {
	d := Doc{Version: 1, Sessions: []Row{}}
	for _, s := range l.Sessions {
		d.Sessions = append(d.Sessions, s.Row)
	}
	return d
}

// TouchedDocOf is the listing's calls that changed the file at path
// (absolute, clean).
func TouchedDocOf(l *Listing, path string) TouchedDoc {
	d := TouchedDoc{Version: 1, File: path, Changes: Touched(l.Sessions, path)}
	if d.Changes == nil {
		d.Changes = []Touch{}
	}
	return d
}
