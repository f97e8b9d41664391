package analysis

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/internal/golden"
)

// streamFindings checks src, read from r, window by window, as `rlog-ls
// check` does: each window handed back to the stream (Recycle) once the
// checker has read it, so that the next is read into its buffer; every
// other window is summarised apart first (SummarizeWindow, as check
// summarises each), the others read by Window. Each finding's text, read from its window when it is placed (as check counts
// its columns there), must be src's: a window read into while the checker
// still held it would show.
func streamFindings(t testing.TB, src []byte, r io.Reader, opts grammar.StreamOptions, cfg Config, limit int) ([]Finding, int) {
	t.Helper()
	type placed struct {
		f    Finding
		text string
	}
	sc := NewStreamChecker(cfg, limit, func(w *grammar.Tree, f Finding) placed {
		return placed{f, string(w.Slice(f.Span.Start, f.Span.End))}
	})
	s := grammar.NewStream(r, opts)
	// Every other window is summarised apart, as check does
	// (SummarizeWindow, its ids hashed), the others read whole (Window).
	n := 0
	if err := s.Each(func(w *grammar.Tree) {
		if n++; n%2 == 0 {
			sc.Summarized(SummarizeWindow(w))
		} else {
			sc.Window(w)
		}
		s.Recycle(w)
	}); err != nil {
		t.Fatal(err)
	}
	kept, more := sc.End()
	var out []Finding
	for _, p := range kept {
		if want := string(src[p.f.Span.Start:p.f.Span.End]); p.text != want {
			t.Fatalf("%s at %v: the window said %q, the document is %q", p.f.Code, p.f.Span, p.text, want)
		}
		out = append(out, p.f)
	}
	return out, more
}

// streamCorpus is every log the tests have: the fixture logs, the logs of
// the rules' archives, generated sessions (noisy ones too), documents with
// unusual regions and ends, and the generated session after random edits
// of the kinds the rules care about.
func streamCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	for _, pattern := range fixtureLogs {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			docs[p] = src
		}
	}
	archives, _ := filepath.Glob("testdata/rules/*.txtar")
	for _, p := range archives {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range golden.Parse(data).Files {
			if strings.HasSuffix(f.Name, ".rlog") {
				docs[p+"/"+f.Name] = f.Data
			}
		}
	}
	if len(docs) < 30 {
		t.Fatalf("only %d fixture logs", len(docs))
	}
	for _, rate := range []float64{0.01, 0.3} {
		var buf bytes.Buffer
		if err := gen.Write(&buf, gen.Options{Bytes: 200 << 10, FindingRate: rate, Seed: 5}); err != nil {
			t.Fatal(err)
		}
		docs[fmt.Sprintf("generated, %.0f%% findings", rate*100)] = buf.Bytes()
	}
	// Usage the usage rule merges across windows: responses whose
	// streaming snapshot comes before their final count (rlog-gen
	// -streamed), and a message whose count grows phases later.
	var streamed bytes.Buffer
	if err := gen.Write(&streamed, gen.Options{Bytes: 200 << 10, FindingRate: 0.05, Seed: 6, Timed: true, Streamed: true}); err != nil {
		t.Fatal(err)
	}
	docs["generated, streamed usage"] = streamed.Bytes()
	growing, err := os.ReadFile("testdata/growing-usage.rlog")
	if err != nil {
		t.Fatal(err)
	}
	docs["testdata/growing-usage.rlog"] = growing
	for i, d := range []string{
		"", "\n", "---", "\uFEFF---\nid: x\n---\r\nu: hi\r\n", "u: no header\nt!:Read id=a → [running]\n",
		"preamble\n---\nid: x\n---\nt!:R id=a\nt!:R id=a\n", "---\nid: x\nstill header\n",
		"---\nformat: rlog/1\n---\n@start\n" + strings.Repeat("t!:R id=a → [running]\n", 60) + "o: id=a → [ok]\n",
		"---\n---\nt!:R id=a\n" + strings.Repeat("u: x step=3\nu: y step=1\n", 100) + "t:R id=a → [ok]\n",
	} {
		docs[fmt.Sprintf("edge %d", i)] = []byte(d)
	}
	r := rand.New(rand.NewPCG(3, 8))
	src := generatedSession(t.(*testing.T), 20<<10, 9)
	for i := range 40 {
		for range 5 {
			s, e, ins := edittest.Random(r, len(src), editPieces)
			src = edittest.Splice(src, s, e, ins)
		}
		docs[fmt.Sprintf("edited %d", i)] = bytes.Clone(src)
	}
	return docs
}

