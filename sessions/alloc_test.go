package sessions

import (
	"path/filepath"
	"runtime"
	"testing"

	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// TestReadSmallAllocatesLittle: a small session's view is read into a
// buffer of the stream's first size, not one of a whole window (1 MB):
// a listing of thousands of small sessions, or of the rests after their
// cuts, allocated a megabyte each. It measures memory, not time.
func TestReadSmallAllocatesLittle(t *testing.T) {
	small := agentstore.Claude(t, filepath.Join(t.TempDir(), "small"), 1, 40<<10)[0]
	var before, after runtime.MemStats
	read := func() {
		if _, err := read(small, false); err != nil {
			t.Fatal(err)
		}
	}
	read() // the first reading sets up what every reading shares
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a %d KB transcript allocated %d KB", 40, got>>10)
	// About 1 MB for the reading's own buffers (its reader's, its writer's,
	// its stream's first) and its detections; a window's buffer of 1 MB
	// more exceeds it.
	if got > 3<<19 {
		t.Errorf("reading a 40 KB transcript allocated %d KB: its view's buffer is a window's, not its size", got>>10)
	}
}
