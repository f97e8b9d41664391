package prophet

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/convert/rlogfmt"
	"github.com/rlog-ls/rlog-ls/internal/benchdata"
)

// writeBoth writes the session read from doc (rlog, or mini-prophet when
// own) with the blocks the writer stores and the arguments it copies
// (storeBlocks) and through jsonw's calls: the two documents and
// reports. ok is false when doc does not read.
func writeBoth(t testing.TB, doc []byte, own bool) (stored, called []byte, storedRep, calledRep string, ok bool) {
	var c model.Collector
	var rep model.Report
	var err error
	if own {
		err = Read(bytes.NewReader(doc), &c, &rep)
	} else {
		err = rlogfmt.Read(bytes.NewReader(doc), &c, &rep)
	}
	if err != nil {
		return nil, nil, "", "", false
	}
	write := func(store bool) ([]byte, string) {
		storeBlocks = store
		defer func() { storeBlocks = true }()
		var out bytes.Buffer
		var r model.Report
		if err := Write(&out, &c.Session, &r, model.Options{}); err != nil {
			t.Fatal(err)
		}
		return out.Bytes(), r.Text()
	}
	stored, storedRep = write(true)
	called, calledRep = write(false)
	return stored, called, storedRep, calledRep, true
}

// checkBlocks is FuzzWriteBlocks' test.
func checkBlocks(t *testing.T, doc []byte, own bool) {
	t.Helper()
	stored, called, storedRep, calledRep, ok := writeBoth(t, doc, own)
	if !ok {
		return
	}
	if !bytes.Equal(stored, called) {
		i := 0
		for i < min(len(stored), len(called)) && stored[i] == called[i] {
			i++
		}
		t.Fatalf("stored blocks differ from jsonw's calls at byte %d:\n%s\nwant\n%s", i, stored[max(i-200, 0):min(i+200, len(stored))], called[max(i-200, 0):min(i+200, len(called))])
	}
	if storedRep != calledRep {
		t.Fatalf("reports differ:\n%s\nwant\n%s", storedRep, calledRep)
	}
}

// FuzzWriteBlocks holds the writer's stored blocks (a message's head
// and its ends after the rests, heads and restsTail) and the actions'
// arguments copied from the tool calls' to what jsonw's calls write of
// them (storeBlocks false), for a session read from any rlog document
// or mini-prophet trajectory (its first byte 'p'): the same document and
// report.
func FuzzWriteBlocks(f *testing.F) {
	for _, name := range []string{"../testdata/fixtures/trajectory.prophet.json"} {
		doc, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{'p'}, doc...))
	}
	f.Add([]byte("r@start id=x ts=2025-01-01T00:00:00Z\n> hi\n< a text\n$ run {\"a\":\"b\\\"c\"}\n= ok\n$ second {\"q\":1}\n= done\n@end ok\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if len(doc) > 0 {
			checkBlocks(t, doc[1:], doc[0] == 'p')
		}
	})
}

// Every rlog log and mini-prophet trajectory under the repository's
// testdata folders, and a generated session of 64 KB, written both ways
// (FuzzWriteBlocks' test). (The generated session is not one of the fuzz
// target's seeds: with it, a fuzzing run made 5 executions in 45 s.)
func TestWriteBlocksEveryFixture(t *testing.T) {
	checkBlocks(t, benchdata.TimedSession(t, 64<<10), false)
	for _, dir := range []string{"../../testdata", "../testdata"} {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(path, "/fuzz/") {
				return nil
			}
			own := filepath.Ext(path) == ".json" && strings.Contains(path, "prophet")
			if filepath.Ext(path) != ".rlog" && !own {
				return nil
			}
			doc, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(path, func(t *testing.T) { checkBlocks(t, doc, own) })
			return nil
		})
	}
}