// streamConfigs are configurations that change what is reported.
func streamConfigs(t testing.TB) []Config {
	noW007, unknown := DisableCodes([]string{"W007", "I004"})
	if unknown != nil {
		t.Fatal(unknown)
	}
	louder, problems := Config{}.SetSeverities(map[string]string{"W007": "error", "S001": "hint"})
	if problems != nil {
		t.Fatal(problems)
	}
	return []Config{{}, noW007, louder}
}

// TestStreamCheckEqualsCheck: the findings of a log read window by window
// are Check's, and the first n of them with the count of the others are
// FindingsUpTo's, whatever the windows and chunks, on every log we have.
func TestStreamCheckEqualsCheck(t *testing.T) {
	docs := streamCorpus(t)
	cfgs := streamConfigs(t)
	for _, tiny := range []bool{false, true} {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(3, 80))
		}
		for name, src := range docs {
			tree := grammar.Parse(bytes.Clone(src))
			for c, cfg := range cfgs {
				want := Check(tree, cfg)
				for _, window := range []int{1, 700, 0} {
					context := fmt.Sprintf("%s, config %d, window %d, tiny chunks %v", name, c, window, tiny)
					got, more := streamFindings(t, src, iotest.HalfReader(bytes.NewReader(src)), grammar.StreamOptions{WindowBytes: window}, cfg, -1)
					if !sameFindings(got, want) || more != 0 {
						t.Fatalf("%s: streamed findings differ from Check's (%d more)\n got  %v\n want %v", context, more, summarizeFindings(got), summarizeFindings(want))
					}
				}
				a := NewAnalyzer(tree)
				for _, limit := range []int{0, 1, 3, len(want) / 2, len(want)} {
					wantUpTo, wantMore := a.FindingsUpTo(cfg, limit)
					got, more := streamFindings(t, src, bytes.NewReader(src), grammar.StreamOptions{WindowBytes: 500}, cfg, limit)
					if !sameFindings(got, wantUpTo) || more != wantMore {
						t.Fatalf("%s, config %d, limit %d: %d findings and %d more, FindingsUpTo %d and %d\n got  %v\n want %v",
							name, c, limit, len(got), more, len(wantUpTo), wantMore, summarizeFindings(got), summarizeFindings(wantUpTo))
					}
				}
			}
		}
	}
}

// TestStreamCheckSummarizedOutOfOrder: a window's summaries depend on
// nothing the checker learnt from the windows before it, so `check`
// summarises each window on the goroutine that reads ahead
// (SummarizeWindow) while the checker reads the one before
// (StreamChecker.Summarized). Here every window is summarised on a
// goroutine of its own, the last finishing first, and the checker reads
// them in order: the findings, their order and their places are Check's.
func TestStreamCheckSummarizedOutOfOrder(t *testing.T) {
	docs := streamCorpus(t)
	for _, tiny := range []bool{false, true} {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(3, 80))
		}
		for name, src := range docs {
			want := Check(grammar.Parse(bytes.Clone(src)), Config{})
			for _, window := range []int{1, 700, 0} {
				var trees []*grammar.Tree
				s := grammar.NewStream(bytes.NewReader(src), grammar.StreamOptions{WindowBytes: window})
				if err := s.Each(func(w *grammar.Tree) { trees = append(trees, w) }); err != nil {
					t.Fatal(err)
				}
				summarized := make([]*SummarizedWindow, len(trees))
				done := make([]chan struct{}, len(trees)+1)
				for i := range done {
					done[i] = make(chan struct{})
				}
				close(done[len(trees)])
				var order []int
				var mu sync.Mutex
				for i, w := range trees {
					go func() {
						<-done[i+1] // the windows after this one first
						summarized[i] = SummarizeWindow(w)
						mu.Lock()
						order = append(order, i)
						mu.Unlock()
						close(done[i])
					}()
				}
				type placed struct {
					f    Finding
					text string
				}
				sc := NewStreamChecker(Config{}, -1, func(w *grammar.Tree, f Finding) placed {
					return placed{f, string(w.Slice(f.Span.Start, f.Span.End))}
				})
				<-done[0]
				if len(trees) > 1 && order[0] != len(trees)-1 {
					t.Fatalf("%s: summarised in the order %v", name, order)
				}
				for _, w := range summarized {
					sc.Summarized(w)
					s.Recycle(w.Tree())
				}
				kept, _ := sc.End()
				var got []Finding
				for _, p := range kept {
					if want := string(src[p.f.Span.Start:p.f.Span.End]); p.text != want {
						t.Fatalf("%s: %s at %v: the window said %q, the document is %q", name, p.f.Code, p.f.Span, p.text, want)
					}
					got = append(got, p.f)
				}
				if !sameFindings(got, want) {
					t.Fatalf("%s, window %d, tiny chunks %v: findings differ from Check's\n got  %v\n want %v", name, window, tiny, summarizeFindings(got), summarizeFindings(want))
				}
			}
		}
	}
}

