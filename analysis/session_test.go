package analysis

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/grammar"
)

func clock(hms string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, "2025-12-22T"+hms+"Z")
	if err != nil {
		panic(err)
	}
	return t
}

// TestSessionFixtureByHand checks BuildSession against testdata/stats.rlog,
// whose numbers are worked out below by hand. Lines are 0-based here (the
// file's line N is N-1).
func TestSessionFixtureByHand(t *testing.T) {
	src, err := os.ReadFile("testdata/stats.rlog")
	if err != nil {
		t.Fatal(err)
	}
	tree := grammar.Parse(src)
	s := BuildSession(tree, SessionOptions{})

	// Tokens, once per message: line 10 (10/20/100) and line 11 repeating
	// it without message_id are one message; line 13 (5/7); message_id m1
	// on lines 20-22 (3/40/200/50) once; line 29 (2/30); @end's totals are
	// not usage. 10+5+3+2 = 20 in, 20+7+40+30 = 97 out, 100+200 = 300
	// cached, 50 cache-create, 4 messages.
	want := Stats{TotalLines: 24, UserMessages: 1, AgentMessages: 3, ToolCalls: 7, Observations: 5, Subagents: 2,
		McpCalls: 1, Phases: 2, LifecycleEvents: 2, UniqueCallIDs: 7, HasTimestamps: true, ThinkingBlocks: 1,
		TokensIn: 20, TokensOut: 97, TokensCached: 300, TokensCacheCreate: 50, Messages: 4}
	if s.Counters != want {
		t.Errorf("counters\n got %+v\nwant %+v", s.Counters, want)
	}
	if s.Counters != SessionStats(tree) {
		t.Errorf("BuildSession and SessionStats disagree:\n%+v\n%+v", s.Counters, SessionStats(tree))
	}
	if got := s.Tokens(); got != (Tokens{In: 20, Out: 97, Cached: 300, CacheCreate: 50, Messages: 4}) {
		t.Errorf("tokens %+v", got)
	}

	// Wall clock: the earliest ts= is @start's 10:00:00 (line 6), the
	// latest 10:04:00 (lines 28 and 29; the last one is kept): 4 minutes.
	if d, ok := s.Duration(); !ok || d != 4*time.Minute || s.StartLine != 6 || s.EndLine != 29 {
		t.Errorf("duration %v %v, lines %d-%d", d, ok, s.StartLine, s.EndLine)
	}

	// APM: 4 messages (u: on line 7, a: on 9, 20 and 28; th: is not a
	// message) + 8 calls (6 t!:, 1 t:, 1 c:) = 12 actions over 4 minutes = 3.
	if s.APM != (APM{Source: "rlog", Messages: 4, ToolCalls: 8, Minutes: 4, Value: 3, Known: true}) {
		t.Errorf("apm %+v", s.APM)
	}

	// Calls, their outcomes and latencies.
	type call struct {
		tool            string
		line, result    int
		outcome         Outcome
		latency         time.Duration
		measured, phase int
	}
	var got []call
	for _, c := range s.Calls {
		m := 0
		if c.HasLatency {
			m = 1
		}
		got = append(got, call{c.Tool, c.Line, c.ResultLine, c.Outcome, c.Latency, m, c.Phase})
	}
	wantCalls := []call{
		{"Read", 10, 11, Succeeded, 2 * time.Second, 1, 0},                 // 10:00:06 → 10:00:08
		{"Bash", 12, 13, Failed, 30 * time.Second, 1, 0},                   // 10:00:10 → 10:00:40, [error]
		{"Read", 14, 15, Succeeded, 1500 * time.Millisecond, 1, 0},         // 10:00:41 → 10:00:42.500
		{"Edit", 21, 22, Succeeded, time.Second, 1, 1},                     // 10:03:02 → 10:03:03
		{"Bash", 23, 24, Succeeded, 20 * time.Second, 1, 1},                // 10:03:04 → 10:03:24
		{"github.issues", 25, 25, Succeeded, 750 * time.Millisecond, 1, 1}, // one line, latency_ms=750
		{"Read", 26, 26, Succeeded, 250 * time.Millisecond, 1, 1},          // one line, no ts=, latency_ms=250
		{"Bash", 27, -1, Unfinished, 0, 0, 1},                              // no o: follows
	}
	if !reflect.DeepEqual(got, wantCalls) {
		t.Errorf("calls\n got %+v\nwant %+v", got, wantCalls)
	}
	for _, c := range s.Calls {
		if c.Start != tree.Line(c.Line).Start || c.ResultLine >= 0 && c.Result != tree.Line(c.ResultLine).Start {
			t.Errorf("%s on line %d: offsets %d/%d", c.Tool, c.Line, c.Start, c.Result)
		}
	}
	if s.Errors != 1 || s.Unfinished != 1 {
		t.Errorf("errors %d unfinished %d", s.Errors, s.Unfinished)
	}
	// Seven latencies: 250ms 750ms 1s 1.5s 2s 20s 30s. Median the 4th,
	// 1.5s; p95 the ceil(0.95×7) = 7th, 30s.
	if s.Latency != (Latency{Measured: 7, Median: 1500 * time.Millisecond, P95: 30 * time.Second, Max: 30 * time.Second}) {
		t.Errorf("latency %+v", s.Latency)
	}
	// Bash: 30s and 20s, median (20+30)/2 = 25s, p95 the ceil(1.9) = 2nd.
	// Read: 250ms 1.5s 2s. Bash and Read tie at 3 calls: by name.
	wantTools := []ToolStats{
		{"Bash", 3, 1, 1, Latency{2, 25 * time.Second, 30 * time.Second, 30 * time.Second}},
		{"Read", 3, 0, 0, Latency{3, 1500 * time.Millisecond, 2 * time.Second, 2 * time.Second}},
		{"Edit", 1, 0, 0, Latency{1, time.Second, time.Second, time.Second}},
		{"github.issues", 1, 0, 0, Latency{1, 750 * time.Millisecond, 750 * time.Millisecond, 750 * time.Millisecond}},
	}
	if !reflect.DeepEqual(s.Tools, wantTools) {
		t.Errorf("tools\n got %+v\nwant %+v", s.Tools, wantTools)
	}

	// Phases: explore runs from its own ts= 10:00:05 to fix's 10:03:00
	// (2m55s); fix from 10:03:00 to its latest ts=, 10:04:00. Tokens by
	// where each message is first counted.
	wantPhases := []Phase{
		{Name: "explore", Line: 8, EndLine: 17, Start: tree.Line(8).Start, End: tree.Line(17).End,
			StartTime: clock("10:00:05"), EndTime: clock("10:03:00"), Calls: 3, Errors: 1,
			Tokens: Tokens{In: 15, Out: 27, Cached: 100, Messages: 2}},
		{Name: "fix", Line: 18, EndLine: 29, Start: tree.Line(18).Start, End: tree.Line(29).End,
			StartTime: clock("10:03:00"), EndTime: clock("10:04:00"), Calls: 5,
			Tokens: Tokens{In: 5, Out: 70, Cached: 200, CacheCreate: 50, Messages: 2}},
	}
	if !reflect.DeepEqual(s.Phases, wantPhases) {
		t.Errorf("phases\n got %+v\nwant %+v", s.Phases, wantPhases)
	}
	if d, _ := s.Phases[0].Duration(); d != 2*time.Minute+55*time.Second {
		t.Errorf("explore lasted %v", d)
	}

	// The subagent: started on line 16, done on 17, 10 seconds.
	if len(s.Subagents) != 1 {
		t.Fatalf("subagents %+v", s.Subagents)
	}
	sa := s.Subagents[0]
	if d, ok := sa.Duration(); sa.Type != "explore" || string(tree.Slice(sa.ID.Start, sa.ID.End)) != "sa1" ||
		sa.Line != 16 || sa.EndLine != 17 || sa.Status != "done" || !ok || d != 10*time.Second {
		t.Errorf("subagent %+v", sa)
	}

	// One pause of a minute or more: 10:00:53 (line 17) to 10:03:00 (line 18).
	wantGap := Gap{Line: 18, Start: tree.Line(18).Start, PreviousLine: 17, Duration: 2*time.Minute + 7*time.Second}
	if !reflect.DeepEqual(s.Gaps, []Gap{wantGap}) || s.LongestGap != wantGap {
		t.Errorf("gaps %+v, longest %+v", s.Gaps, s.LongestGap)
	}
	first := SessionOf(tree)
	if again := SessionOf(tree); again != first {
		t.Error("SessionOf is not memoized on the tree")
	}
}

