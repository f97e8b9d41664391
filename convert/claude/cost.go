package claude

import (
	"bytes"
	"io"

	"github.com/rlog-ls/rlog-ls/convert/claude/records"
	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
	"github.com/rlog-ls/rlog-ls/usage"
)

// Claude Code ends each run (one `claude` process) with a cost-state
// record: the session's running totals, per model, over every model call
// the session made, resumed runs included. Some calls have no assistant
// record: a compaction's summary is asked of the model and written as a
// user record (isCompactSummary) without usage. The reader counts the
// assistant records of each run by the usage rule; a run's cost-state less
// the one before it and less what its records counted is what no record
// shows, and goes on the run's first compaction, so that counting the
// lines gives the CLI's own totals. A run that compacts more than once
// (automatic compactions in one long turn) has one figure for all of
// them: it goes on the first, and the loss report says so. The last cost-state is the session's
// totals and cost.

// costs follows the cost-state records of a transcript.
type costs struct {
	// prev is the totals of the last cost-state (zero before the first).
	prev usage.Counts
	// run counts the assistant records of the run being read (its
	// sub-agents' included); given, what this run's compactions took.
	run   model.Ledger
	given usage.Counts
	// ended says a run ended (a cost-state) and no record of the next
	// has been read: the next conversation record starts a resumed run.
	ended bool
	// reopen opens the transcript again to look ahead from a compaction
	// to its run's cost-state; nil when it can be read once only.
	reopen func() (io.ReadCloser, error)
}

// costState reads one cost-state record: the header's totals and cost
// from it, and what no record of the run showed is reported unless a
// compaction of the run took it.
func (st *state) costState(base model.Event, line []byte) error {
	m, _ := records.MeaningOf("cost-state")
	if st.depth > 0 || st.costs == nil {
		return st.bookkeeping(base, "cost-state", line, m)
	}
	tot, cost, _, ok := parseCostState(line)
	if ok {
		u := model.UsageOf(tot)
		st.h.Totals = &u
		st.h.CostUSD = &cost
		c := st.costs
		rest := unseen(tot, c.prev, c.run.Total().Counts(), c.given)
		if !rest.IsZero() {
			st.rep.Add(model.LossDroppedField, "usage of model calls no assistant record shows (the run's cost-state counts them; a compaction's when the transcript could not be read ahead)", base.Loc)
		}
		c.prev, c.given = tot, usage.Counts{}
		c.run.Reset()
		c.ended = true
	}
	return st.bookkeeping(base, "cost-state", line, m)
}

// resumed reports whether the record about to be read starts a run that
// resumes the session, once.
func (st *state) resumed() bool {
	if st.depth > 0 || st.costs == nil || !st.costs.ended {
		return false
	}
	st.costs.ended = false
	return true
}

// counted adds an assistant event's usage to the run's count.
func (st *state) counted(ev *model.Event) {
	if st.costs != nil && ev.Usage != nil {
		st.costs.run.Add(ev)
	}
}

// compactionUsage is the usage of the model call of the compaction being
// read: what the run's cost-state counts beyond the run's records, read
// ahead in the transcript. false when it cannot be known. more is how
// many compactions of the same run follow: their calls are in it too, as
// the transcript does not tell the calls of one run apart.
func (st *state) compactionUsage(line int) (u usage.Counts, mdl string, more int, ok bool) {
	c := st.costs
	if st.depth > 0 || c == nil || c.reopen == nil {
		return usage.Counts{}, "", 0, false
	}
	f, err := c.reopen()
	if err != nil {
		return usage.Counts{}, "", 0, false
	}
	defer f.Close()
	var ahead model.Ledger
	var tot usage.Counts
	found := false
	jsonl.Each(f, func(b []byte, n int) error {
		if n <= line {
			return nil
		}
		typ, msg, agent := aheadFields(b)
		switch typ {
		case "cost-state":
			var ok bool
			tot, _, mdl, ok = parseCostState(b)
			found = ok
			return errFound
		case "assistant":
			if ev, _ := AssistantEvents(nil, msg, model.Event{}, &model.Report{}); len(ev) > 0 && ev[0].Usage != nil {
				ahead.AddUsage(ev[0].MessageID, *ev[0].Usage)
			}
		case "user":
			if agent != "" && st.rd.Subagent != nil {
				st.subagentUsage(agent, &ahead)
			}
		case "system":
			if bytes.Contains(b, []byte(`"compact_boundary"`)) && !bytes.Contains(b, []byte(`"isSidechain":true`)) {
				more++
			}
		}
		return nil
	}, func(int, error) {})
	if !found {
		return usage.Counts{}, "", 0, false
	}
	u = unseen(tot, c.prev, c.run.Total().Counts().Add(ahead.Total().Counts()), c.given)
	c.given = c.given.Add(u)
	return u, mdl, more, true
}

