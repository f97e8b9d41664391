package companion

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// fixtures is where the pairs written for the tests are: one folder per
// pair, each with one .rlog and its companion files.
const fixtures = "../testdata/companions"

// openPair parses the log at path and indexes its companion.
func openPair(t testing.TB, path string) (*grammar.Tree, *Snapshot) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files, ok := Locate(path)
	if !ok {
		t.Fatalf("no companion for %s", path)
	}
	s, err := Open(files).Current()
	if err != nil {
		t.Fatal(err)
	}
	return grammar.Parse(src), s
}

// describe writes the pairing as a document: each line of the log with
// the record it was joined to and the start of that record's full
// content, then the findings.
func describe(t *testing.T, tr *grammar.Tree, s *Snapshot, p *Pairing) string {
	var b strings.Builder
	main := s.Main()
	fmt.Fprintf(&b, "companion %s (%s, session %s)\n", filepath.Base(main.Path), Title(main.Format), main.SessionID)
	ids := make([]string, 0, len(s.Subagents))
	for id := range s.Subagents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "subagent %s: %s\n", id, rel(s.Subagents[id], main.Path))
	}
	msgs, calls := s.Counts()
	fmt.Fprintf(&b, "counts: %d messages, %d tool calls, %s to %s\n\n", msgs, calls,
		main.Start.UTC().Format("15:04:05.000"), main.End.UTC().Format("15:04:05.000"))
	for l := range tr.Body() {
		if l.Kind == grammar.Empty {
			continue
		}
		text := string(tr.Text(l))
		if len(text) > 44 {
			text = text[:44]
		}
		fmt.Fprintf(&b, "%3d %-44s", l.Num+1, text)
		ref, ok := p.Record(l.Num)
		if !ok {
			b.WriteString("  -\n")
			continue
		}
		ix := s.Files[ref.File]
		rec := ix.Record(int(ref.Rec))
		if back, ok := p.Line(ref); !ok || back != l.Num && l.Kind != grammar.Subagent {
			t.Errorf("line %d joins record %v, which joins back to line %d", l.Num+1, ref, back+1)
		}
		fmt.Fprintf(&b, "  %s:%d %s", rel(ix.Path, main.Path), rec.Line+1, rec.Kind)
		ev, err := s.Event(ref)
		if err != nil {
			fmt.Fprintf(&b, " (%v)\n", err)
			continue
		}
		c := Describe(ev, nil)
		first, _, more := strings.Cut(c.Text, "\n")
		first = strings.TrimSpace(first)
		if len(first) > 40 {
			first = first[:40] + "…"
		} else if more {
			first += " …"
		}
		fmt.Fprintf(&b, " %q", first)
		if path, ok := p.SubagentFile(l.Num); ok {
			fmt.Fprintf(&b, " file %s", rel(path, main.Path))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nfindings:\n")
	for _, f := range p.Findings() {
		pos := tr.Line(f.Line)
		fmt.Fprintf(&b, "%d:%d %s %s %s\n", f.Line+1, f.Span.Start-pos.Start+1, f.Severity, f.Code, f.Message)
		for _, in := range f.In {
			fmt.Fprintf(&b, "    %s:%d (byte %d, %d bytes): %s\n", rel(in.Path, main.Path), in.Line+1, in.Off, in.Len, in.Message)
		}
	}
	return b.String()
}

func rel(path, main string) string {
	r, err := filepath.Rel(filepath.Dir(main), path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

// TestJoinFixtures joins each fixture log to its companion and checks the
// whole pairing against testdata/<pair>.txtar: each line of the log with
// the record it was joined to and the start of that record's content, then
// the findings.
func TestJoinFixtures(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(fixtures, "*", "*.rlog"))
	if len(logs) < 5 {
		t.Fatalf("fixtures missing: %v", logs)
	}
	for _, path := range logs {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			golden.Use(t, filepath.Join("testdata", name+".txtar"), func(t *testing.T, a *golden.Archive) {
				tr, s := openPair(t, path)
				a.Check(t, "join", []byte(describe(t, tr, s, Join(tr, s))))
			})
		})
	}
}

// JoinContext stops when its context is done, and otherwise joins as Join
// does.
func TestJoinContextStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pair.jsonl")
	writeCompanion(t, path, 2<<20)
	tr, s := openPair(t, strings.TrimSuffix(path, ".jsonl")+".rlog")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := JoinContext(ctx, tr, s); p != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("a canceled join: %v, %v", p != nil, err)
	}
	p, err := JoinContext(context.Background(), tr, s)
	if err != nil || p.Joined() == 0 || p.Joined() != Join(tr, s).Joined() {
		t.Fatalf("a join: %v, %d joined", err, p.Joined())
	}
}
