// Package gen writes realistic rlog/1 sessions of any size: every line kind,
// the shapes real writers produce (autopilot's repeated usage, converter
// metadata, long results), and a controlled rate of lines with findings.
// Benchmarks and tests use it; cmd/rlog-gen exposes it.
package gen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Options say what to generate.
type Options struct {
	// Bytes is the approximate size of the session (at least the header).
	Bytes int64
	// FindingRate is the fraction of body lines written so that the rules
	// report them (unknown ids, unknown lines, bad timestamps, decreasing
	// steps, ASCII arrows). 0 writes a clean session apart from I004.
	FindingRate float64
	// Seed makes the output reproducible.
	Seed uint64
	// Timed writes a ts= on every tool call's start and result, as
	// converted Claude Code sessions have, so latencies and the session
	// view's timeline are in time (otherwise only u: lines have one).
	Timed bool
	// Streamed gives each turn's response a message_id= on its th: and a:
	// lines, the th: line a streaming snapshot (a smaller tokens_out)
	// before the final count on the a: line, as older Claude Code wrote a
	// response (otherwise both lines repeat one usage without an id, as
	// autopilot does).
	Streamed bool
}

var (
	tools    = []string{"Read", "Edit", "Bash", "Grep", "Glob", "Write", "TodoWrite", "mcp__issues__issue_ready", "WebFetch"}
	words    = []string{"the", "session", "token", "parser", "handler", "config", "cache", "request", "module", "test", "file", "error", "value", "index", "build", "agent", "review", "commit", "branch", "log"}
	unicode  = []string{"naïve", "日本語", "😀", "→", "Ünïcödé", "emoji 🚀", "ß", "λ"}
	phases   = []string{"explore", "plan", "implement", "test", "review"}
	agents   = []string{"Explore", "Plan", "general-purpose"}
	statuses = []string{"[ok]", "[ok]", "[ok]", "[error]"}
)

// Write writes a session of about opts.Bytes bytes to w.
func Write(w io.Writer, opts Options) error {
	g := &writer{w: bufio.NewWriterSize(w, 1<<16), r: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)), opts: opts,
		ts: time.Date(2025, 12, 19, 20, 29, 2, 0, time.UTC)}
	g.header()
	for g.n < opts.Bytes {
		g.turn()
	}
	g.line("@end tokens_in=%d tokens_out=%d cost_usd=%.4f", g.totalIn, g.totalOut, float64(g.totalIn)*3e-6)
	return g.w.Flush()
}

type writer struct {
	w     *bufio.Writer
	r     *rand.Rand
	opts  Options
	n     int64
	err   error
	ts    time.Time
	calls int
	step  int
	phase int

	totalIn, totalOut int
	// the counts of the last usage written
	lastIn, lastOut, lastCached int
}

func (g *writer) line(format string, args ...any) {
	if g.err != nil {
		return
	}
	n, err := fmt.Fprintf(g.w, format, args...)
	g.n += int64(n) + 1
	if err == nil {
		err = g.w.WriteByte('\n')
	}
	g.err = err
}

func (g *writer) header() {
	g.line("---")
	g.line("format: rlog/1")
	g.line("id: gen-%016x", g.opts.Seed)
	g.line("repo_sha: 4f2a9c1e%08x", g.r.Uint32())
	g.line("branch: main")
	g.line("model: claude-sonnet-4-5-20250929")
	g.line("cwd: /home/dev/src/project")
	g.line("agent: autopilot")
	g.line("version: 0.1.0")
	g.line("---")
	g.line("")
	g.line("@start id=gen ts=%s", g.stamp())
	g.line("@init model=claude-sonnet-4-5-20250929")
}

func (g *writer) stamp() string {
	g.ts = g.ts.Add(time.Duration(g.r.IntN(9000)) * time.Millisecond)
	return g.ts.Format(time.RFC3339)
}

// callStamp is " ts=..." on a call's lines when Options.Timed asks for it.
func (g *writer) callStamp() string {
	if !g.opts.Timed {
		return ""
	}
	return " ts=" + g.stamp()
}

func (g *writer) text(n int) string {
	b := make([]byte, 0, n*7)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		if g.r.IntN(25) == 0 {
			b = append(b, unicode[g.r.IntN(len(unicode))]...)
		} else {
			b = append(b, words[g.r.IntN(len(words))]...)
		}
	}
	return string(b)
}

func (g *writer) id() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	var b [8]byte
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b[:])
}

