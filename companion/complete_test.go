package companion_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// TestCompleterGivesTheRecords: a Claude Code transcript converted to rlog
// beside it, then the log to Claude Code, completed from its companion,
// has the transcript's whole messages, tool inputs (a Write's content, an
// Edit's strings) and outputs again; a line that says something else than
// what rlog's writer makes of its record (redacted) keeps what it says;
// without the companion, the log is what there is.
func TestCompleterGivesTheRecords(t *testing.T) {
	src, err := filepath.Glob("../testdata/agents/claude-code/2.1.328/write-edit/claude/projects/*/*.jsonl")
	if err != nil || len(src) != 1 {
		t.Fatalf("the write-edit recording: %v %v", src, err)
	}
	data, err := os.ReadFile(src[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	transcript := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(transcript, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := convert.ConvertFile(transcript, convert.Claude, convert.Rlog, &log, convert.Options{}); err != nil {
		t.Fatal(err)
	}
	// A redacted answer: the line no longer says what its record does.
	const answer = "a: greet.sh now prints goodbye."
	if !strings.Contains(log.String(), answer) {
		t.Fatalf("the log has no line %q:\n%s", answer, log.String())
	}
	logText := strings.Replace(log.String(), answer, "a: greet.sh now prints [redacted:secret].", 1)
	logPath := filepath.Join(dir, "session.rlog")
	if err := os.WriteFile(logPath, []byte(logText), 0o644); err != nil {
		t.Fatal(err)
	}
	events := func(complete func(model.Sink, *model.Report) model.Sink) []model.Event {
		t.Helper()
		var out bytes.Buffer
		if _, err := convert.ConvertFile(logPath, convert.Rlog, convert.Claude, &out, convert.Options{Complete: complete}); err != nil {
			t.Fatal(err)
		}
		s, _, err := convert.Read(bytes.NewReader(out.Bytes()), convert.Claude)
		if err != nil {
			t.Fatal(err)
		}
		return s.Events
	}
	complete, ok := companion.Completer(logPath)
	if !ok {
		t.Fatal("no companion found beside the log")
	}
	has := func(evs []model.Event) map[string]bool {
		found := map[string]bool{}
		for _, e := range evs {
			switch {
			case e.Call != nil:
				var in any
				json.Unmarshal(e.Call.Input, &in)
				b, _ := json.Marshal(in) // sorted keys
				found[e.Call.Name+" "+string(b)] = true
			case e.Result != nil:
				found["result "+e.Result.Content] = true
			case e.Kind == model.KindUser || e.Kind == model.KindAgent:
				found[e.Kind.String()+" "+e.Text] = true
			}
		}
		return found
	}
	whole := []string{
		`Write {"content":"#!/bin/sh\necho hello\n","file_path":"/tmp/rlog-producers/claude/write-edit/work/greet.sh"}`,
		`Edit {"file_path":"/tmp/rlog-producers/claude/write-edit/work/greet.sh","new_string":"echo goodbye","old_string":"echo hello","replace_all":false}`,
		"result File created successfully at: /tmp/rlog-producers/claude/write-edit/work/greet.sh (file state is current in your context — no need to Read it back)",
	}
	completed, bare := has(events(complete)), has(events(nil))
	for _, w := range whole {
		if !completed[w] {
			t.Errorf("completed from the companion, the export lacks %s; it has %v", w, completed)
		}
		if bare[w] {
			t.Errorf("without the companion, the export has %s: the test shows nothing", w)
		}
	}
	if !completed["agent greet.sh now prints [redacted:secret]."] || completed["agent greet.sh now prints goodbye."] {
		t.Errorf("the redacted line took its record's text: %v", completed)
	}
	if _, ok := companion.Completer(filepath.Join(t.TempDir(), "alone.rlog")); ok {
		t.Error("a log without a companion has a completer")
	}
}
