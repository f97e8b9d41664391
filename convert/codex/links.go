package codex

import (
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// spawn is a SubAgentActivity item: a sub-agent thread started (or
// ended) by a call of the rollout.
type spawn struct {
	callID, kind, thread, agentPath string
}

// readSpawn reads the SubAgentActivity item of an item_completed line;
// ok is false for any other line.
func readSpawn(line []byte) (spawn, bool) {
	var s spawn
	var isActivity bool
	member(line, "payload", func(p []byte) {
		member(p, "item", func(item []byte) {
			jsonscan.Object(item, func(k, v []byte) error {
				switch string(k) {
				case "type":
					t, _ := jsonscan.String(v)
					isActivity = t == "SubAgentActivity"
				case "id":
					s.callID, _ = jsonscan.String(v)
				case "kind":
					s.kind, _ = jsonscan.String(v)
				case "agent_thread_id":
					s.thread, _ = jsonscan.String(v)
				case "agent_path":
					s.agentPath, _ = jsonscan.String(v)
				}
				return nil
			})
		})
	})
	return s, isActivity && s.thread != ""
}

// member calls fn with the value of the object b's member key when it is
// an object.
func member(b []byte, key string, fn func(v []byte)) {
	jsonscan.Object(b, func(k, v []byte) error {
		if string(k) == key && len(v) > 0 && v[0] == '{' {
			fn(v)
		}
		return nil
	})
}

// agentType is a sub-agent's type as Codex names it: the last part of its
// path (/root/NAME).
func agentType(agentPath string) string {
	return agentPath[strings.LastIndexByte(agentPath, '/')+1:]
}

// rolloutIn is the rollout of thread: beside a rollout in dir, or
// elsewhere in the sessions tree dir is a day of (SESSIONS/YYYY/MM/DD: a
// sub-agent may start after midnight); "" when there is none.
func rolloutIn(dir, thread string) string {
	if dir == "" || thread == "" || strings.ContainsAny(thread, `/\*?[`) {
		return ""
	}
	for _, pattern := range []string{
		filepath.Join(paths.GlobEscape(dir), "rollout-*-"+thread+".jsonl"),
		filepath.Join(paths.GlobEscape(filepath.Join(dir, "..", "..", "..")), "*", "*", "*", "rollout-*-"+thread+".jsonl"),
	} {
		m, _ := filepath.Glob(pattern)
		for _, p := range m {
			if paths.IsFile(p) {
				return filepath.Clean(p)
			}
		}
		if !isDay(dir) {
			break
		}
	}
	return ""
}

// isDay reports whether dir is a day of a sessions tree (YYYY/MM/DD).
func isDay(dir string) bool {
	day, month, year := filepath.Base(dir), filepath.Base(filepath.Dir(dir)), filepath.Base(filepath.Dir(filepath.Dir(dir)))
	return digits(day, 2) && digits(month, 2) && digits(year, 4)
}

func digits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Subagents lists the rollouts of the sub-agent threads the rollout at
// path spawned, in the order they started (its SubAgentActivity items;
// the other lines are only searched), each found by its thread id beside
// it or in the same sessions tree. A sub-agent whose rollout is not there
// is left out.
func Subagents(path string) ([]model.Link, error) {
	var out []model.Link
	seen := map[string]bool{}
	dir := filepath.Dir(path)
	err := jsonl.Grep(path, []byte(`"SubAgentActivity"`), func(line []byte) bool {
		s, ok := readSpawn(line)
		if !ok || s.kind != "started" || seen[s.thread] {
			return true
		}
		seen[s.thread] = true
		if p := rolloutIn(dir, s.thread); p != "" {
			out = append(out, model.Link{Path: p, CallID: s.callID, AgentID: s.thread, Type: agentType(s.agentPath)})
		}
		return true
	})
	return out, err
}

// ParentOf is the rollout of the thread that spawned the sub-agent whose
// rollout is at path: its first line (session_meta) names the parent
// thread (parent_thread_id), whose rollout is found by that id beside it
// or in the same sessions tree, and the parent's spawn call is searched
// for in it by the sub-agent's thread id. ok is false for a main
// thread's rollout or when the parent's is not there.
func ParentOf(path string) (model.Link, bool, error) {
	var thread, parent, agentPath string
	err := jsonl.Head(path, 1, func(line []byte) bool {
		member(line, "payload", func(p []byte) {
			jsonscan.Object(p, func(k, v []byte) error {
				switch string(k) {
				case "id":
					thread, _ = jsonscan.String(v)
				case "parent_thread_id":
					parent, _ = jsonscan.String(v)
				case "agent_path":
					agentPath, _ = jsonscan.String(v)
				case "source":
					member(v, "subagent", func(sub []byte) {
						member(sub, "thread_spawn", func(ts []byte) {
							jsonscan.Object(ts, func(k, v []byte) error {
								switch string(k) {
								case "parent_thread_id":
									if parent == "" {
										parent, _ = jsonscan.String(v)
									}
								case "agent_path":
									if agentPath == "" {
										agentPath, _ = jsonscan.String(v)
									}
								}
								return nil
							})
						})
					})
				}
				return nil
			})
		})
		return false
	})
	if err != nil || parent == "" || thread == "" {
		return model.Link{}, false, err
	}
	p := rolloutIn(filepath.Dir(path), parent)
	if p == "" {
		return model.Link{}, false, nil
	}
	l := model.Link{Path: p, AgentID: thread, Type: agentType(agentPath)}
	err = jsonl.Grep(p, []byte(thread), func(line []byte) bool {
		s, ok := readSpawn(line)
		if ok && s.kind == "started" && s.thread == thread {
			l.CallID = s.callID
			if l.Type == "" {
				l.Type = agentType(s.agentPath)
			}
			return false
		}
		return true
	})
	return l, true, err
}