func (g *writer) usage() string {
	in, out, cached := 1+g.r.IntN(800), 1+g.r.IntN(600), g.r.IntN(40000)
	g.totalIn += in
	g.totalOut += out
	g.lastIn, g.lastOut, g.lastCached = in, out, cached
	return fmt.Sprintf("tokens_in=%d tokens_out=%d tokens_cached=%d", in, out, cached)
}

// finding reports whether the next line should carry a finding.
func (g *writer) finding() bool { return g.opts.FindingRate > 0 && g.r.Float64() < g.opts.FindingRate }

func (g *writer) turn() {
	if g.r.IntN(12) == 0 {
		g.line("")
		g.line("@phase %s", phases[g.phase%len(phases)])
		g.phase++
	}
	g.step++
	g.line("u: %s ts=%s step=%d", g.text(8+g.r.IntN(20)), g.stamp(), g.step)
	usage := g.usage()
	thinking := usage
	if g.opts.Streamed {
		in, out, cached := g.lastIn, g.lastOut, g.lastCached
		msg := " message_id=msg_" + g.id()
		thinking = fmt.Sprintf("tokens_in=%d tokens_out=%d tokens_cached=%d", in, 1+g.r.IntN(out), cached) + msg
		usage += msg
	}
	g.line("th: %s sig=Ep4E%s... %s", g.text(10+g.r.IntN(15)), g.id(), thinking)
	g.line("a: %s %s", g.text(5+g.r.IntN(25)), usage)
	for k := 1 + g.r.IntN(5); k > 0; k-- {
		g.call()
	}
	switch g.r.IntN(10) {
	case 0:
		g.line("# status: Compacting")
	case 1:
		g.line("td: [completed] %s [in_progress] %s [pending] %s", g.text(3), g.text(4), g.text(3))
	case 2:
		sub := g.id()
		agent := agents[g.r.IntN(len(agents))]
		g.line("x:%s id=%s → [started] summary=\"%s\"", agent, sub, g.text(5))
		g.line("t!:Task id=%s desc=\"%s\" → [running] %s", sub, g.text(4), g.usage())
		g.call()
		g.line("x:%s id=%s → [done] summary=\"%s\"", agent, sub, g.text(6))
		g.line("o: id=%s → [ok] %s", sub, g.text(10))
	case 3:
		g.line("q: \"%s?\" id=%s → [selected: %s]", g.text(6), g.id(), g.text(2))
	case 4:
		g.line("c:github.issues id=%s state=open → [%d issues]", g.id(), g.r.IntN(30))
	}
	if g.finding() {
		g.badLine()
	}
}

func (g *writer) call() {
	id := g.id()
	g.calls++
	tool := tools[g.r.IntN(len(tools))]
	var args string
	switch tool {
	case "Read", "Edit", "Write":
		args = fmt.Sprintf("file_path=src/%s/%s.go", words[g.r.IntN(len(words))], words[g.r.IntN(len(words))])
	case "Bash":
		args = fmt.Sprintf("cmd=\"go test ./%s/... -run %s\"", words[g.r.IntN(len(words))], g.text(2))
	case "Grep", "Glob":
		args = fmt.Sprintf("pattern=\"%s\"", g.text(2))
	}
	g.line("t!:%s id=%s %s → [running] %s%s", tool, id, args, g.usage(), g.callStamp())
	if g.r.IntN(6) == 0 {
		g.line("t~:%s id=%s [%d/%d passed]", tool, id, g.r.IntN(50), 50+g.r.IntN(50))
	}
	g.line("o: id=%s → %s %s%s", id, statuses[g.r.IntN(len(statuses))], g.text(4+g.r.IntN(60)), g.callStamp())
	for k := g.r.IntN(4); k > 0 && g.r.IntN(3) == 0; k-- {
		g.line("  %s", g.text(6+g.r.IntN(12)))
	}
}

// badLine writes one line that a rule reports.
func (g *writer) badLine() {
	switch g.r.IntN(5) {
	case 0:
		g.line("o: id=%s → [ok] %s", g.id(), g.text(5)) // W002
	case 1:
		g.line("[%s]", g.text(6)) // W003
	case 2:
		g.line("u: %s ts=2025-13-45T99:99:99Z", g.text(4)) // W005
	case 3:
		g.line("a: %s step=0", g.text(4)) // W004
	case 4:
		g.line("t:read %s -> [%d lines]", g.text(1), g.r.IntN(500)) // W011
	}
}
