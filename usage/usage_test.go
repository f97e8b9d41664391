package usage

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The repro of the rule's first question: a message written twice, the
// first a streaming snapshot, counts with its final (largest) usage.
func TestRepeatedMessageKeepsItsLargestUsage(t *testing.T) {
	var tl Tally
	steps := []struct {
		id   string
		c    Counts
		want Change
	}{
		{"m1", Counts{In: 10, Out: 5}, Change{New: true, Grew: Counts{In: 10, Out: 5}}},
		{"m1", Counts{In: 10, Out: 50}, Change{Grew: Counts{Out: 45}}},
		{"m2", Counts{In: 3, Out: 7}, Change{New: true, Grew: Counts{In: 3, Out: 7}}},
		{"m1", Counts{In: 10, Out: 20}, Change{}}, // a repeat never lowers a count
	}
	for i, s := range steps {
		if got := tl.Add(s.id, s.c); got != s.want {
			t.Errorf("record %d: %+v, want %+v", i, got, s.want)
		}
	}
	if got, want := tl.Total(), (Counts{In: 13, Out: 57}); got != want || tl.Messages() != 2 {
		t.Errorf("total %+v (%d messages), want %+v (2)", got, tl.Messages(), want)
	}
	if c, ok := tl.Message("m1"); !ok || c.Out != 50 {
		t.Errorf("m1 = %+v %v", c, ok)
	}
}

// Records without a message id: a record with the input and cache counts
// of the one just before it (itself without an id) is that message, its
// output growing as a streaming response's does; any other is a message
// of its own, also when it equals an earlier one.
func TestUnkeyedRecords(t *testing.T) {
	var tl Tally
	a, b := Counts{In: 10, Out: 1, Cached: 20943}, Counts{In: 12, Out: 1, Cached: 21101}
	grown := a
	grown.Out = 433
	for i, s := range []struct {
		id   string
		c    Counts
		want Change
	}{
		{"", a, Change{New: true, Grew: a}}, {"", a, Change{}}, // one message on two lines
		{"", grown, Change{Grew: Counts{Out: 432}}}, // its final count
		{"", a, Change{}}, // a snapshot again lowers nothing
		{"", b, Change{New: true, Grew: b}},
		{"", a, Change{New: true, Grew: a}}, // a again, but not right after a
		{"k", a, Change{New: true, Grew: a}},
		{"", a, Change{New: true, Grew: a}}, // after a keyed record: its own message
		{"k", a, Change{}},
		{"", a, Change{New: true, Grew: a}},
	} {
		if got := tl.Add(s.id, s.c); got != s.want {
			t.Errorf("record %d: %+v, want %+v", i, got, s.want)
		}
	}
	if tl.Messages() != 6 || tl.Total().Out != 433+1+1+1+1+1 || tl.Total().In != 10*5+12 {
		t.Errorf("%d messages, total %+v", tl.Messages(), tl.Total())
	}
}

// A bounded tally gives the exact totals whenever each message's records
// lie within Window messages of its first; a message id that comes back
// later counts again, as documented.
func TestWindowEqualsExactWithinTheWindow(t *testing.T) {
	const window = 8
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		var exact Tally
		bounded := Tally{Window: window}
		next := 0
		var open []string // ids that may still repeat: the last window messages
		for range 300 {
			var id string
			switch k := r.IntN(10); {
			case k < 3 && len(open) > 0:
				id = open[r.IntN(len(open))]
			case k < 5:
				id = "" // unkeyed
			default:
				id = fmt.Sprint("m", next)
				next++
				open = append(open, id)
				if len(open) > window {
					open = open[1:]
				}
			}
			c := Counts{In: uint64(r.IntN(3)), Out: uint64(r.IntN(4)), Cached: uint64(r.IntN(2))}
			e, b := exact.Add(id, c), bounded.Add(id, c)
			if e != b {
				t.Fatalf("seed %d: exact %+v, bounded %+v", seed, e, b)
			}
		}
		if exact.Total() != bounded.Total() || exact.Messages() != bounded.Messages() {
			t.Fatalf("seed %d: exact %+v %d, bounded %+v %d", seed, exact.Total(), exact.Messages(), bounded.Total(), bounded.Messages())
		}
	}
	bounded := Tally{Window: 2}
	for _, id := range []string{"a", "b", "c", "a"} {
		bounded.Add(id, Counts{Out: 1})
	}
	if bounded.Messages() != 4 || bounded.Total().Out != 4 || len(bounded.recent) != 2 {
		t.Errorf("late repeat: %d messages, %+v, %d remembered", bounded.Messages(), bounded.Total(), len(bounded.recent))
	}
}