func TestSessionWithoutTimestampsHasNoAPM(t *testing.T) {
	s := BuildSession(grammar.Parse([]byte(cleanDoc+"u: hi\nt!:Read id=a → [running]\no: id=a → [ok]\n")), SessionOptions{})
	if _, ok := s.Duration(); ok || s.APM.Known || s.APM.Value != 0 || s.APM.Messages != 1 || s.APM.ToolCalls != 1 {
		t.Fatalf("%+v", s.APM)
	}
	if s.StartLine != -1 || s.LongestGap.Duration != 0 || s.Latency.Measured != 0 || s.Calls[0].Outcome != Succeeded {
		t.Fatalf("%+v", s)
	}
	// One instant is no duration either.
	s = BuildSession(grammar.Parse([]byte(cleanDoc+"u: a ts=2025-01-01T00:00:00Z\na: b ts=2025-01-01T00:00:00Z\n")), SessionOptions{})
	if _, ok := s.Duration(); ok || s.APM.Known {
		t.Fatalf("one instant: %+v", s.APM)
	}
}

const cleanDoc = "---\nformat: rlog/1\nid: s\nrepo_sha: abcdef\nrunner: ci\n---\n"

func TestSessionPairsRepeatedIDsOldestFirst(t *testing.T) {
	// Early autopilot logs cut every id to toolu_01: results pair with the
	// oldest call still waiting.
	src := cleanDoc +
		"t!:Read id=toolu_01 → [running] ts=2025-01-01T00:00:00Z\n" +
		"t!:Bash id=toolu_01 → [running] ts=2025-01-01T00:00:01Z\n" +
		"o: id=toolu_01 → [ok] ts=2025-01-01T00:00:05Z\n" +
		"o: id=toolu_01 → [err: timeout] ts=2025-01-01T00:00:11Z\n" +
		"o: id=toolu_01 → [ok] stray, nothing waits\n" +
		"t:Grep id=g → [running] ts=2025-01-01T00:00:20Z\n" + // a t: line that says it is running waits too
		"o: id=g → [ok] ts=2025-01-01T00:00:20.25Z\n" +
		"o: id=nowhere → [ok]\n"
	s := BuildSession(grammar.Parse([]byte(src)), SessionOptions{})
	var got []string
	for _, c := range s.Calls {
		got = append(got, fmt.Sprintf("%s %d %s %v", c.Tool, c.ResultLine, c.Outcome, c.Latency))
	}
	want := []string{"Read 8 ok 5s", "Bash 9 error 10s", "Grep 12 ok 250ms"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestSessionLatencyFromObservation(t *testing.T) {
	// An o: line's latency_ms= when the start has no ts= (the o: line has
	// no tool name to read after: this used to slice before the line).
	src := cleanDoc + "t!:Read id=a → [running]\no: id=a → [ok] latency_ms=1250\no:id=a latency_ms=3\n"
	s := BuildSession(grammar.Parse([]byte(src)), SessionOptions{})
	if c := s.Calls[0]; !c.HasLatency || c.Latency != 1250*time.Millisecond || c.ResultLine != 7 {
		t.Fatalf("%+v", c)
	}
}

func TestSessionTimeOutOfOrderAndInvalid(t *testing.T) {
	// Converted Claude Code sessions have side chains whose timestamps go
	// back; the span is from the earliest to the latest, and a pause is
	// only ever forward. Invalid ts= values count for nothing.
	src := cleanDoc +
		"u: a ts=2025-01-01T10:05:00Z\n" +
		"u: b ts=2025-01-01T10:00:00+00:00\n" +
		"u: c ts=2025-13-01T10:00:00Z\n" +
		"u: d ts=2025-01-01T12:00:00+02:00\n" + // 10:00 UTC
		"u: e ts=2025-01-01T10:10:00.5Z\n"
	s := BuildSession(grammar.Parse([]byte(src)), SessionOptions{})
	d, ok := s.Duration()
	if !ok || d != 10*time.Minute+500*time.Millisecond || s.StartLine != 7 || s.EndLine != 10 {
		t.Fatalf("%v %v lines %d-%d", d, ok, s.StartLine, s.EndLine)
	}
	if !reflect.DeepEqual(s.Gaps, []Gap{{Line: 10, Start: grammar.Parse([]byte(src)).Line(10).Start, PreviousLine: 9, Duration: 10*time.Minute + 500*time.Millisecond}}) {
		t.Fatalf("gaps %+v", s.Gaps)
	}
}

func TestSessionCompanionSuppliesAPM(t *testing.T) {
	tree := grammar.Parse([]byte(cleanDoc + "u: hi ts=2025-01-01T00:00:00Z\na: ok ts=2025-01-01T00:01:00Z\n"))
	c := &ActionCounts{Source: "run.jsonl", Messages: 10, ToolCalls: 20, Start: clock("10:00:00"), End: clock("10:10:00")}
	s := BuildSession(tree, SessionOptions{Companion: c})
	if s.APM != (APM{Source: "companion", Companion: "run.jsonl", Messages: 10, ToolCalls: 20, Minutes: 10, Value: 3, Known: true}) {
		t.Fatalf("%+v", s.APM)
	}
	// The rest still comes from the log.
	if s.Messages != 2 || len(s.Calls) != 0 {
		t.Fatalf("%+v", s)
	}
	if a := BuildSession(tree, SessionOptions{Companion: &ActionCounts{Source: "x", Messages: 1}}).APM; a.Known || a.Source != "companion" {
		t.Fatalf("a companion without times: %+v", a)
	}
}

func TestComputeAPM(t *testing.T) {
	// The autopilot's own example: 50 messages + 150 tool calls over 10
	// minutes is 20; no value for a duration that is not positive.
	if v, ok := ComputeAPM(50, 150, 10); !ok || v != 20 {
		t.Fatal(v, ok)
	}
	for _, m := range []float64{0, -5} {
		if _, ok := ComputeAPM(50, 150, m); ok {
			t.Fatal(m)
		}
	}
}

func TestSessionRangeQueries(t *testing.T) {
	restore := grammar.SetChunkLimitsForTest(4, 256)
	defer restore()
	var b strings.Builder
	b.WriteString(cleanDoc)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 200 {
		// Every 7th call waits 3 minutes for its result.
		wait := time.Second
		if i%7 == 0 {
			wait = 3 * time.Minute
		}
		fmt.Fprintf(&b, "t!:Bash id=c%d cmd=\"échec %d\" → [running] ts=%s\n", i, i, start.Format(time.RFC3339Nano))
		start = start.Add(wait)
		fmt.Fprintf(&b, "o: id=c%d → [ok] ts=%s\n", i, start.Format(time.RFC3339Nano))
		start = start.Add(time.Second)
	}
	tree := grammar.Parse([]byte(b.String()))
	s := BuildSession(tree, SessionOptions{})
	if len(s.Calls) != 200 || len(s.Gaps) != 29 {
		t.Fatalf("%d calls, %d gaps", len(s.Calls), len(s.Gaps))
	}
	// Any window: the range functions agree with the whole-session lists.
	for _, w := range [][2]int{{0, tree.Len()}, {tree.Line(100).Start, tree.Line(140).Start}, {tree.Line(100).Start + 3, tree.Line(101).End}, {5, 5}} {
		var wantGaps []Gap
		for _, g := range s.Gaps {
			if g.Start >= w[0] && g.Start < w[1] {
				wantGaps = append(wantGaps, g)
			}
		}
		if got := GapsIn(tree, w[0], w[1], time.Minute); !reflect.DeepEqual(got, wantGaps) {
			t.Errorf("GapsIn%v = %+v, want %+v", w, got, wantGaps)
		}
		var starting, ending []Call
		for _, c := range s.Calls {
			if c.Start >= w[0] && c.Start < w[1] {
				starting = append(starting, c)
			}
			if c.Result >= w[0] && c.Result < w[1] {
				ending = append(ending, c)
			}
		}
		if got := s.CallsStartingIn(w[0], w[1]); len(got)+len(starting) > 0 && !reflect.DeepEqual(got, starting) {
			t.Errorf("CallsStartingIn%v: %d calls, want %d", w, len(got), len(starting))
		}
		if got := s.CallsEndingIn(w[0], w[1]); !reflect.DeepEqual(got, ending) {
			t.Errorf("CallsEndingIn%v: %d calls, want %d", w, len(got), len(ending))
		}
	}
}

// TestSessionIsLinear: doubling the log doubles the work, give or take.
func TestSessionIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	doc := func(n int) *grammar.Tree {
		var b strings.Builder
		b.WriteString(cleanDoc)
		for i := range n {
			fmt.Fprintf(&b, "t!:Read id=c%d → [running] tokens_in=%d tokens_out=1 ts=2025-01-01T00:%02d:%02dZ\no: id=c%d → [ok]\n", i, i, i/60%60, i%60, i)
		}
		return grammar.Parse([]byte(b.String()))
	}
	allocs := func(tree *grammar.Tree) float64 {
		return testing.AllocsPerRun(3, func() { BuildSession(tree, SessionOptions{}) })
	}
	small, large := allocs(doc(5000)), allocs(doc(20000))
	if ratio := large / small; ratio > 4.5 {
		t.Fatalf("allocations grow %.1f× for 4× the log", ratio)
	}
}

// A message written on several lines counts once, with its largest usage:
// older Claude Code wrote a streaming snapshot (tokens_out=5) before the
// final count (tokens_out=50). Each phase counts what its lines add (the
// message in the first, the 45 more in the second); the hover on the
// later line says why the session grows.
func TestRepeatedMessageCountsItsLargestUsage(t *testing.T) {
	src := okHeader + `@phase one
a: thinking message_id=m1 tokens_in=10 tokens_out=5
@phase two
t!:Read id=t1 → [running] message_id=m1 tokens_in=10 tokens_out=50
o: id=t1 → [ok]
a: done message_id=m2 tokens_in=3 tokens_out=7
a: again message_id=m1 tokens_in=10 tokens_out=20
`
	tree := grammar.Parse([]byte(src))
	s := BuildSession(tree, SessionOptions{})
	if got, want := s.Tokens(), (Tokens{In: 13, Out: 57, Messages: 2}); got != want {
		t.Errorf("session tokens %+v, want %+v", got, want)
	}
	if st := SessionStats(tree); st.TokensOut != 57 || st.TokensIn != 13 || st.Messages != 2 {
		t.Errorf("SessionStats %+v", st)
	}
	if p := s.Phases; len(p) != 2 || p[0].Tokens != (Tokens{In: 10, Out: 5, Messages: 1}) || p[1].Tokens != (Tokens{In: 3, Out: 45 + 7, Messages: 1}) {
		t.Errorf("phases %+v", p)
	}
	if got := NewSessionTracker(tree).Totals(SessionOptions{}).Tokens; got != s.Tokens() {
		t.Errorf("tracker %+v", got)
	}
	hoverOn := func(line int) string {
		l := tree.Line(line)
		h, ok := Hover(tree, l.Start+strings.Index(string(tree.Text(l)), "tokens_out"))
		if !ok {
			t.Fatalf("no hover on line %d", line+1)
		}
		return h.Markdown
	}
	if h := hoverOn(10); !strings.Contains(h, "| output | 50 | 50 |") || !strings.Contains(h, "smaller numbers") {
		t.Errorf("hover on the grown repeat:\n%s", h)
	}
	if h := hoverOn(13); !strings.Contains(h, "| output | 20 | 57 |") || !strings.Contains(h, "not added again") {
		t.Errorf("hover on the smaller repeat:\n%s", h)
	}
}

// TestDeniedAndInterruptedCallsFail: the vocabulary's failures besides
// [error] ([denied], [interrupted]) end their calls as failed, on the o:
// line and on the call's own line alike; the session tracker agrees.
func TestDeniedAndInterruptedCallsFail(t *testing.T) {
	src := cleanDoc + "t!:Bash id=a → [running]\no: id=a → [denied] Permission to use Bash has been denied.\n" +
		"t:Write id=b → [interrupted] The user doesn't want to proceed.\nt:Read id=c → [ok]\n"
	tree := grammar.Parse([]byte(src))
	s := BuildSession(tree, SessionOptions{})
	var got []Outcome
	for _, c := range s.Calls {
		got = append(got, c.Outcome)
	}
	if want := []Outcome{Failed, Failed, Succeeded}; !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
}
