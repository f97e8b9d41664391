package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

// exportSources are the sessions TestExportsResume converts to Claude
// Code JSONL, one of every format rlog-ls reads (the conversion fixtures,
// each modelled on a real file of its format), by path from the
// repository's root.
var exportSources = map[convert.Format][]string{
	convert.Rlog:         {"convert/testdata/fixtures/session.rlog", "testdata/logs/subagent-unfinished.rlog"},
	convert.ATIF:         {"convert/testdata/fixtures/atif-1.5.atif.json", "convert/testdata/fixtures/atif-1.7.atif.json"},
	convert.ATIFJSONL:    {"convert/testdata/fixtures/session.atif.jsonl"},
	convert.Replay:       {"convert/testdata/fixtures/REPLAY.jsonl"},
	convert.Claude:       {"testdata/agents/claude-code/2.1.328/compaction/claude/projects/*/*.jsonl"},
	convert.SDKJSONL:     {"convert/testdata/fixtures/sdk.jsonl"},
	convert.Trajectory:   {"convert/testdata/fixtures/trajectory.json"},
	convert.Prophet:      {"convert/testdata/fixtures/trajectory.prophet.json"},
	convert.MiniSWE:      {"convert/testdata/fixtures/mini-swe-agent.traj.json"},
	convert.ReplayBundle: {"convert/testdata/fixtures/session-replay.json"},
	convert.Codex:        {"testdata/agents/codex/0.169.0/patch/codex-home/sessions/*/*/*/rollout-*.jsonl"},
	convert.Gemini:       {"testdata/agents/gemini-cli/0.61.0/shell/gemini/tmp/*/chats/session-*.jsonl"},
}

// repoRoot is the repository's root, from this package's folder.
var repoRoot = filepath.Join("..", "..", "..")

// TestExportsResume: what rlog-ls writes as Claude Code JSONL the real CLI
// resumes, from a session of every format rlog-ls reads and from every
// recorded session of the pinned version taken through rlog
// (claude -> rlog -> claude). Each export is planted as a session and
// resumed with `claude -p "Go on." --resume ID` (Resume); the CLI must
// exit 0, and the conversation it sends the stand-in must hold the
// source's, as rlog-ls reads it: every prompt, answer, thinking, tool call
// (its name and input) and tool result of the main conversation, in
// order, from the last compaction whose summary follows it on (Claude Code
// resumes from there). The CLI adds what it adds (an error result of its
// own for a call without one, its own context), so the source's parts are
// looked for in order among the conversation's, not compared whole.
func TestExportsResume(t *testing.T) {
	claude := harness.NeedFiles(t, "Claude Code", BinaryEnv)[0]
	// A recorded session goes through rlog as a user's would: its rlog
	// lies beside the transcript, its companion, whose whole records the
	// conversion to Claude Code takes where the log cut them; what the
	// CLI resumes must be the transcript's conversation (orig).
	type export struct{ name, path, orig string }
	var exports []export
	for _, f := range convert.Formats() {
		if !f.CanRead() {
			continue
		}
		paths := exportSources[f.Name]
		if len(paths) == 0 {
			t.Errorf("no session of format %s to export: add one to exportSources", f.Name)
		}
		for _, p := range paths {
			matches, _ := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(p)))
			if len(matches) != 1 {
				t.Errorf("%s: %d files", p, len(matches))
				continue
			}
			exports = append(exports, export{string(f.Name) + "/" + filepath.Base(p), matches[0], ""})
		}
	}
	transcripts, err := filepath.Glob(filepath.Join(pinnedFixtures, "*", ConfigDirName, "projects", "*", "*.jsonl"))
	if err != nil || len(transcripts) < len(Scenarios) {
		t.Fatalf("the recorded transcripts: %d (%v)", len(transcripts), err)
	}
	through := t.TempDir()
	for _, p := range transcripts {
		name, transcript := copyTranscript(t, p, through)
		log := filepath.Join(through, name+".rlog")
		convertFile(t, transcript, convert.Claude, convert.Rlog, log)
		exports = append(exports, export{"claude-rlog/" + name, log, transcript})
	}
	for _, x := range exports {
		t.Run(x.name, func(t *testing.T) {
			t.Parallel()
			from, err := convert.DetectFile(x.path)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "export.jsonl")
			rep := convertFile(t, x.path, from, convert.Claude, out)
			want, orphans := resumable(t, x.path, from)
			if x.orig != "" {
				want, orphans = resumable(t, x.orig, convert.Claude)
			}
			if said := strings.Contains(rep.Text(), "Claude Code drops it when resuming"); said != (orphans > 0) {
				t.Errorf("%d tool results without their call; the loss report says so: %v\n%s", orphans, said, rep.Text())
			}
			got, resumed := resumeExport(t, claude, out, "the export's loss report:\n"+rep.Text())
			if missing := missingParts(want, resumed); missing != "" {
				t.Errorf("the resumed conversation lacks the source's %s\nit is:\n%s\nthe export's loss report:\n%s", missing, describe(got), rep.Text())
			}
			if len(want) == 0 {
				t.Errorf("nothing of the source to look for")
			}
		})
	}
}

