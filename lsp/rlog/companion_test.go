package rlog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// The pairs in testdata/companions: each log with its companion files.
const companionFixtures = "../../testdata/companions"

// fixture returns a fixture file's absolute path and contents.
func fixture(t *testing.T, rel string) (string, string) {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(companionFixtures, rel))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, string(b)
}

// openLog opens a fixture log in the editor and returns its URI and text.
func openLog(t *testing.T, c *lsptest.Client, rel string) (protocol.DocumentURI, string) {
	t.Helper()
	p, text := fixture(t, rel)
	uri := fileURI(p)
	open(t, c, uri, text)
	return uri, text
}

// posOf is the position of the first occurrence of s in text, after
// skip bytes into s (UTF-16 columns, or UTF-8 with utf8 set).
func posOf(t *testing.T, text, s string, skip int, utf8 bool) protocol.Position {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q not in the text", s)
	}
	return posAt(text, i+skip, utf8)
}

func posAt(text string, off int, utf8 bool) protocol.Position {
	line := strings.Count(text[:off], "\n")
	start := strings.LastIndex(text[:off], "\n") + 1
	col := len(text[start:off])
	if !utf8 {
		col = len(utf16.Encode([]rune(text[start:off])))
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

func hoverText(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI, p protocol.Position) string {
	t.Helper()
	var h struct{ Contents struct{ Value string } }
	if err := json.Unmarshal(call(t, c, protocol.MethodTextDocumentHover, at(uri, p)), &h); err != nil {
		t.Fatal(err)
	}
	return h.Contents.Value
}

func definitions(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI, p protocol.Position) []protocol.Location {
	t.Helper()
	return callFor[[]protocol.Location](t, c, protocol.MethodTextDocumentDefinition, at(uri, p))
}

// TestCompanionHoverShowsTheFullRecord: hovering a cut-short line shows
// what the companion has in full; metadata keeps its own hover.
func TestCompanionHoverShowsTheFullRecord(t *testing.T) {
	c := start(t, "", nil)
	uri, text := openLog(t, c, "sdk/222000-fix-locked-login.rlog")

	// The output the log cut at its first line, whole.
	h := hoverText(t, c, uri, posOf(t, text, "o: id=v678oiff → [ok]      1→use", len("o: id=v678oiff → [ok]      1→u"), false))
	for _, want := range []string{
		"**Output of Read** in full, from `222000-fix-locked-login.jsonl` line 4:",
		"     1→use crate::session::{Session, SessionStore};",
		"    10→    // BUG: the session is created before the lockout check.",
		"    24→}",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("hover on the result lacks %q:\n%s", want, h)
		}
	}
	// The input of a call as formatted JSON, after the call hover.
	h = hoverText(t, c, uri, posOf(t, text, "t!:Edit id=FkAEApex file_path", len("t!:Edit id=FkAEApex file_p"), false))
	if !strings.Contains(h, "**Input of Edit** in full") || !strings.Contains(h, "```json\n{\n  \"file_path\": \"/home/dev/shop/src/auth/login.rs\",") {
		t.Errorf("hover on an argument:\n%s", h)
	}
	// The thinking, whole.
	h = hoverText(t, c, uri, posOf(t, text, "th: The test", 5, false))
	if !strings.Contains(h, "Let me run the test first to see the exact failure.") {
		t.Errorf("hover on thinking:\n%s", h)
	}
	// ts= and tokens keep their own hover, without the record.
	h = hoverText(t, c, uri, posOf(t, text, "a: I'll start by reading the login code to see why locked accounts still get a session. tokens_in=3", len("a: I'll start by reading the login code to see why locked accounts still get a session. tokens_in"), false))
	if !strings.Contains(h, "Token usage") || strings.Contains(h, "in full") {
		t.Errorf("hover on tokens_in:\n%s", h)
	}
	// A message the log shows whole gets no copy of itself.
	h = hoverText(t, c, uri, posOf(t, text, "a: I'll start by reading", 10, false))
	if strings.Contains(h, "in full") {
		t.Errorf("hover on a message shown whole:\n%s", h)
	}
}

// TestCompanionHoverIsCapped: a long output shows its start and says how
// much more there is and how to see it.
func TestCompanionHoverIsCapped(t *testing.T) {
	dir := t.TempDir()
	_, logText := fixture(t, "sdk/222000-fix-locked-login.rlog")
	_, record := fixture(t, "sdk/222000-fix-locked-login.jsonl")
	long := strings.Repeat("line of test output\\n", 5000)
	record = strings.Replace(record, `"content":"running 4 tests`, `"content":"`+long+`running 4 tests`, 1)
	log := filepath.Join(dir, "s.rlog")
	writeFile(t, log, logText)
	writeFile(t, filepath.Join(dir, "s.jsonl"), record)
	c := start(t, "", nil)
	uri := fileURI(log)
	open(t, c, uri, logText)
	h := hoverText(t, c, uri, posOf(t, logText, "o: id=Mg7Nh8Pp → [error] running", 30, false))
	if !strings.Contains(h, "… 99,") || !strings.Contains(h, "more characters (4,9") || !strings.Contains(h, "Go to Definition opens the record") {
		t.Errorf("capped hover:\n%s", h[max(0, len(h)-400):])
	}
	if n := strings.Count(h, "line of test output"); n != 60 {
		t.Errorf("the hover shows %d lines of the output, want 60", n)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompanionDefinition: from a line to its record (exact range, in
// either encoding), from an id to the call as before, and back from the
// companion to the line.
func TestCompanionDefinition(t *testing.T) {
	for _, enc := range []string{"utf-16", "utf-8"} {
		t.Run(enc, func(t *testing.T) {
			utf8 := enc == "utf-8"
			c := start(t, enc, nil)
			uri, text := openLog(t, c, "sdk/222000-fix-locked-login.rlog")
			jsonlPath, jsonl := fixture(t, "sdk/222000-fix-locked-login.jsonl")

			// The Read result: the tool_result block of line 4.
			block := `{"tool_use_id":"toolu_01A8xKq2LmN3pR4sT5uVv678oiff"`
			start := strings.Index(jsonl, block)
			end := start + strings.Index(jsonl[start:], `}]},"timestamp"`) + 1
			want := protocol.Location{URI: fileURI(jsonlPath), Range: protocol.Range{Start: posAt(jsonl, start, utf8), End: posAt(jsonl, end, utf8)}}
			locs := definitions(t, c, uri, posOf(t, text, "o: id=v678oiff → [ok]", 1, utf8))
			if len(locs) != 1 || locs[0] != want {
				t.Fatalf("definition from the o: line:\n got %+v\nwant %+v", locs, want)
			}
			// The id of an o: still goes to its t!: line.
			locs = definitions(t, c, uri, posOf(t, text, "o: id=v678oiff", 8, utf8))
			if len(locs) != 1 || locs[0].URI != uri || locs[0].Range.Start.Line != posOf(t, text, "t!:Read id=v678oiff", 0, utf8).Line {
				t.Fatalf("definition from an id: %+v", locs)
			}
			// The id of the t!: line itself: its record.
			locs = definitions(t, c, uri, posOf(t, text, "t!:Read id=v678oiff", 12, utf8))
			if len(locs) != 1 || locs[0].URI != fileURI(jsonlPath) || locs[0].Range.Start.Line != 2 {
				t.Fatalf("definition from the t!: id: %+v", locs)
			}

			// Back: the companion, opened in the editor, goes to the line.
			c.Notify(protocol.MethodTextDocumentDidOpen, protocol.DidOpenTextDocumentParams{
				TextDocument: protocol.TextDocumentItem{URI: fileURI(jsonlPath), LanguageID: "json", Version: 1, Text: jsonl},
			})
			back := definitions(t, c, fileURI(jsonlPath), posAt(jsonl, start+20, utf8))
			oLine := posOf(t, text, "o: id=v678oiff", 0, utf8).Line
			if len(back) != 1 || back[0].URI != uri || back[0].Range.Start != (protocol.Position{Line: oLine}) {
				t.Fatalf("definition back from the companion: %+v", back)
			}
			// Anywhere on a line with one record: that record's line.
			back = definitions(t, c, fileURI(jsonlPath), protocol.Position{Line: 1, Character: 2})
			if len(back) != 1 || back[0].Range.Start.Line != posOf(t, text, "a: I'll start", 0, utf8).Line {
				t.Fatalf("definition back from the start of a line: %+v", back)
			}
			h := hoverText(t, c, fileURI(jsonlPath), posAt(jsonl, start+20, utf8))
			if !strings.Contains(h, "Written to `222000-fix-locked-login.rlog` as line 19") {
				t.Fatalf("hover on the companion: %s", h)
			}
			// Only navigation there: no outline, no folds, no diagnostics.
			for _, m := range []string{protocol.MethodTextDocumentDocumentSymbol, protocol.MethodTextDocumentFoldingRange, protocol.MethodSemanticTokensFull} {
				if res := call(t, c, m, map[string]any{"textDocument": map[string]any{"uri": fileURI(jsonlPath)}}); string(res) != "null" {
					t.Errorf("%s on the companion: %s", m, res)
				}
			}
			p := c.WaitDiagnostics(fileURI(jsonlPath), lsptest.AtVersion(1))
			if len(p.Diagnostics) != 0 {
				t.Errorf("diagnostics on the companion: %+v", p.Diagnostics)
			}
		})
	}
}

// TestSubagentLinks: an x: line links to its subagent's own file, and
// goes there (and to the Task call's record) with Go to Definition.
func TestSubagentLinks(t *testing.T) {
	c := start(t, "", nil)
	uri, text := openLog(t, c, "sdk/222000-fix-locked-login.rlog")
	sub, _ := fixture(t, "sdk/222000-fix-locked-login.sub-DZYW3CfJ.jsonl")
	var links []protocol.DocumentLink
	json.Unmarshal(call(t, c, protocol.MethodTextDocumentDocumentLink, map[string]any{"textDocument": map[string]any{"uri": uri}}), &links)
	started := posOf(t, text, "x:Explore id=DZYW3CfJ → [started]", 2, false)
	if len(links) != 2 || links[0].Target != fileURI(sub) || links[0].Range.Start != started {
		t.Fatalf("links %+v", links)
	}
	locs := definitions(t, c, uri, posOf(t, text, "x:Explore id=DZYW3CfJ → [started]", 4, false))
	if len(locs) != 2 || locs[0].URI != fileURI(sub) || !strings.HasSuffix(string(locs[1].URI), "222000-fix-locked-login.jsonl") || locs[1].Range.Start.Line != 8 {
		t.Fatalf("definition from x: %+v", locs)
	}
}

// TestCompanionRecordRequest is the request behind "Show Full Record".
func TestCompanionRecordRequest(t *testing.T) {
	c := start(t, "", nil)
	uri, text := openLog(t, c, "trajectory/1610-list-the-cargo-files.rlog")
	var rec companionRecord
	res := call(t, c, MethodCompanionRecord, at(uri, posOf(t, text, "o: id=toolu_01 → [ok] /Users", 0, false)))
	if err := json.Unmarshal(res, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Title != "Output of Glob" || !strings.HasSuffix(rec.Text, "/Users/dev/code/shop/crates/web/Cargo.toml\n/Users/dev/code/shop/Cargo.toml") ||
		rec.Language != "text" || rec.Location.Range.Start.Line != 70 || !strings.HasSuffix(string(rec.Location.URI), ".json") {
		t.Fatalf("record %s", res)
	}
	if res := call(t, c, MethodCompanionRecord, at(uri, posOf(t, text, "@start", 0, false))); string(res) != "null" {
		t.Fatalf("a line without a record: %s", res)
	}
}

// recordLenses are the code lenses of a log that open a full record (the
// others are the session's).
func recordLenses(t *testing.T, c *lsptest.Client, uri protocol.DocumentURI) []protocol.CodeLens {
	t.Helper()
	var all, out []protocol.CodeLens
	json.Unmarshal(call(t, c, protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": uri}}), &all)
	for _, l := range all {
		if l.Command != nil && l.Command.Command == CommandOpenCompanionRecord {
			out = append(out, l)
		}
	}
	return out
}

// TestCompanionCodeLens: cut-short outputs get a lens that opens the
// record; the command shows the companion with the record selected.
func TestCompanionCodeLens(t *testing.T) {
	c := start(t, "", nil)
	uri, text := openLog(t, c, "sdk/222000-fix-locked-login.rlog")
	lenses := recordLenses(t, c, uri)
	var lines []uint32
	for _, l := range lenses {
		lines = append(lines, l.Range.Start.Line)
	}
	read := posOf(t, text, "o: id=v678oiff", 0, false).Line
	if len(lenses) == 0 || lenses[0].Range.Start.Line != read || !strings.HasPrefix(lenses[0].Command.Title, "Full output: ") ||
		!strings.HasSuffix(lenses[0].Command.Title, "in 222000-fix-locked-login.jsonl line 4") {
		t.Fatalf("lenses on lines %v: %+v", lines, lenses)
	}
	if len(lenses) != 6 {
		t.Errorf("lenses on lines %v, want one on each of the 6 cut-short outputs", lines)
	}
	if _, err := execute(t, c, CommandOpenCompanionRecord, lenses[0].Command.Arguments[0]); err != nil {
		t.Fatal(err)
	}
	shown := c.Requests(protocol.MethodShowDocument)
	if len(shown) != 1 || !strings.Contains(string(shown[0].Params), `222000-fix-locked-login.jsonl","takeFocus":true,"selection":{"start":{"line":3,"character":`) {
		t.Fatalf("showDocument %+v", shown)
	}

	// An output the log shows whole has none.
	uri, text = openLog(t, c, "claude/5c1e9f27-0d3b-4a8e-b6f2-91c4d7a3e850.rlog")
	lenses = recordLenses(t, c, uri)
	whole := posOf(t, text, "o: id=toolu_018pTsmqW1rEGQM3EykGBeKy", 0, false).Line
	for _, l := range lenses {
		if l.Range.Start.Line == whole {
			t.Errorf("an output shown whole got a lens: %+v", l)
		}
	}
	if len(lenses) != 2 {
		t.Errorf("%d lenses on the Claude log, want 2: %+v", len(lenses), lenses)
	}
}

// TestPairDiagnostics: where the log and its companion disagree, with the
// companion's places as related information; the settings apply.
func TestPairDiagnostics(t *testing.T) {
	c := start(t, "", nil)
	uri, _ := openLog(t, c, "disagree/224500-disagree.rlog")
	jsonl, _ := fixture(t, "disagree/224500-disagree.jsonl")
	p := c.WaitDiagnostics(uri, lsptest.AtVersion(1))
	codes := map[string]int{}
	for _, d := range p.Diagnostics {
		codes[d.Code.(string)]++
		if d.Code == "W015" {
			if len(d.RelatedInformation) != 1 || d.RelatedInformation[0].Location.URI != fileURI(jsonl) ||
				d.RelatedInformation[0].Location.Range.Start != (protocol.Position{Line: 6}) || d.Range.Start.Line != 2 {
				t.Errorf("W015 %+v", d)
			}
		}
	}
	if codes["W015"] != 1 || codes["I005"] != 2 || codes["I006"] != 2 {
		t.Fatalf("codes %v in %+v", codes, p.Diagnostics)
	}

	c2 := start(t, "", nil)
	c2.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"rlog": map[string]any{
		"disabledCodes": []string{"I005"}, "severity": map[string]string{"I006": "warning"}}}})
	uri2, _ := openLog(t, c2, "disagree/224500-disagree.rlog")
	p = c2.WaitDiagnostics(uri2, func(p lsptest.Published) bool {
		for _, d := range p.Diagnostics {
			if d.Code == "I006" && d.Severity == protocol.DiagnosticSeverityWarning {
				return true
			}
		}
		return false
	})
	for _, d := range p.Diagnostics {
		if d.Code == "I005" {
			t.Errorf("I005 is disabled: %+v", d)
		}
	}

	c3 := start(t, "", nil)
	uri3, _ := openLog(t, c3, "other-session/230100-other.rlog")
	p = c3.WaitDiagnostics(uri3, lsptest.AtVersion(1))
	found := false
	for _, d := range p.Diagnostics {
		if d.Code == "W014" {
			found = strings.Contains(d.Message, "records session 7c1e4b2a-5d3f-4e8a-9b6c-0f1d2e3a4b5c, not this log's 0b9d1c2e")
		}
	}
	if !found {
		t.Fatalf("no W014 in %+v", p.Diagnostics)
	}
	_, text := fixture(t, "other-session/230100-other.rlog")
	if h := hoverText(t, c3, uri3, posOf(t, text, "o: id=v678oiff → [ok]", 30, false)); strings.Contains(h, "in full") {
		t.Errorf("another session's record is not shown: %s", h)
	}
}

// TestGrowingCompanion: a session still running writes its companion as
// it goes. The server watches it where the client can, and re-reads only
// what was appended; without a watcher the files are checked when used.
func TestGrowingCompanion(t *testing.T) {
	for _, watched := range []bool{true, false} {
		t.Run(map[bool]string{true: "watched", false: "checked on use"}[watched], func(t *testing.T) {
			dir := t.TempDir()
			_, logText := fixture(t, "sdk/222000-fix-locked-login.rlog")
			_, record := fixture(t, "sdk/222000-fix-locked-login.jsonl")
			log, jsonl := filepath.Join(dir, "s.rlog"), filepath.Join(dir, "s.jsonl")
			writeFile(t, log, logText)
			lines := strings.SplitAfter(record, "\n")
			head := strings.Join(lines[:5], "") + lines[5][:40] // the sixth line half written
			writeFile(t, jsonl, head)

			caps := map[string]any{}
			if watched {
				caps["workspace"] = map[string]any{"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true}}
			}
			c := start(t, "", caps)
			uri := fileURI(log)
			open(t, c, uri, logText)
			p := c.WaitDiagnostics(uri, lsptest.AtVersion(1))
			var before []string
			for _, d := range p.Diagnostics {
				if d.Code == "I005" || d.Code == "W015" {
					before = append(before, d.Code.(string)+" "+d.Message)
				}
			}
			if len(before) < 5 || !strings.Contains(strings.Join(before, "\n"), "W015 Line 6 of s.jsonl cannot be read: the file ends inside this line") {
				t.Fatalf("before the rest is written:\n%s", strings.Join(before, "\n"))
			}
			bash := posOf(t, logText, "o: id=Mg7Nh8Pp → [error]", 30, false)
			if h := hoverText(t, c, uri, bash); strings.Contains(h, "in full") {
				t.Fatalf("a record not written yet: %s", h)
			}

			f, err := os.OpenFile(jsonl, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(record[len(head):])
			f.Close()
			if watched {
				reg := c.Requests(protocol.MethodClientRegisterCapability)
				if len(reg) != 1 || !strings.Contains(string(reg[0].Params), `"id":"rlog-ls.companions","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":[{"globPattern":"**/*.jsonl"},{"globPattern":"**/*.json"}]}`) {
					t.Fatalf("registrations %+v", reg)
				}
				c.Notify(protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{"changes": []map[string]any{{"uri": fileURI(jsonl), "type": 2}}})
				c.WaitDiagnostics(uri, func(p lsptest.Published) bool {
					for _, d := range p.Diagnostics {
						if d.Code == "I005" || d.Code == "W015" {
							return false
						}
					}
					return true
				})
			} else if n := len(c.Requests(protocol.MethodClientRegisterCapability)); n != 0 {
				t.Fatalf("%d registrations without the capability", n)
			}
			if h := hoverText(t, c, uri, bash); !strings.Contains(h, "**Output of Bash (an error)** in full") || !strings.Contains(h, "error: test failed, to rerun pass `-p auth --lib`") {
				t.Fatalf("after the rest is written: %s", h)
			}
		})
	}
}

// TestHeaderIDHoverNamesTheCompanion: the header's id says which file is
// the session's full record and gives APM counted from it.
func TestHeaderIDHoverNamesTheCompanion(t *testing.T) {
	c := start(t, "", nil)
	uri, text := openLog(t, c, "sdk/222000-fix-locked-login.rlog")
	h := hoverText(t, c, uri, posOf(t, text, "id: 7c1e", 5, false))
	for _, want := range []string{
		"**Full record**: `222000-fix-locked-login.jsonl` (autopilot JSONL), 24 records with 1 subagent file; 21 lines of this log are joined to their record.",
		"APM 4.90 = (5 messages + 7 tool calls) / 2.5 min, from the full record.",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}
	uri, text = openLog(t, c, "other-session/230100-other.rlog")
	if h := hoverText(t, c, uri, posOf(t, text, "id: 0b9d", 5, false)); !strings.Contains(h, "records another session, 7c1e4b2a-5d3f-4e8a-9b6c-0f1d2e3a4b5c (W014)") {
		t.Errorf("hover on another session's id:\n%s", h)
	}
}

// TestSessionLensCountsFromTheCompanion: the session's code lens gives
// APM counted from the companion, which knows the session's times.
func TestSessionLensCountsFromTheCompanion(t *testing.T) {
	c := start(t, "", nil)
	uri, _ := openLog(t, c, "sdk/222000-fix-locked-login.rlog")
	c.WaitDiagnostics(uri, lsptest.AtVersion(1)) // the log is joined to its companion
	var lenses []protocol.CodeLens
	json.Unmarshal(call(t, c, protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": uri}}), &lenses)
	var session *protocol.CodeLens
	for i := range lenses {
		if lenses[i].Command == nil {
			session = &lenses[i]
			break
		}
	}
	if session == nil {
		t.Fatalf("no session lens in %+v", lenses)
	}
	var resolved protocol.CodeLens
	if err := json.Unmarshal(call(t, c, protocol.MethodCodeLensResolve, session), &resolved); err != nil {
		t.Fatal(err)
	}
	jsonl, _ := fixture(t, "sdk/222000-fix-locked-login.jsonl")
	if resolved.Command == nil || !strings.Contains(resolved.Command.Title, "APM 4.90 (from "+jsonl+")") {
		t.Fatalf("session lens %+v", resolved.Command)
	}
}

// A companion open without its log: the log is read from disk and joined
// once, not at each hover, and read again when it changes on disk.
func TestCompanionWithoutItsLogJoinsOnce(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"222000-fix-locked-login.rlog", "222000-fix-locked-login.jsonl", "222000-fix-locked-login.sub-DZYW3CfJ.jsonl"} {
		_, text := fixture(t, "sdk/"+name)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	logPath, jsonlPath := filepath.Join(dir, "222000-fix-locked-login.rlog"), filepath.Join(dir, "222000-fix-locked-login.jsonl")
	jsonl, _ := os.ReadFile(jsonlPath)
	c := start(t, "", nil)
	uri := fileURI(jsonlPath)
	open(t, c, uri, string(jsonl))
	at := posAt(string(jsonl), strings.Index(string(jsonl), `{"tool_use_id":"toolu_01A8xKq2LmN3pR4sT5uVv678oiff"`)+20, false)
	before := joinsDone.Load()
	for i := range 3 {
		if h := hoverText(t, c, uri, at); !strings.Contains(h, "as line 19") {
			t.Fatalf("hover %d: %s", i, h)
		}
	}
	if n := joinsDone.Load() - before; n != 1 {
		t.Errorf("three hovers joined the log %d times, want once", n)
	}
	// The log changes on disk: a line before the result.
	logText, _ := os.ReadFile(logPath)
	changed := strings.Replace(string(logText), "\na: I'll start", "\n# a note\na: I'll start", 1)
	if changed == string(logText) {
		t.Fatal("the fixture changed: no a: I'll start line")
	}
	if err := os.WriteFile(logPath, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	if h := hoverText(t, c, uri, at); !strings.Contains(h, "as line 20") {
		t.Fatalf("after the log changed: %s", h)
	}
	if back := definitions(t, c, uri, at); len(back) != 1 || back[0].Range.Start.Line != 19 {
		t.Fatalf("definition after the log changed: %+v", back)
	}
}

// The join of one version of a log is made once however many requests ask
// for it at once; a request that is cancelled gets none, and leaves
// nothing behind: the next one joins.
func TestPairJoinedOncePerVersion(t *testing.T) {
	logPath, text := fixture(t, "sdk/222000-fix-locked-login.rlog")
	files, ok := companion.Locate(logPath)
	if !ok {
		t.Fatal("no companion")
	}
	snap, err := companion.Open(files).Current()
	if err != nil {
		t.Fatal(err)
	}
	doc := Parse([]byte(text))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	before := joinsDone.Load()
	if p := doc.pairWith(cancelled, snap); p != nil {
		t.Fatal("a cancelled request got a join")
	}
	var wg sync.WaitGroup
	got := make([]*companion.Pairing, 8)
	for i := range got {
		wg.Go(func() { got[i] = doc.pairWith(context.Background(), snap) })
	}
	wg.Wait()
	for i, p := range got {
		if p == nil || p != got[0] || p.Joined() == 0 {
			t.Fatalf("request %d: %p, want the one join %p", i, p, got[0])
		}
	}
	if n := joinsDone.Load() - before; n != 1 {
		t.Errorf("%d joins for one version asked 9 times, once cancelled: want 1", n)
	}
	// A new version is joined again; the old one's join stays right.
	edited := doc.Apply(0, 0, []byte("# a note\n"))
	if p := edited.pairWith(context.Background(), snap); p == nil || p == got[0] {
		t.Fatalf("the edited version: %p", p)
	}
	if n, ok := got[0].Line(mustRecord(t, got[0])); !ok || n < 0 {
		t.Fatal("the old join lost its links")
	}
}

func mustRecord(t *testing.T, p *companion.Pairing) companion.Ref {
	t.Helper()
	for _, ref := range p.Links() {
		return ref
	}
	t.Fatal("no links")
	return companion.Ref{}
}
