package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/sessions"
)

const sessionsUsage = "rlog-ls sessions [--format text|json] [--touched FILE] [--index FILE] [PATH...]"

const sessionsAbout = `List sessions, one row per session, newest first: when it started, the
agent, its title (the agent's own title or summary, else the first prompt),
duration, tokens, cost where the session states one, tool calls, errors and
sub-agents, the figures rlog-ls stats shows of the same file.

With no PATH: this folder's sessions: its .rlog files, every session under
docs/logs/, and the agents' stores for this folder: Claude Code's
(~/.claude/projects/, or CLAUDE_CONFIG_DIR), Codex CLI's (~/.codex/sessions/,
or CODEX_HOME, the sessions whose cwd is this folder) and Gemini CLI's
(~/.gemini/tmp/PROJECT/chats/). A PATH names a session file, or a folder:
every session under it.

The rows are kept in an index in the user's cache folder
(rlog-ls/sessions.json under XDG_CACHE_HOME or ~/.cache; RLOG_LS_SESSIONS_INDEX
or --index moves it), keyed by path, size and modification time: a file is
read again only when it changed. Progress goes to stderr when it is a
terminal.

--touched FILE lists the calls that changed FILE (Write, Edit, MultiEdit,
NotebookEdit, write_file, replace, apply_patch, and the shell commands'
common writing forms: docs/cli.md says which), newest session first, one a
line: SESSIONFILE:LINE: tool: target.

Exit status: 0; 1 with --touched when no session changed FILE; 2 when a
path cannot be read or a file is not a session (the others are still
listed, each problem on a line of stderr).`

func sessionsCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cmd := newCommand("sessions", sessionsUsage, sessionsAbout)
	format := cmd.fl.String("format", "text", "output `format`: text or json")
	touched := cmd.fl.String("touched", "", "list the calls that changed `FILE`")
	indexPath := cmd.fl.String("index", "", "the index `FILE` (default: in the user's cache folder)")
	paths, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	if *format != "text" && *format != "json" {
		cmd.fail(stderr, "--format must be text or json, not %q", *format)
		return 2
	}
	if *indexPath == "" {
		p, err := sessions.DefaultIndexPath()
		if err != nil {
			cmd.fail(stderr, "no cache folder (%v): name the index with --index FILE", err)
			return 2
		}
		*indexPath = p
	}
	cwd, err := os.Getwd()
	if err != nil {
		cmd.fail(stderr, "%v", err)
		return 2
	}
	req := sessionsRequest(paths, cwd, sessions.DefaultHomes())
	req.Changes = *touched != ""
	if isTerminal(stderr) {
		req.Progress = progressLine(stderr)
	}
	ix := sessions.Open(*indexPath)
	if ix.Rebuilt != "" {
		fmt.Fprintf(stderr, "rlog-ls sessions: %s; it is made again\n", ix.Rebuilt)
	}
	list := ix.List(context.Background(), req)
	if req.Progress != nil && list.Read > 0 {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err := ix.Save(); err != nil {
		fmt.Fprintf(stderr, "rlog-ls sessions: the index was not saved: %v\n", err)
	}
	failed := false
	for _, p := range list.Problems {
		fmt.Fprintf(stderr, "rlog-ls sessions: %s\n", p.Error())
		failed = true
	}
	if *touched != "" {
		doc := sessions.TouchedDocOf(list, absPath(*touched, cwd))
		hits := doc.Changes
		if *format == "json" {
			printJSON(stdout, stderr, "sessions", doc)
		} else {
			for _, h := range hits {
				fmt.Fprintf(stdout, "%s:%d: %s: %s\n", h.File, h.Line, h.Tool, h.Target)
			}
		}
		if failed {
			return 2
		}
		if len(hits) == 0 {
			return 1
		}
		return 0
	}
	doc := sessions.DocOf(list)
	if *format == "json" {
		printJSON(stdout, stderr, "sessions", doc)
	} else {
		printSessions(stdout, doc.Sessions, cwd)
	}
	if failed {
		return 2
	}
	return 0
}

// sessionsRequest is what to list: the paths named (files, and the
// sessions under folders), or with none this folder's sessions.
func sessionsRequest(paths []string, cwd string, homes sessions.Homes) sessions.Request {
	return sessions.RequestFor(paths, cwd, homes)
}

func absPath(p, cwd string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// progressLine shows how many files are read, on one line of a terminal.
func progressLine(w io.Writer) func(done, total int) {
	last := time.Time{}
	return func(done, total int) {
		if now := time.Now(); done == total || now.Sub(last) > 100*time.Millisecond {
			last = now
			fmt.Fprintf(w, "\r\033[Kreading sessions: %d of %d", done, total)
		}
	}
}

// printSessions is the text listing: an aligned table.
func printSessions(w io.Writer, rows []sessions.Row, cwd string) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no sessions")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "when\tagent\ttime\ttokens\tcost\tcalls\terrors\tsub\ttitle\tfile")
	for _, r := range rows {
		when := "—"
		if r.Start != nil {
			when = r.Start.Local().Format("2006-01-02 15:04")
		}
		agent := r.Agent
		if agent == "" {
			agent = r.Format
		}
		cost := "—"
		if r.CostUSD != nil {
			cost = analysis.FormatCost(*r.CostUSD)
		}
		tokens := analysis.GroupDigits(r.Tokens.In + r.Tokens.Out + r.Tokens.Cached + r.Tokens.CacheCreate)
		file := r.File
		if rel, err := filepath.Rel(cwd, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = rel
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", when, agent, optDuration(r.DurationMS), tokens, cost,
			r.ToolCalls, r.Errors, r.Subagents, cutTitle(r.Title, 50), file)
	}
	tw.Flush()
}

// cutTitle is a title for a table's cell: tabs as spaces, at most n
// characters.
func cutTitle(t string, n int) string {
	t = strings.ReplaceAll(t, "\t", " ")
	if t == "" {
		return "—"
	}
	if utf8.RuneCountInString(t) <= n {
		return t
	}
	return string([]rune(t)[:n-1]) + "…"
}