// resumeExport resumes an export with the CLI and returns the
// conversation the CLI sent, whole and without the new prompt. A run that
// failed or a conversation that does not end with the prompt fails t
// (reports says what the conversions reported), a warning about the
// records' links is an error.
func resumeExport(t *testing.T, claude, export, reports string) (got, resumed []standin.Turn) {
	t.Helper()
	res, err := Resume(context.Background(), claude, ResumeRequest{Transcript: export})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.ExitCode != 0 {
		t.Fatalf("claude --resume exit code %d: %s\n%s", res.Run.ExitCode, res.Run.Stderr, reports)
	}
	if strings.Contains(res.Run.Stderr, "parentUuid") {
		t.Errorf("the CLI warns: %s", res.Run.Stderr)
	}
	resumed, ok := standin.WithoutPrompt(res.Conversation, "Go on.")
	if !ok {
		t.Fatalf("the conversation does not end with the new prompt: %v", res.Conversation)
	}
	return res.Conversation, resumed
}

// copyTranscript copies the recorded transcript p, with its folder of
// side files (sub-agents, persisted outputs), into dir, named after its
// scenario; it returns the name and the copy's path.
func copyTranscript(t *testing.T, p, dir string) (name, transcript string) {
	t.Helper()
	scenario := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(p)))))
	name = scenario + "-" + strings.TrimSuffix(filepath.Base(p), ".jsonl")
	transcript = filepath.Join(dir, name+".jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(strings.TrimSuffix(p, ".jsonl")); err == nil && st.IsDir() {
		if err := harness.CopyTree(strings.TrimSuffix(p, ".jsonl"), strings.TrimSuffix(transcript, ".jsonl")); err != nil {
			t.Fatal(err)
		}
	}
	return name, transcript
}

// TestExportsResumeThroughEveryFormat: every recorded session converted to
// each format rlog-ls writes that holds a session, then from it to Claude
// Code JSONL (as `rlog-ls convert` does both: an rlog lies beside the
// transcript, its companion), is resumed by the real CLI with the
// original conversation: every part of the transcript's conversation
// (Resume's request to the stand-in, compared as TestExportsResume does)
// is there, or the loss reports of the two conversions name what it is
// (its kind, or a field of it: `thinking`, `tool_call.call.input`).
func TestExportsResumeThroughEveryFormat(t *testing.T) {
	claude := harness.NeedFiles(t, "Claude Code", BinaryEnv)[0]
	var formats []convert.Format
	for _, name := range convert.Names(true) {
		if f := convert.Format(name); f != convert.Claude {
			formats = append(formats, f)
		}
	}
	if len(formats) < 6 {
		t.Fatalf("the formats rlog-ls writes: %v", formats)
	}
	transcripts, err := filepath.Glob(filepath.Join(pinnedFixtures, "*", ConfigDirName, "projects", "*", "*.jsonl"))
	if err != nil || len(transcripts) < len(Scenarios) {
		t.Fatalf("the recorded transcripts: %d (%v)", len(transcripts), err)
	}
	for _, p := range transcripts {
		for _, f := range formats {
			dir := t.TempDir()
			name, transcript := copyTranscript(t, p, dir)
			t.Run(name+"/"+string(f), func(t *testing.T) {
				t.Parallel()
				mid := strings.TrimSuffix(transcript, ".jsonl") + ".through." + string(f)
				if f == convert.Rlog {
					mid = strings.TrimSuffix(transcript, ".jsonl") + ".rlog" // beside its companion
				}
				there := convertFile(t, transcript, convert.Claude, f, mid)
				out := filepath.Join(dir, "export.jsonl")
				back := convertFile(t, mid, f, convert.Claude, out)
				want, _ := resumable(t, transcript, convert.Claude)
				reports := "claude -> " + string(f) + ":\n" + there.Text() + "\n" + string(f) + " -> claude:\n" + back.Text()
				got, resumed := resumeExport(t, claude, out, reports)
				// The reports that say what the round trip loses: an rlog's
				// cuts are made whole again from its companion.
				said := []*model.Report{there, back}
				if f == convert.Rlog {
					said = said[1:]
				}
				missing := map[string]bool{}
				for _, w := range allMissingParts(want, resumed) {
					missing[partSubjects[w.Type+" "+w.Role]] = true
					if !namesPart(w, said...) {
						t.Errorf("the resumed conversation lacks the transcript's %s, and no loss report names it\nthe conversation:\n%s%s", w, describe(got), reports)
					}
				}
				for _, w := range want {
					if kind := partSubjects[w.Type+" "+w.Role]; !missing[kind] && namesPart(w, said...) {
						t.Errorf("a loss report names a loss of %s, yet every one came back\n%s", kind, reports)
						missing[kind] = true // said once
					}
				}
			})
		}
	}
}

