package sessions

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkTarget is what naming a call costs the first listing: a
// read's small input, and a write's with 8 KB of content.
func BenchmarkTarget(b *testing.B) {
	read := json.RawMessage(`{"file_path":"/home/dev/src/project/src/parser/file.go","offset":10,"limit":200}`)
	content, _ := json.Marshal(strings.Repeat("func main() {\n\tprintln(\"hello\")\n}\n", 240))
	write := json.RawMessage(`{"file_path":"/home/dev/src/project/src/parser/file.go","content":` + string(content) + `}`)
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			Target("Read", read)
		}
	})
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			Target("Write", write)
		}
	})
}