// A W007 is provisional until the call's id is completed: a completion
// windows later takes it back, whether it was kept or counted past the
// limit.
func TestStreamCheckTakesBackW007(t *testing.T) {
	head := okHeader + "t!:Read id=late → [running]\nt!:Read id=never → [running]\n"
	src := []byte(head + strings.Repeat("u: filler line\n", 500) + "o: id=late → [ok]\n")
	for _, limit := range []int{-1, 0, 1, 2} {
		got, more := streamFindings(t, src, bytes.NewReader(src), grammar.StreamOptions{WindowBytes: 100}, Config{}, limit)
		all := Check(grammar.Parse(bytes.Clone(src)), Config{})
		var codes []string
		for _, f := range all {
			codes = append(codes, string(f.Code))
		}
		if !reflect.DeepEqual(codes, []string{"W007", "I001"}) {
			t.Fatalf("Check found %v", codes)
		}
		if limit < 0 {
			limit = len(all)
		}
		if !sameFindings(got, all[:min(limit, len(all))]) || more != len(all)-min(limit, len(all)) {
			t.Errorf("limit %d: %v and %d more", limit, summarizeFindings(got), more)
		}
	}
}

// sameFindings is reflect.DeepEqual, but for an empty list and none.
func sameFindings(a, b []Finding) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }

func FuzzStreamCheck(f *testing.F) {
	f.Add([]byte(okHeader+"t!:Read id=a\no: id=a\n@start\n"), uint16(20), false, int8(-1))
	f.Add([]byte(okHeader+"t!:R id=x\nt!:R id=x\nstep=3 step=1\no: id=x\n"), uint16(9), true, int8(1))
	f.Add([]byte("u: no header\n---\nid: late\n---\nt!:R id=a\n"), uint16(3), true, int8(2))
	f.Add([]byte(okHeader+"th: s message_id=m tokens_in=9 tokens_out=5\nt!:R id=a\na: f message_id=m tokens_out=50\no: id=a\n"), uint16(25), true, int8(-1))
	f.Fuzz(func(t *testing.T, src []byte, window uint16, tiny bool, limit int8) {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(2, 40))
		}
		cfg := Config{}
		a := NewAnalyzer(grammar.Parse(bytes.Clone(src)))
		want, wantMore := a.FindingsUpTo(cfg, int(limit))
		got, more := streamFindings(t, src, iotest.HalfReader(bytes.NewReader(src)), grammar.StreamOptions{WindowBytes: int(window)}, cfg, int(limit))
		if !sameFindings(got, want) || more != wantMore {
			t.Fatalf("limit %d: %d findings and %d more, want %d and %d\n got  %v\n want %v", limit, len(got), more, len(want), wantMore,
				summarizeFindings(got), summarizeFindings(want))
		}
	})
}
