package analysis

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/usage"
)

// assertSessionTracked compares what the tracker says with a full build of
// a fresh parse of src: the totals, every phase (and the phase at a few
// lines), and the calls ending in the whole document and in a few ranges.
func assertSessionTracked(t *testing.T, st *SessionTracker, src []byte, r *rand.Rand, context string) {
	t.Helper()
	fresh := grammar.Parse(bytes.Clone(src))
	for _, opts := range []SessionOptions{{}, {Companion: &ActionCounts{Source: "c.jsonl", Messages: 3, ToolCalls: 4,
		Start: clock("10:00:00"), End: clock("10:02:00")}}} {
		want := BuildSession(fresh, opts)
		if got := st.Totals(opts); !reflect.DeepEqual(got, want.Totals()) {
			t.Fatalf("%s: totals\n got  %+v\n want %+v", context, got, want.Totals())
		}
	}
	want := BuildSession(fresh, SessionOptions{})
	for _, p := range want.Phases {
		if got, ok := st.PhaseAt(p.Line); !ok || !reflect.DeepEqual(got, p) {
			t.Fatalf("%s: the phase at line %d\n got  %+v (%v)\n want %+v", context, p.Line, got, ok, p)
		}
	}
	n := fresh.LineCount()
	for range 4 {
		line := r.IntN(n + 2)
		got, gok := st.PhaseAt(line)
		w, wok := want.PhaseAt(line)
		if gok != wok || !reflect.DeepEqual(got, w) {
			t.Fatalf("%s: PhaseAt(%d)\n got  %+v (%v)\n want %+v (%v)", context, line, got, gok, w, wok)
		}
	}
	if got, w := st.CallsEndingIn(0, len(src)+1), want.CallsEndingIn(0, len(src)+1); !sameCalls(got, w) {
		t.Fatalf("%s: the calls\n got  %+v\n want %+v", context, got, w)
	}
	for range 4 {
		a := r.IntN(len(src) + 1)
		b := a + r.IntN(400)
		if got, w := st.CallsEndingIn(a, b), want.CallsEndingIn(a, b); !sameCalls(got, w) {
			t.Fatalf("%s: the calls ending in [%d, %d)\n got  %+v\n want %+v", context, a, b, got, w)
		}
	}
}

func sameCalls(a, b []Call) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }

func timedSession(t testing.TB, size int64, seed uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: size, FindingRate: 0.05, Seed: seed, Timed: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sharedIDs has calls whose results are several chunks away, one id
// started again before its first call ended, usage repeated across chunk
// boundaries with and without message ids (a message's usage growing in a
// later phase), and phases.
const sharedIDs = okHeader + `@start ts=2025-01-01T00:00:00Z
@phase one
t!:Read id=a ts=2025-01-01T00:00:01Z → [running]
t!:Read id=a ts=2025-01-01T00:00:02Z → [running]
u: more tokens_in=5 tokens_out=3
a: so tokens_in=5 tokens_out=3
a: again tokens_in=5 tokens_out=3
a: snapshot tokens_in=2 tokens_out=1 message_id=m3
a: plain tokens_in=7 tokens_out=1
@phase two
a: streamed tokens_in=7 tokens_out=12
a: final tokens_in=2 tokens_out=30 message_id=m3
o: id=a ts=2025-01-01T00:00:09Z → [error] first
a: m tokens_in=1 tokens_out=1 message_id=m1
th: t tokens_in=1 tokens_out=1 message_id=m1
t:Bash id=b → [running]
a: m tokens_in=1 tokens_out=1 message_id=m1
u: x
o: id=a latency_ms=50 → [ok] second
o: id=b → [ok]
@end tokens_in=9
`

func TestSessionTrackerEqualsFullBuildAfterEdits(t *testing.T) {
	for _, tiny := range []bool{false, true} {
		t.Run(fmt.Sprintf("tinyChunks=%v", tiny), func(t *testing.T) {
			if tiny {
				t.Cleanup(grammar.SetChunkLimitsForTest(3, 200))
			}
			r := rand.New(rand.NewPCG(3, 17))
			for _, base := range [][]byte{timedSession(t, 30<<10, 2), []byte(sharedIDs), {}} {
				src := bytes.Clone(base)
				tree := grammar.Parse(bytes.Clone(src))
				st := NewSessionTracker(tree)
				assertSessionTracked(t, st, src, r, "initial")
				editsOneByOne(r, tree, src, edittest.SessionPieces, func(edit string, tree *grammar.Tree, src []byte) {
					st.Update(tree)
					assertSessionTracked(t, st, src, r, edit)
				})
			}
		})
	}
}

// Between two questions a document may take several edits, and a late
// question may be about an older version: the tracker moves to any tree.
func TestSessionTrackerAcrossSeveralEditsAndBack(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(4, 200))
	r := rand.New(rand.NewPCG(8, 1))
	src := []byte(sharedIDs + string(timedSession(t, 20<<10, 6)))
	tree := grammar.Parse(bytes.Clone(src))
	st := NewSessionTracker(tree)
	editsAndBack(r, tree, src, edittest.SessionPieces, func(i int, tree *grammar.Tree, src []byte) {
		st.Update(tree)
		assertSessionTracked(t, st, src, r, fmt.Sprintf("update %d", i))
	})
	// And to unrelated trees.
	for seed := range uint64(3) {
		src := timedSession(t, 10<<10, seed+20)
		st.Update(grammar.Parse(bytes.Clone(src)))
		assertSessionTracked(t, st, src, r, fmt.Sprintf("tree %d", seed))
	}
}

