package companion

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// BenchmarkJoin joins the log of a 100 MB companion to it: the server
// does it again after each edit of the log (or growth of the companion).
func BenchmarkJoin(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	writeCompanion(b, path, 100<<20)
	src, err := os.ReadFile(strings.TrimSuffix(path, ".jsonl") + ".rlog")
	if err != nil {
		b.Fatal(err)
	}
	tr := grammar.Parse(src)
	files, _ := Locate(strings.TrimSuffix(path, ".jsonl") + ".rlog")
	s, err := Open(files).Current()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for range b.N {
		if p := Join(tr, s); p.Joined() == 0 {
			b.Fatal("nothing joined")
		}
	}
}