// subagentUsage adds the assistant usage of sub-agent id's transcript.
func (st *state) subagentUsage(id string, l *model.Ledger) {
	f, _, err := st.rd.Subagent(id)
	if err != nil {
		return
	}
	defer f.Close()
	jsonl.Each(f, func(b []byte, _ int) error {
		if typ, msg, _ := aheadFields(b); typ == "assistant" {
			if ev, _ := AssistantEvents(nil, msg, model.Event{}, &model.Report{}); len(ev) > 0 && ev[0].Usage != nil {
				l.AddUsage(ev[0].MessageID, *ev[0].Usage)
			}
		}
		return nil
	}, func(int, error) {})
}

// aheadFields are what looking ahead needs of a record: its type, its
// message, and the sub-agent a tool result names.
func aheadFields(b []byte) (typ string, msg []byte, agent string) {
	jsonscan.Object(b, func(k, v []byte) error {
		switch string(k) {
		case "type":
			typ, _ = jsonscan.String(v)
		case "message":
			msg = v
		case "toolUseResult":
			agent, _ = ResultAgent(v)
		}
		return nil
	})
	return typ, msg, agent
}

// unseen is what a cost-state's totals count beyond the one before, the
// run's records, and what was given already, counter by counter (never
// below zero: a run that does not carry the session's totals over counts
// nothing unseen).
func unseen(tot, prev, seen, given usage.Counts) usage.Counts {
	sub := func(a uint64, bs ...uint64) uint64 {
		for _, b := range bs {
			if b >= a {
				return 0
			}
			a -= b
		}
		return a
	}
	return usage.Counts{
		In:          sub(tot.In, prev.In, seen.In, given.In),
		Out:         sub(tot.Out, prev.Out, seen.Out, given.Out),
		Cached:      sub(tot.Cached, prev.Cached, seen.Cached, given.Cached),
		CacheCreate: sub(tot.CacheCreate, prev.CacheCreate, seen.CacheCreate, given.CacheCreate),
	}
}

// parseCostState reads a cost-state record: the token totals over its
// models, the total cost in USD, and the model when there is one.
func parseCostState(b []byte) (tot usage.Counts, cost float64, mdl string, ok bool) {
	models := 0
	jsonscan.Object(b, func(k, v []byte) error {
		switch string(k) {
		case "totalCostUSD":
			if f, good := jsonscan.Float(v); good {
				cost, ok = f, true
			}
		case "modelUsage":
			jsonscan.Object(v, func(name, mu []byte) error {
				models++
				mdl, _ = jsonscan.String(name)
				var c usage.Counts
				jsonscan.Object(mu, func(k2, n []byte) error {
					i, _ := jsonscan.Int(n)
					switch string(k2) {
					case "inputTokens":
						c.In = usage.Clamp(i)
					case "outputTokens":
						c.Out = usage.Clamp(i)
					case "cacheReadInputTokens":
						c.Cached = usage.Clamp(i)
					case "cacheCreationInputTokens":
						c.CacheCreate = usage.Clamp(i)
					}
					return nil
				})
				tot = tot.Add(c)
				return nil
			})
		}
		return nil
	})
	if models != 1 {
		mdl = ""
	}
	return tot, cost, mdl, ok
}
