package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// OwnSession reports whether the Gemini CLI file at path is a session to
// read on its own, as a folder of sessions (~/.gemini/tmp) is read: not a
// sub-agent's file (chats/SESSION_ID/AGENT_ID.jsonl, which ReadNamed reads
// with the session's file beside the folder), not a single-JSON session
// that Gemini CLI continued in a .jsonl of the same name (it copies every
// message there), and not the stub a resume leaves beside the session's
// file (no message, another file of the same session beside it). A file
// that cannot be told is its own.
func OwnSession(path string) bool {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		if _, err := os.Stat(path + "l"); err == nil {
			return false // migrated: the .jsonl holds it all
		}
		return true
	}
	dir := filepath.Dir(path)
	if stub(path) {
		return false
	}
	session := filepath.Base(dir)
	if len(session) < 8 || !validName(session) {
		return true
	}
	// The session whose sub-agents the folder holds: its file is named
	// session-TIME-ID8.jsonl (.json for the older form) in the folder
	// above.
	m, _ := filepath.Glob(filepath.Join(paths.GlobEscape(filepath.Dir(dir)), "session-*-"+paths.GlobEscape(session[:8])+".json*"))
	return len(m) == 0
}

// stub reports whether the session file at path holds no message while
// another file of the same session (session-*-ID8.jsonl) lies beside it.
func stub(path string) bool {
	base := filepath.Base(path)
	if !strings.HasPrefix(base, "session-") || !strings.HasSuffix(base, ".jsonl") || len(base) < len("session-")+8+len(".jsonl") {
		return false
	}
	id8 := strings.TrimSuffix(base, ".jsonl")
	id8 = id8[len(id8)-8:]
	m, _ := filepath.Glob(filepath.Join(paths.GlobEscape(filepath.Dir(path)), "session-*-"+paths.GlobEscape(id8)+".jsonl"))
	if len(m) < 2 {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	message := false
	jsonl.Each(f, func(line []byte, _ int) error {
		var id, typ bool
		jsonscan.Object(line, func(k, _ []byte) error {
			id = id || string(k) == "id"
			typ = typ || string(k) == "type"
			return nil
		})
		if message = id && typ; message {
			return errFound
		}
		return nil
	}, func(int, error) {})
	return !message
}

// errFound ends a read that found what it looked for.
var errFound = errors.New("found")
