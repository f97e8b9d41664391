// Package store generates an agent's store of sessions for the sessions
// index's benchmarks: Claude Code transcripts of many sizes, laid out as
// Claude Code lays them out (projects/ENCODED-CWD/SESSION.jsonl).
package store

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// templates is how many distinct transcripts a store is made of: each file
// is a copy of one (copies are as slow to list as distinct files, and
// generating 2 GB of distinct transcripts would take minutes).
const templates = 40

// Claude writes n Claude Code transcripts of total bytes in all into
// project (a folder of Claude Code's projects/), unless project already
// holds n files (the benchmarks keep a store in $RLOG_STORE_DIR between
// runs). Sizes are spread log-uniformly over a factor of 300, as a heavy
// user's are (many short sessions, a few very long ones); each size is a
// generated rlog session converted by the Claude Code writer. It returns
// the files' paths.
func Claude(t testing.TB, project string, n int, total int64) []string {
	t.Helper()
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(project, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", i, i))
	}
	if ents, err := os.ReadDir(project); err == nil && len(ents) == n {
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
	bodies := make([][]byte, m)
	for k := range m {
		size := int64(float64(total) * weight(k) / weights / copies)
		var log bytes.Buffer
		// A session's rlog is about 30% of its transcript's size.
		if err := gen.Write(&log, gen.Options{Bytes: max(size*3/10, 2<<10), Seed: uint64(k + 1), Timed: true}); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := convert.Convert(bytes.NewReader(log.Bytes()), convert.Rlog, convert.Claude, &out, convert.Options{}); err != nil {
			t.Fatal(err)
		}
		bodies[k] = out.Bytes()
	}
	for i, p := range paths {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.Write(bodies[i%m])
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}
