package companion

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// Completer returns, for the rlog log at path with a companion of the same
// session, what a conversion puts between the log's reader and the
// target's writer (model.Options.Complete): each event of a line joined to
// a record gets the record's whole content where the log has it cut (a
// message's first line, a tool's first output line, abbreviated tool
// arguments), so that an export of a log is as full as its companion.
// ok is false when the log has no companion, or one of another session.
//
// A line's content is replaced only where the log holds what rlog's
// writers make of the record: its text the start of the record's (cut
// where it ends with "..."), each argument a call shows the start of the
// input's value of that key. A line that says something else (redacted,
// edited by hand) keeps what it says. The log is read whole to join it.
func Completer(path string) (complete func(model.Sink, *model.Report) model.Sink, ok bool) {
	files, ok := Locate(path)
	if !ok {
		return nil, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	s, err := Open(files).Current()
	if err != nil {
		return nil, false
	}
	p := Join(grammar.Parse(data), s)
	if p.Mismatch || p.Joined() == 0 {
		return nil, false
	}
	return func(sink model.Sink, rep *model.Report) model.Sink {
		return &completer{Sink: sink, p: p}
	}, true
}

// completer is the sink that completes events from the pairing's records.
type completer struct {
	model.Sink
	p *Pairing
}

// BorrowsEvents implements model.Borrower: it rewrites e and keeps
// nothing of it; its sink's answer.
func (c *completer) BorrowsEvents() bool { return model.BorrowsEvents(c.Sink) }

func (c *completer) Event(h *model.Header, e *model.Event) error {
	// The rlog reader's lines count from 1, the tree's from 0.
	if ref, ok := c.p.Record(e.Loc.Line - 1); ok && e.Loc.Line > 0 && e.Loc.File == "" {
		if rec, err := c.p.Snap.Event(ref); err == nil {
			complete(e, rec)
		}
	}
	return c.Sink.Event(h, e)
}

// complete gives e the content of rec, the record its line was written
// from, where e's is what rlog's writers make of rec's.
func complete(e, rec *model.Event) {
	if rec.Kind != e.Kind {
		return
	}
	switch e.Kind {
	case model.KindUser, model.KindAgent:
		if startOf(e.Text, rec.Text) {
			e.Text = rec.Text
		}
	case model.KindThinking:
		if !startOf(e.Text, rec.Text) {
			return
		}
		e.Text = rec.Text
		if sig := strings.TrimSuffix(e.Signature, "..."); strings.HasPrefix(rec.Signature, sig) {
			e.Signature = rec.Signature
		}
	case model.KindToolCall:
		if e.Call == nil || rec.Call == nil || e.Form.WholeInput || len(rec.Call.Input) == 0 || !inputOf(e.Call.Input, rec.Call.Input) {
			return
		}
		e.Call.Input = rec.Call.Input
	case model.KindToolResult:
		if e.Result == nil || rec.Result == nil || !startOf(e.Result.Content, rec.Result.Content) {
			return
		}
		e.Result.Content = rec.Result.Content
		e.Result.ContentRaw = rec.Result.ContentRaw
	}
}

// startOf reports whether short, a line's text, is what rlog's writers
// make of full: full itself when it is one line, else the start of its
// first line, ending with "..." (or " ..." after a whole first line).
func startOf(short, full string) bool {
	full = strings.TrimLeft(full, " \t\r\n")
	if short == full {
		return true
	}
	first := full
	if i := strings.IndexAny(full, "\r\n"); i >= 0 {
		first = full[:i]
	}
	if short == first {
		return true
	}
	cut, ok := strings.CutSuffix(short, "...")
	if !ok {
		return false
	}
	cut = strings.TrimRight(cut, " ")
	return cut != "" && strings.HasPrefix(first, cut)
}

// inputOf reports whether short, the arguments a call's line shows, are
// what rlog's writers show of the input full: each a string that startOf
// the value of the same key (Bash's command read back from cmd=), none
// that full does not have.
func inputOf(short, full json.RawMessage) bool {
	if len(bytes.TrimSpace(short)) == 0 {
		return true
	}
	var s map[string]any
	var f map[string]any
	if json.Unmarshal(short, &s) != nil || json.Unmarshal(full, &f) != nil {
		return false
	}
	for k, v := range s {
		sv, ok := v.(string)
		if !ok {
			return false
		}
		fv, ok := f[k]
		if !ok {
			return false
		}
		text, isString := fv.(string)
		if !isString {
			b, _ := json.Marshal(fv)
			text = string(b)
		}
		if !startOf(sv, text) {
			return false
		}
	}
	return true
}
