package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
)

// Places are where the sessions of a folder are: Files are sessions of
// the folder; Maybe are session files that are the folder's when their
// own header says it ran there (Codex CLI keeps every folder's sessions
// together).
type Places struct {
	Files []string
	Maybe []string
	// Folders are where a new session of the folder appears: a change of
	// their modification times may be one (what a follower watches).
	Folders []string
}

// Homes are where the agents keep their sessions: Claude Code's
// configuration folder (CLAUDE_CONFIG_DIR, else ~/.claude), Codex CLI's
// (CODEX_HOME, else ~/.codex), Gemini CLI's (~/.gemini).
type Homes struct {
	Claude, Codex, Gemini string
}

// DefaultHomes are the agents' folders for this user, as the agents find
// them.
func DefaultHomes() Homes {
	home, _ := os.UserHomeDir()
	h := Homes{Claude: os.Getenv("CLAUDE_CONFIG_DIR"), Codex: os.Getenv("CODEX_HOME")}
	if h.Claude == "" && home != "" {
		h.Claude = filepath.Join(home, ".claude")
	}
	if h.Codex == "" && home != "" {
		h.Codex = filepath.Join(home, ".codex")
	}
	if home != "" {
		h.Gemini = filepath.Join(home, ".gemini")
	}
	return h
}

// Discover finds the sessions of the folder dir (absolute): its own logs
// (the .rlog files in it, and every session under docs/logs/, where the
// autopilot writes them), Claude Code's (projects/ENCODED-DIR/), Gemini
// CLI's (tmp/PROJECT/chats/) and, to be filtered by their header's cwd,
// Codex CLI's (sessions/).
func Discover(dir string, homes Homes) Places {
	var p Places
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".rlog") {
				p.Files = append(p.Files, filepath.Join(dir, e.Name()))
			}
		}
	}
	logs := filepath.Join(dir, "docs", "logs")
	p.Files = append(p.Files, Under(logs)...)
	p.Folders = append(p.Folders, dir, logs)
	if homes.Claude != "" {
		project := filepath.Join(homes.Claude, "projects", ClaudeProject(dir))
		p.Files = append(p.Files, topSessions(project)...)
		p.Folders = append(p.Folders, project)
	}
	if homes.Gemini != "" {
		for _, project := range geminiProjects(homes.Gemini, dir) {
			chats := filepath.Join(homes.Gemini, "tmp", project, "chats")
			p.Files = append(p.Files, topSessions(chats)...)
			p.Folders = append(p.Folders, chats)
		}
	}
	if homes.Codex != "" {
		// Codex CLI writes sessions/YYYY/MM/DD/: today's folder (local
		// time and UTC) is where a new one appears.
		root := filepath.Join(homes.Codex, "sessions")
		p.Maybe = Under(root)
		now := time.Now()
		for _, t := range []time.Time{now, now.UTC()} {
			p.Folders = append(p.Folders, filepath.Join(root, t.Format("2006"), t.Format("01"), t.Format("02")))
		}
	}
	return p
}

// ClaudeProject is the name of the folder Claude Code keeps the sessions
// run in dir under: dir with every character but ASCII letters and digits
// made a dash.
func ClaudeProject(dir string) string {
	b := []byte(dir)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// geminiProjects are the names of the folders under Gemini CLI's tmp/
// that hold dir's sessions: the one projects.json maps dir to, those
// whose .project_root names dir, and the one named by the SHA-256 of dir
// (older versions).
func geminiProjects(home, dir string) []string {
	var out []string
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if b, err := os.ReadFile(filepath.Join(home, "projects.json")); err == nil && json.Unmarshal(b, &reg) == nil {
		if name, ok := reg.Projects[dir]; ok && name != "" && !strings.ContainsAny(name, `/\`) && name != ".." {
			out = append(out, name)
		}
	}
	tmp := filepath.Join(home, "tmp")
	if ents, err := os.ReadDir(tmp); err == nil {
		for _, e := range ents {
			if !e.IsDir() || slices.Contains(out, e.Name()) {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(tmp, e.Name(), ".project_root")); err == nil && strings.TrimSpace(string(b)) == dir {
				out = append(out, e.Name())
			}
		}
	}
	sum := sha256.Sum256([]byte(dir))
	if h := hex.EncodeToString(sum[:]); !slices.Contains(out, h) {
		out = append(out, h)
	}
	return out
}

// topSessions are the files directly in folder that may be sessions (not
// those in its folders: a session's own parts).
func topSessions(folder string) []string {
	ents, err := os.ReadDir(folder)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(folder, e.Name())
		if e.Type().IsRegular() && candidate(p) {
			out = append(out, p)
		}
	}
	return out
}

// Under are the files under folder, recursively, that may be sessions
// (candidate), hidden folders too, as `rlog-ls stats` and `check` walk
// them; Claude Code's subagents/ and tool-results/ folders are passed over
// (a session's parts).
func Under(folder string) []string {
	var out []string
	filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != folder && (d.Name() == "subagents" || d.Name() == "tool-results") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && candidate(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// candidate reports whether the file at p may be a session, by its name:
// an .rlog, .jsonl or .json file (not Claude Code's .meta.json). Whether
// it is one (isSession) is kept in the index.
func candidate(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".rlog" || (ext == ".jsonl" || ext == ".json") && !strings.HasSuffix(p, ".meta.json")
}

// isSession reports whether the candidate d looked at is a session: an
// .rlog file, or a file rlog-ls reads whole on its own
// (convert.SessionFile: not a sub-agent's file its session reads).
func isSession(d convert.Detected) bool {
	if strings.EqualFold(filepath.Ext(d.Path), ".rlog") {
		return true
	}
	_, ok := d.Session()
	return ok
}

// readable reports whether the file d looked at, named by the user, is a session
// rlog-ls reads: rlog (by its name or its content), or another format it
// reads (a sub-agent's file too, when named).
func readable(d convert.Detected) bool {
	if strings.EqualFold(filepath.Ext(d.Path), ".rlog") {
		return true
	}
	if d.Err != nil {
		return false
	}
	fi, _ := convert.Lookup(d.Format)
	return fi.CanRead()
}

// RequestFor is what to list for paths (files, and the sessions under
// folders), or with none the sessions of the folder cwd (Discover).
func RequestFor(paths []string, cwd string, homes Homes) Request {
	req := Request{Cwd: cwd}
	if len(paths) == 0 {
		p := Discover(cwd, homes)
		req.Candidates, req.Maybe, req.Folders = p.Files, p.Maybe, p.Folders
		return req
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			req.Candidates = append(req.Candidates, Under(p)...)
			req.Folders = append(req.Folders, p)
		} else {
			req.Files = append(req.Files, p)
		}
	}
	return req
}
