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

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		400 * time.Microsecond: "0ms", 750 * time.Millisecond: "750ms", time.Second: "1s", 1500 * time.Millisecond: "1.5s",
		9960 * time.Millisecond: "10s", 30 * time.Second: "30s", 2*time.Minute + 55*time.Second: "2m 55s",
		time.Hour: "1h 0m", 12*time.Hour + 32*time.Minute + 10*time.Second: "12h 32m",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func statsFixture(t *testing.T) *grammar.Tree {
	t.Helper()
	src, err := os.ReadFile("testdata/stats.rlog")
	if err != nil {
		t.Fatal(err)
	}
	return grammar.Parse(src)
}

// TestLenses: the lenses of testdata/stats.rlog, whose numbers
// TestSessionFixtureByHand works out by hand.
func TestLenses(t *testing.T) {
	tree := statsFixture(t)
	places := LensPlaces(tree)
	want := []LensPlace{
		{Line: 0, Start: 0, End: 3, Phase: -1},
		{Line: 8, Start: tree.Line(8).Start, End: tree.Line(8).End, Phase: 0},
		{Line: 18, Start: tree.Line(18).Start, End: tree.Line(18).End, Phase: 1},
	}
	if !reflect.DeepEqual(places, want) {
		t.Fatalf("places %+v\nwant %+v", places, want)
	}
	s := SessionOf(tree)
	if got := SessionLensTitle(s.Totals()); got != "Session: 4m 0s · tokens 20 in, 97 out, 300 cached · 8 tool calls, 1 error, 1 unfinished · APM 3.00" {
		t.Errorf("session lens %q", got)
	}
	for i, w := range []string{"explore: 2m 55s · 3 tool calls, 1 error · 27 tokens out", "fix: 1m 0s · 5 tool calls, 0 errors · 70 tokens out"} {
		if got := PhaseLensTitle(&s.Phases[places[i+1].Phase]); got != w {
			t.Errorf("phase lens %q, want %q", got, w)
		}
	}

	// Without timestamps: said so, not a zero.
	none := grammar.Parse([]byte(cleanDoc + "@phase 探索 🔍\nt!:Read id=a → [running]\no: id=a → [error]\n"))
	s = SessionOf(none)
	if got := SessionLensTitle(s.Totals()); got != "Session: duration unknown (no timestamps) · tokens 0 in, 0 out, 0 cached · 1 tool call, 1 error · APM unknown" {
		t.Errorf("untimed session lens %q", got)
	}
	if got := PhaseLensTitle(&s.Phases[0]); got != "探索: time unknown · 1 tool call, 1 error · 0 tokens out" {
		t.Errorf("untimed phase lens %q", got)
	}
	one := grammar.Parse([]byte(cleanDoc + "@start id=x ts=2025-01-01T00:00:00Z\nu: hi\n"))
	if got := SessionLensTitle(SessionOf(one).Totals()); !strings.HasPrefix(got, "Session: duration unknown (one timestamp) ·") {
		t.Errorf("one timestamp: %q", got)
	}
	// A companion's counts give APM and say where they came from.
	c := &ActionCounts{Source: "run.jsonl", Messages: 10, ToolCalls: 20, Start: clock("10:00:00"), End: clock("10:10:00")}
	if got := SessionLensTitle(SessionFor(one, SessionOptions{Companion: c}).Totals()); !strings.HasSuffix(got, "· APM 3.00 (from run.jsonl)") ||
		!strings.HasPrefix(got, "Session: 10m 0s in the companion ·") {
		t.Errorf("companion: %q", got)
	}
	// The cost the session's last @end states (a Claude Code transcript's
	// cost-state), the same from the incremental tracker.
	costed := grammar.Parse([]byte(cleanDoc + "@start id=x ts=2025-01-01T00:00:00Z\nu: hi\n@end cost_usd=0.1 ts=2025-01-01T00:01:00Z\nu: more\n@end cost_usd=0.217296 ts=2025-01-01T00:02:00Z\n"))
	for _, tot := range []SessionTotals{SessionOf(costed).Totals(), NewSessionTracker(costed).Totals(SessionOptions{})} {
		if got := SessionLensTitle(tot); !strings.Contains(got, " · 0 tool calls, 0 errors · $0.217296 · APM ") {
			t.Errorf("with a cost: %q", got)
		}
	}
	// No header: the session lens is on the first line.
	if p := LensPlaces(grammar.Parse([]byte("@phase a\nu: x\n"))); len(p) != 2 || p[0].Line != 0 || p[1].Line != 0 || p[1].Phase != 0 {
		t.Errorf("no header: %+v", p)
	}
}

func TestSessionForIsMemoizedPerOptions(t *testing.T) {
	tree := statsFixture(t)
	c1 := ActionCounts{Source: "a.jsonl", Messages: 1}
	c2 := c1
	a, b := SessionFor(tree, SessionOptions{Companion: &c1}), SessionFor(tree, SessionOptions{Companion: &c2})
	if a != b || a == SessionOf(tree) || a.APM.Source != APMFromCompanion {
		t.Fatal("the same companion counts should share one session, apart from the rlog's own")
	}
	c2.Messages = 2
	if SessionFor(tree, SessionOptions{Companion: &c2}) == a {
		t.Fatal("other counts, other session")
	}
}

