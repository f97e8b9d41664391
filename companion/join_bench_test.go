package companion

import (
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkJoin joins the log of a 100 MB companion to it: the server
// does it again after each edit of the log (or growth of the companion).
func BenchmarkJoin(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	writeCompanion(b, path, 100<<20)
	tr, s := openPair(b, strings.TrimSuffix(path, ".jsonl")+".rlog")
	b.SetBytes(int64(tr.Len()))
	b.ResetTimer()
	for range b.N {
		if p := Join(tr, s); p.Joined() == 0 {
			b.Fatal("nothing joined")
		}
	}
}
