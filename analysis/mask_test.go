package analysis

import (
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// TestMaskLine: what differs between two runs of the same behaviour is
// masked (ids, times, tokens, costs, signatures, the folder), and nothing
// else: text, tools, arguments, results and statuses stay.
func TestMaskLine(t *testing.T) {
	src := strings.Join([]string{
		"---",
		"format: rlog/1",
		"id: 7c1e4b2a-5d3f",
		"session_id: 7c1e4b2a-5d3f",
		"repo_sha: 4f2a9c1e7b",
		"model: claude-opus-5-5",
		"cwd: /tmp/run-a/work",
		"tokens_total_in: 35",
		"---",
		"@start id=7c1e4b2a ts=2025-12-22T22:20:00Z",
		"a: Reading /tmp/run-a/work/x.go now. ts=2025-12-22T22:20:01Z message_id=msg_01 tokens_in=3 tokens_out=12 tokens_cached=12673",
		`t!:Bash id=Mg7Nh8Pp cmd="cargo test 2>&1" → [error] exit 101 latency_ms=5210 ts=2025-12-22T22:20:02Z`,
		"th: Think. sig=EvUDCkYIChgCKkCIgz",
		"@end tokens_in=3 cost_usd=0.0123 duration_ms=4000",
	}, "\n")
	want := strings.Join([]string{
		"---",
		"format: rlog/1",
		"id: …",
		"session_id: …",
		"repo_sha: 4f2a9c1e7b",
		"model: claude-opus-5-5",
		"cwd: {cwd}",
		"tokens_total_in: …",
		"---",
		"@start id=… ts=…",
		"a: Reading {cwd}/x.go now. ts=… message_id=… tokens_in=… tokens_out=… tokens_cached=…",
		`t!:Bash id=… cmd="cargo test 2>&1" → [error] exit 101 latency_ms=… ts=…`,
		"th: Think. sig=…",
		"@end tokens_in=… cost_usd=… duration_ms=…",
	}, "\n")
	tree := grammar.Parse([]byte(src))
	cwd, _ := tree.Header().Get("cwd")
	var got []string
	for l := range tree.Lines() {
		got = append(got, string(MaskLine(nil, tree, l.Num, cwd)))
	}
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("masked:\n%s\nwant:\n%s", g, want)
	}
}
