package atif

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// TestExtraKeyNames holds extraKey to extraKeyNames: each name at its
// place, and other keys (one byte off, empty, escaped) nowhere.
func TestExtraKeyNames(t *testing.T) {
	for i, k := range extraKeyNames {
		if got := extraKey(k); got != i {
			t.Errorf("extraKey(%q) = %d, want %d", k, got, i)
		}
		for _, other := range []string{k + "s", k[1:], k[:len(k)-1], "\"" + k} {
			if got := extraKey(other); got >= 0 && extraKeyNames[got] != other {
				t.Errorf("extraKey(%q) = %d", other, got)
			}
		}
	}
	for _, k := range []string{"", "rest", "Rests", "extra", "<x>", "é"} {
		if got := extraKey(k); got != -1 {
			t.Errorf("extraKey(%q) = %d, want -1", k, got)
		}
	}
}

// TestWriteStepExtraMatchesWriteJSONWith holds writeStepExtra to
// Fields.WriteJSONWith(b, "rests", writeRests), in a step as writeStep
// makes it (the second of the root's steps list, indented by 2) and at
// other depths (where the stored keys do not apply): extras of none, one
// and every stored key, rests among them at each place or absent, values
// of each kind, and a key not stored (which it leaves to WriteJSONWith).
func TestWriteStepExtraMatchesWriteJSONWith(t *testing.T) {
	keysMade.Do(makeKeys)
	st := &step{source: "system", orphans: true}
	values := []string{`"x"`, `["a","b"]`, `{"k":1,"l":[true,null]}`, `12`, `"\u2028é😀"`}
	var extras []model.Fields
	extras = append(extras, nil)
	for i, k := range extraKeyNames {
		extras = append(extras, model.Fields{{Key: k, Value: json.RawMessage(values[i%len(values)])}})
	}
	var all model.Fields
	for i, k := range extraKeyNames[1:] {
		all = append(all, model.Field{Key: k, Value: json.RawMessage(values[i%len(values)])})
	}
	for at := 0; at <= len(all); at++ {
		f := append(append(append(model.Fields(nil), all[:at]...), model.Field{Key: "rests", Value: json.RawMessage(`"old"`)}), all[at:]...)
		extras = append(extras, f, f[:at+1])
	}
	extras = append(extras, append(model.Fields{{Key: "other", Value: json.RawMessage(`1`)}}, all...), model.Fields{{Key: "signature", Value: json.RawMessage(`"s"`)}, {Key: "a<b", Value: json.RawMessage(`2`)}})
	for _, depth := range []int{-1, 0, 1} {
		for _, extra := range extras {
			write := func(fast bool) (string, bool) {
				var b jsonw.Buf
				wrote := true
				if depth >= 0 {
					b.Indent(2)
					b.ContinueList(depth).Next()
				} else {
					b.Indent(0)
				}
				o := b.Begin()
				o.KeyAt(&keys.extra)
				if !fast || !writeStepExtra(&b, extra, st) {
					wrote = !fast
					extra.WriteJSONWith(&b, "rests", func(b *jsonw.Buf) { writeRests(b, st) })
				}
				o.End()
				return string(b.Bytes()), wrote
			}
			want, _ := write(false)
			got, wrote := write(true)
			if got != want {
				t.Errorf("depth %d, extra %s: writeStepExtra wrote\n%s\nWriteJSONWith\n%s", depth, fmt.Sprint(extra), got, want)
			}
			stored := true
			for _, f := range extra {
				stored = stored && extraKey(f.Key) >= 0
			}
			if wrote != stored {
				t.Errorf("extra %s: written by writeStepExtra %v, want %v", fmt.Sprint(extra), wrote, stored)
			}
		}
	}
}

// FuzzWriteStepExtra holds writeStepExtra to Fields.WriteJSONWith for any
// extra of stored keys (and others, which it leaves), in any order, with
// any string as a value and the step at any place of the steps list.
func FuzzWriteStepExtra(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, "x", uint8(1))
	f.Add([]byte{4, 5, 0, 13, 7}, "é\u2028\"<>", uint8(0))
	f.Add([]byte{12, 11, 10, 9, 8}, "", uint8(30))
	f.Fuzz(func(t *testing.T, picks []byte, s string, at uint8) {
		keysMade.Do(makeKeys)
		if len(picks) > 32 {
			picks = picks[:32]
		}
		var extra model.Fields
		for i, p := range picks {
			k := "other"
			if n := int(p) % (len(extraKeyNames) + 1); n < len(extraKeyNames) {
				k = extraKeyNames[n]
			}
			v := model.MustJSON(s)
			if i%2 == 1 {
				v = model.MustJSON([]any{s, i, map[string]any{"k": s}})
			}
			extra = append(extra, model.Field{Key: k, Value: v})
		}
		st := &step{source: "system", orphans: true}
		write := func(fast bool) string {
			var b jsonw.Buf
			b.Indent(2)
			b.ContinueList(int(at)).Next()
			o := b.Begin()
			o.KeyAt(&keys.extra)
			if !fast || !writeStepExtra(&b, extra, st) {
				extra.WriteJSONWith(&b, "rests", func(b *jsonw.Buf) { writeRests(b, st) })
			}
			o.End()
			return string(b.Bytes())
		}
		if got, want := write(true), write(false); got != want {
			t.Fatalf("extra %v: writeStepExtra wrote\n%s\nWriteJSONWith\n%s", extra, got, want)
		}
	})
}
