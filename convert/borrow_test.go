package convert_test

import (
	"bytes"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// cloneSink borrows events and keeps a copy (Clone) of each: what a
// reader that reuses its events gives, as a Collector keeps it.
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

// sessionFiles are the repository's files under a testdata that a reader
// reads (a .rlog, or another format by its content), at most 4 MB each.
func sessionFiles(t *testing.T) map[string]convert.Format {
	t.Helper()
	files := map[string]convert.Format{}
	filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "fuzz" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(p, "testdata") {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 4<<20 {
			return nil
		}
		if strings.EqualFold(filepath.Ext(p), ".rlog") {
			files[p] = convert.Rlog // ReadableFile leaves rlog out: a .rlog is rlog
		} else if f, ok := convert.ReadableFile(p); ok {
			files[p] = f
		}
		return nil
	})
	if len(files) < 150 {
		t.Fatalf("only %d session files found", len(files))
	}
	return files
}

// generatedLogs are generated rlog sessions: timed, streamed (message ids
// on each response), with findings.
func generatedLogs(t *testing.T) [][]byte {
	t.Helper()
	var logs [][]byte
	for seed, opts := range []gen.Options{
		{Bytes: 256 << 10, FindingRate: 0.05, Timed: true},
		{Bytes: 128 << 10, FindingRate: 0.02, Streamed: true},
		{Bytes: 64 << 10},
	} {
		opts.Seed = uint64(seed + 1)
		var b bytes.Buffer
		if err := gen.Write(&b, opts); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, b.Bytes())
	}
	return logs
}

// TestBorrowedEventsEqualCollected: every reader, reading every session
// file of the repository (and generated rlog sessions) into a sink that
// borrows events and clones each, gives the events, header, report and
// error a Collector gets, to which readers give events of their own.
func TestBorrowedEventsEqualCollected(t *testing.T) {
	read := func(name string, from convert.Format, open func() io.Reader, path string) {
		var col model.Collector
		var cl cloneSink
		repC, repB := &model.Report{}, &model.Report{}
		var errC, errB error
		if path != "" {
			errC = convert.ReadFile(path, from, &col, repC)
			errB = convert.ReadFile(path, from, &cl, repB)
		} else {
			fi, _ := convert.Lookup(from)
			errC = fi.Read(open(), &col, repC)
			errB = fi.Read(open(), &cl, repB)
		}
		if (errC == nil) != (errB == nil) || errC != nil && errC.Error() != errB.Error() {
			t.Fatalf("%s (%s): error %v, borrowed %v", name, from, errC, errB)
		}
		if len(col.Session.Events) != len(cl.s.Events) {
			t.Fatalf("%s (%s): %d events, borrowed %d", name, from, len(col.Session.Events), len(cl.s.Events))
		}
		for i := range col.Session.Events {
			if !reflect.DeepEqual(col.Session.Events[i], cl.s.Events[i]) {
				t.Fatalf("%s (%s): event %d\n got %+v\nwant %+v", name, from, i, cl.s.Events[i], col.Session.Events[i])
			}
		}
		if !reflect.DeepEqual(col.Session.Header, cl.s.Header) {
			t.Fatalf("%s (%s): header\n got %+v\nwant %+v", name, from, cl.s.Header, col.Session.Header)
		}
		if !reflect.DeepEqual(repC, repB) {
			t.Fatalf("%s (%s): report\n got %+v\nwant %+v", name, from, repB, repC)
		}
	}
	for p, from := range sessionFiles(t) {
		read(p, from, nil, p)
	}
	for _, log := range generatedLogs(t) {
		read("generated", convert.Rlog, func() io.Reader { return bytes.NewReader(log) }, "")
	}
}

// scribbled gives its sink a copy of each event and, once the call
// returns, scribbles over the copy and everything behind it (poison): a
// sink that said it borrows events and kept any of it writes something
// else than with events of its own.
type scribbled struct{ model.Sink }

func (s scribbled) BorrowsEvents() bool { return model.BorrowsEvents(s.Sink) }

func (s scribbled) Event(h *model.Header, e *model.Event) error {
	c := e.Clone()
	err := s.Sink.Event(h, c)
	poison(reflect.ValueOf(c).Elem())
	return err
}

