package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// subagent is a sub-agent transcript with what its meta file says.
type subagent struct {
	path, id  string
	toolUseID string
	agentType string
	// depth is how deep it was started: 1 by the session, 2 by one of
	// its sub-agents... (the meta file's spawnDepth; 1 when it has none,
	// as Claude Code before nested sub-agents wrote).
	depth int
	// start is the time of its first record, which orders sub-agents.
	start string
}

// readSubagent reads what the meta file beside a sub-agent transcript
// and its first records say.
func readSubagent(path, id string) subagent {
	s := subagent{path: path, id: id, depth: 1}
	if b, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".meta.json"); err == nil {
		var m struct {
			ToolUseID  string `json:"toolUseId"`
			AgentType  string `json:"agentType"`
			SpawnDepth int    `json:"spawnDepth"`
		}
		if json.Unmarshal(b, &m) == nil {
			s.toolUseID, s.agentType = m.ToolUseID, m.AgentType
			if m.SpawnDepth > 1 {
				s.depth = m.SpawnDepth
			}
		}
	}
	jsonl.Head(path, 5, func(line []byte) bool {
		jsonscan.Object(line, func(k, v []byte) error {
			if string(k) == "timestamp" && s.start == "" {
				s.start, _ = jsonscan.String(v)
			}
			return nil
		})
		return s.start == ""
	})
	return s
}

func (s subagent) link() model.Link {
	return model.Link{Path: s.path, CallID: s.toolUseID, AgentID: s.id, Type: s.agentType}
}

// sessionSubagents are the sub-agent transcripts of the session whose
// main transcript is main, at every depth.
func sessionSubagents(main string) []subagent {
	files := SubagentFiles(main)
	sid := fileSessionID(main)
	out := make([]subagent, 0, len(files))
	for id, p := range files {
		// A shared subagents/ folder holds other sessions' too.
		if filepath.Base(filepath.Dir(filepath.Dir(p))) != strings.TrimSuffix(filepath.Base(main), ".jsonl") && fileSessionID(p) != sid {
			continue
		}
		out = append(out, readSubagent(p, id))
	}
	slices.SortFunc(out, func(a, b subagent) int {
		if c := strings.Compare(a.start, b.start); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	return out
}

// holdsCall reports whether the transcript at path holds the tool_use
// block id (the call that started a sub-agent).
func holdsCall(path, id string) bool {
	if id == "" {
		return false
	}
	needle := []byte(`"id":"` + id + `"`)
	found := false
	jsonl.Grep(path, needle, func([]byte) bool { found = true; return false })
	return found
}

// mainOf is the session transcript a sub-agent transcript at path belongs
// to: SESSION.jsonl beside SESSION/subagents/, or the transcript of the
// same session beside a shared subagents/ folder.
func mainOf(path string) (string, bool) {
	dir := filepath.Dir(filepath.Dir(path))
	if p := dir + ".jsonl"; paths.IsFile(p) {
		return p, true
	}
	sid := fileSessionID(path)
	if sid == "" {
		return "", false
	}
	if p := filepath.Join(dir, sid+".jsonl"); paths.IsFile(p) {
		return p, true
	}
	m, _ := filepath.Glob(filepath.Join(paths.GlobEscape(dir), "*.jsonl"))
	for _, p := range m {
		if fileSessionID(p) == sid {
			return p, true
		}
	}
	return "", false
}

// agentID is the sub-agent id an agent-ID.jsonl file name holds.
func agentID(path string) string {
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "agent-"), ".jsonl")
}

// Subagents lists the sub-agent transcripts the transcript at path
// started, in the order they started: for a session, those of its
// subagents/ folder its meta files put at depth 1; for a sub-agent, those
// one deeper whose call its transcript holds. It reads the meta files
// and the first records of the sub-agents' transcripts, and a
// sub-agent's own transcript through.
func Subagents(path string) ([]model.Link, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	main, depth := path, 0
	if PartOf(path) {
		m, ok := mainOf(path)
		if !ok {
			return nil, nil
		}
		main = m
		depth = readSubagent(path, agentID(path)).depth
	}
	var out []model.Link
	for _, s := range sessionSubagents(main) {
		if s.path == path || s.depth != depth+1 || depth > 0 && !holdsCall(path, s.toolUseID) {
			continue
		}
		out = append(out, s.link())
	}
	return out, nil
}

// ParentOf is the transcript of the session (or sub-agent) that started
// the sub-agent whose transcript is at path; ok is false for a
// transcript no session started. The session's transcript is found by
// name and first records; a nested sub-agent's parent, among the
// session's sub-agents one less deep, by the call it holds.
func ParentOf(path string) (model.Link, bool, error) {
	if _, err := os.Stat(path); err != nil {
		return model.Link{}, false, err
	}
	if !PartOf(path) {
		return model.Link{}, false, nil
	}
	main, ok := mainOf(path)
	if !ok {
		return model.Link{}, false, nil
	}
	me := readSubagent(path, agentID(path))
	l := me.link()
	l.Path = main
	if me.depth > 1 {
		for _, s := range sessionSubagents(main) {
			if s.depth == me.depth-1 && holdsCall(s.path, me.toolUseID) {
				l.Path = s.path
				break
			}
		}
	}
	return l, true, nil
}
