package otlp_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/otlp"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/producers/sandbox"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// The end-to-end proof: the recorded sessions and the fixtures, exported
// to a real Jaeger v2 (all-in-one, memory storage) and read back through
// its query API. Jaeger runs only inside the sandbox (a private network,
// mount and PID namespace, on its own loopback), with the whole exchange:
// the test runs itself there as a job. .ci/run builds the pinned Jaeger
// once and names it in RLOG_JAEGER.

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

func init() { sandbox.Register("otlp-jaeger", jaegerJob) }

const (
	jaegerOTLP  = "http://127.0.0.1:4318/v1/traces"
	jaegerQuery = "http://127.0.0.1:16686"
)

type jaegerInput struct {
	Jaeger string
	Files  []string
}

type jaegerOutput struct {
	Failures []string
	Notes    []string
}

func TestJaeger(t *testing.T) {
	require := os.Getenv("RLOG_REQUIRE_JAEGER") == "1"
	skip := func(why string) {
		if require {
			t.Fatalf("RLOG_REQUIRE_JAEGER=1, but %s", why)
		}
		t.Skip(why)
	}
	bin := os.Getenv("RLOG_JAEGER")
	if bin == "" {
		skip("RLOG_JAEGER names no Jaeger v2 binary (.ci/run builds the pinned one)")
	}
	if err := sandbox.Available(); err != nil {
		skip("no sandbox for Jaeger: " + err.Error())
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range sessions(t) {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, abs)
	}
	var out jaegerOutput
	var stderr bytes.Buffer
	err = sandbox.Run(context.Background(), "otlp-jaeger", jaegerInput{Jaeger: bin, Files: files}, &out, &stderr, 5*time.Minute)
	for _, n := range out.Notes {
		t.Log(n)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, lastLines(stderr.String(), 40))
	}
	for _, f := range out.Failures {
		t.Error(f)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// tee hands spans to the batch that sends them and keeps them per trace.
type tee struct {
	*otlp.Batch
	res    *resourcepb.Resource
	traces map[string]*sentTrace
	order  []string
}

type sentTrace struct {
	service string
	file    string
	spans   []*tracepb.Span
}

func (t *tee) Resource(r *resourcepb.Resource) error {
	t.res = r
	return t.Batch.Resource(r)
}

func (t *tee) Span(s *tracepb.Span) error {
	id := hex.EncodeToString(s.TraceId)
	tr := t.traces[id]
	if tr == nil {
		tr = &sentTrace{service: t.res.Attributes[0].Value.GetStringValue()}
		t.traces[id] = tr
		t.order = append(t.order, id)
	}
	tr.spans = append(tr.spans, s)
	return t.Batch.Span(s)
}

func jaegerJob(ctx context.Context, raw json.RawMessage) (any, error) {
	var in jaegerInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, in.Jaeger, "--set", "extensions.jaeger_query.enable_tracing=false")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
		}
	}()
	if err := jaegerReady(30 * time.Second); err != nil {
		return nil, fmt.Errorf("%v; Jaeger's log:\n%s", err, lastLines(log.String(), 20))
	}
	out := &jaegerOutput{}
	fail := func(format string, a ...any) { out.Failures = append(out.Failures, fmt.Sprintf(format, a...)) }
	var first *tee
	for round := 1; round <= 2; round++ {
		// The second export in OTLP/JSON: the same spans, however sent.
		sender := &otlp.Sender{URL: jaegerOTLP, Attempts: 3, JSON: round == 2}
		t := &tee{Batch: &otlp.Batch{MaxSpans: 40, Send: sender.Send}, traces: map[string]*sentTrace{}} // sessions split across requests
		x := &otlp.Exporter{Out: t}
		exported := 0
		for _, f := range in.Files {
			n := len(t.order)
			if _, err := x.File(f); err != nil {
				if round == 1 {
					out.Notes = append(out.Notes, fmt.Sprintf("not exported: %s: %v", rel(f), err))
				}
				continue
			}
			exported++
			for _, id := range t.order[n:] {
				t.traces[id].file = f
			}
		}
		if err := t.Batch.Flush(); err != nil {
			return nil, err
		}
		if sender.Rejected > 0 {
			fail("round %d: Jaeger rejected %d spans: %s", round, sender.Rejected, sender.Reason)
		}
		out.Notes = append(out.Notes, fmt.Sprintf("round %d: %d sessions, %d spans in %d requests (%d bytes)",
			round, exported, x.Stats.Spans, sender.Requests, sender.Bytes))
		if exported < 20 {
			fail("round %d: only %d sessions exported", round, exported)
		}
		for _, id := range t.order {
			checkTrace(id, t.traces[id], fail)
		}
		if round == 1 {
			first = t
		} else if !slices.Equal(first.order, t.order) {
			fail("the second export made other traces than the first")
		}
	}
	// One trace per session, whatever was sent twice.
	perService := map[string]int{}
	for _, id := range first.order {
		perService[first.traces[id].service]++
	}
	for svc, n := range perService {
		var list struct {
			Data []struct {
				TraceID string `json:"traceID"`
			} `json:"data"`
		}
		if err := getJSON(jaegerQuery+"/api/traces?start=0&limit=10000&service="+svc, &list); err != nil {
			fail("list %s: %v", svc, err)
			continue
		}
		if len(list.Data) != n {
			fail("service %s: %d traces listed, %d sessions exported", svc, len(list.Data), n)
		}
	}
	return out, nil
}