// The sum of what each record grew the totals by is the totals.
func TestChangesAddUpToTheTotal(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var tl Tally
	var sum Counts
	for range 1000 {
		id := ""
		if r.IntN(3) > 0 {
			id = fmt.Sprint("m", r.IntN(40))
		}
		ch := tl.Add(id, Counts{In: uint64(r.IntN(5)), Out: uint64(r.IntN(50)), CacheCreate: uint64(r.IntN(3))})
		sum = sum.Add(ch.Grew)
	}
	if sum != tl.Total() {
		t.Errorf("changes add up to %+v, total %+v", sum, tl.Total())
	}
	tl.Reset()
	if !tl.Empty() || tl.Total() != (Counts{}) || tl.Messages() != 0 {
		t.Errorf("after Reset: %+v", tl)
	}
}

func TestClamp(t *testing.T) {
	if Clamp(-3) != 0 || Clamp(7) != 7 || Int64(1<<63) != 1<<63-1 || Int64(5) != 5 {
		t.Error("Clamp or Int64")
	}
}

// A tally resumed from another's state and the messages still to be
// repeated answers as the other does.
func TestResume(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	type rec struct {
		id string
		c  Counts
	}
	recs := make([]rec, 400)
	for i := range recs {
		if r.IntN(3) > 0 {
			recs[i].id = fmt.Sprint("m", r.IntN(30))
		}
		recs[i].c = Counts{Out: uint64(r.IntN(4)), In: uint64(r.IntN(2))}
	}
	for cut := 0; cut <= len(recs); cut += 37 {
		var whole, head Tally
		for _, x := range recs[:cut] {
			whole.Add(x.id, x.c)
			head.Add(x.id, x.c)
		}
		known := map[string]Counts{}
		for _, x := range recs[cut:] {
			if c, ok := head.Message(x.id); ok {
				known[x.id] = c
			}
		}
		rest := Resume(head.State(), known)
		for i, x := range recs[cut:] {
			if a, b := whole.Add(x.id, x.c), rest.Add(x.id, x.c); a != b {
				t.Fatalf("cut %d, record %d: %+v, resumed %+v", cut, cut+i, a, b)
			}
		}
		if whole.State() != rest.State() {
			t.Fatalf("cut %d: %+v, resumed %+v", cut, whole.State(), rest.State())
		}
	}
}

// TestGemini: a Gemini CLI message's tokens count as the CLI's own account
// sums them (the shell scenario's first answer: prompt 3000, none cached,
// 40 out, 12 thoughts; the second: 3400 with 2900 cached), and the counts
// add up to the answer's total.
func TestGemini(t *testing.T) {
	for _, c := range []struct {
		input, output, cached, thoughts, tool uint64
		want                                  Counts
		total                                 uint64
	}{
		{3000, 40, 0, 12, 0, Counts{In: 3000, Out: 52}, 3052},
		{3400, 15, 2900, 0, 0, Counts{In: 500, Out: 15, Cached: 2900}, 3415},
		{100, 10, 20, 5, 7, Counts{In: 87, Out: 15, Cached: 20}, 122},
		// A cached count over the prompt (no API sends one) leaves no
		// negative input.
		{10, 1, 30, 0, 0, Counts{Out: 1, Cached: 30}, 31},
	} {
		got := Gemini(c.input, c.output, c.cached, c.thoughts, c.tool)
		if got != c.want || got.In+got.Out+got.Cached != c.total {
			t.Errorf("Gemini(%d, %d, %d, %d, %d) = %+v, want %+v (total %d)", c.input, c.output, c.cached, c.thoughts, c.tool, got, c.want, c.total)
		}
	}
}
