package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/internal/canon"
	"github.com/rlog-ls/rlog-ls/convert/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// Finding is one validation problem, at a line and a JSON path.
type Finding struct {
	Line    int    `json:"line"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func (f Finding) String() string {
	if f.Path != "" {
		return fmt.Sprintf("line %d: %s: %s", f.Line, f.Path, f.Message)
	}
	return fmt.Sprintf("line %d: %s", f.Line, f.Message)
}

// required lists the fields each core event must have.
var required = map[string][]string{
	"ReplayHeader": {"replay_version", "producer", "created_at"},
	"SessionStart": {"t", "session_id", "policy_bundle_id"},
	"PlanStart":    {"t", "plan_hash", "step_count"},
	"ToolCall":     {"t", "id", "tool", "params", "params_hash", "step_id"},
	"ToolResult":   {"t", "id", "output_hash", "step_utility", "latency_ms"},
	"StepComplete": {"t", "step_id", "status", "iterations"},
	"Verification": {"t", "commands", "exit_codes", "verification_delta"},
	"SessionEnd":   {"t", "status", "confidence", "total_tool_calls", "total_latency_ms"},
}

var statuses = map[string][]string{
	"StepComplete": {"Success", "Failed", "Skipped", "MaxIterationsReached"},
	"SessionEnd":   {"Success", "Failed", "Cancelled", "Timeout"},
}

// Validate checks a REPLAY.jsonl stream: every line one canonical JSON
// object (keys sorted, no whitespace) with an `event` tag; the first line a
// ReplayHeader with replay_version 1; the required fields of each core
// event; `sha256:<64 hex>` hashes (params_hash recomputed over params);
// and each ToolResult after a ToolCall with its id. Unknown events are
// allowed, as the spec tells consumers to ignore them.
func Validate(r io.Reader) ([]Finding, error) {
	var out []Finding
	add := func(line int, path, msg string) { out = append(out, Finding{line, path, msg}) }
	lr := jsonl.NewReader(r)
	calls := map[string]bool{}
	first := true
	var canonBuf []byte
	for {
		line, n, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, jsonl.ErrLineTooLong) {
				add(n, "", err.Error())
				continue
			}
			return out, err
		}
		f, perr := model.ParseFields(line)
		if perr != nil || f == nil {
			add(n, "", "not a JSON object")
			first = false
			continue
		}
		canonBuf = canon.Append(canonBuf[:0], line)
		if !bytes.Equal(canonBuf, line) {
			add(n, "", "not canonical JSON (keys sorted, no whitespace)")
		}
		typ, ok := f.String("event")
		if !ok {
			add(n, "$.event", "missing event tag")
			first = false
			continue
		}
		if first {
			first = false
			if typ != "ReplayHeader" {
				add(n, "$.event", "the first line must be ReplayHeader, got "+typ)
			}
		} else if typ == "ReplayHeader" {
			add(n, "$.event", "ReplayHeader after the first line")
		}
		for _, k := range required[typ] {
			if _, ok := f.Get(k); !ok {
				add(n, "$."+k, typ+" without required field "+k)
			}
		}
		if allowed, ok := statuses[typ]; ok {
			st, _ := f.String("status")
			valid := false
			for _, a := range allowed {
				valid = valid || st == a
			}
			if !valid {
				add(n, "$.status", fmt.Sprintf("%s status %q is not one of %s", typ, st, strings.Join(allowed, ", ")))
			}
		}
		for _, k := range []string{"params_hash", "output_hash", "plan_hash"} {
			if h, ok := f.String(k); ok && !validHash(h) {
				add(n, "$."+k, "hash is not sha256:<64 lowercase hex>")
			}
		}
		switch typ {
		case "ReplayHeader":
			if v, _ := f.Get("replay_version"); string(v) != "1" {
				add(n, "$.replay_version", "replay_version must be 1")
			}
		case "ToolCall":
			id, _ := f.String("id")
			calls[id] = true
			if p, ok := f.Get("params"); ok {
				if h, _ := f.String("params_hash"); validHash(h) && h != canon.Hash(p) {
					add(n, "$.params_hash", "params_hash is not the sha256 of the canonical params")
				}
			}
		case "ToolResult":
			id, _ := f.String("id")
			if !calls[id] {
				add(n, "$.id", fmt.Sprintf("ToolResult %q does not follow a ToolCall with that id", id))
			}
		}
	}
	if first {
		add(0, "", "empty file: no ReplayHeader")
	}
	return out, nil
}

func validHash(h string) bool {
	hex, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
