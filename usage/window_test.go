package usage

import (
	"fmt"
	"strings"
	"testing"
)

// shiftingWindow is the bounded tally's window as it was first written,
// the plain reference the ring (recent, tags, next) is held to: the last
// window messages, oldest first, the oldest shifted out for a new one,
// each looked up by comparing ids from the newest.
type shiftingWindow struct {
	window int
	recent []struct {
		id string
		c  Counts
	}
}

func (w *shiftingWindow) index(id string) int {
	for i := len(w.recent) - 1; i >= 0; i-- {
		if w.recent[i].id == id {
			return i
		}
	}
	return -1
}

func (w *shiftingWindow) merge(id string, c Counts) (Counts, bool) {
	if i := w.index(id); i >= 0 {
		old := w.recent[i].c
		w.recent[i].c = old.Max(c)
		return old, true
	}
	if len(w.recent) == w.window {
		copy(w.recent, w.recent[1:])
		w.recent = w.recent[:len(w.recent)-1]
	}
	w.recent = append(w.recent, struct {
		id string
		c  Counts
	}{id, c})
	return Counts{}, false
}

func (w *shiftingWindow) message(id string) (Counts, bool) {
	if i := w.index(id); i >= 0 {
		return w.recent[i].c, true
	}
	return Counts{}, false
}

// windowIDs are the ids the window tests draw from: short and long ones,
// and long ones that agree in every byte hashID reads (their first,
// middle and last eight and their length) and differ elsewhere, so that
// distinct messages share a hash and a tag.
var windowIDs = func() []string {
	ids := []string{"", "a", "b", "ab", "msg_1", "msg_2", "1234567", "12345678", "12345679",
		"msg_01XFDUDYJgAACzvnptvVoYEL", "msg_01XFDUDYJgAACzvnptvVoYEM", "é", "😀", "a\x00b"}
	for i := range 12 {
		// 40 bytes: the bytes read are 0-7, 16-23 and 32-39.
		b := []byte(strings.Repeat("x", 40))
		b[8+i%8] = byte('a' + i)
		b[24+i/8] = byte('A' + i)
		ids = append(ids, string(b))
	}
	for i := range 70 {
		ids = append(ids, fmt.Sprint("m", i))
	}
	return ids
}()

// checkWindow runs the operations ops encodes on a Tally with window
// and on the reference, and reports the first difference: each byte is
// an operation (a record of one of windowIDs, a Reset, a look-up by
// Message), the bytes after a record its counts.
func checkWindow(t *testing.T, window int, ops []byte) {
	t.Helper()
	tl := Tally{Window: window}
	ref := shiftingWindow{window: window}
	// The rest of the rule (unkeyed records, totals) the reference
	// counts as Add does, around its window.
	var total Counts
	messages := 0
	next := func() uint64 {
		if len(ops) == 0 {
			return 0
		}
		b := ops[0]
		ops = ops[1:]
		return uint64(b % 7)
	}
	for len(ops) > 0 {
		op := ops[0]
		ops = ops[1:]
		id := windowIDs[1+int(op>>1)%(len(windowIDs)-1)]
		switch {
		case op == 0xff:
			tl.Reset()
			ref.recent = ref.recent[:0]
			total, messages = Counts{}, 0
			for i, e := range tl.recent[:cap(tl.recent)] {
				if e.id != "" {
					t.Fatalf("window %d: after Reset, recent[%d] keeps %q", window, i, e.id)
				}
			}
		case op&1 == 1:
			got, ok := tl.Message(id)
			want, wok := ref.message(id)
			if got != want || ok != wok {
				t.Fatalf("window %d: Message(%q) = %+v %v, want %+v %v", window, id, got, ok, want, wok)
			}
		default:
			c := Counts{In: next(), Out: next(), Cached: next(), CacheCreate: next()}
			ch := tl.Add(id, c)
			want := Change{New: true, Grew: c}
			if old, ok := ref.merge(id, c); ok {
				want = Change{Grew: Grow(old, c)}
			}
			if want.New {
				messages++
			}
			total = total.Add(want.Grew)
			if ch != want {
				t.Fatalf("window %d: Add(%q, %+v) = %+v, want %+v", window, id, c, ch, want)
			}
		}
		if tl.Total() != total || tl.Messages() != messages {
			t.Fatalf("window %d: %+v in %d messages, want %+v in %d", window, tl.Total(), tl.Messages(), total, messages)
		}
		if len(tl.recent) != len(ref.recent) || len(tl.recent) > window || len(tl.tags) != (len(tl.recent)+7)/8 {
			t.Fatalf("window %d: %d remembered (%d tag words), want %d", window, len(tl.recent), len(tl.tags), len(ref.recent))
		}
	}
}

// TestWindowIsTheShiftingWindow holds the ring to the reference at its
// edges: windows of 1 to 17 (within, at and past a word of tags), ids
// that share a hash, records that repeat the newest, the oldest and the
// one just forgotten, and resets when the ring is empty, part full, full
// and wrapped.
func TestWindowIsTheShiftingWindow(t *testing.T) {
	for _, id := range windowIDs[15:26] {
		if hashID(id) != hashID(windowIDs[14]) {
			t.Fatalf("%q and %q were meant to share a hash", id, windowIDs[14])
		}
	}
	for window := 1; window <= 17; window++ {
		var ops []byte
		// Fill the window and one past it, twice over, with ids that
		// share a hash (indices 14..25) and others.
		for i := range 2*window + 2 {
			ops = append(ops, byte(2*(13+i%30)), 1, 2, 3, 4)
		}
		// Repeats of each remembered one and the forgotten ones, and
		// look-ups of each.
		for i := range 2*window + 2 {
			ops = append(ops, byte(2*(13+i%30)), 6, 0, 0, 1, byte(2*(13+i%30)+1))
		}
		ops = append(ops, 0xff, 2*13+1, 0xff, 2*14, 5, 5, 5, 5, 2*14, 6, 6, 6, 6, 0xff)
		for i := range window + 3 {
			ops = append(ops, byte(2*(40+i)), 1, 1, 1, 1, byte(2*(40+i)), 2, 0, 0, 0)
		}
		checkWindow(t, window, ops)
	}
}

// FuzzWindow holds a bounded Tally (its ring of recent messages) to the
// shifting window it replaced, over any sequence of records, repeats,
// look-ups and resets, in windows of 1 to 70.
func FuzzWindow(f *testing.F) {
	f.Add(byte(3), []byte{2, 1, 2, 3, 4, 4, 0, 0, 0, 0, 2, 5, 5, 5, 5, 3, 0xff, 3})
	f.Add(byte(64), []byte{28, 1, 1, 1, 1, 30, 1, 1, 1, 1, 28, 6, 6, 6, 6, 29, 31})
	f.Add(byte(8), []byte("\x1c\x01\x1e\x02\x20\x03\x22\x04\x24\x05\x26\x06\x28\x01\x2a\x02\x2c\x03\x1c\x06\x1d"))
	f.Fuzz(func(t *testing.T, window byte, ops []byte) {
		checkWindow(t, 1+int(window)%70, ops)
	})
}
