package tail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// deadline bounds every wait; events normally arrive within milliseconds.
// It guards against a hang, and no test asserts on speed.
const deadline = 10 * time.Second

type probe struct {
	t      *testing.T
	events <-chan Event
	seen   []string
}

// start follows paths in the mode and returns a probe on its events.
func start(t *testing.T, poll bool, paths ...string) *probe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	fl, err := Follow(ctx, paths, Options{Poll: poll, Interval: 20 * time.Millisecond, Match: func(n string) bool { return strings.HasSuffix(n, ".rlog") }})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]string{false: "notifications", true: "polling (asked for)"}[poll]; fl.Mode != want {
		t.Fatalf("mode %q, want %q", fl.Mode, want)
	}
	t.Cleanup(func() {
		cancel()
		for range fl.Events { // closed once the follower has stopped
		}
	})
	return &probe{t: t, events: fl.Events}
}

func describe(ev Event) string {
	s := filepath.Base(ev.Path) + " " + ev.Kind.String()
	if ev.AtStart {
		s += " at start"
	}
	if ev.Kind == Appended {
		s += " " + fmt.Sprintf("%q", ev.Data)
	}
	switch {
	case ev.CaughtUp:
		s += " (backlog, caught up)"
	case ev.Backlog:
		s += " (backlog)"
	}
	if ev.Err != nil {
		s += " " + ev.Err.Error()
	}
	return s
}

// expect waits for the next events to be want, in order, skipping none.
func (p *probe) expect(want ...string) {
	p.t.Helper()
	for _, w := range want {
		select {
		case ev := <-p.events:
			got := describe(ev)
			p.seen = append(p.seen, got)
			// Whether a new file's first lines were there when it was
			// opened depends on when its creation was noticed.
			if base, ok := strings.CutSuffix(w, " (backlog?)"); ok && (got == base || got == base+" (backlog)" || got == base+" (backlog, caught up)") {
				continue
			}
			if got != w {
				p.t.Fatalf("event %q, want %q (events so far: %q)", got, w, p.seen)
			}
		case <-time.After(deadline):
			p.t.Fatalf("no event within %v, want %q (events so far: %q)", deadline, w, p.seen)
		}
	}
}

// quiet checks that nothing more arrives for a moment.
func (p *probe) quiet() {
	p.t.Helper()
	select {
	case ev := <-p.events:
		p.t.Fatalf("unexpected event %q", describe(ev))
	case <-time.After(150 * time.Millisecond):
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func modes(t *testing.T, test func(t *testing.T, poll bool)) {
	for _, poll := range []bool{false, true} {
		t.Run(map[bool]string{false: "notifications", true: "polling"}[poll], func(t *testing.T) { test(t, poll) })
	}
}

func TestAppendedLines(t *testing.T) {
	modes(t, func(t *testing.T, poll bool) {
		path := filepath.Join(t.TempDir(), "s.rlog")
		write(t, path, "u: one\nu: tw")
		p := start(t, poll, path)
		p.expect("s.rlog opened at start", `s.rlog appended "u: one\n" (backlog, caught up)`)
		// A line is delivered once it is complete.
		appendTo(t, path, "o")
		p.quiet()
		appendTo(t, path, "\nu: three\nu: fo")
		p.expect(`s.rlog appended "u: two\nu: three\n"`)
		appendTo(t, path, "ur 😀\n")
		p.expect(`s.rlog appended "u: four 😀\n"`)
	})
}

func TestTruncatedAndRewritten(t *testing.T) {
	modes(t, func(t *testing.T, poll bool) {
		path := filepath.Join(t.TempDir(), "s.rlog")
		write(t, path, "u: one\nu: two\n")
		p := start(t, poll, path)
		p.expect("s.rlog opened at start", `s.rlog appended "u: one\nu: two\n" (backlog, caught up)`)
		// Cut short, then written again.
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		p.expect("s.rlog truncated")
		appendTo(t, path, "u: new\n")
		p.expect(`s.rlog appended "u: new\n" (backlog?)`) // backlog if written before the truncation was seen
		// Rewritten in place with more than before: the first bytes differ.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("a: other text\na: more\n"), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		p.expect("s.rlog truncated", `s.rlog appended "a: other text\na: more\n" (backlog, caught up)`)
	})
}

func TestRotatedAndRemoved(t *testing.T) {
	modes(t, func(t *testing.T, poll bool) {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.rlog")
		write(t, path, "u: old\n")
		p := start(t, poll, path)
		p.expect("s.rlog opened at start", `s.rlog appended "u: old\n" (backlog, caught up)`)
		// logrotate's way: rename, then a new file at the name. The old
		// file's last line, written after the rename, is not lost.
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		appendTo(t, path+".1", "u: last old line\n")
		write(t, path, "u: new file\n")
		p.expect(`s.rlog appended "u: last old line\n"`, "s.rlog rotated", `s.rlog appended "u: new file\n" (backlog?)`)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		p.expect("s.rlog removed")
		// A file named explicitly is followed again when it comes back.
		write(t, path, "u: back\n")
		p.expect("s.rlog opened", `s.rlog appended "u: back\n" (backlog?)`)
	})
}

func TestFolders(t *testing.T) {
	modes(t, func(t *testing.T, poll bool) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "a.rlog"), "u: a\n")
		write(t, filepath.Join(dir, "notes.txt"), "not followed\n")
		p := start(t, poll, dir)
		p.expect("a.rlog opened at start", `a.rlog appended "u: a\n" (backlog, caught up)`)
		write(t, filepath.Join(dir, "b.rlog"), "u: b\n")
		p.expect("b.rlog opened", `b.rlog appended "u: b\n" (backlog?)`)
		// A new folder, with a log in it.
		sub := filepath.Join(dir, "2026", "11")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // let the new folders be watched, as a writer would not
		write(t, filepath.Join(sub, "c.rlog"), "u: c\n")
		p.expect("c.rlog opened", `c.rlog appended "u: c\n" (backlog?)`)
		appendTo(t, filepath.Join(sub, "c.rlog"), "u: c2\n")
		p.expect(`c.rlog appended "u: c2\n"`)
		write(t, filepath.Join(dir, "other.txt"), "x\n")
		p.quiet()
	})
}

