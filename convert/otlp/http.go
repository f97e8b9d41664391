package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Endpoint is the URL spans are sent to, as every OTel SDK finds it: an
// explicit url (or OTEL_EXPORTER_OTLP_ENDPOINT) is the receiver's base,
// to which /v1/traces is added; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the
// whole URL. getenv reads the environment. "" when none is named.
func Endpoint(explicit string, getenv func(string) string) (string, error) {
	var u string
	switch {
	case explicit != "":
		u = base(explicit)
	case getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "":
		u = getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	case getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		u = base(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	default:
		return "", nil
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", fmt.Errorf("%q is no http:// or https:// URL", u)
	}
	return u, nil
}

func base(u string) string {
	if strings.HasSuffix(u, "/v1/traces") {
		return u
	}
	return strings.TrimSuffix(u, "/") + "/v1/traces"
}

// Headers are the headers OTEL_EXPORTER_OTLP_HEADERS and
// OTEL_EXPORTER_OTLP_TRACES_HEADERS name: key=value pairs separated by
// commas, values percent-encoded (the traces' win).
func Headers(getenv func(string) string) (http.Header, error) {
	h := http.Header{}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		for _, pair := range strings.Split(getenv(name), ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			k, v, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("%s: %q is no key=value", name, pair)
			}
			dv, err := url.QueryUnescape(strings.TrimSpace(v))
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", name, k, err)
			}
			h.Set(k, dv)
		}
	}
	return h, nil
}

// Protocol is the OTLP protocol named by --protocol, or else by
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL:
// http/protobuf (the default) or http/json; json says which.
func Protocol(explicit string, getenv func(string) string) (json bool, err error) {
	p := explicit
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p == "" {
			p = getenv(name)
		}
	}
	switch p {
	case "", "http/protobuf":
		return false, nil
	case "http/json":
		return true, nil
	}
	return false, fmt.Errorf("protocol %q: rlog-ls sends http/protobuf or http/json (gRPC receivers take OTLP/HTTP on their other port, 4318 by default)", p)
}

// Sender sends requests to an OTLP/HTTP receiver as protobuf, retrying
// with exponential backoff when it answers 429, 502, 503 or 504 (its
// Retry-After honoured) or cannot be reached, as the OTLP specification
// asks. A request it refuses for good (another 4xx or 5xx) is counted as
// rejected and the export goes on; spans it takes only in part are
// counted from its partial_success.
type Sender struct {
	URL     string
	Headers http.Header
	// JSON sends OTLP/JSON (http/json) instead of protobuf.
	JSON   bool
	Client *http.Client
	// Attempts is how many times a request is tried (6 when 0);
	// Backoff the first wait (500 ms when 0), doubled up to 30 s.
	Attempts int
	Backoff  time.Duration
	// Sleep waits (time.Sleep when nil): tests replace it.
	Sleep func(time.Duration)

	// Requests sent, Bytes sent (bodies), Retries made, Rejected spans
	// (with the receiver's last reason).
	Requests, Retries int
	Bytes             int64
	Rejected          int64
	Reason            string
}

// ErrUnreachable is an export stopped because the receiver could not be
// reached (or kept answering that it is busy) after every attempt.
var ErrUnreachable = errors.New("the OTLP receiver did not take the spans")

// Send implements a Batch's Send.
func (s *Sender) Send(td *tracepb.TracesData, spans int) error {
	contentType := "application/x-protobuf"
	marshal := proto.Marshal
	if s.JSON {
		contentType = "application/json"
		marshal = func(m proto.Message) ([]byte, error) { return MarshalJSON(m.(*tracepb.TracesData)) }
	}
	body, err := marshal(td)
	if err != nil {
		return err
	}
	attempts, wait := s.Attempts, s.Backoff
	if attempts <= 0 {
		attempts = 6
	}
	if wait <= 0 {
		wait = 500 * time.Millisecond
	}
	sleep := s.Sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	var last string
	for try := 1; ; try++ {
		req, err := http.NewRequest(http.MethodPost, s.URL, bytes.NewReader(body))
		if err != nil {
			return err
		}
		for k, vs := range s.Headers {
			req.Header[k] = vs
		}
		req.Header.Set("Content-Type", contentType)
		s.Requests++
		s.Bytes += int64(len(body))
		resp, err := client.Do(req)
		retryAfter := time.Duration(0)
		if err != nil {
			last = err.Error()
		} else {
			answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			switch code := resp.StatusCode; {
			case code/100 == 2:
				if n, msg := partialSuccess(answer, resp.Header.Get("Content-Type")); n > 0 {
					s.Rejected += n
					s.Reason = msg
				}
				return nil
			case code == http.StatusTooManyRequests || code == http.StatusBadGateway ||
				code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
				last = resp.Status
				if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs >= 0 {
					retryAfter = time.Duration(secs) * time.Second
				}
			default:
				s.Rejected += int64(spans)
				s.Reason = strings.TrimSpace(resp.Status + " " + statusMessage(answer, resp.Header.Get("Content-Type")))
				return nil
			}
		}
		if try >= attempts {
			return fmt.Errorf("%w after %d attempts: %s", ErrUnreachable, try, last)
		}
		s.Retries++
		sleep(max(wait, retryAfter))
		wait = min(wait*2, 30*time.Second)
	}
}

// partialSuccess reads an ExportTraceServiceResponse: its
// partial_success (field 1) holds rejected_spans (1) and error_message (2).
func partialSuccess(b []byte, contentType string) (rejected int64, msg string) {
	if strings.HasPrefix(contentType, "application/json") {
		var r struct {
			PartialSuccess struct {
				RejectedSpans json.RawMessage `json:"rejectedSpans"` // a string in OTLP/JSON, or a number
				ErrorMessage  string          `json:"errorMessage"`
			} `json:"partialSuccess"`
		}
		if json.Unmarshal(b, &r) != nil {
			return 0, ""
		}
		n, _ := strconv.ParseInt(strings.Trim(string(r.PartialSuccess.RejectedSpans), `"`), 10, 64)
		return n, r.PartialSuccess.ErrorMessage
	}
	each(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) {
		if num != 1 || typ != protowire.BytesType {
			return
		}
		each(v, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) {
			switch {
			case num == 1 && typ == protowire.VarintType:
				rejected = int64(n)
			case num == 2 && typ == protowire.BytesType:
				msg = string(v)
			}
		})
	})
	return rejected, msg
}

// statusMessage is the message of a receiver's google.rpc.Status (field
// 2) in protobuf, or the answer's text, short.
func statusMessage(b []byte, contentType string) string {
	if strings.HasPrefix(contentType, "application/x-protobuf") {
		var msg string
		each(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) {
			if num == 2 && typ == protowire.BytesType {
				msg = string(v)
			}
		})
		return msg
	}
	return cutUTF8(strings.TrimSpace(string(b)), 200)
}

// each calls f with every field of the message b (bytes fields with
// their bytes, varints with their value), stopping at a malformed one.
func each(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte, n uint64)) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return
			}
			f(num, typ, nil, v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return
			}
			f(num, typ, v, 0)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return
			}
			b = b[n:]
		}
	}
}
