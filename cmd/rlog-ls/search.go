package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/sessions"
)

const searchUsage = "rlog-ls search [-i] [-F] [--kind KIND,...] [--format text|json] PATTERN [PATH...]"

const searchAbout = `Search the full record of sessions: prompts, the agent's messages,
thinking, tool calls' inputs and tools' outputs, sub-agents' too. PATTERN
is a Go regular expression (https://pkg.go.dev/regexp/syntax), matched
against each line of each text; -F takes it as a plain string.

A session in another format rlog-ls reads (a Claude Code transcript, a
Codex rollout, a Gemini CLI session ...) is searched through its reader,
and a hit is at the transcript's line of the record that holds it (a
sub-agent's record at its own file's line). An .rlog log is searched at
its lines; where it has a companion (the autopilot's NAME.jsonl, the
transcript it was converted from), the companion's whole record of each
line is searched instead of the line's cut text, and the hit is at the
rlog line.

One line per hit, FILE:LINE: KIND: EXCERPT, as grep -n prints them, for
editors' quickfix lists (docs/cli.md has Vim's and Emacs' settings). KIND
is prompt, context (text the harness added to a user turn), message,
thinking, call TOOL, output TOOL, error TOOL (a failed call's output),
subagent, system, summary (a compaction), todo or comment; a sub-agent's
hits say "sub-agent" before it. The excerpt is one line around the match.
--format json prints one JSON object a line (docs/cli.md names the fields).

A PATH may be a folder: every session under it, recursively (.rlog logs
and the .jsonl and .json sessions rlog-ls reads; a session's sub-agents
are read with it; a log's companion is searched through its log). With
no PATH, the current folder's sessions as rlog-ls sessions lists them: its
logs, and the agents' stores for it (Claude Code's, Codex CLI's, Gemini
CLI's), through the same index.

Exit status: 0 when something matched, 1 when nothing did, 2 on an error
(a path that cannot be read, a file that is not a session, a bad PATTERN),
as grep's.`

func searchCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("search", searchUsage, searchAbout)
	ignoreCase := cmd.fl.Bool("i", false, "match upper and lower case alike")
	fixed := cmd.fl.Bool("F", false, "PATTERN is a plain string, not a regular expression")
	var kinds listFlag
	cmd.fl.Var(&kinds, "kind", "search only these `kinds` (prompt, context, message, thinking, call, output, error, subagent, system, summary, todo, comment), comma-separated")
	format := cmd.fl.String("format", "text", "output `format`: text (FILE:LINE: KIND: EXCERPT) or json (one object a line)")
	positional, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	if !cmd.textOrJSON(*format, stderr) {
		return 2
	}
	if len(positional) == 0 {
		cmd.fail(stderr, "no PATTERN (try: rlog-ls search 'rm -rf' .)")
		return 2
	}
	pattern := positional[0]
	if *fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if *ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		cmd.fail(stderr, "PATTERN: %v", err)
		return 2
	}
	want := map[string]bool{}
	for _, k := range kinds {
		if !isSearchKind(k) {
			cmd.fail(stderr, "--kind %q: the kinds are %s", k, strings.Join(searchKinds, ", "))
			return 2
		}
		want[k] = true
	}
	var files []string
	var failed bool
	if paths := positional[1:]; len(paths) == 0 {
		files, failed = sessionsHere("search", stderr)
	} else {
		files, failed = collectFiles("search", paths, stderr, false, "no .rlog files or sessions", func(p string, d fs.DirEntry) error {
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".rlog") {
				return errTake
			}
			if !d.IsDir() {
				if _, ok := companion.RlogFor(p); ok {
					return nil // a log's companion: searched through its log
				}
			}
			return pickSession(p, d)
		})
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	s := &searcher{re: re, kinds: want, json: *format == "json", out: out}
	for _, path := range files {
		if err := s.file(path); err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "rlog-ls search: %s\n", describeIOError(err))
			failed = true
		}
	}
	switch {
	case failed:
		return 2
	case s.hits == 0:
		return 1
	}
	return 0
}

