package rlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// TestCompanionHeap: once the server has found, indexed and joined the
// 100 MB companion of an open log, its heap has grown by at most a tenth
// of the companion's size (-short or -race: 10 MB).
func TestCompanionHeap(t *testing.T) {
	size := int64(100 << 20)
	if raceEnabled || testing.Short() {
		size = 10 << 20
	}
	dir := t.TempDir()
	logPath, record := filepath.Join(dir, "s.rlog"), filepath.Join(dir, "s.jsonl")
	lf, _ := os.Create(logPath)
	rf, _ := os.Create(record + ".hidden")
	if err := gen.WritePair(lf, rf, size, 5); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	rf.Close()
	text, _ := os.ReadFile(logPath)

	c, published := startLeanPublishing(t, dir)
	uri := fileURI(logPath)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "rlog", "version": 1, "text": string(text)}})
	select {
	case <-published:
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		t.Fatal("no diagnostics")
	}
	// The line of the first result.
	line := strings.Count(string(text[:strings.Index(string(text), "\no: ")+1]), "\n")
	hover := func(id string) string {
		return string(c.call(id, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": 30}}))
	}
	if h := hover("1"); strings.Contains(h, "in full") {
		t.Fatalf("a companion before there is one: %s", h)
	}
	before := heapAfterGC()

	if err := os.Rename(record+".hidden", record); err != nil {
		t.Fatal(err)
	}
	time.Sleep(relocateAfter + 100*time.Millisecond) // a log without one is looked at again after this
	if h := hover("2"); !strings.Contains(h, "in full") {
		t.Fatalf("no full record: %.300s", h)
	}
	grew := int64(heapAfterGC()) - int64(before)
	t.Logf("%d MB companion of a %d MB log: the server's heap grew by %.1f MB (%.1f%%)", size>>20, len(text)>>20, float64(grew)/(1<<20), 100*float64(grew)/float64(size))
	if grew > size/10 {
		t.Errorf("the server's heap grew by %d bytes for a %d-byte companion", grew, size)
	}
}
