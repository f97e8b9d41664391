package edittest

// SessionPieces are replacement pieces for Random that exercise what the
// session statistics depend on: calls waiting for their results and
// results completing them (the same id again, across chunks), outcomes,
// times and latencies, phases, usage with and without message ids
// (repeated, and growing as streaming snapshots do), @end, the header, and bytes that are not ASCII.
var SessionPieces = []string{
	"", "\n", "\r\n", "t!:Read id=a → [running]\n", "t!:Read id=b ts=2025-01-01T00:00:01Z → [running]\n",
	"o: id=a → [ok]\n", "o: id=b ts=2025-01-01T00:00:05Z → [error] boom\n", "o: id=a latency_ms=40 → [err: timeout]\n",
	"t:Bash id=a → [running]\n", "t:Read id=c latency_ms=7 → [ok]\n", "t:Read → [error]\n", "t!:Edit\n",
	"c:gh.issues id=b → [err: x]\n", "@phase explore\n", "@phase 探索\n", "@phase\n", "u: hi ts=2025-01-01T00:00:00Z\n",
	"a: so tokens_in=5 tokens_out=3\n", "a: so tokens_in=5 tokens_out=3 message_id=m1\n", "th: t tokens_out=3 message_id=m2\n",
	"a: grown tokens_in=5 tokens_out=40 tokens_cached=2 message_id=m1\n", "a: streamed tokens_in=5 tokens_out=30\n", "t!:R id=a tokens_out=1 message_id=m2 → [running]\n",
	"u: x tokens_in=5 tokens_out=3\n", "@end tokens_in=9\n", "@end tokens_out=3 message_id=m2\n", "@start ts=2025-01-01T00:00:00+02:00\n",
	"ts=2025-01-01T00:00:03Z ", "ts=2025-01-01T00:00:03.5+01:00 ", "ts=0000-01-01T00:00:00Z ", "ts=bad ",
	"id=", "a", "b", "→ [running] ", "→ [error] ", "---\n", "format: rlog/1\n", "x:Explore id=a → [done]\n", "é😀", "  cont\n",
}