func TestInlayHints(t *testing.T) {
	tree := statsFixture(t)
	opts := InlayHintOptions{Latency: true, Gaps: true, MinGap: time.Minute}
	type hint struct {
		line   int
		atEnd  bool
		label  string
		before bool
	}
	got := func(start, end int, o InlayHintOptions) []hint {
		var out []hint
		for _, h := range InlayHints(tree, start, end, o) {
			l := tree.Line(tree.LineAt(h.Offset))
			if h.Offset != l.Start && h.Offset != l.End {
				t.Fatalf("hint %+v inside line %d", h, l.Num)
			}
			out = append(out, hint{l.Num, h.Offset == l.End && h.Offset != l.Start, h.Label, h.Before})
		}
		return out
	}
	// After each o: line, its call's latency from the ts= values (one-line
	// calls carry latency_ms= in the text already, and c6 never finished);
	// before line 18, the 2m 7s pause.
	all := []hint{{11, true, "2s", false}, {13, true, "30s", false}, {15, true, "1.5s", false},
		{18, false, "+2m 7s", true}, {22, true, "1s", false}, {24, true, "20s", false}}
	if g := got(0, tree.Len(), opts); !reflect.DeepEqual(g, all) {
		t.Fatalf("hints\n got %+v\nwant %+v", g, all)
	}
	hs := InlayHints(tree, 0, tree.Len(), opts)
	if hs[1].Tooltip != "Bash call (line 13): error, 30s, from the ts= of line 13 to this line's" {
		t.Errorf("tooltip %q", hs[1].Tooltip)
	}
	if hs[3].Tooltip != "2m 7s since the timestamp on line 18 (pauses of 1m 0s or more are shown)" {
		t.Errorf("tooltip %q", hs[3].Tooltip)
	}
	// Each kind turns off; the threshold applies; the range limits.
	if g := got(0, tree.Len(), InlayHintOptions{Gaps: true, MinGap: time.Minute}); !reflect.DeepEqual(g, all[3:4]) {
		t.Errorf("gaps only: %+v", g)
	}
	if g := got(0, tree.Len(), InlayHintOptions{Gaps: true, MinGap: 3 * time.Minute}); g != nil {
		t.Errorf("3m threshold: %+v", g)
	}
	if g := got(0, tree.Len(), InlayHintOptions{Gaps: true, MinGap: 25 * time.Second}); len(g) != 2 || g[0].label != "+30s" {
		t.Errorf("25s threshold: %+v", g)
	}
	if g := got(tree.Line(13).Start, tree.Line(19).Start, opts); !reflect.DeepEqual(g, all[1:4]) {
		t.Errorf("lines 13-18: %+v", g)
	}
	if g := got(0, tree.Len(), InlayHintOptions{}); g != nil {
		t.Errorf("all off: %+v", g)
	}
	// An o: line's latency_ms= when the start has no ts=.
	lat := grammar.Parse([]byte(cleanDoc + "t!:Read id=a → [running]\no: id=a → [ok] latency_ms=1250\n"))
	if h := InlayHints(lat, 0, lat.Len(), opts); len(h) != 1 || h[0].Label != "1.2s" || !strings.HasSuffix(h[0].Tooltip, "from this line's latency_ms=") {
		t.Errorf("latency_ms: %+v", h)
	}
}

// TestInlayHintsCostTheirRange: once the session is known, a screen of
// hints costs the same in a log 20 times longer.
func TestInlayHintsCostTheirRange(t *testing.T) {
	doc := func(n int) *grammar.Tree {
		var b strings.Builder
		b.WriteString(cleanDoc)
		at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			fmt.Fprintf(&b, "t!:Bash id=c%d cmd=\"😀 %d\" → [running] ts=%s\n", i, i, at.Format(time.RFC3339Nano))
			at = at.Add(time.Duration(1+i%3) * time.Second)
			if i%10 == 0 {
				at = at.Add(2 * time.Minute)
			}
			fmt.Fprintf(&b, "o: id=c%d → [ok] 漢字 ts=%s\n", i, at.Format(time.RFC3339Nano))
		}
		return grammar.Parse([]byte(b.String()))
	}
	opts := InlayHintOptions{Latency: true, Gaps: true, MinGap: time.Minute}
	allocs := func(tree *grammar.Tree) float64 {
		SessionOf(tree) // the session is built once per version
		from, to := tree.Line(1000).Start, tree.Line(1050).Start
		if n := len(InlayHints(tree, from, to, opts)); n < 25 {
			t.Fatalf("%d hints", n)
		}
		return testing.AllocsPerRun(5, func() { InlayHints(tree, from, to, opts) })
	}
	small, large := allocs(doc(2000)), allocs(doc(40000))
	if large > small*1.5+10 {
		t.Fatalf("a screen of hints allocates %.0f times in a long log, %.0f in a short one", large, small)
	}
}

func TestLineTimes(t *testing.T) {
	tree := grammar.Parse([]byte(cleanDoc + "u: a ts=2025-01-01T10:05:00Z\nu: b\nu: c ts=2025-13-01T10:00:00Z\nu: d ts=2025-01-01T12:00:00+02:00\n"))
	want := []LineTime{{6, time.Date(2025, 1, 1, 10, 5, 0, 0, time.UTC)}, {9, time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)}}
	got := LineTimes(tree)
	if len(got) != 2 || got[0].Line != 6 || !got[0].Time.Equal(want[0].Time) || got[1].Line != 9 || !got[1].Time.Equal(want[1].Time) {
		t.Fatalf("%+v", got)
	}
}
