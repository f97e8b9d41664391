package analysis

import (
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// BenchmarkColdParseAndCheck is opening a file: parse it and run every rule.
func BenchmarkColdParseAndCheck(b *testing.B) {
	for _, size := range benchdata.Sizes() {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			src := benchdata.Session(b, size)
			floor := benchdata.Floor(src)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				Check(grammar.Parse(src), Config{})
			}
			b.StopTimer()
			benchdata.ReportVsFloor(b, floor)
		})
	}
}

// BenchmarkParse and BenchmarkCheck split the cold path in two.
func BenchmarkParse(b *testing.B) {
	src := benchdata.Session(b, 10<<20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for range b.N {
		grammar.Parse(src)
	}
}

func BenchmarkCheck(b *testing.B) {
	src := benchdata.Session(b, 10<<20)
	t := grammar.Parse(src)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Check(t, Config{})
	}
}
