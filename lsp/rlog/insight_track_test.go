package rlog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/edittest"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// trackedVersion is one version of a document and what its lenses and
// hints must say, from the full session of a fresh parse of its text.
type trackedVersion struct {
	doc        Doc
	lenses     []lensData
	titles     []string
	start, end int
	hints      []analysis.InlayHint
}

func expectedInsight(t *testing.T, d Doc, text []byte, r *rand.Rand) trackedVersion {
	t.Helper()
	fresh := grammar.Parse(bytes.Clone(text))
	s := analysis.BuildSession(fresh, analysis.SessionOptions{})
	v := trackedVersion{doc: d}
	for _, pl := range analysis.LensPlaces(fresh) {
		v.lenses = append(v.lenses, lensData{Line: pl.Line, Phase: pl.Phase})
		if pl.Phase < 0 {
			v.titles = append(v.titles, analysis.SessionLensTitle(s.Totals()))
		} else {
			v.titles = append(v.titles, analysis.PhaseLensTitle(&s.Phases[pl.Phase]))
		}
	}
	v.start = r.IntN(len(text) + 1)
	v.end = v.start + 1 + r.IntN(3000)
	v.hints = analysis.InlayHints(fresh, v.start, v.end, hintOptions(s))
	return v
}

func hintOptions(calls analysis.CallSource) analysis.InlayHintOptions {
	return analysis.InlayHintOptions{Latency: true, Gaps: true, MinGap: time.Second, Calls: calls}
}

// check asks v's document for its lenses and hints, as the requests do.
func (v *trackedVersion) check(t *testing.T, what string) {
	for i, data := range v.lenses {
		if got := v.doc.lensTitle(data, analysis.SessionOptions{}); got != v.titles[i] {
			t.Errorf("%s: lens %d (line %d)\n got  %q\n want %q", what, i, data.Line, got, v.titles[i])
		}
	}
	got := v.doc.inlayHints(v.start, v.end, hintOptions(nil))
	if len(got)+len(v.hints) > 0 && !reflect.DeepEqual(got, v.hints) {
		t.Errorf("%s: hints in [%d, %d)\n got  %+v\n want %+v", what, v.start, v.end, got, v.hints)
	}
}

// The versions of an open document share one session tracker. Whatever
// order the lens and hint requests of its versions come in, and however
// many run at once, each gets the numbers of its own version: those of
// the full session of a fresh parse of its text.
func TestSessionTrackerSharedByVersions(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(6, 400))
	r := rand.New(rand.NewPCG(5, 9))
	var buf bytes.Buffer
	if err := gen.Write(&buf, gen.Options{Bytes: 40 << 10, Seed: 4, Timed: true, FindingRate: 0.05}); err != nil {
		t.Fatal(err)
	}
	text := buf.Bytes()
	doc := Parse(bytes.Clone(text))
	versions := []trackedVersion{expectedInsight(t, doc, text, r)}
	for i := range 60 {
		for range 1 + r.IntN(3) {
			s, e, ins := edittest.Random(r, len(text), edittest.SessionPieces)
			doc = doc.Apply(s, e, bytes.Clone(ins))
			text = edittest.Splice(text, s, e, ins)
		}
		v := expectedInsight(t, doc, text, r)
		versions = append(versions, v)
		// The newest version, then one before it (a late request).
		v.check(t, fmt.Sprintf("version %d", i+1))
		old := versions[r.IntN(len(versions))]
		old.check(t, fmt.Sprintf("version %d after %d", i+1, len(versions)-1))
	}
	// Requests of every version at once.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 40 {
				k := r.IntN(len(versions))
				versions[k].check(t, fmt.Sprintf("at once, version %d", k))
			}
		})
	}
	wg.Wait()
}
