package otlp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/otlp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// partial is an ExportTraceServiceResponse with a partial_success.
func partial(rejected int64, msg string) []byte {
	var in []byte
	in = protowire.AppendTag(in, 1, protowire.VarintType)
	in = protowire.AppendVarint(in, uint64(rejected))
	in = protowire.AppendTag(in, 2, protowire.BytesType)
	in = protowire.AppendString(in, msg)
	out := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(out, in)
}

// The sender posts protobuf to /v1/traces with the headers named, retries
// 429 and 503 with a growing wait (Retry-After honoured), counts the spans
// a receiver takes only in part or refuses, and gives up on a receiver
// that stays busy.
func TestSender(t *testing.T) {
	var mu sync.Mutex
	answers := []int{503, 429, 200}
	var got []*tracepb.TracesData
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Authorization") != "Bearer k=1" {
			t.Errorf("request %s %s %v", r.Method, r.URL.Path, r.Header)
		}
		b, _ := io.ReadAll(r.Body)
		code := 200
		if len(answers) > 0 {
			code, answers = answers[0], answers[1:]
		}
		switch code {
		case 200:
			td := &tracepb.TracesData{}
			if err := proto.Unmarshal(b, td); err != nil {
				t.Error(err)
			}
			got = append(got, td)
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(partial(1, "one span too old"))
		case 429:
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(code)
		default:
			w.WriteHeader(code)
		}
	}))
	defer srv.Close()
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/", "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer%20k%3D1"}
	url, err := otlp.Endpoint("", func(k string) string { return env[k] })
	if err != nil || url != srv.URL+"/v1/traces" {
		t.Fatalf("endpoint %q, %v", url, err)
	}
	h, err := otlp.Headers(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	s := &otlp.Sender{URL: url, Headers: h, Sleep: func(d time.Duration) { waits = append(waits, d) }}
	td := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{{Name: "a"}, {Name: "b"}}}}}}}
	if err := s.Send(td, 2); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || s.Requests != 3 || s.Retries != 2 || s.Rejected != 1 || s.Reason != "one span too old" {
		t.Fatalf("got %d, sender %+v", len(got), s)
	}
	if len(waits) != 2 || waits[0] != 500*time.Millisecond || waits[1] != 3*time.Second {
		t.Fatalf("waits %v, want 500ms then Retry-After's 3s", waits)
	}

	// A request refused for good: its spans are rejected, the export goes on.
	answers = []int{400}
	if err := s.Send(td, 2); err != nil || s.Rejected != 3 {
		t.Fatalf("after a 400: %v, rejected %d", err, s.Rejected)
	}
	// A receiver that stays busy: the export stops, after every attempt.
	answers = []int{503, 503, 503, 503, 503, 503, 503}
	waits = nil
	if err := s.Send(td, 2); err == nil || len(waits) != 5 || waits[4] != 8*time.Second {
		t.Fatalf("a busy receiver: %v, waits %v", err, waits)
	}
}

func TestEndpoint(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct{ explicit, base, traces, want string }{
		{"http://127.0.0.1:4318", "", "", "http://127.0.0.1:4318/v1/traces"},
		{"http://h:4318/v1/traces", "", "", "http://h:4318/v1/traces"},
		{"", "https://h/otlp", "", "https://h/otlp/v1/traces"},
		{"", "https://h/otlp", "https://t/x", "https://t/x"},
		{"", "", "", ""},
	} {
		env["OTEL_EXPORTER_OTLP_ENDPOINT"], env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = c.base, c.traces
		if got, err := otlp.Endpoint(c.explicit, getenv); err != nil || got != c.want {
			t.Errorf("%+v: %q, %v", c, got, err)
		}
	}
	if _, err := otlp.Endpoint("localhost:4318", getenv); err == nil {
		t.Error("a URL without a scheme accepted")
	}
}

// With JSON the sender posts OTLP/JSON, and reads a JSON partial success
// (its count a string, as OTLP/JSON writes 64-bit integers).
func TestSenderJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var td tracepb.TracesData
		if r.Header.Get("Content-Type") != "application/json" || otlp.UnmarshalJSON(b, &td) != nil || len(td.ResourceSpans) != 1 {
			t.Errorf("not OTLP/JSON: %s %s", r.Header.Get("Content-Type"), b)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}`))
	}))
	defer srv.Close()
	s := &otlp.Sender{URL: srv.URL + "/v1/traces", JSON: true}
	td := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{
		{Name: "a", TraceId: make([]byte, 16), SpanId: []byte{1, 2, 3, 4, 5, 6, 7, 8}}}}}}}}
	if err := s.Send(td, 1); err != nil || s.Rejected != 2 || s.Reason != "too old" {
		t.Fatalf("%v, %+v", err, s)
	}
}

func TestProtocol(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
	getenv := func(k string) string { return env[k] }
	if j, err := otlp.Protocol("", getenv); !j || err != nil {
		t.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=http/json: %v %v", j, err)
	}
	if j, err := otlp.Protocol("http/protobuf", getenv); j || err != nil {
		t.Errorf("--protocol http/protobuf: %v %v", j, err)
	}
	env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] = "grpc"
	if _, err := otlp.Protocol("", getenv); err == nil {
		t.Error("grpc accepted")
	}
}
