package otlp_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/otlp"
	"github.com/rlog-ls/rlog-ls/internal/golden"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// collected keeps what an export made, in order.
type collected struct {
	resources []*resourcepb.Resource
	spans     []*tracepb.Span
}

func (c *collected) Resource(r *resourcepb.Resource) error {
	c.resources = append(c.resources, r)
	return nil
}

func (c *collected) Span(s *tracepb.Span) error {
	c.spans = append(c.spans, s)
	return nil
}

// root is the repository's root, for the fixtures a case names.
const root = "../.."

// TestMapping exports each case's session and compares its spans, drawn
// as a tree, with the case's: testdata/*.txtar, each with the session's
// path (in the repository) and its options.
func TestMapping(t *testing.T) {
	golden.Run(t, "testdata/*.txtar", func(t *testing.T, a *golden.Archive) {
		var path string
		if src, ok := a.Get("session.rlog"); ok {
			path = filepath.Join(t.TempDir(), "session.rlog")
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			path = filepath.Join(root, strings.TrimSpace(string(a.File(t, "path"))))
		}
		opts := otlp.Options{}
		if o, ok := a.Get("options"); ok {
			for _, f := range strings.Fields(string(o)) {
				switch {
				case f == "include-content":
					opts.IncludeContent = true
				case strings.HasPrefix(f, "max-attr="):
					fmt.Sscan(strings.TrimPrefix(f, "max-attr="), &opts.MaxAttr)
				default:
					t.Fatalf("unknown option %q", f)
				}
			}
		}
		var c collected
		x := &otlp.Exporter{Options: opts, Out: &c}
		rep, err := x.File(path)
		var out bytes.Buffer
		if err != nil {
			fmt.Fprintf(&out, "refused: %v\n", strings.ReplaceAll(err.Error(), path, "PATH"))
		} else {
			out.WriteString(drawTree(c.resources, c.spans))
			fmt.Fprintf(&out, "stats: %+v\n", x.Stats)
			for _, l := range rep.Losses {
				if !exportLoss(l.Detail) {
					continue // the reader's, as every conversion reports them
				}
				fmt.Fprintf(&out, "loss: %s: %s ×%d\n", l.Kind, l.Detail, l.Count)
			}
		}
		a.Check(t, "spans", out.Bytes())
	})
}

// exportLoss says whether a loss is the export's own (the readers' are
// their tests' concern).
func exportLoss(detail string) bool {
	for _, p := range []string{"an event without a time", "a result without its call", "an attribute value cut", "a span name cut",
		"a session event past", "bytes that are not UTF-8 in a span"} {
		if strings.HasPrefix(detail, p) {
			return true
		}
	}
	return strings.HasSuffix(detail, "event without its details")
}

// drawTree draws spans as a tree: each span's name, its start from the
// root's and its duration, its attributes and events.
func drawTree(res []*resourcepb.Resource, spans []*tracepb.Span) string {
	var b strings.Builder
	for _, r := range res {
		fmt.Fprintf(&b, "resource %s\n", attrsText(r.Attributes))
	}
	children := map[string][]*tracepb.Span{}
	var roots []*tracepb.Span
	for _, s := range spans {
		p := hex.EncodeToString(s.ParentSpanId)
		if p == "" {
			roots = append(roots, s)
			continue
		}
		children[p] = append(children[p], s)
	}
	order := func(ss []*tracepb.Span) {
		slices.SortStableFunc(ss, func(x, y *tracepb.Span) int {
			if x.StartTimeUnixNano != y.StartTimeUnixNano {
				if x.StartTimeUnixNano < y.StartTimeUnixNano {
					return -1
				}
				return 1
			}
			return strings.Compare(x.Name, y.Name)
		})
	}
	var draw func(s *tracepb.Span, depth int, base uint64)
	draw = func(s *tracepb.Span, depth int, base uint64) {
		ind := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s +%v %v", ind, s.Name, time.Duration(s.StartTimeUnixNano-base), time.Duration(s.EndTimeUnixNano-s.StartTimeUnixNano))
		if s.Status != nil && s.Status.Code != tracepb.Status_STATUS_CODE_UNSET {
			fmt.Fprintf(&b, " status=%d", s.Status.Code)
		}
		fmt.Fprintf(&b, "\n%s  %s\n", ind, attrsText(s.Attributes))
		for _, e := range s.Events {
			fmt.Fprintf(&b, "%s  event %s +%v %s\n", ind, e.Name, time.Duration(e.TimeUnixNano-base), attrsText(e.Attributes))
		}
		if s.DroppedEventsCount > 0 {
			fmt.Fprintf(&b, "%s  dropped events %d\n", ind, s.DroppedEventsCount)
		}
		kids := children[hex.EncodeToString(s.SpanId)]
		order(kids)
		for _, k := range kids {
			draw(k, depth+1, base)
		}
	}
	order(roots)
	for _, r := range roots {
		draw(r, 0, r.StartTimeUnixNano)
	}
	return b.String()
}

func attrsText(kvs []*commonpb.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			s := v.StringValue
			if len(s) > 60 {
				s = fmt.Sprintf("%s…(%d bytes)", s[:60], len(v.StringValue))
			}
			parts = append(parts, fmt.Sprintf("%s=%q", kv.Key, s))
		case *commonpb.AnyValue_IntValue:
			parts = append(parts, fmt.Sprintf("%s=%d", kv.Key, v.IntValue))
		default:
			parts = append(parts, fmt.Sprintf("%s=%v", kv.Key, kv.Value))
		}
	}
	return strings.Join(parts, " ")
}