// searchKinds are the kinds of text search tells apart (--kind).
var searchKinds = []string{"prompt", "context", "message", "thinking", "call", "output", "error", "subagent", "system", "summary", "todo", "comment"}

func isSearchKind(k string) bool {
	for _, s := range searchKinds {
		if s == k {
			return true
		}
	}
	return false
}

// searcher searches sessions, one event at a time, printing each hit as
// it is found.
type searcher struct {
	re    *regexp.Regexp
	kinds map[string]bool // empty: every kind
	json  bool
	out   io.Writer
	hits  int

	// per file
	path  string
	tools map[string]string // call id → tool, for the calls not answered yet
}

// searchHit is one hit, as --format json writes it.
type searchHit struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
	// Tool is the tool of a call or an output.
	Tool string `json:"tool,omitempty"`
	// Field is the argument of a call's input that matched.
	Field string `json:"field,omitempty"`
	// Agent is the sub-agent whose record it is.
	Agent   string `json:"agent,omitempty"`
	Excerpt string `json:"excerpt"`
	Match   string `json:"match"`
}

func (s *searcher) file(path string) error {
	s.path, s.tools = path, map[string]string{}
	return readEvents(path, s)
}

func (s *searcher) End(*model.Header) error { return nil }

// BorrowsEvents implements model.Borrower: a hit is printed at once; the
// call tools it remembers are strings.
func (*searcher) BorrowsEvents() bool { return true }

// Event searches the texts of one event.
func (s *searcher) Event(_ *model.Header, e *model.Event) error {
	eventTexts(e, s.tools, func(kind, tool, field, text string) {
		if len(s.kinds) > 0 && !s.kinds[kind] {
			return
		}
		s.search(e, kind, tool, field, text)
	})
	return nil
}

// eventTexts calls each with the texts of e a person reads: its kind (one
// of searchKinds), the tool of a call or output, the argument a call's
// text is. tools keeps the tool of each call until its output.
func eventTexts(e *model.Event, tools map[string]string, each func(kind, tool, field, text string)) {
	switch e.Kind {
	case model.KindUser:
		if e.Meta {
			each("context", "", "", e.Text)
		} else {
			each("prompt", "", "", e.Text)
		}
	case model.KindAgent:
		each("message", "", "", e.Text)
	case model.KindThinking:
		each("thinking", "", "", e.Text)
	case model.KindToolCall:
		if e.Call == nil {
			return
		}
		tools[e.Call.ID] = e.Call.Name
		if args := e.Call.Args(); args != nil {
			for _, f := range args {
				if v, ok := model.ScalarText(f.Value); ok {
					each("call", e.Call.Name, f.Key, v)
				} else {
					each("call", e.Call.Name, f.Key, string(f.Value))
				}
			}
		} else if v, ok := model.ScalarText(e.Call.Input); ok {
			each("call", e.Call.Name, "", v) // a custom tool's text input (Codex's apply_patch)
		} else if e.Call.Summary != "" {
			each("call", e.Call.Name, "", e.Call.Summary)
		}
	case model.KindToolResult:
		if e.Result == nil {
			return
		}
		tool := tools[e.Result.CallID]
		delete(tools, e.Result.CallID)
		kind := "output"
		if e.Result.IsError {
			kind = "error"
		}
		each(kind, tool, "", e.Result.Content)
	case model.KindSubagent:
		if e.Subagent != nil {
			each("subagent", "", "", strings.TrimSpace(e.Subagent.Type+" "+e.Subagent.Summary))
		}
	case model.KindStatus, model.KindSystem:
		each("system", "", "", e.Text)
	case model.KindCompaction:
		each("summary", "", "", e.Text)
	case model.KindTodos:
		for _, t := range e.Todos {
			each("todo", "", "", t.Content)
		}
	case model.KindComment:
		each("comment", "", "", e.Text)
	}
}

