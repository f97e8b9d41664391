package claude

import (
	"bytes"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// repeatedLoss makes the report Report.Add makes: the same entries in the
// same order, counts and locations, for a loss reported 0 to 9 times
// among others, at locations and at none.
func TestRepeatedLossAsAdd(t *testing.T) {
	for n := range 10 {
		for _, zero := range []bool{false, true} {
			got, want := &model.Report{}, &model.Report{}
			wr := &Writer{rep: got}
			var p, q repeated
			for i := range n {
				loc := model.Loc{Line: i + 1}
				if zero && i%2 == 0 {
					loc = model.Loc{}
				}
				if i == 2 {
					got.Add(model.LossSynthesized, "another", loc)
					want.Add(model.LossSynthesized, "another", loc)
				}
				wr.repeatedLoss(&p, model.LossSynthesized, "uuid and parentUuid", loc)
				want.Add(model.LossSynthesized, "uuid and parentUuid", loc)
				if i%3 == 0 {
					wr.repeatedLoss(&q, model.LossTruncated, "timestamp", model.Loc{Path: "x"})
					want.Add(model.LossTruncated, "timestamp", model.Loc{Path: "x"})
				}
			}
			if g, w := got.JSON(), want.JSON(); !bytes.Equal(g, w) {
				t.Fatalf("%d losses (zero locations %v): %s, want %s", n, zero, g, w)
			}
		}
	}
	// Without a report, nothing is counted and nothing fails.
	wr := &Writer{}
	var p repeated
	for range 8 {
		wr.repeatedLoss(&p, model.LossSynthesized, "uuid", model.Loc{Line: 1})
	}
}
