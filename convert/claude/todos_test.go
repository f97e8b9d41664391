package claude

import (
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// FuzzWriteTodos holds writeTodos to what it stands for, encoding/json's
// encoding of todoJSON's maps (Any), for lists of none to two todos.
// writeTodos writes the writer's constant names, which the first writer
// makes (makeConstants); the target calls it without one, so it makes
// them first, as NewWriter does (run alone, as the fuzzer runs it, they
// are not made otherwise).
func FuzzWriteTodos(f *testing.F) {
	constantsMade.Do(makeConstants)
	f.Add("index module parser", "completed", "", "", "build", "in_progress", "t2", "high", uint8(2))
	f.Add("a\x00b", "pending", "1", "", "\u2028 \b\f ü \xff", "x", "", "low", uint8(2))
	f.Add("", "", "", "", "", "", "", "", uint8(0))
	f.Add("\"q\" \\ <&>", "done", "id", "p", "", "", "", "", uint8(1))
	f.Fuzz(func(t *testing.T, c1, s1, id1, p1, c2, s2, id2, p2 string, n uint8) {
		ts := []model.Todo{{ID: id1, Content: c1, Status: s1, Priority: p1}, {ID: id2, Content: c2, Status: s2, Priority: p2}}[:n%3]
		var got, want jsonw.Buffer
		g, w := jsonw.Begin(&got), jsonw.Begin(&want)
		g.Str("k", "v")
		w.Str("k", "v")
		writeTodos(g, &got, ts)
		w.Any("todos", todoJSON(ts))
		g.End()
		w.End()
		if got.String() != want.String() {
			t.Fatalf("%+v\n got %s\nwant %s", ts, got.Bytes(), want.Bytes())
		}
	})
}