// allMissingParts are want's parts missing from the conversation: each
// looked for in order after the last one found (as matches compares).
func allMissingParts(want []wantPart, got []standin.Turn) []wantPart {
	type part struct {
		role string
		standin.Part
	}
	var parts []part
	for _, turn := range got {
		for _, p := range turn.Parts {
			parts = append(parts, part{turn.Role, p})
		}
	}
	var missing []wantPart
	i := 0
	for _, w := range want {
		j := i
		for ; j < len(parts) && !matches(w, parts[j].role, parts[j].Part); j++ {
		}
		if j == len(parts) {
			missing = append(missing, w)
			continue
		}
		i = j + 1
	}
	return missing
}

// partSubjects are the loss subjects (docs/conversions.md) of the events a
// part of the conversation comes from.
var partSubjects = map[string]string{"text user": "user", "text assistant": "agent", "thinking assistant": "thinking",
	"tool_use assistant": "tool_call", "tool_result user": "tool_result"}

// contentFields are the fields of an event that make a part of the
// conversation (its text, a call's name, id and input, a result's content
// and error flag, a thinking block's signature, without which the CLI
// leaves the block out), as loss subjects name them after the event's
// kind. A loss of another field (an extra, the form, the time) does not
// explain a missing part.
var contentFields = []string{"text", "call.", "result.content", "result.raw", "result.is_error", "signature"}

// namesPart reports whether one of the loss reports names a loss of the
// events part w comes from: of their kind, or of a content field of them.
func namesPart(w wantPart, reps ...*model.Report) bool {
	kind := partSubjects[w.Type+" "+w.Role]
	for _, rep := range reps {
		for _, l := range rep.Losses {
			for _, s := range strings.Split(l.Subject, ", ") {
				field, ok := strings.CutPrefix(s, kind+".")
				if kind != "" && s == kind {
					return true
				}
				for _, c := range contentFields {
					if kind != "" && ok && strings.HasPrefix(field, c) {
						return true
					}
				}
			}
		}
	}
	return false
}