// poison rewrites v in place: strings by others of the same length (the
// kept strings stay as they were, as the contract lets them), bytes
// overwritten, numbers changed, booleans flipped, and so through pointers
// and slices.
func poison(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.Repeat("\x00", v.Len()))
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 7919)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 13)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(v.Float() + 0.5)
	case reflect.Pointer:
		if !v.IsNil() {
			poison(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			poison(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).CanSet() {
				poison(v.Field(i))
			}
		}
	}
}

// borrowingWriters are the formats whose writers borrow events; the
// others keep some events until later ones come (a step, a turn, a run of
// lines) and are given events of their own.
var borrowingWriters = map[convert.Format]bool{convert.Trajectory: true, convert.Replay: true}

// TestBorrowingWritersKeepNothing: every writer that says it borrows
// events, bare and behind the lookahead the conversions put before it,
// writes the same bytes and report when the events it is given are
// scribbled over after each call as when they are its own, from every
// rlog file of the repository and generated sessions.
func TestBorrowingWritersKeepNothing(t *testing.T) {
	var sessions []*model.Session
	for p, from := range sessionFiles(t) {
		if from != convert.Rlog {
			continue
		}
		var col model.Collector
		if err := convert.ReadFile(p, from, &col, &model.Report{}); err != nil {
			continue
		}
		sessions = append(sessions, &col.Session)
	}
	for _, log := range generatedLogs(t) {
		s, _, err := convert.Read(bytes.NewReader(log), convert.Rlog)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	for _, fi := range convert.Formats() {
		if !fi.CanWrite() {
			continue
		}
		probe, _ := fi.NewWriter(io.Discard, &model.Report{}, model.Options{})
		if got := model.BorrowsEvents(probe); got != borrowingWriters[fi.Name] {
			t.Errorf("%s: writer borrows events %v, want %v", fi.Name, got, borrowingWriters[fi.Name])
		}
		for _, lookahead := range []bool{false, true} {
			write := func(s *model.Session, scribble bool) ([]byte, *model.Report) {
				var b bytes.Buffer
				rep := &model.Report{}
				sink, err := fi.NewWriter(&b, rep, model.Options{Now: func() time.Time { return time.Unix(1700000000, 0) }})
				if err != nil {
					t.Fatal(err)
				}
				if lookahead {
					sink = &model.Lookahead{Sink: sink, MaxEvents: 256, MaxBytes: 4 << 20}
				}
				if scribble {
					if !model.BorrowsEvents(sink) {
						return nil, nil
					}
					sink = scribbled{sink}
				}
				for i := range s.Events {
					if err := sink.Event(&s.Header, s.Events[i].Clone()); err != nil {
						b.WriteString("error: " + err.Error())
						return b.Bytes(), rep
					}
				}
				if err := sink.End(&s.Header); err != nil {
					b.WriteString("error: " + err.Error())
				}
				return b.Bytes(), rep
			}
			for n, s := range sessions {
				got, gotRep := write(s, true)
				if got == nil {
					continue
				}
				want, wantRep := write(s, false)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s (lookahead %v) session %d: scribbled events write other bytes\n got %.300q\nwant %.300q", fi.Name, lookahead, n, got, want)
				}
				if !reflect.DeepEqual(gotRep, wantRep) {
					t.Fatalf("%s (lookahead %v) session %d: scribbled events give another report", fi.Name, lookahead, n)
				}
			}
		}
	}
}

// TestTeeBorrowsWhenBothDo: a tee borrows events only when both its
// sinks do, and the lookahead when its sink does.
func TestTeeBorrowsWhenBothDo(t *testing.T) {
	b, k := &cloneSink{}, &model.Collector{}
	for _, c := range []struct {
		sink model.Sink
		want bool
	}{
		{model.Tee(b, b), true},
		{model.Tee(b, k), false},
		{model.Tee(k, b), false},
		{&model.Lookahead{Sink: b}, true},
		{&model.Lookahead{Sink: k}, false},
	} {
		if got := model.BorrowsEvents(c.sink); got != c.want {
			t.Errorf("%T over %v: borrows %v, want %v", c.sink, c.sink, got, c.want)
		}
	}
}