func rel(f string) string {
	if i := strings.Index(f, "/testdata/"); i >= 0 {
		return f[i+1:]
	}
	return f
}

// jaegerReady waits until the query API and the OTLP receiver answer.
func jaegerReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		q, err1 := http.Get(jaegerQuery + "/api/services")
		if err1 == nil {
			q.Body.Close()
		}
		p, err2 := http.Post(jaegerOTLP, "application/json", strings.NewReader("{}"))
		if err2 == nil {
			p.Body.Close()
		}
		if err1 == nil && err2 == nil && q.StatusCode == 200 && p.StatusCode == 200 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("Jaeger not ready after %s: %v %v", timeout, err1, err2)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	return json.Unmarshal(b, v)
}

// The v1 query API's trace.
type v1Trace struct {
	Data []struct {
		Spans []struct {
			SpanID        string `json:"spanID"`
			OperationName string `json:"operationName"`
			References    []struct {
				RefType string `json:"refType"`
				SpanID  string `json:"spanID"`
			} `json:"references"`
			StartTime int64   `json:"startTime"`
			Duration  int64   `json:"duration"`
			Tags      []v1Tag `json:"tags"`
			Logs      []struct {
				Fields []v1Tag `json:"fields"`
			} `json:"logs"`
			Warnings []string `json:"warnings"`
		} `json:"spans"`
	} `json:"data"`
}

