package rlogfmt

import (
	"bytes"
	"reflect"
	"strconv"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/usage"
)

// usageReference is reader.usage as it was before it asked
// grammar.LineInfo.HasCounts first: LineUsage on every line, and the
// metadata's message id read whether or not the rules' is taken.
func usageReference(rd *reader, p *lineParts, ev *model.Event) {
	gu, has := grammar.LineUsage(p.text, p.li)
	u := model.UsageOf(usage.Counts{In: gu.In, Out: gu.Out, Cached: gu.Cached, CacheCreate: gu.CacheCreate})
	msg, hasMsg := p.metaValue(grammar.KeyMessageID)
	if has && gu.MessageID != "" {
		msg, hasMsg = gu.MessageID, true
	}
	if hasMsg {
		ev.MessageID = msg
	}
	if !has {
		return
	}
	if p.li.Kind == grammar.Lifecycle && bytes.HasPrefix(p.text[p.li.Content:], []byte(grammar.VerbEnd)) {
		return
	}
	kept := &model.Usage{}
	*kept = u
	ev.Usage = kept
	const usageKeys keySet = 1<<grammar.KeyTokensIn | 1<<grammar.KeyTokensOut | 1<<grammar.KeyTokensCached | 1<<grammar.KeyTokensCacheCreate
	if (p.metaSet|p.arrowSet)&usageKeys == 0 {
		ev.Form.UsageInText = true
	}
	switch {
	case hasMsg:
		rd.prevUsage, rd.prevMsg = nil, ""
	case rd.prevUsage != nil && usage.SameRequest(rd.prevUsage.Counts(), u.Counts()):
		ev.MessageID = rd.prevMsg
	default:
		rd.prevUsage = kept
		rd.prevMsg = SyntheticMessagePrefix + "rlog-line-" + strconv.Itoa(ev.Loc.Line)
		ev.MessageID = rd.prevMsg
	}
}

// usageBoth reads each line of in as a body line with reader.usage and
// with usageReference, each with a reader of its own carried from line to
// line, and fails when an event's message id, usage or form, or what the
// readers carry to the next line, differ.
func usageBoth(t *testing.T, name string, in []byte) {
	t.Helper()
	fast, ref := &reader{}, &reader{}
	for n, line := range bytes.Split(in, []byte("\n")) {
		p := &fast.parts
		p.lt.Read(line)
		p.fill(line)
		var got, want model.Event
		got.Loc, want.Loc = model.Loc{Line: n + 1}, model.Loc{Line: n + 1}
		fast.usage(p, &got)
		usageReference(ref, p, &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s line %d %.80q:\n got %+v usage %+v\nwant %+v usage %+v", name, n+1, line, got, got.Usage, want, want.Usage)
		}
		if fast.prevMsg != ref.prevMsg || (fast.prevUsage == nil) != (ref.prevUsage == nil) ||
			fast.prevUsage != nil && *fast.prevUsage != *ref.prevUsage {
			t.Fatalf("%s line %d %.80q: carried %q %+v, reference %q %+v", name, n+1, line, fast.prevMsg, fast.prevUsage, ref.prevMsg, ref.prevUsage)
		}
	}
}

// TestUsageEqualsReference: the reader's usage (HasCounts first, one
// message id string) equals the reference's on every line of the
// repository's rlog files and of generated sessions, streamed ones (a
// message_id= on each response) among them.
func TestUsageEqualsReference(t *testing.T) {
	forEachLog(t, []gen.Options{
		{Bytes: 256 << 10, FindingRate: 0.05, Timed: true},
		{Bytes: 256 << 10, FindingRate: 0.02, Streamed: true},
	}, usageBoth)
}

// FuzzUsage holds the reader's usage to the reference on any lines.
func FuzzUsage(f *testing.F) {
	f.Add([]byte("a: x tokens_in=607 tokens_out=164 tokens_cached=33610\nth: y tokens_in=607 tokens_out=164\na: z tokens_in=1"))
	f.Add([]byte("a: tokens_in=3 message_id=m1 → message_id=m2\nu: message_id=m3\nt:x → [ok] tokens_out=12345678901234567890123"))
	f.Add([]byte("a: tokens_cache_create=12\nth: tokens_cached=7 message_id=m\na: tokens_out=9"))
	f.Add([]byte("@end tokens_in=4 message_id=e\n  tokens_out=2\nu: see tokens_in=5 here message_id=\"q\" ts=1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		usageBoth(t, "fuzz", data)
	})
}