func FuzzSessionTracker(f *testing.F) {
	f.Add([]byte(sharedIDs), uint16(200), uint16(40), []byte("o: id=a → [ok]\n"), true)
	f.Add([]byte(okHeader+"@phase a\nt!:R id=x ts=2025-01-01T00:00:00Z\n"), uint16(70), uint16(0), []byte("o: id=x ts=2025-01-01T00:01:00Z\n"), false)
	f.Add([]byte("u: a tokens_in=1\nu: b tokens_in=1\n"), uint16(3), uint16(5), []byte("message_id=q "), true)
	fuzzOneEdit(f, func(t *testing.T, tree, edited *grammar.Tree, src []byte, r *rand.Rand) {
		st := NewSessionTracker(tree)
		st.Update(edited)
		assertSessionTracked(t, st, src, r, "fuzz")
	})
}

// Token runs add up: a run of usage records without message ids, cut
// anywhere into stretches, counted stretch by stretch and joined with
// then (and each stretch's own count after the ones before it), equals
// the usage rule's count of the whole (usage.Tally). Input and cache
// counts from a few values, so that lines often continue the message
// before them, with output that grows and shrinks.
func TestTokenRunsAddUpToTheRule(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for iter := range 3000 {
		n := 1 + r.IntN(12)
		recs := make([]usage.Counts, n)
		for i := range recs {
			recs[i] = usage.Counts{In: uint64(r.IntN(2)), Out: uint64(r.IntN(40)), Cached: uint64(r.IntN(2))}
		}
		var tally usage.Tally
		for _, c := range recs {
			tally.Add("", c)
		}
		var whole, prefix tokenRun
		var sum Tokens
		for from := 0; from < n; {
			to := from + 1 + r.IntN(n-from)
			var part tokenRun
			for _, c := range recs[from:to] {
				part.addPlain(c)
			}
			sum = addTokens(sum, part.after(prefix))
			prefix = prefix.then(part)
			whole = whole.then(part)
			from = to
		}
		want := Tokens{In: tally.Total().In, Out: tally.Total().Out, Cached: tally.Total().Cached, Messages: tally.Messages()}
		if whole.sum != want || sum != want {
			t.Fatalf("iteration %d, records %v: joined %+v, stretch by stretch %+v, the rule %+v", iter, recs, whole.sum, sum, want)
		}
	}
}
