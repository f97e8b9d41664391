// Package store generates an agent's store of sessions for the sessions
// index's benchmarks: Claude Code transcripts of many sizes, laid out as
// Claude Code lays them out (projects/ENCODED-CWD/SESSION.jsonl), in one
// of two shapes (Shape).
package store

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// templates is how many distinct transcripts a store is made of: each file
// is a copy of one (copies are as slow to list as distinct files, and
// generating 2 GB of distinct transcripts would take minutes).
const templates = 40

// Shape is how a store's transcripts are written.
type Shape string

const (
	// CLI transcripts are shaped as the Claude Code CLI 2.x writes them
	// (CLITranscript): what users' stores hold.
	CLI Shape = "cli"
	// Writer transcripts are generated rlog sessions converted by our
	// Claude Code writer: every entry carries the writer's rests (the
	// events' fields Claude Code has no key for), which the CLI never
	// writes, and none of the CLI's bookkeeping records. Kept to compare
	// with the figures measured on it before the CLI shape.
	Writer Shape = "writer"
)

// ShapeEnv names the environment variable that picks the shape Claude
// writes: "cli" (the default) or "writer".
const ShapeEnv = "RLOG_STORE_SHAPE"

// EnvShape is the shape $RLOG_STORE_SHAPE names, CLI when it is unset.
func EnvShape(t testing.TB) Shape {
	switch s := Shape(os.Getenv(ShapeEnv)); s {
	case "", CLI:
		return CLI
	case Writer:
		return Writer
	default:
		t.Fatalf("%s=%q: want %q or %q", ShapeEnv, s, CLI, Writer)
		return ""
	}
}

// Claude is Generate with the shape $RLOG_STORE_SHAPE names (CLI unless
// it says writer).
func Claude(t testing.TB, project string, n int, total int64) []string {
	t.Helper()
	return Generate(t, project, n, total, EnvShape(t))
}

// Generate writes n Claude Code transcripts of total bytes in all, of the
// given shape, into project (a folder of Claude Code's projects/), unless
// project already holds n files (the benchmarks keep a store in
// $RLOG_STORE_DIR between runs): then they must be of that shape, or it
// fails rather than list another shape than asked or write over a kept
// store. Sizes are spread log-uniformly over a factor of 300, as a heavy
// user's are (many short sessions, a few very long ones); a CLI-shaped
// transcript is never smaller than one run of the CLI (about 150 KB, as
// the recorded ones are), so a store of small sessions is larger than
// total. It returns the files' paths.
func Generate(t testing.TB, project string, n int, total int64, shape Shape) []string {
	t.Helper()
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(project, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", i, i))
	}
	if transcripts(project) == n {
		if got := shapeOf(paths[0]); got != shape {
			t.Fatalf("%s holds a store of %s-shaped transcripts, %s-shaped asked: keep each shape in a folder of its own (RLOG_STORE_DIR), or set %s=%s", project, got, shape, ShapeEnv, got)
		}
		return paths
	}
	// Template k of m has weight 300^(k/(m-1)); file i copies template
	// i mod m, so each template is copied n/m times.
	m := min(n, templates)
	weight := func(k int) float64 {
		if m == 1 {
			return 1
		}
		return math.Pow(300, float64(k)/float64(m-1))
	}
	var weights float64
	for k := range m {
		weights += weight(k)
	}
	copies := float64(n) / float64(m)
	bodies := make([]CLISession, m)
	for k := range m {
		size := int64(float64(total) * weight(k) / weights / copies)
		if shape == CLI {
			bodies[k] = CLISessionOf(size, uint64(k+1))
			continue
		}
		var log bytes.Buffer
		// A session's rlog is about 30% of its transcript's size.
		if err := gen.Write(&log, gen.Options{Bytes: max(size*3/10, 2<<10), Seed: uint64(k + 1), Timed: true}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := convert.Convert(bytes.NewReader(log.Bytes()), convert.Rlog, convert.Claude, &out, convert.Options{}); err != nil {
			t.Fatal(err)
		}
		bodies[k] = CLISession{Transcript: out.Bytes()}
	}
	for i, p := range paths {
		if err := WriteSession(p, bodies[i%m]); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// WriteSession writes s's transcript to path and its sub-agents' files
// beside it as Claude Code lays them out: SESSION/subagents/agent-ID.jsonl
// and agent-ID.meta.json, SESSION being path's name without .jsonl.
func WriteSession(path string, s CLISession) error {
	if err := writeFile(path, s.Transcript); err != nil {
		return err
	}
	if len(s.Agents) == 0 {
		return nil
	}
	dir := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, a := range s.Agents {
		if err := writeFile(filepath.Join(dir, "agent-"+a.ID+".jsonl"), a.Transcript); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, "agent-"+a.ID+".meta.json"), a.Meta); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(data)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// transcripts counts the transcripts in project (its .jsonl files; the
// sessions' folders of sub-agents are not counted).
func transcripts(project string) int {
	ents, err := os.ReadDir(project)
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".jsonl") {
			n++
		}
	}
	return n
}

// shapeOf is the shape of the generated transcript at path: the CLI's
// start with the queued prompt, as the CLI's files do.
func shapeOf(path string) Shape {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 64)
	k, _ := f.Read(head)
	if strings.HasPrefix(string(head[:k]), `{"type":"queue-operation"`) {
		return CLI
	}
	return Writer
}
