package convert_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// TestInvalidUTF8Reported: the claude, sdk-jsonl, replay and rlog readers
// report each place where invalid UTF-8 becomes U+FFFD, with its line and
// JSON path, and nothing on valid input.
func TestInvalidUTF8Reported(t *testing.T) {
	for _, c := range []struct {
		from convert.Format
		in   string
		want string // the invalid_utf8 entries of the report
	}{
		{convert.Claude,
			`{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"ok"}}` + "\n" +
				"{\"type\":\"user\",\"uuid\":\"u2\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n" +
				`{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m","content":[{"type":"text","text":"x\ud800y"}]}}` + "\n",
			// A lone surrogate escape (line 3) is valid UTF-8 and not reported.
			"invalid UTF-8 replaced by U+FFFD ×1 (at line 2 $.message.content)"},
		{convert.SDKJSONL,
			"{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\"}]},\"timestamp\":\"2025-01-01T00:00:00Z\"}\n",
			"invalid UTF-8 replaced by U+FFFD ×1 (at line 1 $.message.content[0].text)"},
		{convert.Replay,
			`{"event":"ReplayHeader","replay_version":1,"producer":"p","created_at":"2025-01-01T00:00:00Z"}` + "\n" +
				"{\"event\":\"Message\",\"kind\":\"user\",\"t\":\"2025-01-01T00:00:00Z\",\"text\":\"\xc3\"}\n",
			"invalid UTF-8 replaced by U+FFFD ×1 (at line 2 $.text)"},
		{convert.Rlog,
			"---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\n---\nu: caf\xe9\na: fine\na: \xff\n",
			"invalid UTF-8 replaced by U+FFFD ×2 (at line 6, line 8)"},
	} {
		_, rep, err := convert.Read(strings.NewReader(c.in), c.from)
		if err != nil {
			t.Fatal(err)
		}
		if got := utf8Entries(rep); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.from, got, c.want)
		}
		valid := strings.ToValidUTF8(strings.ReplaceAll(c.in, `\ud800`, `\u00e9`), "?")
		if _, rep, _ := convert.Read(strings.NewReader(valid), c.from); utf8Entries(rep) != "" {
			t.Errorf("%s: valid input reported: %s", c.from, utf8Entries(rep))
		}
	}
}

// TestMergedFileLocations: a sub-agent transcript merged into its session
// is named in the locations of what it reports.
func TestMergedFileLocations(t *testing.T) {
	dir := t.TempDir()
	main := `{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"user","content":"go"}}` + "\n"
	sub := `{"type":"user","uuid":"x1","sessionId":"s1","isSidechain":true,"agentId":"a1","message":{"role":"user","content":"task"}}` + "\n" +
		"{\"type\":\"user\",\"uuid\":\"x2\",\"sessionId\":\"s1\",\"isSidechain\":true,\"agentId\":\"a1\",\"message\":{\"role\":\"user\",\"content\":\"\xff\"}}\n" +
		"not json\n"
	if err := os.MkdirAll(filepath.Join(dir, "s1", "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(main), 0o644)
	os.WriteFile(filepath.Join(dir, "s1", "subagents", "agent-a1.jsonl"), []byte(sub), 0o644)
	rep, err := convert.ConvertFile(filepath.Join(dir, "s1.jsonl"), convert.Claude, convert.Rlog, &bytes.Buffer{}, convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []model.LossKind{model.LossInvalidUTF8, model.LossMalformed} {
		var locs []string
		for _, l := range rep.Losses {
			if l.Kind == kind {
				for _, loc := range l.Locations {
					locs = append(locs, loc.String())
				}
			}
		}
		want := "s1/subagents/agent-a1.jsonl line 2 $.message.content"
		if kind == model.LossMalformed {
			want = "s1/subagents/agent-a1.jsonl line 3"
		}
		if strings.Join(locs, "; ") != want {
			t.Errorf("%s at %q, want %q:\n%s", kind, locs, want, rep.Text())
		}
	}
}

func utf8Entries(rep *convert.Report) string {
	var out []string
	for _, l := range rep.Losses {
		if l.Kind != model.LossInvalidUTF8 {
			continue
		}
		var locs []string
		for _, loc := range l.Locations {
			locs = append(locs, loc.String())
		}
		out = append(out, l.Detail+" ×"+model.Itoa(int64(l.Count))+" (at "+strings.Join(locs, ", ")+")")
	}
	return strings.Join(out, "; ")
}
