package rlogfmt

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// cloneSink borrows events and keeps a copy (Clone) of each.
type cloneSink struct{ s model.Session }

func (c *cloneSink) BorrowsEvents() bool { return true }

func (c *cloneSink) Event(_ *model.Header, e *model.Event) error {
	c.s.Events = append(c.s.Events, *e.Clone())
	return nil
}

func (c *cloneSink) End(h *model.Header) error {
	c.s.Header = *h
	return nil
}

// readOwnAndBorrowed reads in into a Collector (events of their own) and into a
// sink that borrows them (the reader's slots, rewritten), and fails when
// the events, header, report or error differ.
func readOwnAndBorrowed(t *testing.T, name string, in []byte) {
	t.Helper()
	var col model.Collector
	var cl cloneSink
	repC, repB := &model.Report{}, &model.Report{}
	errC := Read(bytes.NewReader(in), &col, repC)
	errB := Read(bytes.NewReader(in), &cl, repB)
	if (errC == nil) != (errB == nil) || errC != nil && errC.Error() != errB.Error() {
		t.Fatalf("%s: error %v, borrowed %v", name, errC, errB)
	}
	if len(col.Session.Events) != len(cl.s.Events) {
		t.Fatalf("%s: %d events, borrowed %d", name, len(col.Session.Events), len(cl.s.Events))
	}
	for i := range col.Session.Events {
		if !reflect.DeepEqual(col.Session.Events[i], cl.s.Events[i]) {
			t.Fatalf("%s: event %d\n got %+v\nwant %+v", name, i, cl.s.Events[i], col.Session.Events[i])
		}
	}
	if !reflect.DeepEqual(col.Session.Header, cl.s.Header) {
		t.Fatalf("%s: header\n got %+v\nwant %+v", name, cl.s.Header, col.Session.Header)
	}
	if !reflect.DeepEqual(repC, repB) {
		t.Fatalf("%s: report\n got %+v\nwant %+v", name, repB, repC)
	}
}

// TestBorrowedEqualsOwn: reusing events gives a borrowing sink what a
// Collector gets, on the repository's rlog files and generated sessions.
func TestBorrowedEqualsOwn(t *testing.T) {
	forEachLog(t, []gen.Options{
		{Bytes: 256 << 10, FindingRate: 0.05, Timed: true},
		{Bytes: 128 << 10, FindingRate: 0.02, Streamed: true},
	}, readOwnAndBorrowed)
}

// TestBorrowedEdges: the lines where a reused event could keep something
// of the one before: usage on continuation lines (taken, and reported
// below a line with usage of its own), passthrough lines with usage,
// inline calls and results, extras, sub-agents, compactions, todos.
func TestBorrowedEdges(t *testing.T) {
	const head = "---\nformat: rlog/1\nid: s\n---\n"
	for _, body := range []string{
		"a: one\n  two tokens_in=5 tokens_out=3\n  three tokens_in=7 tokens_out=1\na: next tokens_in=5 tokens_out=2\n",
		"a: one tokens_in=5 tokens_out=3\n  two tokens_in=6 tokens_out=1\nu: hi\n",
		"s: passthrough tokens_in=9 tokens_out=2\na: after tokens_in=9 tokens_out=4\nq: other tokens_in=1\n",
		"t:Read id=c1 file_path=x → [ok] 3 lines span=1 latency=2\nt!:Bash cmd=ls\no: → [err: no]\nt:Edit x\n",
		"@subagent:Explore tid=a1 → [done] found it\n@compact trigger=auto pre_tokens=900\n@end tokens_in=3 cost_usd=0.5\n",
		"todo: [x] one [ ] two\n# status: compacting\n# a comment level=3\nu: again ts=2025-01-01T00:00:00Z\n",
		"a: text \xff\xfe bad\n  cont \xff\na: 😀 emoji\r\nu: crlf\r\n",
	} {
		readOwnAndBorrowed(t, body, []byte(head+body))
		readOwnAndBorrowed(t, body, []byte(body)) // no header: parsed whole
	}
}

// FuzzReadBorrowed holds the reader reusing its events to the reader
// making new ones, on any input.
func FuzzReadBorrowed(f *testing.F) {
	f.Add([]byte("---\nformat: rlog/1\nid: s\n---\nu: hi\nt!:Read id=a path=\"x → y\" → [running]\no: id=a → [ok] tokens_in=3\n"))
	f.Add([]byte("---\nformat: rlog/1\n---\na: x tokens_in=1\n  y tokens_in=2 tokens_out=1\ns: z tokens_in=1\nt:R → [ok] span=2\n"))
	f.Fuzz(func(t *testing.T, in []byte) { readOwnAndBorrowed(t, "fuzz", in) })
}

// fill sets every field v reaches to something not zero: strings, numbers,
// booleans, a new value behind each nil pointer, two elements in each
// empty slice.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("filled")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(5)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(5)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(5)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(v.Elem())
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
				fill(v.Field(i))
			}
		}
	}
}

// TestSlotResetLeavesNothing: an event handed out again, and each value
// behind it (usage, call, result, sub-agent, compaction, Extra's array),
// has nothing of the event the slot held before, whose every field was
// set.
func TestSlotResetLeavesNothing(t *testing.T) {
	rd := &reader{borrow: true, sink: &cloneSink{}, rep: &model.Report{}, h: &model.Header{}}
	for i := 0; i < 9; i++ {
		ev := rd.event()
		if len(ev.Extra) != 0 || !reflect.DeepEqual(*ev, model.Event{Extra: ev.Extra}) {
			t.Fatalf("event %d handed out as %+v", i, *ev)
		}
		for j, f := range ev.Extra[:cap(ev.Extra)] {
			if !reflect.DeepEqual(f, model.Field{}) {
				t.Fatalf("event %d: Extra's array keeps %d: %+v", i, j, f)
			}
		}
		values := []any{rd.newUsage(), rd.newCall(), rd.newResult(), rd.newSubagent(), rd.newCompaction()}
		for _, v := range values {
			if !reflect.ValueOf(v).Elem().IsZero() {
				t.Fatalf("event %d: %T handed out as %+v", i, v, v)
			}
		}
		ev.Usage, ev.Call, ev.Result = values[0].(*model.Usage), values[1].(*model.ToolCall), values[2].(*model.ToolResult)
		ev.Subagent, ev.Compaction = values[3].(*model.Subagent), values[4].(*model.Compaction)
		for k := 0; k < i; k++ {
			ev.Extra.SetString(string(rune('a'+k)), "x") // grows the slot's array
		}
		fill(reflect.ValueOf(ev).Elem())
		if err := rd.emit(ev); err != nil {
			t.Fatal(err)
		}
	}
}
