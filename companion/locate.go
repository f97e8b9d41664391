package companion

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/claude"
)

// Files are a log's companion files.
type Files struct {
	// Main is the companion: NAME.jsonl (autopilot JSONL or Claude Code
	// transcript) or NAME.json (autopilot trajectory) beside NAME.rlog.
	Main string
	// Subagents maps a subagent's id to its own file: NAME.sub-ID.jsonl
	// beside the log (the autopilot's), or a Claude Code transcript's
	// subagents/agent-ID.jsonl (under NAME/ or beside it).
	Subagents map[string]string
}

// Formats are the formats whose files a companion indexes and joins to a
// log's lines; a session in another format has no companion.
var Formats = []convert.Format{convert.Claude, convert.SDKJSONL, convert.Trajectory, convert.Codex, convert.Gemini}

// convertedRlog is the ending rlog-ls convert gives the rlog it writes
// when it names its output after the input: NAME.jsonl converts to
// NAME.converted.rlog.
func convertedRlog() string {
	fi, _ := convert.Lookup(convert.Rlog)
	return fi.Extension
}

// Locate finds the companion of the log at rlogPath: a file with the same
// name and the extension .jsonl, else .json (for NAME.converted.rlog, the
// name rlog-ls convert gives a conversion, NAME.jsonl or NAME.json). ok is
// false when there is none.
func Locate(rlogPath string) (Files, bool) {
	for _, c := range convert.CompanionNames(rlogPath) {
		if isFile(c) {
			return FilesOf(c), true
		}
	}
	return Files{}, false
}

