package gen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// WritePair writes an autopilot session as the autopilot writes it: the
// log to log, cut short as its writer cuts lines, and its companion (the
// Agent SDK messages, whole) to record, about bytes long. Per turn the
// agent writes a message, sometimes thinks, calls a tool and gets its
// output, from a line to tens of KB; records average about a kilobyte, as
// the real companions' do or less.
func WritePair(log, record io.Writer, bytes int64, seed uint64) error {
	counted := &countingWriter{w: record}
	lw, rw := bufio.NewWriterSize(log, 1<<16), bufio.NewWriterSize(counted, 1<<20)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	const session = "7c1e4b2a-5d3f-4e8a-9b6c-0f1d2e3a4b5c"
	ts := time.Date(2025, 12, 22, 22, 20, 41, 730009464, time.UTC)
	stamp := func() string {
		ts = ts.Add(time.Duration(200+r.IntN(3000)) * time.Millisecond)
		return ts.Format("2006-01-02T15:04:05.000000000+00:00")
	}
	// text is JSON-ready prose with line breaks written as \n.
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(words[r.IntN(len(words))])
			if r.IntN(12) == 0 {
				b.WriteString(`\n`)
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	// cut is what the log keeps: the first line, at most n characters.
	cut := func(s string, n int) string {
		first, rest, more := strings.Cut(s, `\n`)
		if len(first) > n {
			return first[:n-3] + "..."
		}
		if more && rest != "" {
			return first + "..."
		}
		return first
	}
	usage := `"usage":{"input_tokens":3,"cache_creation_input_tokens":120,"cache_read_input_tokens":14210,"output_tokens":85,"service_tier":"standard"},"context_management":null}`
	assistant := func(turn int, block string) {
		fmt.Fprintf(rw, `{"type":"assistant","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_01%022d","type":"message","role":"assistant","content":[%s],"stop_reason":null,"stop_sequence":null,%s,"timestamp":"%s"}`+"\n",
			turn, block, usage, stamp())
	}
	fmt.Fprintf(lw, "---\nformat: rlog/1\nid: %s\nrepo_sha: 4f2a9c1e7b\nmodel: claude-sonnet-4-5-20250929\nagent: autopilot\nversion: 0.1.0\n---\n\n@start id=%s ts=%s\n@init model=claude-sonnet-4-5-20250929\n",
		session, session[:8], ts.Format("2006-01-02T15:04:05Z"))
	fmt.Fprintf(rw, `{"type":"system","message":{"subtype":"init","cwd":"/home/dev/shop","model":"claude-sonnet-4-5-20250929","session_id":"%s"},"timestamp":"%s"}`+"\n", session, stamp())
	for turn := 0; counted.n+int64(rw.Buffered()) < bytes || turn == 0; turn++ {
		id := fmt.Sprintf("toolu_01%010d%08x", turn, r.Uint32())
		msg := text(80 + r.IntN(400))
		assistant(turn, fmt.Sprintf(`{"type":"text","text":"%s"}`, msg))
		fmt.Fprintf(lw, "a: %s tokens_in=3 tokens_out=85 tokens_cached=14210\n", strings.ReplaceAll(cut(msg, 200), `\n`, " "))
		if r.IntN(4) == 0 {
			th := text(300 + r.IntN(1500))
			assistant(turn, fmt.Sprintf(`{"type":"thinking","thinking":"%s","signature":"EvUDCkYIChgCKkCIgzG+yy5zuxEwtjyr4rIzPaJvwFwk9e3fqnU0w5yXx6Zpk"}`, th))
			fmt.Fprintf(lw, "th: %s sig=EvUDCkYIChgCKkCIgzG+... tokens_in=3 tokens_out=85 tokens_cached=14210\n", cut(th, 150))
		}
		file := words[r.IntN(len(words))]
		assistant(turn, fmt.Sprintf(`{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":"/home/dev/shop/src/%s.rs"}}`, id, file))
		fmt.Fprintf(lw, "t!:Read id=%s file_path=/home/dev/shop/src/%s.rs → [running] tokens_in=3 tokens_out=85 tokens_cached=14210\n", id[len(id)-8:], file)
		out := text(40 + int(r.ExpFloat64()*1500))
		fmt.Fprintf(rw, `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"%s"}]},"timestamp":"%s"}`+"\n", id, out, stamp())
		fmt.Fprintf(lw, "o: id=%s → [ok] %s\n", id[len(id)-8:], cut(out, 100))
	}
	if err := rw.Flush(); err != nil {
		return err
	}
	return lw.Flush()
}

// countingWriter counts what goes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
