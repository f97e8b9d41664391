package otlp

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// OTLP/JSON is protobuf's JSON mapping with three differences, which the
// receivers insist on: trace and span ids are hex, not base64; enums are
// numbers; and the field names are lowerCamelCase (protojson's default).
// TracesData has the JSON of an ExportTraceServiceRequest (one field,
// resourceSpans), which is what the Collector's otlpjsonfile receiver
// reads, one per line.

// idKeys are the id members of protojson's output, compacted. Inside a
// JSON string a quote is escaped, so an unescaped `"spanId":"` is always
// a key.
var idKeys = [][]byte{[]byte(`"traceId":"`), []byte(`"spanId":"`), []byte(`"parentSpanId":"`)}

// MarshalJSON is td in OTLP/JSON, compact (protojson varies its spacing
// from one build to another; the output must be byte-stable).
func MarshalJSON(td *tracepb.TracesData) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(td)
	if err != nil {
		return nil, err
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return nil, err
	}
	return hexIDs(c.Bytes())
}

// hexIDs rewrites the base64 ids of compact protojson as hex.
func hexIDs(b []byte) ([]byte, error) {
	out := make([]byte, 0, len(b)+len(b)/8)
	for {
		at, key := -1, []byte(nil)
		for _, k := range idKeys {
			if i := bytes.Index(b, k); i >= 0 && (at < 0 || i < at) {
				at, key = i, k
			}
		}
		if at < 0 {
			return append(out, b...), nil
		}
		out = append(out, b[:at+len(key)]...)
		b = b[at+len(key):]
		end := bytes.IndexByte(b, '"')
		if end < 0 {
			return nil, fmt.Errorf("an id without its end")
		}
		raw, err := base64.StdEncoding.DecodeString(string(b[:end]))
		if err != nil {
			return nil, err
		}
		out = hex.AppendEncode(out, raw)
		b = b[end:]
	}
}

// hexIDField is an id member of OTLP/JSON.
var hexIDField = regexp.MustCompile(`"(traceId|spanId|parentSpanId)": ?"([0-9A-Fa-f]*)"`)

// ProtoJSON is OTLP/JSON b as protojson reads it: the ids in base64.
// (protojson reads a hex id as base64 without an error, into an id of
// the wrong length.)
func ProtoJSON(b []byte) ([]byte, error) {
	var bad error
	b = hexIDField.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := hexIDField.FindSubmatch(m)
		raw, err := hex.DecodeString(string(sub[2]))
		if err != nil {
			bad = fmt.Errorf("%s %q is not hex", sub[1], sub[2])
		}
		return fmt.Appendf(nil, `"%s":"%s"`, sub[1], base64.StdEncoding.EncodeToString(raw))
	})
	return b, bad
}

// UnmarshalJSON reads one OTLP/JSON request into td, rejecting unknown
// fields, ids that are not hex or not of their length.
func UnmarshalJSON(b []byte, td *tracepb.TracesData) error {
	b, err := ProtoJSON(b)
	if err != nil {
		return err
	}
	if err := (protojson.UnmarshalOptions{}).Unmarshal(b, td); err != nil {
		return err
	}
	for _, rs := range td.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				switch {
				case len(sp.TraceId) != 16:
					return fmt.Errorf("span %q: a trace id of %d bytes, not 16", sp.Name, len(sp.TraceId))
				case len(sp.SpanId) != 8:
					return fmt.Errorf("span %q: a span id of %d bytes, not 8", sp.Name, len(sp.SpanId))
				case len(sp.ParentSpanId) != 0 && len(sp.ParentSpanId) != 8:
					return fmt.Errorf("span %q: a parent span id of %d bytes, not 8", sp.Name, len(sp.ParentSpanId))
				}
			}
		}
	}
	return nil
}

// ReadJSONLines reads a file of OTLP/JSON requests, one a line, calling
// each with every request; an error names its line.
func ReadJSONLines(r io.Reader, each func(td *tracepb.TracesData) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		td := &tracepb.TracesData{}
		if err := UnmarshalJSON(sc.Bytes(), td); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := each(td); err != nil {
			return err
		}
	}
	return sc.Err()
}
