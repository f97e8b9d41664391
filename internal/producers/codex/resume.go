package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/openai"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// A ResumeRequest asks to resume a Codex rollout with the real CLI: the
// rollout is planted in a fresh CODEX_HOME
// (sessions/YYYY/MM/DD/rollout-TIME-THREAD.jsonl) and
// `codex exec resume THREAD PROMPT` runs against a stand-in that answers
// anything with one message.
type ResumeRequest struct {
	Rollout string // the JSONL file to plant
	// Thread plants it as this thread; by default the id of its first
	// session_meta line.
	Thread string
	// Cwd is the working directory to run in; by default the cwd of its
	// session_meta when that is under the sandbox root, else a fixed
	// folder there.
	Cwd    string
	Prompt string // the next prompt; "Go on." by default
}

// Resumed is what resuming gave (the requests to the model are Responses
// requests).
type Resumed = harness.Resumed[StepResult]

// ResumeAnswer is what the stand-in answers a resumed thread.
const ResumeAnswer = "Resumed."

// resumeDir is the fixed folder a resume runs under, in the sandbox.
var resumeDir = harness.FolderOf("codex", "resume")

type resumeJob struct {
	ResumeRequest
	Binary  string
	Name    string // the planted file's path under sessions/
	Content []byte
}

const resumeJobName = "codex/resume"

func init() { sandbox.Register(resumeJobName, sandbox.JobOf(runResumeJob)) }

// rolloutName is a rollout's file name: rollout-YYYY-MM-DDThh-mm-ss-THREAD.jsonl.
var rolloutName = regexp.MustCompile(`^rollout-(\d{4})-(\d{2})-(\d{2})T\d{2}-\d{2}-\d{2}-(.+)\.jsonl$`)

// Resume plants r.Rollout and resumes it with the codex binary in a
// sandbox. It fails when the CLI cannot be run; a CLI that refuses the
// rollout is a result (Run's exit code and stderr say why).
func Resume(ctx context.Context, binary string, r ResumeRequest) (*Resumed, error) {
	data, err := os.ReadFile(r.Rollout)
	if err != nil {
		return nil, err
	}
	job := resumeJob{ResumeRequest: r, Content: data}
	if job.Binary, err = filepath.Abs(binary); err != nil {
		return nil, err
	}
	meta := rolloutMeta(data)
	if job.Thread == "" {
		job.Thread = meta.ID
	}
	if job.Thread == "" || strings.ContainsAny(job.Thread, `/\`) || strings.HasPrefix(job.Thread, ".") {
		return nil, fmt.Errorf("%s: no thread id to plant it as (its session_meta has none; give one)", r.Rollout)
	}
	harness.ResumeDefaults(&job.Cwd, &job.Prompt, meta.Cwd, resumeDir)
	// Codex finds a thread by the rollout's name in its day's folder.
	if m := rolloutName.FindStringSubmatch(filepath.Base(r.Rollout)); m != nil && m[4] == job.Thread {
		job.Name = path.Join(m[1], m[2], m[3], filepath.Base(r.Rollout))
	} else {
		t := time.Now().UTC()
		if ts, err := time.Parse(time.RFC3339Nano, meta.Timestamp); err == nil {
			t = ts.UTC()
		}
		job.Name = path.Join(t.Format("2006/01/02"), "rollout-"+t.Format("2006-01-02T15-04-05")+"-"+job.Thread+".jsonl")
	}
	var out Resumed
	if err := sandbox.Run(ctx, resumeJobName, job, &out, nil, stepTimeout+time.Minute); err != nil {
		return nil, err
	}
	return &out, nil
}

// rolloutMeta is the first session_meta's id, cwd and timestamp.
func rolloutMeta(data []byte) (m struct{ ID, Cwd, Timestamp string }) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var line struct {
			Type    string `json:"type"`
			Payload struct {
				ID        string `json:"id"`
				Cwd       string `json:"cwd"`
				Timestamp string `json:"timestamp"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "session_meta" {
			m.ID, m.Cwd, m.Timestamp = line.Payload.ID, line.Payload.Cwd, line.Payload.Timestamp
			return m
		}
	}
	return m
}

func runResumeJob(ctx context.Context, job resumeJob) (any, error) {
	home, codexHome, tmp := resumeDir.Home(), CodexHome(resumeDir), resumeDir.Tmp()
	planted := filepath.Join(codexHome, "sessions", filepath.FromSlash(job.Name))
	if err := harness.MakeDirs(job.Cwd, home, tmp, filepath.Dir(planted)); err != nil {
		return nil, err
	}
	if err := os.WriteFile(planted, job.Content, 0o600); err != nil {
		return nil, err
	}
	api, err := openai.Start([]openai.Rule{{Name: "resumed", When: openai.Any(),
		Reply: openai.Reply{Items: []openai.Item{openai.Message(ResumeAnswer)}}}})
	if err != nil {
		return nil, err
	}
	defer api.Close()
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config(api.URL())), 0o644); err != nil {
		return nil, err
	}
	envv := env(home, codexHome, tmp)
	var out Resumed
	if out.Version, err = cliVersion(ctx, job.Binary, envv); err != nil {
		return nil, err
	}
	args := []string{"exec", "--skip-git-repo-check", "--json", "resume", job.Thread, job.Prompt}
	out.Run = runCLI(ctx, job.Binary, job.Cwd, envv, args)
	err = out.Collect(api.Exchanges(), "/v1/responses", out.Run.ExitCode, func(ex standin.Exchange) ([]standin.Turn, error) {
		req, err := openai.ParseRequest(ex.Body, ex.Header)
		if err != nil {
			return nil, err
		}
		return openai.Conversation(req), nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
