package codex

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// Usage is Codex's token usage, as its rollouts and --json events write
// it: cached input is part of input, reasoning part of output, and the
// total is input plus output.
type Usage struct {
	Input     int `json:"input_tokens"`
	Cached    int `json:"cached_input_tokens"`
	Output    int `json:"output_tokens"`
	Reasoning int `json:"reasoning_output_tokens"`
	Total     int `json:"total_tokens,omitempty"`
}

// add adds u's counts to t.
func (t *Usage) add(u Usage) {
	t.Input += u.Input
	t.Cached += u.Cached
	t.Output += u.Output
	t.Reasoning += u.Reasoning
	t.Total += u.Total
}

// components is u without its total, for comparing with a --json
// turn.completed usage, which has none.
func (u Usage) components() Usage { u.Total = 0; return u }

// Tokens is the CLI's own token accounting of a recorded scenario, the
// figures a reader of its rollouts must reproduce (tokens.json).
type Tokens struct {
	// Threads has one entry per rollout, in file name order.
	Threads []ThreadTokens `json:"threads"`
	// Runs is, for each run, the usage of its last turn.completed event
	// in --json: the main thread's running total at the end of the run
	// (compactions included, sub-agents not), nil when no turn completed.
	Runs []*Usage `json:"runs"`
}

// ThreadTokens is one rollout's accounting.
type ThreadTokens struct {
	File     string `json:"file"` // relative to CODEX_HOME
	Thread   string `json:"thread"`
	Subagent bool   `json:"subagent,omitempty"`
	// Records is the number of token_usage_record lines (one per API
	// response) and Usage their sum: the thread's total.
	Records int   `json:"records"`
	Usage   Usage `json:"usage"`
	// LastTotal is the last token_count event's info.total_token_usage,
	// the running total Codex shows (which a failed request can set to
	// the context window with every component 0).
	LastTotal *Usage `json:"lastTotal,omitempty"`
}

// rolloutLine is the part of a rollout line the accounting reads.
type rolloutLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Source json.RawMessage `json:"source"`
		Usage  *Usage          `json:"usage"`
		Info   *struct {
			Total *Usage `json:"total_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

// CountTokens reads the rollouts under codexHome/sessions and the runs'
// events.
func CountTokens(codexHome string, steps []StepResult) (*Tokens, error) {
	t := &Tokens{Threads: []ThreadTokens{}}
	for _, st := range steps {
		t.Runs = append(t.Runs, st.TurnUsage())
	}
	var files []string
	err := filepath.WalkDir(filepath.Join(codexHome, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, p := range files {
		th, err := threadTokens(p)
		if err != nil {
			return nil, err
		}
		th.File, _ = filepath.Rel(codexHome, p)
		th.File = filepath.ToSlash(th.File)
		t.Threads = append(t.Threads, th)
	}
	return t, nil
}

func threadTokens(path string) (ThreadTokens, error) {
	var th ThreadTokens
	err := harness.ScanLines(path, func(n int, raw []byte) error {
		var l rolloutLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		switch {
		case l.Type == "session_meta" && th.Thread == "":
			// A forked rollout has its parent's session_meta second.
			th.Thread = l.Payload.ID
			th.Subagent = strings.Contains(string(l.Payload.Source), `"subagent"`)
		case l.Type == "token_usage_record" && l.Payload.Usage != nil:
			th.Records++
			th.Usage.add(*l.Payload.Usage)
		case l.Type == "event_msg" && l.Payload.Type == "token_count" && l.Payload.Info != nil && l.Payload.Info.Total != nil:
			th.LastTotal = l.Payload.Info.Total
		}
		return nil
	})
	return th, err
}

// main is the accounting of the main thread (the first not a sub-agent).
func (t *Tokens) main() *ThreadTokens {
	for i := range t.Threads {
		if !t.Threads[i].Subagent {
			return &t.Threads[i]
		}
	}
	return nil
}