// FilesOf are the files of a session whose main file is main: main itself
// and its subagent files, found as Locate finds those of a log's companion.
// For a session shown without a log (an rlog view of it), whose companion
// it is.
func FilesOf(main string) Files {
	return Files{Main: main, Subagents: subagentFiles(main)}
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// subagentFiles lists the subagent files beside a JSONL companion.
func subagentFiles(main string) map[string]string {
	if !strings.EqualFold(filepath.Ext(main), ".jsonl") {
		return nil
	}
	out := claude.SubagentFiles(main)
	if f, err := convert.DetectFile(main); err == nil && f == convert.Gemini {
		// Gemini CLI's sub-agents' files, spliced into the session's view.
		links, _ := convert.Subagents(main)
		for _, l := range links {
			out[l.AgentID] = l.Path
		}
	}
	base := strings.TrimSuffix(main, filepath.Ext(main))
	prefix := filepath.Base(base) + ".sub-"
	for _, name := range namesIn(filepath.Dir(base)) {
		if id, ok := strings.CutPrefix(name, prefix); ok && strings.HasSuffix(id, ".jsonl") {
			if id = strings.TrimSuffix(id, ".jsonl"); id != "" {
				out[id] = filepath.Join(filepath.Dir(base), name)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// namesIn are the names in the folder dir, sorted ("" for none when it
// cannot be read). A folder is listed, not globbed, so that a path holding
// a glob's metacharacters (app[2]/) needs no quoting, which differs by
// platform.
func namesIn(dir string) []string {
	entries, _ := os.ReadDir(dir)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// RlogFor returns the log whose companion (or subagent file) the file at
// path is: NAME.rlog for NAME.jsonl, NAME.json and NAME.sub-ID.jsonl, and
// for a Claude Code subagent transcript (NAME/subagents/agent-ID.jsonl or
// DIR/subagents/agent-ID.jsonl) the log of its session. ok is false when
// no such log exists on disk.
func RlogFor(path string) (string, bool) {
	dir, name := filepath.Split(path)
	ext := filepath.Ext(name)
	if !strings.EqualFold(ext, ".jsonl") && !strings.EqualFold(ext, ".json") {
		return "", false
	}
	stem := strings.TrimSuffix(name, ext)
	if strings.HasPrefix(stem, "agent-") && filepath.Base(filepath.Clean(dir)) == "subagents" {
		parent := filepath.Dir(filepath.Clean(dir))
		for _, p := range []string{parent + ".rlog", parent + convertedRlog()} {
			if isFile(p) {
				return p, true // NAME/subagents/agent-ID.jsonl
			}
		}
		// DIR/subagents/agent-ID.jsonl: the log in DIR whose companion has it.
		for _, name := range namesIn(parent) {
			if !strings.HasSuffix(name, ".rlog") {
				continue
			}
			l := filepath.Join(parent, name)
			if f, ok := Locate(l); ok && f.Subagents[strings.TrimPrefix(stem, "agent-")] == path {
				return l, true
			}
		}
		return "", false
	}
	if i := strings.LastIndex(stem, ".sub-"); i > 0 && strings.EqualFold(ext, ".jsonl") {
		if p := filepath.Join(dir, stem[:i]+".rlog"); isFile(p) {
			return p, true
		}
	}
	for _, name := range []string{stem + ".rlog", stem + convertedRlog()} {
		if p := filepath.Join(dir, name); isFile(p) {
			if f, ok := Locate(p); ok && f.Main == path {
				return p, true
			}
		}
	}
	return "", false
}

// Snapshot is a companion as it was at one moment. It is immutable.
type Snapshot struct {
	// Files[0] is the main file; the others are the subagent files that
	// could be indexed, in the order of IDs.
	Files []*Index
	// IDs[i] is the subagent id of Files[i] ("" for the main file).
	IDs []string
	// Subagents are every subagent file found, by id, and the rollouts of
	// the sub-agents a Codex CLI rollout spawned, which are not indexed.
	Subagents map[string]string
}

// Main is the main file's index.
func (s *Snapshot) Main() *Index { return s.Files[0] }

// FileOf returns the position in Files of the subagent id's file.
func (s *Snapshot) FileOf(id string) (int, bool) {
	for i, x := range s.IDs {
		if i > 0 && x == id {
			return i, true
		}
	}
	return 0, false
}

// Counts are the companion's APM counts over all its files, and the time
// it spans.
func (s *Snapshot) Counts() (messages, toolCalls int) {
	for _, ix := range s.Files {
		m, c := ix.Counts()
		messages += m
		toolCalls += c
	}
	return messages, toolCalls
}

// Companion keeps a log's companion files indexed. Current checks the
// files and brings the index up to date: lines appended to a JSONL file
// are read, nothing before them again. Safe for concurrent use.
type Companion struct {
	mu    sync.Mutex
	files Files
	snap  *Snapshot
}

// Open returns a Companion for the files. Nothing is read until Current.
func Open(files Files) *Companion { return &Companion{files: files} }

// Path is the main file.
func (c *Companion) Path() string { return c.files.Main }

// Current returns the companion as the files are now. The Snapshot is the
// same value as the last call's when nothing changed.
func (c *Companion) Current() (*Snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.snap
	var main *Index
	changed := old == nil
	if old == nil {
		ix, err := Build(c.files.Main)
		if err != nil {
			return nil, err
		}
		main = ix
	} else {
		ix, ch, err := old.Files[0].refresh()
		if err != nil {
			return nil, err
		}
		main, changed = ix, ch
	}
	subs := c.files.Subagents
	if changed {
		// New subagent files appear as the session runs.
		subs = subagentFiles(c.files.Main)
		c.files.Subagents = subs
	}
	next := &Snapshot{Files: []*Index{main}, IDs: []string{""}, Subagents: subs}
	ids := make([]string, 0, len(subs))
	for id := range subs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var ix *Index
		if old != nil {
			if i, ok := old.FileOf(id); ok && old.Files[i].Path == subs[id] {
				n, ch, err := old.Files[i].refresh()
				if err == nil {
					ix, changed = n, changed || ch
				}
			}
		}
		if ix == nil {
			n, err := Build(subs[id])
			if err != nil {
				continue // an unreadable subagent file is left out
			}
			ix, changed = n, true
		}
		if main.Format == convert.Claude && ix.SessionID != "" && ix.SessionID != main.SessionID {
			continue // a subagent of another session in a shared subagents/ folder
		}
		next.Files = append(next.Files, ix)
		next.IDs = append(next.IDs, id)
	}
	if !changed && old != nil && len(old.Files) == len(next.Files) {
		return old, nil
	}
	if linked := main.linkedRollouts(); len(linked) > 0 {
		all := make(map[string]string, len(subs)+len(linked))
		for id, p := range linked {
			all[id] = p
		}
		for id, p := range subs {
			all[id] = p
		}
		next.Subagents = all
	}
	c.snap = next
	return next, nil
}