// convertFile converts the file at path to the format to, into out, as
// rlog-ls convert does (a log completed from its companion), and returns
// the loss report.
func convertFile(t *testing.T, path string, from, to convert.Format, out string) *model.Report {
	t.Helper()
	var b bytes.Buffer
	opts := convert.Options{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	if from == convert.Rlog && to != convert.Rlog {
		opts.Complete, _ = companion.Completer(path)
	}
	rep, err := convert.ConvertFile(path, from, to, &b, opts)
	if err != nil {
		t.Fatalf("%s -> %s: %v", from, to, err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return rep
}

// wantPart is a part of the source's conversation that resuming must
// give: its role and the part as anthropic.Conversation reduces it, only
// the fields that are set compared (a tool result's id and error flag,
// not its text when the source's is blocks).
type wantPart struct {
	Role string
	standin.Part
}

func (w wantPart) String() string {
	b, _ := json.Marshal(w.Part)
	return w.Role + " " + string(b)
}

// resumable is the conversation Claude Code resumes of the session at
// path, as rlog-ls reads it: the main conversation's prompts, answers,
// thinking, tool calls and results, from the last compaction that the
// summary Claude Code writes follows on; and how many tool results have
// no call of their id before them (the API has no place for them, and
// Claude Code drops them).
func resumable(t *testing.T, path string, from convert.Format) (want []wantPart, orphans int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := convert.Read(bytes.NewReader(data), from)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	ev := s.Events
	for i := range ev {
		e := &ev[i]
		if e.AgentID != "" || e.Sidechain {
			continue
		}
		switch e.Kind {
		case model.KindCompaction:
			if i+1 < len(ev) && ev[i+1].Kind == model.KindUser && strings.HasPrefix(ev[i+1].Text, "This session is being continued from a previous conversation") {
				want = want[:0]
			}
		case model.KindUser:
			// Of the harness's messages, a task notification is one the
			// model is sent again.
			if (!e.Meta || strings.HasPrefix(e.Text, "<task-notification>")) && strings.TrimSpace(e.Text) != "" {
				want = append(want, wantPart{"user", standin.Part{Type: "text", Text: strings.TrimSpace(e.Text)}})
			}
		case model.KindAgent:
			if strings.TrimSpace(e.Text) != "" {
				want = append(want, wantPart{"assistant", standin.Part{Type: "text", Text: strings.TrimSpace(e.Text)}})
			}
		case model.KindThinking:
			want = append(want, wantPart{"assistant", standin.Part{Type: "thinking", Text: e.Text}})
		case model.KindToolCall:
			in := "{}"
			if len(e.Call.Input) > 0 {
				in = canonicalJSON(t, e.Call.Input)
			}
			want = append(want, wantPart{"assistant", standin.Part{Type: "tool_use", ID: e.Call.ID, Name: e.Call.Name, Input: in}})
			calls[e.Call.ID] = true
		case model.KindToolResult:
			if !calls[e.Result.CallID] {
				orphans++
				continue
			}
			p := standin.Part{Type: "tool_result", ID: e.Result.CallID, IsError: e.Result.IsError}
			if len(e.Result.ContentRaw) == 0 {
				p.Text = e.Result.Content
			}
			want = append(want, wantPart{"user", p})
		}
	}
	return want, orphans
}

func canonicalJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("a tool input that is not JSON: %s", raw)
	}
	b, _ := json.Marshal(v) // sorted keys, as anthropic.Conversation writes inputs
	return string(b)
}

// missingParts looks for want's parts in order among the conversation's
// and describes the first it does not find ("" when all are there). A
// tool call's id may have a suffix (an id used twice in the source is
// written as id-2); its name may be Claude Code's newer one (Task is
// Agent).
func missingParts(want []wantPart, got []standin.Turn) string {
	if missing := allMissingParts(want, got); len(missing) > 0 {
		return missing[0].String()
	}
	return ""
}

func matches(w wantPart, role string, p standin.Part) bool {
	if role != w.Role || p.Type != w.Type {
		return false
	}
	sameID := p.ID == w.ID || strings.HasPrefix(p.ID, w.ID+"-")
	switch w.Type {
	case "text", "thinking":
		return strings.TrimSpace(p.Text) == w.Text
	case "tool_use":
		return sameID && (p.Name == w.Name || w.Name == "Task" && p.Name == "Agent") && sameJSON(p.Input, w.Input)
	case "tool_result":
		return sameID && p.IsError == w.IsError && (w.Text == "" || p.Text == w.Text)
	}
	return false
}

// sameJSON reports whether two JSON texts hold the same value: a source
// may escape what the CLI sends plainly (Gemini CLI writes > as \u003e).
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// describe is a conversation one part a line, for a failure's message.
func describe(turns []standin.Turn) string {
	var b strings.Builder
	for _, turn := range turns {
		for _, p := range turn.Parts {
			j, _ := json.Marshal(p)
			fmt.Fprintf(&b, "  %s %.300s\n", turn.Role, j)
		}
	}
	return b.String()
}
