package claudecode

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// writeTree writes files (a path relative to the folder, and its text)
// into a new temporary folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	data := make(map[string][]byte, len(files))
	for name, text := range files {
		data[name] = []byte(text)
	}
	if err := harness.WriteFiles(dir, data); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestInventoryAndDrift(t *testing.T) {
	base := writeTree(t, map[string]string{
		"projects/p/s.jsonl": `{"type":"user","message":{"role":"user","content":"hi"}}
{"type":"assistant","message":{"content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1}}}
{"type":"attachment","attachment":{"type":"date","date":"d"}}
{"type":"cost-state","modelUsage":{"claude-a":{"inputTokens":1}}}
`,
		"projects/p/s/subagents/agent-1.meta.json": `{"agentType":"general-purpose"}`,
	})
	fresh := writeTree(t, map[string]string{
		"projects/p/s.jsonl": `{"type":"user","message":{"role":"user","content":"hi"}}
{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"fancy","text":"y","input":{"secret":1}}],"usage":{"input_tokens":1,"speed":"fast"}}}
{"type":"attachment","attachment":{"type":"novel"}}
{"type":"system","subtype":"brand_new"}
{"type":"cost-state","modelUsage":{"claude-b":{"inputTokens":1}}}
{"type":"new-record"}
`,
	})
	b, err := TakeInventory(base)
	if err != nil {
		t.Fatal(err)
	}
	f, err := TakeInventory(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if b.Files != 1 || b.Kinds[RecordType]["attachment"] != 1 || b.Kinds[AttachmentType]["date"] != 1 {
		t.Errorf("base inventory %+v", b)
	}
	news := f.NewSince(b)
	for _, want := range []string{
		"record type new-record (1)", "record type system (1)", "attachment type novel (1)", "system subtype brand_new (1)",
		"field assistant: message.content[].type=fancy (1)", "field assistant: message.usage.speed (1)",
	} {
		if !slices.Contains(news, want) {
			t.Errorf("NewSince lacks %q:\n%s", want, strings.Join(news, "\n"))
		}
	}
	for _, n := range news {
		if strings.Contains(n, "claude-b") || strings.Contains(n, "secret") {
			t.Errorf("NewSince reports data as a field: %s", n)
		}
	}
	gone := b.NewSince(f)
	for _, want := range []string{"attachment type date (1)", "field subagent-meta: agentType (1)"} {
		if !slices.Contains(gone, want) {
			t.Errorf("what is gone lacks %q:\n%s", want, strings.Join(gone, "\n"))
		}
	}
	unknown := f.Unknown(vocabulary.Known)
	want := []string{"attachment type novel", "record type new-record", "system subtype brand_new"}
	if !slices.Equal(unknown, want) {
		t.Errorf("Unknown %v, want %v", unknown, want)
	}
}

func TestInventoryReportsABrokenLine(t *testing.T) {
	dir := writeTree(t, map[string]string{"projects/p/s.jsonl": "{\"type\":\"user\"}\nnot json\n"})
	if _, err := TakeInventory(dir); err == nil || !strings.Contains(err.Error(), "s.jsonl:2") {
		t.Errorf("error %v, want one naming s.jsonl:2", err)
	}
}

func TestProjectDirName(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/rlog-producers/claude/tools/work": "-tmp-rlog-producers-claude-tools-work",
		"/home/a.b/my_proj":                     "-home-a-b-my-proj",
	} {
		if got := ProjectDirName(in); got != want {
			t.Errorf("ProjectDirName(%q) = %q, want %q", in, got, want)
		}
	}
}
