package gemini

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// invocation is a call that started a sub-agent: a toolCalls entry with
// an agentId (invoke_agent).
type invocation struct {
	callID, agentID, agentName string
}

// invocations calls fn with each toolCalls entry of a line that names a
// sub-agent: a message's, or one of the messages a $set line replaces.
func invocations(line []byte, fn func(invocation)) {
	message := func(m []byte) {
		jsonscan.Object(m, func(k, v []byte) error {
			if string(k) != "toolCalls" || len(v) == 0 || v[0] != '[' {
				return nil
			}
			return jsonscan.Array(v, func(_ int, c []byte) error {
				var in invocation
				jsonscan.Object(c, func(k, v []byte) error {
					switch string(k) {
					case "id":
						in.callID, _ = jsonscan.String(v)
					case "agentId":
						in.agentID, _ = jsonscan.String(v)
					case "args":
						jsonscan.Object(v, func(k, v []byte) error {
							if string(k) == "agent_name" {
								in.agentName, _ = jsonscan.String(v)
							}
							return nil
						})
					}
					return nil
				})
				if in.agentID != "" {
					fn(in)
				}
				return nil
			})
		})
	}
	jsonscan.Object(line, func(k, v []byte) error {
		if string(k) == "$set" {
			jsonscan.Object(v, func(k, v []byte) error {
				if string(k) == "messages" && len(v) > 0 && v[0] == '[' {
					jsonscan.Array(v, func(_ int, m []byte) error { message(m); return nil })
				}
				return nil
			})
		}
		return nil
	})
	message(line)
}

// sessionHeader is what a session file's first line says of it.
type sessionHeader struct {
	sessionID, kind string
}

func readHeader(path string) (sessionHeader, error) {
	var h sessionHeader
	err := jsonl.Head(path, 1, func(line []byte) bool {
		jsonscan.Object(line, func(k, v []byte) error {
			switch string(k) {
			case "sessionId":
				h.sessionID, _ = jsonscan.String(v)
			case "kind":
				h.kind, _ = jsonscan.String(v)
			}
			return nil
		})
		return false
	})
	return h, err
}

// subagentFolder is the folder of the session's sub-agent files
// (chats/SESSION_ID/) for the session file at path, which is the
// session's own file or one of those sub-agents'.
func subagentFolder(path string, h sessionHeader) (string, bool) {
	if isSubagentFile(path, h) {
		return filepath.Dir(path), true
	}
	if !validName(h.sessionID) || h.sessionID == "" {
		return "", false
	}
	return filepath.Join(filepath.Dir(path), h.sessionID), true
}

// isSubagentFile reports whether the file at path, whose first line is
// h, is a sub-agent's: it says so (kind subagent), or lies in the folder
// of a session whose file is beside the folder (as OwnSession decides).
func isSubagentFile(path string, h sessionHeader) bool {
	if h.kind == "subagent" {
		return true
	}
	return strings.EqualFold(filepath.Ext(path), ".jsonl") && !strings.HasPrefix(filepath.Base(path), "session-") && !OwnSession(path)
}

// Subagents lists the files of the sub-agents the session file at path
// started (chats/SESSION_ID/AGENT_ID.jsonl), in the order its
// invoke_agent calls name them (the other lines are only searched); a
// session's own file also takes, at the end in name order, the files of
// its folder that no call of the session names (as its reading splices
// them in).
func Subagents(path string) ([]model.Link, error) {
	h, err := readHeader(path)
	if err != nil {
		return nil, err
	}
	folder, ok := subagentFolder(path, h)
	if !ok {
		return nil, nil
	}
	var out []model.Link
	named := map[string]bool{}
	add := func(in invocation) {
		if named[in.agentID] || !validName(in.agentID) {
			return
		}
		named[in.agentID] = true
		if p := filepath.Join(folder, in.agentID+".jsonl"); paths.IsFile(p) && p != path {
			out = append(out, model.Link{Path: p, CallID: in.callID, AgentID: in.agentID, Type: in.agentName})
		}
	}
	if err := jsonl.Grep(path, []byte(`"agentId"`), func(line []byte) bool {
		invocations(line, add)
		return true
	}); err != nil {
		return nil, err
	}
	if isSubagentFile(path, h) || stub(path) {
		return out, nil
	}
	files, _ := filepath.Glob(filepath.Join(paths.GlobEscape(folder), "*.jsonl"))
	sort.Strings(files)
	// A file another sub-agent's call names is that sub-agent's.
	for _, f := range files {
		jsonl.Grep(f, []byte(`"agentId"`), func(line []byte) bool {
			invocations(line, func(in invocation) { named[in.agentID] = true })
			return true
		})
	}
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if !named[id] {
			out = append(out, model.Link{Path: f, AgentID: id})
		}
	}
	return out, nil
}

// ParentOf is the file of the session (or sub-agent) that started the
// sub-agent whose file is at path: the session's file beside the folder
// (session-TIME-ID8.jsonl, by its first line), or the sub-agent's file in
// the folder whose call names this one. ok is false for a file that is
// not a sub-agent's, or whose session's file is not there.
func ParentOf(path string) (model.Link, bool, error) {
	h, err := readHeader(path)
	if err != nil {
		return model.Link{}, false, err
	}
	if !isSubagentFile(path, h) {
		return model.Link{}, false, nil
	}
	folder := filepath.Dir(path)
	session := filepath.Base(folder)
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(session) < 8 || !validName(session) {
		return model.Link{}, false, nil
	}
	mains, _ := filepath.Glob(filepath.Join(paths.GlobEscape(filepath.Dir(folder)), "session-*-"+paths.GlobEscape(session[:8])+".jsonl"))
	sort.Strings(mains)
	main := ""
	for _, m := range mains {
		if mh, err := readHeader(m); err == nil && mh.sessionID == session && !stub(m) {
			main = m
			break
		}
	}
	if main == "" {
		return model.Link{}, false, nil
	}
	l := model.Link{Path: main, AgentID: id}
	siblings, _ := filepath.Glob(filepath.Join(paths.GlobEscape(folder), "*.jsonl"))
	sort.Strings(siblings)
	for _, f := range append([]string{main}, siblings...) {
		if f == path {
			continue
		}
		found := false
		jsonl.Grep(f, []byte(id), func(line []byte) bool {
			invocations(line, func(in invocation) {
				if in.agentID == id && !found {
					found = true
					l.CallID, l.Type = in.callID, in.agentName
				}
			})
			return !found
		})
		if found {
			l.Path = f
			break
		}
	}
	return l, true, nil
}
