package atif

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// ownExtraStep is a step of its parts: its extra (none when ""), one
// field of a name no step has (the step's own extra, atif.*), and a
// metrics member (metrics.*).
func ownExtraStep(extra, key, value, metricsKey, metricsValue string) []byte {
	b := []byte(`{"step_id":3,"source":"agent","message":"m"`)
	if extra != "" {
		b = append(append(b, `,"extra":`...), extra...)
	}
	if key != "" {
		b = append(append(append(append(b, ','), strconv.Quote(key)...), ':'), value...)
	}
	if metricsKey != "" && metricsKey != "extra" {
		b = append(append(append(append(append(b, `,"metrics":{"prompt_tokens":2,`...), strconv.Quote(metricsKey)...), ':'), metricsValue...), '}')
	}
	return append(b, '}')
}

// plainStepExtra is what the reader made of step b's extra before it was
// listed in reused room (1acd55e's parent): the extra listed on a list
// of its own (model.ParseIn), the rests, the signature and the message
// id taken out and its values copied (CopyValuesIn), each unknown step
// field and metrics member set with its value copied, the key drop
// deleted (as the reading deletes a tool status or an orphan's id), and
// the first event's own extra, more, appended.
func plainStepExtra(b []byte, drop string, more model.Fields) (model.Fields, bool) {
	var ix jsonscan.Index
	var rec model.Scratch
	f, err := rec.ParseRecord(&ix, b, false, false)
	if err != nil || f == nil {
		return nil, false
	}
	if !ix.InputValidUTF8() {
		f.CopyValues()
	}
	var extra model.Fields
	if x, ok := f.Get("extra"); ok {
		extra, _ = model.ParseIn(&ix, x, false)
		extra.Delete("rests")
		if _, ok := extra.StringIn(&ix, "signature"); ok {
			extra.Delete("signature")
		}
		if s, ok := extra.IDIn(&ix, "message_id"); ok && s != "" {
			extra.Delete("message_id")
		}
		extra.CopyValuesIn(&ix)
	}
	for _, fl := range f {
		if !mappedStepKey(fl.Key) {
			extra.Set("atif."+fl.Key, ix.Copy(fl.Value))
		}
	}
	if m, ok := f.Get("metrics"); ok {
		mf, _ := model.ParseIn(&ix, m, false)
		for _, fl := range mf {
			switch fl.Key {
			case "prompt_tokens", "completion_tokens", "cached_tokens", "extra":
			default:
				extra.Set("metrics."+fl.Key, ix.Copy(fl.Value))
			}
		}
	}
	extra.Delete(drop)
	return append(extra, more...), true
}

// ownStepExtra is what the reader makes of it: the extra listed in its
// room (parseStep, metricsOf) with its values views of b, and the list of
// its own that ownExtra makes when the step's reading is done.
func ownStepExtra(st *reader, b []byte, drop string, more model.Fields) (model.Fields, bool) {
	f, err := st.record.ParseRecord(&st.ix, b, false, false)
	if err != nil || f == nil {
		return nil, false
	}
	if !st.ix.InputValidUTF8() {
		f.CopyValues()
	}
	var sp stepParts
	st.parseStep(&sp, f, model.Loc{Line: 1})
	if m, ok := f.Get("metrics"); ok {
		st.metricsOf(&sp.base, m, &sp)
	}
	sp.extra.Delete(drop)
	return st.ownExtra(sp.extra, more), true
}

// FuzzOwnExtra holds a step's extra as the ATIF reader makes it (listed in
// reused room, its values views of the step, copied by ownExtra only as
// far as the step keeps it) to the plain copy it replaced
// (plainStepExtra), nil and empty kept apart: the lists must be equal
// after the step's bytes are written over and the room used for another
// step, so that nothing of them is in either. The step's extra, an
// unknown field and a metrics member are the input's, with a key the
// reading deletes and the first event's own extra (none, empty, one or
// two members).
func FuzzOwnExtra(f *testing.F) {
	f.Add(`{"a":1,"signature":"s","message_id":"m","rests":[{"kind":"user"}]}`, "other", `true`, "logprobs", `[0.5]`, "", uint8(2))
	f.Add(`{}`, "", ``, "", ``, "", uint8(0))
	f.Add(`{"signature":"s","message_id":"m"}`, "", ``, "", ``, "", uint8(1))
	f.Add(`{"message_id":"","signature":5,"x":"\u00e9\ud83d\ude00 \"q\"","y":null}`, "zz", `{"d":[1,"\xff"]}`, "cost", `0.25`, "x", uint8(3))
	f.Add(`{"b":[2],"c":{"d":"e"},"b":3}`, "step_id", `1`, "prompt_tokens", `9`, "b", uint8(5))
	f.Add(``, "zz", `"y"`, "", ``, "atif.zz", uint8(4))
	f.Add(`{"a":"\xff\xfe"}`, "k", `"\xc3"`, "m", `"\xe2\x80"`, "", uint8(1))
	f.Fuzz(func(t *testing.T, extra, key, value, metricsKey, metricsValue, drop string, moreKind uint8) {
		b := ownExtraStep(extra, key, value, metricsKey, metricsValue)
		if !jsonscan.Valid(b) {
			return
		}
		var more model.Fields
		switch moreKind % 4 {
		case 1:
			more = model.Fields{}
		case 2:
			more = model.Fields{{Key: "_passthrough", Value: []byte(`"p"`)}}
		case 3:
			more = model.Fields{{Key: "requestId", Value: []byte(`"r"`)}, {Key: "n", Value: []byte(`2`)}}
		}
		want, wantOK := plainStepExtra(bytes.Clone(b), drop, more)
		st := newReader(&model.Header{}, nil, &model.Report{})
		got, gotOK := ownStepExtra(st, b, drop, more)
		if gotOK != wantOK {
			t.Fatalf("%s: read %v, plain %v", b, gotOK, wantOK)
		}
		// The step's bytes written over, and the room of its lists used
		// for another step with a larger extra.
		for i := range b {
			b[i] = '#'
		}
		next := ownExtraStep(`{"p":"written over","q":[1,2,3],"r":{"s":"the room"},"t":4,"u":5,"v":6,"w":7,"x":8}`, "other", `"next"`, "logprobs", `[1]`)
		if _, ok := ownStepExtra(st, next, "", nil); !ok {
			t.Fatalf("%s: not read", next)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: extra\n%s (nil %v)\nplain\n%s (nil %v)", ownExtraStep(extra, key, value, metricsKey, metricsValue),
				fieldsText(got), got == nil, fieldsText(want), want == nil)
		}
	})
}

// fieldsText is a list's members as key=value, for a failure's message.
func fieldsText(fs model.Fields) string {
	var b []byte
	for _, fl := range fs {
		b = append(append(append(append(b, fl.Key...), '='), fl.Value...), ' ')
	}
	return string(b)
}