func TestAwaitedFile(t *testing.T) {
	modes(t, func(t *testing.T, poll bool) {
		path := filepath.Join(t.TempDir(), "later.rlog")
		p := start(t, poll, path)
		p.quiet()
		write(t, path, "u: here\n")
		p.expect("later.rlog opened", `later.rlog appended "u: here\n" (backlog?)`)
	})
	if _, err := Follow(context.Background(), []string{"/no/such/folder/x.rlog"}, Options{}); err == nil ||
		err.Error() != "/no/such/folder/x.rlog: no such file or folder" {
		t.Fatalf("a file in a missing folder: %v", err)
	}
}

// A long file arrives in pieces of at most ReadSize, each of whole lines.
func TestLongFileInPieces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.rlog")
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "u: line %03d\n", i)
	}
	write(t, path, b.String())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fl, err := Follow(ctx, []string{path}, Options{ReadSize: 100, Poll: true})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for got.Len() < b.Len() {
		select {
		case ev := <-fl.Events:
			if ev.Kind == Appended {
				if len(ev.Data) > 100+12 || ev.Data[len(ev.Data)-1] != '\n' || !ev.Backlog {
					t.Fatalf("a piece of %d bytes (backlog %v): %q", len(ev.Data), ev.Backlog, ev.Data)
				}
				got.Write(ev.Data)
				if ev.CaughtUp != (got.Len() == b.Len()) {
					t.Fatalf("caught up %v after %d of %d bytes", ev.CaughtUp, got.Len(), b.Len())
				}
			}
		case <-time.After(deadline):
			t.Fatalf("read %d of %d bytes", got.Len(), b.Len())
		}
	}
	if got.String() != b.String() {
		t.Fatal("the pieces do not make the file")
	}
}

// TestStartedAfterEveryBacklog: Started is closed once every file there at
// the start has been opened, so that a line written after it is new even
// in the last file the first scan comes to. watch says it is following
// when Started is closed; it used to say so as Follow returned, and with
// --new a line written right after that was taken for one already there
// when the scan had not reached its file yet. More files than the events'
// buffer holds keep the scan waiting on the reader.
func TestStartedAfterEveryBacklog(t *testing.T) {
	modes(t, func(t *testing.T, poll bool) {
		dir := t.TempDir()
		const n = 200
		for i := range n {
			write(t, filepath.Join(dir, fmt.Sprintf("s%03d.rlog", i)), "u: there\n")
		}
		last := filepath.Join(dir, fmt.Sprintf("s%03d.rlog", n-1))
		ctx, cancel := context.WithCancel(context.Background())
		fl, err := Follow(ctx, []string{dir}, Options{Poll: poll, Interval: 20 * time.Millisecond, Match: func(n string) bool { return strings.HasSuffix(n, ".rlog") }})
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan Event, 4*n)
		go func() {
			defer close(events)
			for ev := range fl.Events {
				events <- ev
			}
		}()
		t.Cleanup(func() {
			cancel()
			for range events {
			}
		})
		select {
		case <-fl.Started:
		case <-time.After(deadline):
			t.Fatalf("not started within %v", deadline)
		}
		appendTo(t, last, "u: new\n")
		var seen []string
		for {
			select {
			case ev := <-events:
				if ev.Path != last {
					continue
				}
				seen = append(seen, describe(ev))
				if ev.Kind == Appended && strings.Contains(string(ev.Data), "u: new\n") {
					if ev.Backlog || string(ev.Data) != "u: new\n" {
						t.Fatalf("the line written after Started came as %q (events of %s: %q)", describe(ev), filepath.Base(last), seen)
					}
					return
				}
			case <-time.After(deadline):
				t.Fatalf("no event within %v for the line written after Started (events of %s: %q)", deadline, filepath.Base(last), seen)
			}
		}
	})
}
