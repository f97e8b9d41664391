package atif

import (
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/rlog-ls/rlog-ls/convert/internal/paths"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// refKey is the observation result's member that points at a sub-agent's
// trajectory.
const refKey = "subagent_trajectory_ref"

// Subagents lists the trajectories of the sub-agents the ATIF
// trajectory at path refers to (its results' subagent_trajectory_ref
// with a trajectory_path, relative to its folder, that exists), in step
// order. A file that never names a reference is only searched.
func Subagents(path string) ([]model.Link, error) { return subagents(path, Read) }

// SubagentsJSONL is Subagents of an ATIF-JSONL file.
func SubagentsJSONL(path string) ([]model.Link, error) { return subagents(path, ReadJSONL) }

func subagents(path string, read func(io.Reader, model.Sink, *model.Report) error) ([]model.Link, error) {
	found := false
	if err := jsonl.Grep(path, []byte(`"`+refKey+`"`), func([]byte) bool { found = true; return false }); err != nil || !found {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &refSink{dir: filepath.Dir(path), self: path, seen: map[string]bool{}}
	if err := read(f, c, &model.Report{}); err != nil {
		return nil, err
	}
	return c.links, nil
}

// refSink keeps the links of the results that refer to a sub-agent's
// trajectory file.
type refSink struct {
	dir, self string
	seen      map[string]bool
	links     []model.Link
}

func (s *refSink) End(*model.Header) error { return nil }

// BorrowsEvents implements model.Borrower: a link keeps strings.
func (*refSink) BorrowsEvents() bool { return true }

func (s *refSink) Event(_ *model.Header, e *model.Event) error {
	if e.Kind != model.KindToolResult || e.Result == nil {
		return nil
	}
	refs, ok := e.Extra.Get(refKey)
	if !ok || len(refs) == 0 || refs[0] != '[' {
		return nil
	}
	jsonscan.Array(refs, func(_ int, ref []byte) error {
		var l model.Link
		var p, trajectoryID string
		jsonscan.Object(ref, func(k, v []byte) error {
			switch string(k) {
			case "trajectory_path":
				p, _ = jsonscan.String(v)
			case "session_id":
				l.AgentID, _ = jsonscan.String(v)
			case "trajectory_id":
				trajectoryID, _ = jsonscan.String(v)
			case "extra":
				jsonscan.Object(v, func(k, v []byte) error {
					if string(k) == "agent_type" {
						l.Type, _ = jsonscan.String(v)
					}
					return nil
				})
			}
			return nil
		})
		if p == "" {
			return nil // embedded, or named by id only: no file of its own
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.dir, filepath.FromSlash(p))
		}
		if !paths.IsFile(p) || s.seen[p] || p == s.self {
			return nil
		}
		s.seen[p] = true
		if l.AgentID == "" {
			l.AgentID = trajectoryID
		}
		l.Path, l.CallID = p, e.Result.CallID
		s.links = append(s.links, l)
		return nil
	})
	return nil
}

// ParentOf is the ATIF trajectory in the same folder that refers to the
// one at path as a sub-agent's (a trajectory does not name its parent):
// the files of the folder that name it are searched, and the first whose
// references resolve to it is the parent.
func ParentOf(path string) (model.Link, bool, error) {
	me, err := os.Stat(path)
	if err != nil {
		return model.Link{}, false, err
	}
	dir := filepath.Dir(path)
	var candidates []string
	for _, pattern := range []string{"*.json", "*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(paths.GlobEscape(dir), pattern))
		candidates = append(candidates, m...)
	}
	sort.Strings(candidates)
	name := []byte(filepath.Base(path))
	for _, c := range candidates {
		if c == path {
			continue
		}
		names := false
		jsonl.Grep(c, name, func([]byte) bool { names = true; return false })
		if !names {
			continue
		}
		read := Read
		if filepath.Ext(c) == ".jsonl" {
			read = ReadJSONL
		}
		links, err := subagents(c, read)
		if err != nil {
			continue
		}
		for _, l := range links {
			if fi, err := os.Stat(l.Path); err == nil && os.SameFile(fi, me) {
				l.Path = c
				return l, true, nil
			}
		}
	}
	return model.Link{}, false, nil
}