// search prints a hit for each line of text that matches.
func (s *searcher) search(e *model.Event, kind, tool, field, text string) {
	if text == "" || s.re.FindStringIndex(text) == nil {
		return
	}
	for rest := text; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		m := s.re.FindStringIndex(line)
		if m == nil {
			continue
		}
		s.hits++
		h := searchHit{File: eventFile(s.path, e), Line: max(e.Loc.Line, 1), Kind: kind, Tool: tool, Field: field,
			Excerpt: excerpt(line, m[0], m[1]), Match: validText(line[m[0]:m[1]])}
		if e.AgentID != "" || e.Sidechain {
			h.Agent = e.AgentID
			if h.Agent == "" {
				h.Agent = "sidechain"
			}
		}
		s.print(&h)
	}
}

func (s *searcher) print(h *searchHit) {
	if s.json {
		b, _ := json.Marshal(h)
		s.out.Write(append(b, '\n'))
		return
	}
	kind := h.Kind
	if h.Tool != "" {
		kind += " " + h.Tool
	}
	if h.Agent != "" {
		kind = "sub-agent " + kind
	}
	ex := h.Excerpt
	if h.Field != "" {
		ex = h.Field + ": " + ex
	}
	fmt.Fprintf(s.out, "%s:%d: %s: %s\n", h.File, h.Line, kind, ex)
}

// The excerpt around a match: this many characters before and after it,
// and at most excerptMatch of the match itself.
const (
	excerptContext = 40
	excerptMatch   = 120
)

// excerpt is line around its match [start, end), on one line: tabs and
// control characters as spaces, bytes that are not UTF-8 as U+FFFD, cut at
// characters, never inside one, with "…" where it is cut.
func excerpt(line string, start, end int) string {
	before, match, after := line[:start], line[start:end], line[end:]
	cutBefore, cutAfter := false, false
	if n := utf8.RuneCountInString(before); n > excerptContext {
		before, cutBefore = lastRunes(before, excerptContext), true
	}
	if utf8.RuneCountInString(match) > excerptMatch {
		match, after, cutAfter = firstRunes(match, excerptMatch), "", true
	} else if utf8.RuneCountInString(after) > excerptContext {
		after, cutAfter = firstRunes(after, excerptContext), true
	}
	var b strings.Builder
	if cutBefore {
		b.WriteString("…")
	}
	b.WriteString(before + match + after)
	if cutAfter {
		b.WriteString("…")
	}
	return validText(strings.TrimRight(b.String(), " \t\r"))
}

// validText is s on one line, valid UTF-8: control characters become
// spaces, bytes that are not UTF-8 U+FFFD.
func validText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}

// firstRunes is the first n characters of s; lastRunes the last n.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	i := len(s)
	for n > 0 && i > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n--
	}
	return s[i:]
}

// sessionsHere are the current folder's sessions as `rlog-ls sessions`
// lists them with no path (its logs and the agents' stores for it), from
// the same index in the user's cache folder, newest first; a problem with
// one is printed on stderr (failed).
func sessionsHere(cmd string, stderr io.Writer) (files []string, failed bool) {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls %s: %v\n", cmd, err)
		return nil, true
	}
	path, err := sessions.DefaultIndexPath()
	if err != nil {
		fmt.Fprintf(stderr, "rlog-ls %s: no cache folder for the sessions index (%v): name a folder\n", cmd, err)
		return nil, true
	}
	ix := sessions.Open(path)
	list := ix.List(context.Background(), sessions.RequestFor(nil, cwd, sessions.DefaultHomes()))
	if err := ix.Save(); err != nil {
		fmt.Fprintf(stderr, "rlog-ls %s: the sessions index was not saved: %v\n", cmd, err)
	}
	for _, p := range list.Problems {
		fmt.Fprintf(stderr, "rlog-ls %s: %s\n", cmd, p.Error())
		failed = true
	}
	for _, s := range list.Sessions {
		files = append(files, s.Row.File)
	}
	return files, failed
}
