package sessions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// scribble rewrites v in place: strings by others of the same length,
// numbers changed, booleans flipped, bytes overwritten, through every
// pointer and slice (what a reader that reuses its events may do once
// Event returns).
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.Repeat("\x00", v.Len()))
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 7919)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 13)
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			scribble(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
				scribble(v.Field(i))
			}
		}
	}
}

// TestObserverKeepsNothingOfEvents: the index's observer, which says it
// borrows events, sees the same session (prompts, calls and their
// targets, phases, title) when each event is scribbled over after the
// call as when the events are its own, over the repository's rlog logs
// and the Claude Code transcripts the index reads.
func TestObserverKeepsNothingOfEvents(t *testing.T) {
	if !model.BorrowsEvents(newObserver()) {
		t.Fatal("the observer does not say it borrows events")
	}
	var files []string
	for _, glob := range []string{"../testdata/*/*.rlog", "../testdata/*.rlog", "../convert/testdata/claude-code/*/*", "../convert/testdata/fixtures/golden/*", "../testdata/claude/*.jsonl", "../testdata/agents/*/*/*"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	n := 0
	for _, p := range files {
		from := convert.Rlog
		if !strings.HasSuffix(p, ".rlog") {
			f, ok := convert.ReadableFile(p)
			if !ok {
				continue
			}
			from = f
		}
		if info, err := os.Stat(p); err != nil || info.Size() > 4<<20 {
			continue
		}
		var col model.Collector
		if err := convert.ReadFile(p, from, &col, &model.Report{}); err != nil {
			continue
		}
		s := &col.Session
		own, scribbled := newObserver(), newObserver()
		for i := range s.Events {
			own.Event(&s.Header, s.Events[i].Clone())
			c := s.Events[i].Clone()
			scribbled.Event(&s.Header, c)
			scribble(reflect.ValueOf(c).Elem())
		}
		own.End(&s.Header)
		scribbled.End(&s.Header)
		if !reflect.DeepEqual(own, scribbled) {
			t.Fatalf("%s: the observer saw\n%+v\nwith scribbled events, with its own\n%+v", p, scribbled, own)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d sessions read", n)
	}
}
