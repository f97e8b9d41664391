package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/anthropic"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A ResumeRequest asks to resume a Claude Code transcript with the real
// CLI: the transcript is planted as a session in a fresh HOME
// (~/.claude/projects/ENCODED-CWD/ID.jsonl, with the session's folder of
// sub-agents and tool results when it has one beside it) and
// `claude -p PROMPT --resume ID` runs against a stand-in that answers
// anything with one text.
type ResumeRequest struct {
	Transcript string // the JSONL file to plant
	// SessionID plants it under this id; by default the sessionId its
	// records carry, else the file's name without .jsonl.
	SessionID string
	// Cwd is the working directory to run in and plant under; by default
	// the cwd its records carry when that is under the sandbox root, else
	// a fixed folder there.
	Cwd    string
	Prompt string // the next prompt; "Go on." by default
}

// Resumed is what resuming gave (the requests to the model are Messages
// requests).
type Resumed = harness.Resumed[StepResult]

// ResumeAnswer is what the stand-in answers a resumed session.
const ResumeAnswer = "Resumed."

// resumeDir is the fixed folder a resume runs under, in the sandbox.
var resumeDir = harness.FolderOf("claude", "resume")

type resumeJob struct {
	ResumeRequest
	Binary     string
	Transcript []byte
	SessionDir map[string][]byte // the session folder's files, by path relative to it
}

const resumeJobName = "claude-code/resume"

func init() { sandbox.Register(resumeJobName, sandbox.JobOf(runResumeJob)) }

// Resume plants r.Transcript and resumes it with the claude binary in a
// sandbox. It fails when the CLI cannot be run; a CLI that refuses the
// transcript is a result (Run's exit code and stderr say why).
func Resume(ctx context.Context, binary string, r ResumeRequest) (*Resumed, error) {
	data, err := os.ReadFile(r.Transcript)
	if err != nil {
		return nil, err
	}
	job := resumeJob{ResumeRequest: r, Transcript: data, SessionDir: map[string][]byte{}}
	if job.Binary, err = filepath.Abs(binary); err != nil {
		return nil, err
	}
	meta := transcriptMeta(data)
	if job.SessionID == "" {
		job.SessionID = meta.SessionID
	}
	if job.SessionID == "" {
		job.SessionID = strings.TrimSuffix(filepath.Base(r.Transcript), ".jsonl")
	}
	harness.ResumeDefaults(&job.Cwd, &job.Prompt, meta.Cwd, resumeDir)
	sessionDir := strings.TrimSuffix(r.Transcript, ".jsonl")
	if st, err := os.Stat(sessionDir); err == nil && st.IsDir() {
		err := filepath.WalkDir(sessionDir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(sessionDir, p)
			b, err := os.ReadFile(p)
			job.SessionDir[filepath.ToSlash(rel)] = b
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	var out Resumed
	if err := sandbox.Run(ctx, resumeJobName, job, &out, nil, stepTimeout+time.Minute); err != nil {
		return nil, err
	}
	return &out, nil
}

// transcriptMeta is the first sessionId and cwd the records carry.
func transcriptMeta(data []byte) (m struct{ SessionID, Cwd string }) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() && (m.SessionID == "" || m.Cwd == "") {
		var rec struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if m.SessionID == "" {
			m.SessionID = rec.SessionID
		}
		if m.Cwd == "" {
			m.Cwd = rec.Cwd
		}
	}
	return m
}

func runResumeJob(ctx context.Context, job resumeJob) (any, error) {
	if job.SessionID == "" || strings.ContainsAny(job.SessionID, "/\\") || job.SessionID[0] == '.' {
		return nil, fmt.Errorf("cannot plant a session called %q", job.SessionID)
	}
	home, tmp := resumeDir.Home(), resumeDir.Tmp()
	project := filepath.Join(home, ".claude", "projects", ProjectDirName(job.Cwd))
	if err := harness.MakeDirs(job.Cwd, tmp, project); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(project, job.SessionID+".jsonl"), job.Transcript, 0o600); err != nil {
		return nil, err
	}
	if err := harness.WriteFiles(filepath.Join(project, job.SessionID), job.SessionDir); err != nil {
		return nil, err
	}
	api, err := anthropic.Start([]anthropic.Rule{{Name: "resumed", When: anthropic.Any(),
		Reply: anthropic.Reply{Content: []anthropic.Block{anthropic.Text(ResumeAnswer)}}}})
	if err != nil {
		return nil, err
	}
	defer api.Close()
	var out Resumed
	if out.Version, err = cliVersion(ctx, job.Binary, home); err != nil {
		return nil, err
	}
	args := []string{"-p", job.Prompt, "--output-format", "json", "--resume", job.SessionID}
	out.Run = runCLI(ctx, job.Binary, job.Cwd, env(home, tmp, api.URL()), args, Step{})
	err = out.Collect(api.Exchanges(), "/v1/messages", out.Run.ExitCode, func(ex standin.Exchange) ([]standin.Turn, error) {
		req, err := anthropic.ParseRequest(ex.Body)
		if err != nil {
			return nil, err
		}
		return anthropic.Conversation(req), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
