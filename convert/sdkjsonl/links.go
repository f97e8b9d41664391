package sdkjsonl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// subMark is what the autopilot puts between a session's name and a
// sub-agent's id in the sub-agent's file name: NAME.sub-ID.jsonl beside
// the session's NAME.rlog, NAME.jsonl and NAME.json.
const subMark = ".sub-"

// SubFile reports whether the file at path is named as an autopilot
// sub-agent's (NAME.sub-ID.jsonl), and its session's NAME and its ID.
func SubFile(path string) (name, id string, ok bool) {
	stem, found := strings.CutSuffix(filepath.Base(path), ".jsonl")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(stem, subMark)
	if i <= 0 || i+len(subMark) == len(stem) {
		return "", "", false
	}
	return stem[:i], stem[i+len(subMark):], true
}

// subHeader is what the first line of a sub-agent's file may say:
// {"type":"header","session_id":"sub-ID","agent_type":…,"started_at":…}.
func subHeader(path string) (agentType, started string) {
	jsonl.Head(path, 1, func(line []byte) bool {
		header := false
		var typ, at string
		jsonscan.Object(line, func(k, v []byte) error {
			switch string(k) {
			case "type":
				t, _ := jsonscan.String(v)
				header = t == "header"
			case "agent_type":
				typ, _ = jsonscan.String(v)
			case "started_at":
				at, _ = jsonscan.String(v)
			}
			return nil
		})
		if header {
			agentType, started = typ, at
		}
		return false
	})
	return agentType, started
}

// Subagents lists the autopilot sub-agent files beside the session file
// at path (NAME.sub-ID.jsonl for NAME.jsonl, NAME.json or NAME.rlog; a
// sub-agent's own, NAME.sub-ID.sub-ID2.jsonl), in the order their
// headers say they started (by name without one). The id is the one the
// session's x: lines carry (id=), which is the call and the agent alike.
func Subagents(path string) ([]model.Link, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(path, filepath.Ext(path))
	files, _ := filepath.Glob(paths.GlobEscape(base) + subMark + "*.jsonl")
	type sub struct {
		model.Link
		started string
	}
	var subs []sub
	for _, f := range files {
		// By name: the folder of what Glob found is path's cleaned.
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), filepath.Base(base)+subMark), ".jsonl")
		if id == "" || strings.Contains(id, subMark) || strings.ContainsAny(id, `/\`) || f == path {
			continue // a sub-agent's sub-agent
		}
		typ, started := subHeader(f)
		subs = append(subs, sub{model.Link{Path: f, CallID: id, AgentID: id, Type: typ}, started})
	}
	slices.SortStableFunc(subs, func(a, b sub) int {
		if c := strings.Compare(a.started, b.started); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	out := make([]model.Link, len(subs))
	for i, s := range subs {
		out[i] = s.Link
	}
	return out, nil
}

// ParentOf is the session file beside an autopilot sub-agent's file
// (NAME.sub-ID.jsonl): NAME.jsonl, else NAME.json, else NAME.rlog (or
// the sub-agent's NAME.sub-ID.jsonl for NAME.sub-ID.sub-ID2.jsonl). ok is
// false for a file not named as a sub-agent's, or when none is there.
func ParentOf(path string) (model.Link, bool, error) {
	name, id, ok := SubFile(path)
	if !ok {
		return model.Link{}, false, nil
	}
	if _, err := os.Stat(path); err != nil {
		return model.Link{}, false, err
	}
	base := filepath.Join(filepath.Dir(path), name)
	for _, ext := range []string{".jsonl", ".json", ".rlog"} {
		if paths.IsFile(base + ext) {
			typ, _ := subHeader(path)
			return model.Link{Path: base + ext, CallID: id, AgentID: id, Type: typ}, true, nil
		}
	}
	return model.Link{}, false, nil
}
