package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// recordedDir holds the transcripts recorded from the real Claude Code
// CLI (internal/producers): the shape the generated ones copy.
const recordedDir = "../../../testdata/agents/claude-code"

// recorded lists the recorded transcripts, sub-agents' too.
func recorded(t *testing.T) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(recordedDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && strings.Contains(p, "/projects/") {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Skip("no recorded Claude Code transcripts in " + recordedDir)
	}
	return out
}

// recordKind is what a record is for the shape test: its type, an
// attachment's own type beside it.
func recordKind(rec map[string]any) string {
	typ, _ := rec["type"].(string)
	if att, ok := rec["attachment"].(map[string]any); ok {
		sub, _ := att["type"].(string)
		return typ + "/" + sub
	}
	return typ
}

// keyPaths adds the key paths of v under prefix to set: members joined by
// ".", array elements as "[]".
func keyPaths(set map[string]bool, prefix string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := prefix + "." + k
			set[p] = true
			keyPaths(set, p, x)
		}
	case []any:
		for _, x := range v {
			keyPaths(set, prefix+"[]", x)
		}
	}
}

// shapes maps each record kind of the transcripts in data to the key
// paths its records have.
func shapes(t *testing.T, data []byte, into map[string]map[string]bool) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%v: %.200s", err, sc.Bytes())
		}
		kind := recordKind(rec)
		if into[kind] == nil {
			into[kind] = map[string]bool{}
		}
		keyPaths(into[kind], "", rec)
	}
}

// Every record type the generator writes, and every key path (top-level
// keys and their nesting) of each, occurs in a transcript recorded from
// the real CLI; the generated transcript's conversation records chain
// (each parentUuid names an earlier record, null only where a run or a
// compaction starts a chain).
func TestCLIShape(t *testing.T) {
	real := map[string]map[string]bool{}
	for _, p := range recorded(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		shapes(t, data, real)
	}
	agents := 0
	for _, size := range []int64{20 << 10, 3 << 20, 12 << 20} {
		s := CLISessionOf(size, 7)
		n := int64(len(s.Transcript))
		gen := map[string]map[string]bool{}
		shapes(t, s.Transcript, gen)
		checkChain(t, s.Transcript)
		for _, a := range s.Agents {
			n += int64(len(a.Transcript))
			shapes(t, a.Transcript, gen)
			checkChain(t, a.Transcript)
			var meta map[string]any
			if err := json.Unmarshal(a.Meta, &meta); err != nil || meta["toolUseId"] == nil || !bytes.Contains(s.Transcript, []byte(`"agentId":"`+a.ID+`"`)) {
				t.Errorf("sub-agent %s: meta %s (%v), or no call started it", a.ID, a.Meta, err)
			}
		}
		agents += len(s.Agents)
		if n < size || n > size+size/2+600<<10 {
			t.Errorf("asked %d bytes, got %d", size, n)
		}
		for kind, paths := range gen {
			if real[kind] == nil {
				t.Errorf("record kind %q: no recorded transcript has it", kind)
				continue
			}
			var extra []string
			for p := range paths {
				if !real[kind][p] {
					extra = append(extra, p)
				}
			}
			sort.Strings(extra)
			if len(extra) > 0 {
				t.Errorf("%s: key paths no recorded transcript has: %v", kind, extra)
			}
		}
		for _, want := range []string{"user", "assistant", "attachment/prompt_snapshot", "api-request", "cost-state", "last-prompt", "queue-operation"} {
			if gen[want] == nil {
				t.Errorf("%d bytes: no %s record", size, want)
			}
		}
		if size > 8<<20 && gen["system"] == nil {
			t.Errorf("%d bytes: never compacted", size)
		}
	}
	if agents == 0 {
		t.Error("no sub-agent started")
	}
}

func checkChain(t *testing.T, data []byte) {
	t.Helper()
	seen := map[string]bool{}
	roots := 0
	for line := range bytes.Lines(data) {
		var rec struct {
			UUID       string  `json:"uuid"`
			ParentUUID *string `json:"parentUuid"`
			Type       string  `json:"type"`
		}
		json.Unmarshal(line, &rec)
		if rec.UUID == "" {
			continue
		}
		switch {
		case rec.ParentUUID == nil:
			roots++
		case !seen[*rec.ParentUUID]:
			t.Fatalf("%s %s: parentUuid %s names no earlier record", rec.Type, rec.UUID, *rec.ParentUUID)
		}
		seen[rec.UUID] = true
	}
	if roots != 1+bytes.Count(data, []byte(`"compact_boundary"`)) {
		t.Errorf("%d chains start, want one and one per compaction", roots)
	}
}

// The same seed and size give the same bytes; another seed others.
func TestCLIDeterministic(t *testing.T) {
	a, b, c := CLITranscript(200<<10, 3), CLITranscript(200<<10, 3), CLITranscript(200<<10, 4)
	if !bytes.Equal(a, b) {
		t.Error("one seed, two transcripts")
	}
	if bytes.Equal(a, c) {
		t.Error("two seeds, one transcript")
	}
}

type nullSink struct{}

func (nullSink) Event(*model.Header, *model.Event) error { return nil }
func (nullSink) End(*model.Header) error                 { return nil }

// lossKinds reads the transcript at path with the Claude Code reader and
// returns its report's entries as kind and detail.
func lossKinds(t *testing.T, path string) []string {
	t.Helper()
	var rep model.Report
	if err := claude.ReadFile(path, nullSink{}, &rep); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, l := range rep.Losses {
		out = append(out, string(l.Kind)+": "+l.Detail)
	}
	return out
}

// The Claude Code reader reads a generated transcript with no loss report
// entries beyond the kinds it reports for the recorded ones.
func TestCLIReadsAsRecorded(t *testing.T) {
	real := map[string]bool{}
	for _, p := range recorded(t) {
		if claude.PartOf(p) {
			continue
		}
		for _, k := range lossKinds(t, p) {
			real[k] = true
		}
	}
	path := filepath.Join(t.TempDir(), "00000001-0000-4000-8000-000000000001.jsonl")
	s := CLISessionOf(12<<20, 11)
	if len(s.Agents) == 0 {
		t.Fatal("no sub-agent to read")
	}
	if err := WriteSession(path, s); err != nil {
		t.Fatal(err)
	}
	for _, k := range lossKinds(t, path) {
		if !real[k] {
			t.Errorf("reported for a generated transcript, never for a recorded one: %s (recorded: %v)", k, slices.Sorted(maps.Keys(real)))
		}
	}
}
