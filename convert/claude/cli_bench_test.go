package claude_test

import (
	"io"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/claude"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	"github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// BenchmarkReadCLI measures the reader alone (events to a sink that keeps
// nothing) on generated transcripts shaped as the Claude Code CLI writes
// them (store.CLITranscript: what users' stores hold, bookkeeping records
// and toolUseResult included), in MB/s of input and x-floor against
// splitting the same bytes into lines. #28's bar is 300 MB/s on one core.
// The 1MB case is the one to count instructions on under valgrind.
func BenchmarkReadCLI(b *testing.B) {
	for _, size := range []int64{1 << 20, 10 << 20} {
		b.Run(benchdata.Name(size), func(b *testing.B) {
			in := store.CLITranscript(size, 1)
			benchdata.MeasureRead(b, in, func(r io.Reader) error { return claude.Read(r, discard{}, &model.Report{}) })
		})
	}
}
