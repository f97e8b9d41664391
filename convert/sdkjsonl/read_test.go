package sdkjsonl

import (
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// The result lines' usage becomes the session's totals, summed over the
// results of a continued session; a malformed usage object adds nothing.
func TestResultUsageBecomesSessionTotals(t *testing.T) {
	src := `{"type":"result","message":{"subtype":"success","usage":{"input_tokens":10,"output_tokens":4,"cache_read_input_tokens":100,"cache_creation_input_tokens":7},"total_cost_usd":0.5},"timestamp":"2025-12-22T10:00:00+00:00"}
{"type":"result","message":{"subtype":"success","usage":{"input_tokens":1,"output_tokens":2},"total_cost_usd":0.25},"timestamp":"2025-12-22T10:01:00+00:00"}
{"type":"result","message":{"subtype":"success","usage":[1,2]},"timestamp":"2025-12-22T10:02:00+00:00"}
`
	var c model.Collector
	if err := Read(strings.NewReader(src), &c, &model.Report{}); err != nil {
		t.Fatal(err)
	}
	h := c.Session.Header
	want := model.Usage{Input: 11, Output: 6, CacheRead: 100, CacheCreate: 7}
	if h.Totals == nil || *h.Totals != want || h.CostUSD == nil || *h.CostUSD != 0.75 {
		t.Fatalf("totals %+v cost %v, want %+v and 0.75", h.Totals, h.CostUSD, want)
	}
}
