package sessions

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// TestReadSmallAllocatesLittle: a small session's view is read into a
// buffer of the stream's first size, not one of a whole window (1 MB),
// and the file's head is looked at once for its format, its sub-agents
// and its parent (64 KB and the head's scan each look): a listing of
// thousands of small sessions, or of the rests after their cuts, paid
// both for every one. It measures memory, not time.
func TestReadSmallAllocatesLittle(t *testing.T) {
	// The writer's shape: a CLI-shaped session is never under about
	// 150 KB (its run's own records).
	small := agentstore.Generate(t, filepath.Join(t.TempDir(), "small"), 1, 40<<10, agentstore.Writer)[0]
	var before, after runtime.MemStats
	read := func() {
		if _, err := read(convert.DetectedFile(small), false); err != nil {
			t.Fatal(err)
		}
	}
	read() // the first reading sets up what every reading shares
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a %d KB transcript allocated %d KB", 40, got>>10)
	// About 700 KB for the reading's own buffers (its reader's, its
	// writer's, its stream's first) and its one look at the head (about
	// 130 KB); a window's buffer more (1.9 MB), or the two looks more of
	// its sub-agents and its parent (960 KB), exceed 800 KB.
	if got > 800<<10 {
		t.Errorf("reading a 40 KB transcript allocated %d KB: its view's buffer is a window's, not its size", got>>10)
	}
}