type v1Tag struct {
	Key   string          `json:"key"`
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// checkTrace reads the trace id back until it has every span sent (the
// batch processor stores after answering), then compares it span by span:
// name, parent, start and duration (µs), every attribute and the events;
// an rlog session's tokens and duration are held to stats' too.
func checkTrace(id string, sent *sentTrace, fail func(string, ...any)) {
	name := rel(sent.file)
	var got v1Trace
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := getJSON(jaegerQuery+"/api/traces/"+id, &got)
		if err == nil && len(got.Data) == 1 && len(got.Data[0].Spans) >= len(sent.spans) {
			break
		}
		if time.Now().After(deadline) {
			n := 0
			if len(got.Data) == 1 {
				n = len(got.Data[0].Spans)
			}
			fail("%s: trace %s has %d of %d spans after 20s (%v)", name, id, n, len(sent.spans), err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	spans := got.Data[0].Spans
	if len(spans) != len(sent.spans) {
		fail("%s: %d spans read back, %d sent (a duplicate?)", name, len(spans), len(sent.spans))
	}
	byID := map[string]int{}
	for i, s := range spans {
		if _, dup := byID[s.SpanID]; dup {
			fail("%s: span %s (%s) twice", name, s.SpanID, s.OperationName)
		}
		byID[s.SpanID] = i
		if len(s.Warnings) > 0 {
			fail("%s: span %s has Jaeger's warnings %v", name, s.OperationName, s.Warnings)
		}
	}
	for _, want := range sent.spans {
		sid := hex.EncodeToString(want.SpanId)
		i, ok := byID[sid]
		if !ok {
			fail("%s: span %s (%s) missing", name, sid, want.Name)
			continue
		}
		g := spans[i]
		if g.OperationName != want.Name {
			fail("%s: span %s is %q, sent %q", name, sid, g.OperationName, want.Name)
		}
		parent := ""
		if len(g.References) == 1 && g.References[0].RefType == "CHILD_OF" {
			parent = g.References[0].SpanID
		}
		if parent != hex.EncodeToString(want.ParentSpanId) || len(g.References) > 1 {
			fail("%s: span %s's parent is %q, sent %q", name, want.Name, parent, hex.EncodeToString(want.ParentSpanId))
		}
		start, dur := int64(want.StartTimeUnixNano/1000), int64((want.EndTimeUnixNano-want.StartTimeUnixNano)/1000)
		if g.StartTime != start || g.Duration != dur {
			fail("%s: span %s at %d µs for %d µs, sent %d for %d", name, want.Name, g.StartTime, g.Duration, start, dur)
		}
		for _, kv := range want.Attributes {
			if !hasTag(g.Tags, kv) {
				fail("%s: span %s lacks %s=%v", name, want.Name, kv.Key, kv.Value)
			}
		}
		if len(g.Logs) != len(want.Events) {
			fail("%s: span %s has %d events, sent %d", name, want.Name, len(g.Logs), len(want.Events))
		}
		if len(want.ParentSpanId) == 0 && strings.HasSuffix(sent.file, ".rlog") {
			checkStats(sent.file, g.Tags, g.Duration, fail)
		}
	}
}

func hasTag(tags []v1Tag, kv *commonpb.KeyValue) bool {
	for _, t := range tags {
		if t.Key != kv.Key {
			continue
		}
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			var s string
			return t.Type == "string" && json.Unmarshal(t.Value, &s) == nil && s == v.StringValue
		case *commonpb.AnyValue_IntValue:
			var n int64
			return t.Type == "int64" && json.Unmarshal(t.Value, &n) == nil && n == v.IntValue
		}
	}
	return false
}

// checkStats holds a session's root span, as Jaeger returns it, to what
// stats counts for the same log: tokens, and the duration (in µs).
func checkStats(file string, tags []v1Tag, durationUS int64, fail func(string, ...any)) {
	src, err := os.ReadFile(file)
	if err != nil {
		fail("%v", err)
		return
	}
	s := analysis.BuildSession(grammar.Parse(src), analysis.SessionOptions{})
	c := s.Counters
	tag := func(key string) int64 {
		for _, t := range tags {
			if t.Key == key {
				var n int64
				json.Unmarshal(t.Value, &n)
				return n
			}
		}
		return 0
	}
	if c.TokensIn+c.TokensOut+c.TokensCached+c.TokensCacheCreate > 0 {
		if in := int64(c.TokensIn + c.TokensCached + c.TokensCacheCreate); tag("gen_ai.usage.input_tokens") != in {
			fail("%s: input tokens %d in Jaeger, stats %d", rel(file), tag("gen_ai.usage.input_tokens"), in)
		}
		if tag("gen_ai.usage.output_tokens") != int64(c.TokensOut) || tag("gen_ai.usage.cache_read.input_tokens") != int64(c.TokensCached) ||
			tag("gen_ai.usage.cache_creation.input_tokens") != int64(c.TokensCacheCreate) {
			fail("%s: tokens in Jaeger differ from stats %+v", rel(file), c)
		}
	}
	if d, ok := s.Duration(); ok && durationUS != d.Microseconds() {
		fail("%s: %d µs in Jaeger, stats %v", rel(file), durationUS, d)
	}
}
