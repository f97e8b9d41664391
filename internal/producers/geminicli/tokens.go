package geminicli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Tokens is a token count as the CLI's --output-format json stats give it
// (stats.models.MODEL.roles.ROLE.tokens): prompt includes cached, input is
// prompt less cached, and total is what the API reported.
type Tokens struct {
	Input      int `json:"input"`
	Prompt     int `json:"prompt"`
	Candidates int `json:"candidates"`
	Total      int `json:"total"`
	Cached     int `json:"cached"`
	Thoughts   int `json:"thoughts"`
	Tool       int `json:"tool"`
}

func (t *Tokens) add(u Tokens) {
	t.Input += u.Input
	t.Prompt += u.Prompt
	t.Candidates += u.Candidates
	t.Total += u.Total
	t.Cached += u.Cached
	t.Thoughts += u.Thoughts
	t.Tool += u.Tool
}

// MessageTokens is a gemini message's tokens as the session file writes
// them: input is the prompt (cached included), output the candidates.
type MessageTokens struct {
	Input    int `json:"input"`
	Output   int `json:"output"`
	Cached   int `json:"cached"`
	Thoughts int `json:"thoughts"`
	Tool     int `json:"tool"`
	Total    int `json:"total"`
}

// AsStats is the count in the stats' shape.
func (m MessageTokens) AsStats() Tokens {
	return Tokens{Input: m.Input - m.Cached, Prompt: m.Input, Candidates: m.Output, Total: m.Total,
		Cached: m.Cached, Thoughts: m.Thoughts, Tool: m.Tool}
}

// Accounting is the CLI's own token accounting of a recorded scenario
// (tokens.json), and the sessions' per-message counts beside it.
type Accounting struct {
	// Runs has, for each run, its stats by model and role (main,
	// subagent, utility_router, utility_compressor, …), null for a run
	// that printed none (an error, --list-sessions).
	Runs []map[string]map[string]Tokens `json:"runs"`
	// Roles sums Runs by role: the CLI's own account.
	Roles map[string]Tokens `json:"roles"`
	// Sessions sums, for each session, the tokens of its distinct gemini
	// messages (the last line of each id, over all its files): the figure
	// a reader of the files can make, equal to Roles main (the sessions of
	// kind main) and subagent. The router, compression and summary calls
	// are in no session file.
	Sessions []SessionTokens `json:"sessions"`
}

// SessionTokens is one session's count from its files.
type SessionTokens struct {
	Session  string        `json:"session"`
	Kind     string        `json:"kind"`
	Files    []string      `json:"files"` // relative to ~/.gemini
	Messages int           `json:"messages"`
	Tokens   MessageTokens `json:"tokens"`
}

// Count makes the accounting from the runs and the session files under
// geminiDir (a copy of ~/.gemini).
func Count(geminiDir string, steps []StepResult) (*Accounting, error) {
	a := &Accounting{Roles: map[string]Tokens{}, Sessions: []SessionTokens{}}
	for _, st := range steps {
		o := st.output()
		if o.Stats == nil {
			a.Runs = append(a.Runs, nil)
			continue
		}
		run := map[string]map[string]Tokens{}
		for model, m := range o.Stats.Models {
			run[model] = map[string]Tokens{}
			for role, r := range m.Roles {
				run[model][role] = r.Tokens
				t := a.Roles[role]
				t.add(r.Tokens)
				a.Roles[role] = t
			}
		}
		a.Runs = append(a.Runs, run)
	}
	files, err := sessionFiles(geminiDir)
	if err != nil {
		return nil, err
	}
	type session struct {
		SessionTokens
		tokens map[string]MessageTokens // by message id, the last seen
	}
	bySession := map[string]*session{}
	for _, f := range files {
		recs, err := ReadSessionFile(filepath.Join(geminiDir, f))
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if r.SessionID == "" {
				continue
			}
			s := bySession[r.SessionID]
			if s == nil {
				s = &session{SessionTokens: SessionTokens{Session: r.SessionID, Kind: r.Kind}, tokens: map[string]MessageTokens{}}
				bySession[r.SessionID] = s
			}
			if n := len(s.Files); n == 0 || s.Files[n-1] != f {
				s.Files = append(s.Files, f)
			}
			if r.Message != nil && r.Message.Type == "gemini" && r.Message.Tokens != nil {
				s.tokens[r.Message.ID] = *r.Message.Tokens
			}
		}
	}
	for _, id := range harness.SortedKeys(bySession) {
		s := bySession[id]
		s.Messages = len(s.tokens)
		for _, t := range s.tokens {
			s.Tokens.Input += t.Input
			s.Tokens.Output += t.Output
			s.Tokens.Cached += t.Cached
			s.Tokens.Thoughts += t.Thoughts
			s.Tokens.Tool += t.Tool
			s.Tokens.Total += t.Total
		}
		a.Sessions = append(a.Sessions, s.SessionTokens)
	}
	return a, nil
}

// KindTotal sums the sessions of kind (main, subagent), in the stats'
// shape.
func (a *Accounting) KindTotal(kind string) Tokens {
	var m MessageTokens
	for _, s := range a.Sessions {
		if s.Kind == kind {
			m.Input += s.Tokens.Input
			m.Output += s.Tokens.Output
			m.Cached += s.Tokens.Cached
			m.Thoughts += s.Tokens.Thoughts
			m.Tool += s.Tokens.Tool
			m.Total += s.Tokens.Total
		}
	}
	return m.AsStats()
}

// sessionFiles are the session files under geminiDir/tmp, relative to
// geminiDir, in order.
func sessionFiles(geminiDir string) ([]string, error) {
	var files []string
	root := filepath.Join(geminiDir, "tmp")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.Contains(filepath.ToSlash(p), "/chats/") && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
			rel, _ := filepath.Rel(geminiDir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if os.IsNotExist(err) {
		err = nil
	}
	sort.Strings(files)
	return files, err
}

// A SessionRecord is one record of a session file, in the order written:
// a header (SessionID, Kind), a message, or a control line ($set,
// $rewindTo). The single-JSON form reads as its header then its messages.
type SessionRecord struct {
	SessionID string // of the header, carried on to the records after it
	Kind      string
	Line      map[string]any // the record as written
	Message   *Message       // when the record is a message
}

// A Message is the part of a session message the harness reads.
type Message struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Tokens *MessageTokens `json:"tokens"`
}

// ReadSessionFile reads a JSONL session file, or a single-JSON one
// (.json).
func ReadSessionFile(path string) ([]SessionRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	if strings.HasSuffix(path, ".json") {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var msgs []json.RawMessage
		json.Unmarshal(doc["messages"], &msgs)
		delete(doc, "messages")
		head, _ := json.Marshal(doc)
		lines = append([][]byte{head}, rawLines(msgs)...)
	} else {
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var recs []SessionRecord
	session, kind := "", ""
	for i, l := range lines {
		var line map[string]any
		if err := json.Unmarshal(l, &line); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		r := SessionRecord{Line: line}
		if id, ok := line["sessionId"].(string); ok && line["type"] == nil {
			session = id
			kind, _ = line["kind"].(string)
		}
		if _, ok := line["type"].(string); ok {
			var m Message
			json.Unmarshal(l, &m)
			r.Message = &m
		}
		r.SessionID, r.Kind = session, kind
		recs = append(recs, r)
	}
	return recs, nil
}

func rawLines(msgs []json.RawMessage) [][]byte {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m
	}
	return out
}
