package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/otlp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// export --otlp -o writes one OTLP/JSON request a line, every session of
// a folder (the sub-agent transcripts read with their session), sums up
// what it did, and refuses a session without times in one line while
// exporting the others (exit 1).
func TestExportOTLPFile(t *testing.T) {
	dir := t.TempDir()
	untimed := filepath.Join(dir, "untimed.rlog")
	os.WriteFile(untimed, []byte("---\nformat: rlog/1\nid: u1\n---\nt:Bash id=c1 cmd=ls → [ok] a\n"), 0o644)
	out := filepath.Join(dir, "traces.jsonl")
	var stdout, stderr bytes.Buffer
	code := run([]string{"export", "--otlp", "-o", out, "../../testdata/agents/claude-code", "../../testdata/logs/timed.rlog", untimed},
		strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one session refused); stderr:\n%s", code, &stderr)
	}
	if !strings.Contains(stderr.String(), "untimed.rlog: line 5: this tool_call event has no time and none comes before it") {
		t.Errorf("no refusal naming the line:\n%s", &stderr)
	}
	// Every recorded Claude Code session, and timed.rlog.
	transcripts, _ := filepath.Glob("../../testdata/agents/claude-code/*/*/claude/projects/*/*.jsonl")
	sessions := len(transcripts) + 1
	if !strings.Contains(stderr.String(), fmt.Sprintf("rlog-ls export: %d sessions, ", sessions)) || !strings.Contains(stderr.String(), ", 1 refused") {
		t.Errorf("summary:\n%s", &stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	roots := 0
	err = otlp.ReadJSONLines(f, func(td *tracepb.TracesData) error {
		for _, rs := range td.ResourceSpans {
			for _, sp := range rs.ScopeSpans[0].Spans {
				if len(sp.ParentSpanId) == 0 {
					roots++
				}
			}
		}
		return nil
	})
	if err != nil || roots != sessions || sessions < 11 {
		t.Fatalf("%d sessions in the file (%v), want %d", roots, err, sessions)
	}
}

// Without an output export says what to name, and writes nothing.
func TestExportOTLPNeedsAnOutput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"export", "--otlp", "../../testdata/logs/timed.rlog"}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "name the output") {
		t.Errorf("stderr: %s", &stderr)
	}
}

// export --otlp --endpoint sends protobuf to the receiver and sums up
// what it took.
func TestExportOTLPSend(t *testing.T) {
	var spans int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		td := &tracepb.TracesData{}
		var err error
		if r.Header.Get("Content-Type") == "application/json" {
			err = otlp.UnmarshalJSON(b, td)
		} else {
			err = proto.Unmarshal(b, td)
		}
		if err != nil {
			t.Error(err)
		}
		for _, rs := range td.ResourceSpans {
			spans += len(rs.ScopeSpans[0].Spans)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"export", "--otlp", "--endpoint", srv.URL, "../../testdata/logs/timed.rlog"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, &stderr)
	}
	if spans != 26 || !strings.Contains(stderr.String(), "1 session, 26 spans, ") || !strings.Contains(stderr.String(), "/v1/traces in 1 request") {
		t.Fatalf("%d spans; stderr: %s", spans, &stderr)
	}
	spans = 0
	stderr.Reset()
	if code := run([]string{"export", "--otlp", "--endpoint", srv.URL, "--protocol", "http/json", "../../testdata/logs/timed.rlog"}, strings.NewReader(""), &stdout, &stderr); code != 0 || spans != 26 {
		t.Fatalf("http/json: exit %d, %d spans: %s", code, spans, &stderr)
	}
	if code := run([]string{"export", "--otlp", "--endpoint", srv.URL, "--protocol", "grpc", "../../testdata/logs/timed.rlog"}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Fatalf("grpc: exit %d", code)
	}
}

// -o never names an input, --force or not: the session is left as it was.
func TestExportOTLPNeverOverAnInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/logs/timed.rlog")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "s.rlog")
	os.WriteFile(in, src, 0o644)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"export", "--otlp", "--force", "-o", in, dir}, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2: %s", code, &stderr)
	}
	if got, _ := os.ReadFile(in); !bytes.Equal(got, src) {
		t.Fatal("the input was written over")
	}
}
