package atif

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/convert/internal/recent"
	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// DefaultVersion is written unless Options.ATIFVersion asks for another.
const DefaultVersion = "1.5"

// WriteVersions are the versions the writer can produce.
var WriteVersions = []string{"1.5", "1.6", "1.7"}

// ParseVersion normalizes "1.6", "v1.6" or "ATIF-v1.6" to its minor number.
func ParseVersion(s string) (int, error) {
	if s == "" {
		s = DefaultVersion
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "ATIF-"), "v")
	for _, v := range WriteVersions {
		if s == v {
			return int(v[2] - '0'), nil
		}
	}
	return 0, fmt.Errorf("atif: cannot write version %q (supported: %s)", s, strings.Join(WriteVersions, ", "))
}

// The bound on steps held back for their results: a step waits for the
// results of its tool calls (Harbor wants them in the step of the call),
// and the steps after it wait with it, at most this many or this many
// bytes. A step that would wait longer is written without its missing
// results, which then go on a system step (reported as moved).
const (
	maxHeldSteps = 512
	maxHeldBytes = 32 << 20
)

// Writer writes ATIF, as one document or as ATIF-JSONL, as events arrive.
// It groups events into steps (see add); a step is written once the steps
// before it are and its tool calls have their results. What the document
// says at the end (final_metrics, header fields learned late) follows the
// steps.
type Writer struct {
	stepBuf jsonw.Buf // writeStep's
	room    stepRoom  // encodeStep's
	jsonl   bool
	ver     int
	rep     *model.Report
	opt     model.Options

	out *bufio.Writer // the document, indented as it is encoded, or the JSONL lines
	err error

	h       *model.Header
	same    bool // the source is ATIF: its fields are restored
	begun   bool
	written int // steps written
	ledger  model.Ledger
	// rootExtra is the root extra written at the start: header fields
	// that change or appear later go in final_metrics.extra.
	rootExtra model.Fields
	rootKeys  map[string]bool // atif.* root keys written at the start
	// totalsWritten and costWritten are set when the JSONL header has
	// final_metrics with the totals, the cost.
	totalsWritten, costWritten bool
	// totalsStated is set when the totals in the JSONL header are the
	// source's own, which it states only at its end (a reading before
	// this one found them: Options.TotalsStated), not made up.
	totalsStated bool
	// madeUp names the required values written without a source value
	// (root extra.made_up), which the reader takes back out.
	madeUp []string

	held      []*step            // steps not written yet, oldest first
	spare     []*step            // written steps kept for reuse (recycle)
	heldBytes int                // about what they hold
	openCalls map[string]waiting // source call id -> held steps with a call of it waiting for its result
	// late are the calls of steps written before their results came.
	late *recent.Map[struct{}]
	// ids is where the ids the writer makes are (madeID, uniqueID),
	// each made in idBytes first.
	ids     strblock.Room
	idBytes []byte
}

// NewWriter returns a writer of one ATIF document of the version
// opt.ATIFVersion asks for.
func NewWriter(w io.Writer, rep *model.Report, opt model.Options) (*Writer, error) {
	return newWriter(w, rep, opt, false)
}

// NewJSONLWriter returns a writer of ATIF-JSONL: a `__header__` line and
// one step per line.
func NewJSONLWriter(w io.Writer, rep *model.Report, opt model.Options) (*Writer, error) {
	return newWriter(w, rep, opt, true)
}

func newWriter(w io.Writer, rep *model.Report, opt model.Options, jsonl bool) (*Writer, error) {
	ver, err := ParseVersion(opt.ATIFVersion)
	if err != nil {
		return nil, err
	}
	wr := &Writer{jsonl: jsonl, ver: ver, rep: rep, opt: opt, out: bufio.NewWriterSize(w, 64<<10), openCalls: map[string]waiting{}, late: recent.New[struct{}](4096), ids: strblock.New(1024, 128)}
	keysMade.Do(makeKeys)
	if !jsonl {
		// A step is an element of the root's steps list.
		wr.stepBuf.Indent(2)
	}
	return wr, nil
}

// Write writes s as one ATIF document.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	wr, err := NewWriter(w, rep, opt)
	if err != nil {
		return err
	}
	return model.Replay(s, wr)
}

// WriteJSONL writes s as ATIF-JSONL.
func WriteJSONL(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	wr, err := NewJSONLWriter(w, rep, opt)
	if err != nil {
		return err
	}
	return model.Replay(s, wr)
}

func (wr *Writer) write(b []byte) {
	if wr.err == nil {
		_, wr.err = wr.out.Write(b)
	}
}

// Event implements model.Sink.
func (wr *Writer) Event(h *model.Header, e *model.Event) error {
	if !wr.begun {
		wr.begin(h)
	}
	wr.add(e, wr.ledger.Add(e))
	if wr.same && e.Kind != model.KindPassthrough {
		wr.restoreExtra(e)
	}
	// Otherwise the event's extra fields are in its rest.
	wr.release(false)
	return wr.err
}

// End implements model.Sink: the held steps, then final_metrics.
func (wr *Writer) End(h *model.Header) error {
	wr.h = h
	if !wr.begun {
		wr.begin(h)
	}
	wr.release(true)
	if wr.written == 0 {
		// Not the source's: a writer from another format says so (an
		// event of its own that is none), and the reader leaves it out.
		wr.held = append(wr.held, &step{source: "system", message: "empty session", orphans: !wr.same})
		if wr.same {
			wr.rep.Lose(model.LossSynthesized, "system", "a system step (ATIF needs at least one step)", model.Loc{})
		}
		wr.release(true)
	}
	wr.end()
	if wr.err != nil {
		return wr.err
	}
	return wr.out.Flush()
}

// release writes the held steps that are ready: those before the last
// one whose calls have their results, all of them at the end, and the
// oldest ones whatever they wait for when too many are held.
func (wr *Writer) release(all bool) {
	done := 0 // steps written, the first of held
	for done < len(wr.held) {
		s := wr.held[done]
		left := len(wr.held) - done
		ready := all || left > 1 && s.open() == 0
		if !ready && (left > maxHeldSteps || wr.heldBytes > maxHeldBytes) {
			ready = true
			if n := s.open(); n > 0 {
				wr.rep.Add(model.LossMoved, fmt.Sprintf("step written before the results of its tool calls (more than %d steps or %d MB came first); later results go on a system step", maxHeldSteps, maxHeldBytes>>20), s.loc)
			}
		}
		if !ready {
			break
		}
		done++
		wr.heldBytes -= s.size
		for i := range s.calls {
			// (A second call of one id finds s gone from its list.)
			id := s.calls[i].orig
			w := wr.openCalls[id]
			if w.first != s {
				continue
			}
			for w.first == s {
				w.pop()
				if !all {
					wr.late.Set(id, struct{}{})
				}
			}
			if w.first == nil {
				delete(wr.openCalls, id)
			} else {
				wr.openCalls[id] = w
			}
		}
		wr.writeStep(s)
		wr.recycle(s)
	}
	if done > 0 {
		wr.dropWritten(done)
	}
}

// dropWritten takes the first n steps, written, out of held: the ones
// left move to its start, so that held's array is reused (not walked
// forward by reslicing, which makes a new array every few appends).
func (wr *Writer) dropWritten(n int) {
	left := copy(wr.held, wr.held[n:])
	clear(wr.held[left:])
	wr.held = wr.held[:left]
	if left == 0 {
		wr.heldBytes = 0
	}
}

// eventSize is about how much memory an event holds while its step waits.
func eventSize(e *model.Event) int {
	n := 200 + len(e.Text) + len(e.Signature) + len(e.Raw) + len(e.Parts)
	if e.Call != nil {
		n += len(e.Call.Input) + len(e.Call.Summary)
	}
	if e.Result != nil {
		n += len(e.Result.Content) + len(e.Result.ContentRaw)
	}
	for _, f := range e.Extra {
		n += len(f.Key) + len(f.Value)
	}
	return n
}

// begin writes what comes before the steps: the root's identity, agent
// and the header fields ATIF has no place for (root extra), or the JSONL
// header line.
func (wr *Writer) begin(h *model.Header) {
	wr.begun = true
	wr.h = h
	// A session first read from ATIF (not one an ATIF file holds that was
	// written from another format) has its ATIF fields to restore.
	first, _ := h.First()
	wr.same = first == Name || first == NameJSONL
	var b jsonw.Buf
	if !wr.jsonl {
		b.Indent(0)
	}
	o := b.Begin()
	if wr.jsonl {
		o.Bool("__header__", true)
	}
	o.Str("schema_version", fmt.Sprintf("ATIF-v1.%d", wr.ver))
	o.Str("session_id", wr.required(h.ID, "id", "session_id \"unknown\" (the source has none)"))
	o.Key("agent")
	wr.agent(&b, h)
	if wr.jsonl {
		started := h.Started
		if started == "" {
			started = wr.opt.Time().Format(time.RFC3339Nano)
			wr.madeUp = append(wr.madeUp, "started")
		}
		o.Str("created_at", started)
	}
	if notes, ok := h.Extra.Get("atif.notes"); ok {
		o.Raw("notes", notes)
	}
	wr.rootKeys = map[string]bool{}
	for _, f := range h.Extra {
		if k, ok := rootKey(f.Key, wr.ver); ok {
			o.Raw(k, f.Value)
			wr.rootKeys[f.Key] = true
		}
	}
	wr.rootExtra = wr.headerExtra(h, true)
	if len(wr.rootExtra) > 0 {
		o.Key("extra")
		wr.rootExtra.WriteJSON(&b)
	}
	if wr.jsonl {
		tot := h.Totals
		if tot == nil && !wr.same {
			tot = wr.opt.Totals // from a reading before this one
			wr.totalsStated = tot != nil && wr.opt.TotalsStated
		}
		if tot != nil || h.CostUSD != nil {
			var sum model.Usage
			if tot != nil {
				sum = *tot
				wr.totalsWritten = true
			}
			o.Key("final_metrics")
			wr.finalMetrics(&b, sum, tot != nil, false, nil)
			wr.costWritten = h.CostUSD != nil
		}
		o.End()
		b.WriteByte('\n')
	} else {
		o.Key("steps")
		b.List() // its elements are the steps, each a piece of its own (writeStep)
	}
	wr.write(b.Bytes())
}

// required is v, a value ATIF requires, or "unknown" where the source has
// none: then the header's key is listed as made up (so that reading the
// file back leaves it unset) and the loss report says so in loss.
func (wr *Writer) required(v, key, loss string) string {
	if v != "" {
		return v
	}
	wr.madeUp = append(wr.madeUp, key)
	wr.rep.Add(model.LossSynthesized, loss, model.Loc{})
	return "unknown"
}

// agent writes the agent object.
func (wr *Writer) agent(b *jsonw.Buf, h *model.Header) {
	a := b.Begin()
	a.Str("name", wr.required(h.AgentName, "agent", "agent.name \"unknown\""))
	a.Str("version", wr.required(h.AgentVersion, "agent_version", "agent.version \"unknown\" (required by ATIF)"))
	if h.Model != "" {
		a.Str("model_name", h.Model)
	}
	for _, f := range h.Extra {
		if k, ok := strings.CutPrefix(f.Key, "agent."); ok {
			if k == "extra" || k == "tool_definitions" && wr.ver >= 5 {
				a.Raw(k, f.Value)
			} else {
				wr.rep.Lose(model.LossDroppedField, "header.extra."+f.Key, "agent field "+k, model.Loc{})
			}
		}
	}
	a.End()
}

// rootKey is the root key a header extra from an ATIF source goes back
// to, when the target version has it.
func rootKey(key string, ver int) (string, bool) {
	k, ok := strings.CutPrefix(key, "atif.")
	if !ok {
		return "", false
	}
	return k, ver >= 7 && (k == "trajectory_id" || k == "subagent_trajectories") || k == "continued_trajectory_ref"
}

// headerSubject is the loss subject of a root extra key.
func headerSubject(key string) string {
	switch key {
	case "repo_sha", "branch", "cwd", "prompt", "outcome":
		return "header." + key
	case "started_at":
		return "header.started"
	case "ended_at":
		return "header.ended"
	case "source_format", "source_version", "made_up":
		return ""
	}
	return "header.extra." + key
}

// headerExtra is root extra: the header fields ATIF has no place for;
// report says to report what a lower version moves there.
func (wr *Writer) headerExtra(h *model.Header, report bool) model.Fields {
	var extra model.Fields
	if format, version := h.First(); format != "" && !wr.same {
		extra.SetString("source_format", format)
		if version != "" {
			extra.SetString("source_version", version)
		}
	}
	if len(wr.madeUp) > 0 {
		extra.SetAny("made_up", wr.madeUp)
	}
	for _, kv := range [][2]string{{"repo_sha", h.RepoSHA}, {"branch", h.Branch}, {"cwd", h.Cwd}, {"prompt", h.Prompt}, {"started_at", h.Started}, {"ended_at", h.Ended}} {
		if kv[1] != "" {
			extra.SetString(kv[0], kv[1])
		}
	}
	if out := h.Outcome; out != nil {
		extra.Set("outcome", model.MustJSON(out))
	}
	for _, f := range h.Extra {
		switch {
		case strings.HasPrefix(f.Key, "agent."), strings.HasPrefix(f.Key, "final_metrics."), f.Key == "atif.notes":
		case strings.HasPrefix(f.Key, "atif."):
			if _, root := rootKey(f.Key, wr.ver); !root {
				extra.Set(strings.TrimPrefix(f.Key, "atif."), f.Value)
			}
			if _, root7 := rootKey(f.Key, 7); root7 && wr.ver < 7 && report {
				wr.rep.LoseRemedy(model.LossMoved, "header.extra."+f.Key+", header.extra."+strings.TrimPrefix(f.Key, "atif."), "root field "+strings.TrimPrefix(f.Key, "atif.")+" moved to extra (an ATIF-v1.7 field)", model.Loc{}, "write --atif-version 1.7 to keep it in place")
			}
		default:
			extra.Set(f.Key, f.Value)
		}
	}
	return extra
}

// end writes what follows the steps: final_metrics, with the header
// fields learned after the start in its extra.
func (wr *Writer) end() {
	h := wr.h
	var late model.Fields
	for _, f := range wr.headerExtra(h, false) {
		if v, ok := wr.rootExtra.Get(f.Key); !ok || !bytes.Equal(v, f.Value) {
			late = append(late, f)
		}
	}
	tot, haveTot := model.Totals(h, &wr.ledger)
	if wr.jsonl {
		for _, f := range late {
			wr.rep.Lose(model.LossDroppedField, headerSubject(f.Key), "header field "+f.Key+" (known only after the steps; ATIF-JSONL writes its header first)", model.Loc{})
		}
		if v, ok := h.Extra.Get("final_metrics.total_steps"); ok && wr.same {
			wr.rep.Lose(model.LossDroppedField, "header.extra.final_metrics.total_steps", "final_metrics.total_steps "+string(v)+" (ATIF-JSONL has no final_metrics after the steps)", model.Loc{})
		}
		if h.CostUSD != nil && !wr.costWritten {
			wr.rep.Lose(model.LossDroppedField, "header.cost", "final_metrics.total_cost_usd: the source's cost, stated after its events (ATIF-JSONL writes its header first)", model.Loc{})
		}
		if h.Totals != nil && !wr.totalsWritten {
			wr.rep.Lose(model.LossDroppedField, "header.totals", "final_metrics: the source's totals, stated after its events (ATIF-JSONL writes its header first; the steps' metrics add up)", model.Loc{})
		}
		return
	}
	var b jsonw.Buf
	b.Indent(2)
	b.ContinueList(wr.written).End()
	o := b.Continue(1)
	o.Key("final_metrics")
	wr.finalMetrics(&b, tot, haveTot, true, late)
	for _, f := range h.Extra {
		if k, ok := rootKey(f.Key, wr.ver); ok && !wr.rootKeys[f.Key] {
			o.Raw(k, f.Value)
		}
	}
	o.End()
	wr.write(b.Bytes())
}

// finalMetrics writes the final_metrics object.
func (wr *Writer) finalMetrics(b *jsonw.Buf, tot model.Usage, haveTot, steps bool, late model.Fields) {
	h := wr.h
	fm := b.Begin()
	wroteTotals := false
	if haveTot {
		wroteTotals = writeTokens(fm, &keys.totals, tot, func(k string) bool {
			return !wr.same || keyListed(h.TotalsKeys, k)
		})
	}
	if h.CostUSD != nil {
		fm.Float("total_cost_usd", *h.CostUSD)
	}
	if _, had := h.Extra.Get("final_metrics.total_steps"); steps && (had || !wr.same) {
		// An ATIF source without it gets none.
		fm.Int("total_steps", int64(wr.written))
	}
	var extra model.Fields
	if haveTot && tot.CacheCreate != 0 {
		extra.SetAny("cache_creation_input_tokens", tot.CacheCreate)
	}
	if wroteTotals && h.Totals == nil && !wr.totalsStated {
		// The steps' sum, which Harbor wants: the source states none.
		extra.SetAny("made_up", []string{"totals"})
	}
	for _, f := range h.Extra {
		k, ok := strings.CutPrefix(f.Key, "final_metrics.")
		switch {
		case ok && k == "total_steps" && steps && string(f.Value) != strconv.Itoa(wr.written):
			wr.rep.Lose(model.LossUnfaithful, "header.extra."+f.Key, "final_metrics.total_steps counts the steps written, not the source's "+string(f.Value), model.Loc{})
		case !ok || k == "total_steps":
		case k == "extra":
			xf, _ := model.ParseFields(f.Value)
			for _, x := range xf {
				if x.Key != "cache_creation_input_tokens" {
					extra.Set(x.Key, x.Value)
				}
			}
		default:
			extra.Set(k, f.Value)
		}
	}
	for _, f := range late {
		extra.Set(f.Key, f.Value)
	}
	if len(extra) > 0 {
		fm.Key("extra")
		extra.WriteJSON(b)
	}
	fm.End()
}

// writeStep writes one step, numbered next.
func (wr *Writer) writeStep(s *step) {
	wr.written++
	id := wr.written
	if s.origStep != 0 && s.origStep != int64(id) && wr.same {
		// From another format, each event's number is in its rest.
		wr.rep.Lose(model.LossRenumbered, "*.step", "step_id renumbered 1..N", s.loc)
	}
	b := &wr.stepBuf // reused: written out before the next is built
	b.Reset()
	if !wr.jsonl {
		b.ContinueList(id - 1).Next()
	}
	encodeStep(b, s, id, wr.ver, wr.rep, wr.same, &wr.room)
	if wr.jsonl {
		b.WriteByte('\n')
	}
	wr.write(b.Bytes())
}

// normalizeTime makes a timestamp acceptable to Harbor (Python
// fromisoformat): at most 6 fraction digits. Other invalid values are
// dropped and reported. The events of a step written from another format
// keep their own times in their rests: only an ATIF source loses what is
// cut.
// out is stepTime(ts).
func normalizeTime(ts, out string, loc model.Loc, rep *model.Report, same bool) string {
	switch {
	case out == ts || !same:
	case out == "":
		rep.Lose(model.LossDroppedField, "*.time", "timestamp that is not ISO 8601", loc)
	default:
		rep.Lose(model.LossTruncated, "*.time", "timestamp precision beyond microseconds", loc)
	}
	return out
}

// stepTime is ts as a step's timestamp: at most 6 fraction digits, and ""
// when it is not ISO 8601.
func stepTime(ts string) string {
	if ts == "" {
		return ""
	}
	if dot := strings.IndexByte(ts, '.'); dot > 0 {
		end := dot + 1
		for end < len(ts) && ts[end] >= '0' && ts[end] <= '9' {
			end++
		}
		if end-dot-1 > 6 {
			ts = ts[:dot+7] + ts[end:]
		}
	}
	if !ValidTimestamp(ts) {
		return ""
	}
	return ts
}

// stepRoom is where encodeStep makes what a step's extra adds to the
// extra the step holds, reused from step to step: the extra itself (a
// copy of the step's with the members added), the values of the members
// added (tool_errors, tool_statuses, message_id), a compact step's
// rests, and a result's extra (from v1.7).
type stepRoom struct {
	extra, statuses, resultExtra         model.Fields
	errIDs                               []string
	errJSON, statusJSON, msgID, resultSt []byte
	rests                                jsonw.Buf
}

// done lets go of what the step's extra referred to (the step's values,
// the events').
func (x *stepRoom) done() {
	clear(x.extra)
	clear(x.statuses)
	clear(x.resultExtra)
	clear(x.errIDs)
	x.extra, x.statuses, x.resultExtra, x.errIDs = x.extra[:0], x.statuses[:0], x.resultExtra[:0], x.errIDs[:0]
}

// appendJSONString appends s as model.MustJSON(s) writes it (encoding/json
// without HTML escaping): as jsonw.AppendString does, but for the
// characters the two write differently (\b, \f, U+2028 and U+2029, whose
// encoding starts with 0xe2), which go to MustJSON.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\b' || c == '\f' || c == 0xe2 {
			return append(dst, model.MustJSON(s)...)
		}
	}
	return jsonw.AppendString(dst, s)
}

// appendJSONStrings appends list (not empty) as model.MustJSON(list)
// writes it.
func appendJSONStrings(dst []byte, list []string) []byte {
	dst = append(dst, '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// encodeStep writes one step: its message, the agent's fields, the
// observation and the metrics. x is where the step's extra is made (see
// below).
func encodeStep(b *jsonw.Buf, st *step, id, ver int, rep *model.Report, same bool, x *stepRoom) {
	o := b.Begin()
	o.IntAt(&keys.stepID, int64(id))
	if ts := normalizeTime(st.time, st.timestamp(), st.loc, rep, same); ts != "" {
		o.StrAt(&keys.timestamp, ts)
	}
	o.StrAt(&keys.source, st.source)
	msg := st.message
	if st.source == "agent" {
		msg = strings.Join(st.texts, "\n\n")
	}
	if len(st.parts) > 0 {
		o.RawAt(&keys.message, st.parts)
	} else {
		o.StrAt(&keys.message, msg)
	}
	if st.source == "agent" {
		encodeAgent(b, o, st)
	}
	// The step's extra with the members added (Set, as on a copy of it).
	stepExtra := append(x.extra[:0], st.extra...)
	if len(st.results) > 0 {
		encodeObservation(b, o, st, ver, rep, x)
		if len(x.errIDs) > 0 {
			x.errJSON = appendJSONStrings(x.errJSON[:0], x.errIDs)
			stepExtra.Set("tool_errors", x.errJSON)
		}
		if len(x.statuses) > 0 {
			x.statusJSON = x.statuses.AppendJSON(x.statusJSON[:0])
			stepExtra.Set("tool_statuses", x.statusJSON)
		}
	}
	if _, ok := st.usageOf(); st.source == "agent" && (ok || len(st.metricExtra) > 0) {
		encodeMetrics(b, o, st)
	}
	for _, f := range st.fields {
		o.Raw(f.Key, f.Value)
	}
	if st.msgID != "" {
		x.msgID = appendJSONString(x.msgID[:0], st.msgID)
		stepExtra.Set("message_id", x.msgID)
	}
	switch {
	case hasRests(st) && b.Indenting():
		o.KeyAt(&keys.extra)
		if !writeStepExtra(b, stepExtra, st) {
			stepExtra.WriteJSONWith(b, "rests", func(b *jsonw.Buf) { writeRests(b, st) })
		}
	case hasRests(st):
		o.KeyAt(&keys.extra)
		writeCompactExtra(b, &stepExtra, st, x)
	case len(stepExtra) > 0:
		o.Key("extra")
		stepExtra.WriteJSON(b)
	}
	o.End()
	x.extra = stepExtra
	x.done()
}

// stepKeySet is the keys of a step and what it holds, each in its indented
// form at the depth of the object it stands in (jsonw.Key): a step's (3,
// in the root's steps list), its observation's and metrics' (4), a tool
// call's (5), a result's (6); and the token counts' writeTokens writes,
// in its order: a step's metrics' (4, tokens) and final_metrics' (an
// object of the root, totals). ATIF-JSONL's compact steps write them as
// Str and Key do.
type stepKeySet struct {
	stepID, timestamp, source, message, modelName, reasoningContent jsonw.Key
	toolCalls, observation, metrics, extra                          jsonw.Key
	results                                                         jsonw.Key
	toolCallID, functionName, arguments, callExtra                  jsonw.Key
	sourceCallID, content, subagentRef, resultExtra                 jsonw.Key
	tokens, totals                                                  [3]jsonw.Key
	extraKeys                                                       [len(extraKeyNames)]jsonw.Key
}

// keys are the step keys, made by makeKeys when the first writer is
// (keysMade): a process that writes no ATIF makes none at its start.
// Every writer reads them after its keysMade.Do, which happens after
// makeKeys wrote them, and at the fixed place it did (no pointer to
// load at each key).
var (
	keys     stepKeySet
	keysMade sync.Once
)

func makeKeys() {
	keys = stepKeySet{
		stepID: jsonw.NewKey("step_id", 3), timestamp: jsonw.NewKey("timestamp", 3),
		source: jsonw.NewKey("source", 3), message: jsonw.NewKey("message", 3),
		modelName: jsonw.NewKey("model_name", 3), reasoningContent: jsonw.NewKey("reasoning_content", 3),
		toolCalls: jsonw.NewKey("tool_calls", 3), observation: jsonw.NewKey("observation", 3),
		metrics: jsonw.NewKey("metrics", 3), extra: jsonw.NewKey("extra", 3),
		results:    jsonw.NewKey("results", 4),
		toolCallID: jsonw.NewKey("tool_call_id", 5), functionName: jsonw.NewKey("function_name", 5),
		arguments: jsonw.NewKey("arguments", 5), callExtra: jsonw.NewKey("extra", 5),
		sourceCallID: jsonw.NewKey("source_call_id", 6), content: jsonw.NewKey("content", 6),
		subagentRef: jsonw.NewKey("subagent_trajectory_ref", 6), resultExtra: jsonw.NewKey("extra", 6),
		tokens: [3]jsonw.Key{jsonw.NewKey("prompt_tokens", 4), jsonw.NewKey("completion_tokens", 4), jsonw.NewKey("cached_tokens", 4)},
		totals: [3]jsonw.Key{jsonw.NewKey("total_prompt_tokens", 2), jsonw.NewKey("total_completion_tokens", 2), jsonw.NewKey("total_cached_tokens", 2)},
	}
	for i, k := range extraKeyNames {
		keys.extraKeys[i] = jsonw.NewKey(k, 4)
	}
	for k := range kindsJSON {
		kindsJSON[k] = model.MustJSON(model.Kind(k).String())
	}
}

// writeStepExtra writes an indented step's extra with its rests, as
// extra.WriteJSONWith(b, "rests", writeRests) writes it, each key stored
// at the extra's depth (keys.extraKeys, by extraKey), when every key of
// the extra is one of those; it reports whether it wrote it (false, and
// nothing written, when a key is another).
func writeStepExtra(b *jsonw.Buf, extra model.Fields, st *step) bool {
	for _, f := range extra {
		if extraKey(f.Key) < 0 {
			return false
		}
	}
	x := b.Begin()
	rests := &keys.extraKeys[0]
	written := false
	for _, f := range extra {
		k := &keys.extraKeys[extraKey(f.Key)]
		if k == rests {
			x.KeyAt(rests)
			writeRests(b, st)
			written = true
			continue
		}
		x.RawAt(k, f.Value)
	}
	if !written {
		x.KeyAt(rests)
		writeRests(b, st)
	}
	x.End()
	return true
}

// extraKeyNames are the keys of a step's extra the writer stores
// (keys.extraKeys, at the extra's depth, 4), rests first: those it adds
// (rests, tool_errors, tool_statuses, message_id) and those the steps
// it makes of other formats' events have (extraKey says where each is).
var extraKeyNames = [...]string{"rests", "tool_errors", "tool_statuses", "message_id", "signature", "event", "record_type", "record", "subagent", "name", "todos", "model", "orphan_call_id"}

// extraKey is where key is in extraKeyNames, or -1.
func extraKey(key string) int {
	switch key {
	case "rests":
		return 0
	case "tool_errors":
		return 1
	case "tool_statuses":
		return 2
	case "message_id":
		return 3
	case "signature":
		return 4
	case "event":
		return 5
	case "record_type":
		return 6
	case "record":
		return 7
	case "subagent":
		return 8
	case "name":
		return 9
	case "todos":
		return 10
	case "model":
		return 11
	case "orphan_call_id":
		return 12
	}
	return -1
}

// hasRests reports whether the step has an extra.rests (writeRests): its
// source is not ATIF.
func hasRests(st *step) bool {
	if st.source == "agent" {
		for _, c := range st.calls {
			if c.rest.e != nil {
				return true
			}
		}
		if len(st.thinkRests) > 0 || len(st.textRests) > 0 {
			return true
		}
	} else if st.ownRest.e != nil || st.orphans {
		return true
	}
	for _, r := range st.results {
		if r.rest.e != nil {
			return true
		}
	}
	return false
}

// writeCompactExtra writes a compact (ATIF-JSONL) step's extra with its
// rests, as writeCompactExtraCopied writes it: where no raw value in the
// rests has white space between its tokens (restsSpaced), the rests are
// written where they stand (Fields.WriteJSONWith), compact as
// Fields.AppendJSON would make them; else they are made apart and the
// extra compacted whole. (A rest's own extra is compacted whole where it
// is written, as AppendJSON does.)
func writeCompactExtra(b *jsonw.Buf, extra *model.Fields, st *step, x *stepRoom) {
	if restsSpaced(st) {
		writeCompactExtraCopied(b, extra, st, x)
		return
	}
	extra.WriteJSONWith(b, "rests", func(b *jsonw.Buf) { writeRests(b, st) })
}

// writeCompactExtraCopied writes a compact step's extra with its rests
// made apart (in x) and set in (Set, as on a copy of the extra), every
// value compacted whole (Fields.AppendJSON): a value kept with spaces
// between its tokens (a call's input) loses them, as it does indented.
func writeCompactExtraCopied(b *jsonw.Buf, extra *model.Fields, st *step, x *stepRoom) {
	x.rests.Reset()
	writeRests(&x.rests, st)
	extra.Set("rests", x.rests.Bytes())
	extra.WriteJSON(b)
}

// restsSpaced reports whether a raw value of an event whose rest the step
// writes has white space between its tokens (eventRest.spaced), which the
// compact extra's Fields.AppendJSON takes out of a value and a compact
// rest written where it stands keeps.
func restsSpaced(st *step) bool {
	if st.source == "agent" {
		for i := range st.thinkRests {
			if st.thinkRests[i].spaced {
				return true
			}
		}
		for i := range st.textRests {
			if st.textRests[i].spaced {
				return true
			}
		}
		for i := range st.calls {
			if st.calls[i].rest.spaced {
				return true
			}
		}
	} else if st.ownRest.spaced {
		return true
	}
	for i := range st.results {
		if st.results[i].rest.spaced {
			return true
		}
	}
	return false
}

// writeRests writes the step's extra.rests where it goes in b: the rest of
// each event the step was made of (model.WriteRestCarried), in the order the
// reader makes events of the step (its own event, or its thinking, text
// and calls; then its results), with null for a system step that has no
// event of its own. Each is written indented where it stands, not made
// apart and indented again.
func writeRests(b *jsonw.Buf, st *step) {
	l := b.List()
	if st.source == "agent" {
		u, counted := st.usageOf()
		for _, r := range st.thinkRests {
			l.Next()
			r.write(b, u, counted)
		}
		for _, r := range st.textRests {
			l.Next()
			r.write(b, u, counted)
		}
		for _, c := range st.calls {
			if c.rest.e != nil {
				l.Next()
				c.rest.write(b, u, counted)
			}
		}
	} else if st.ownRest.e != nil {
		l.Next()
		st.ownRest.write(b, model.Usage{}, false)
	} else if st.orphans {
		l.Next()
		b.Raw([]byte("null"))
	}
	for _, r := range st.results {
		if r.rest.e != nil {
			l.Next()
			r.rest.write(b, model.Usage{}, false)
		}
	}
	l.End()
}

// encodeAgent writes an agent step's model, reasoning and tool calls.
func encodeAgent(b *jsonw.Buf, o *jsonw.Obj, st *step) {
	if st.model != "" {
		o.StrAt(&keys.modelName, st.model)
	}
	if len(st.reasoning) > 0 {
		o.StrAt(&keys.reasoningContent, strings.Join(st.reasoning, "\n\n"))
	}
	if len(st.calls) == 0 {
		return
	}
	o.KeyAt(&keys.toolCalls)
	l := b.List()
	for _, c := range st.calls {
		l.Next()
		co := b.Begin()
		co.StrAt(&keys.toolCallID, c.id)
		co.StrAt(&keys.functionName, c.name)
		co.RawAt(&keys.arguments, c.args)
		if len(c.extra) > 0 {
			co.RawAt(&keys.callExtra, c.extra)
		}
		co.End()
	}
	l.End()
}

// encodeObservation writes a step's results; it puts in x the ids of
// failed calls (errIDs) and the statuses of results (statuses, by call
// id, or by orphan_call_id for a result without a call), which versions
// before 1.7 keep in the step's extra (a result has no extra there).
func encodeObservation(b *jsonw.Buf, o *jsonw.Obj, st *step, ver int, rep *model.Report, x *stepRoom) {
	o.KeyAt(&keys.observation)
	ob := b.Begin()
	ob.KeyAt(&keys.results)
	l := b.List()
	for i := range st.results {
		r := &st.results[i]
		l.Next()
		ro := b.Begin()
		if r.hasCall {
			ro.StrAt(&keys.sourceCallID, r.callID)
		}
		if len(r.parts) > 0 {
			ro.RawAt(&keys.content, r.parts)
		} else {
			ro.StrAt(&keys.content, r.content)
		}
		if len(r.refs) > 0 {
			ro.RawAt(&keys.subagentRef, r.refs)
		}
		if r.status != "" && ver < 7 {
			key := r.callID
			if !r.hasCall {
				key, _ = st.extra.String("orphan_call_id")
			}
			x.statuses.SetString(key, r.status)
		}
		switch {
		case len(r.extra) == 0 && !r.isError && r.status == "":
			// No extra.
		case ver >= 7:
			// The result's extra with is_error and status (Set, as on
			// a copy of it).
			rx := append(x.resultExtra[:0], r.extra...)
			if r.isError {
				rx.Set("is_error", json.RawMessage("true"))
			}
			if r.status != "" {
				x.resultSt = appendJSONString(x.resultSt[:0], r.status)
				rx.Set("status", x.resultSt)
			}
			ro.KeyAt(&keys.resultExtra)
			rx.WriteJSON(b)
			clear(rx)
			x.resultExtra = rx[:0]
		default:
			if r.isError {
				x.errIDs = append(x.errIDs, r.callID)
			}
			if len(r.extra) > 0 {
				rep.LoseRemedy(model.LossDroppedField, "tool_result.extra.result.extra", "observation result extra (needs ATIF-v1.7)", st.loc, "write --atif-version 1.7 to keep it")
			}
		}
		ro.End()
	}
	l.End()
	ob.End()
}

// writeTokens writes the token counts of u an ATIF metrics object has
// (prompt, completion and cached, named as names says: a step's metrics'
// or final_metrics' total_ ones), those that has allows; it reports
// whether it wrote any.
func writeTokens(o *jsonw.Obj, names *[3]jsonw.Key, u model.Usage, has func(key string) bool) (wrote bool) {
	for i, n := range [3]int64{u.Prompt(), u.Output, u.CacheRead} {
		if k := &names[i]; has(k.String()) {
			o.IntAt(k, n)
			wrote = true
		}
	}
	return wrote
}

// keyListed reports whether key is in keys, the comma-separated keys an
// ATIF source's object had (kept so that ATIF -> ATIF writes those only);
// an empty list, a source that was not ATIF, allows every key.
func keyListed(keys, key string) bool {
	return keys == "" || strings.Contains(","+keys+",", ","+key+",")
}

// encodeMetrics writes an agent step's metrics.
func encodeMetrics(b *jsonw.Buf, o *jsonw.Obj, st *step) {
	o.KeyAt(&keys.metrics)
	m := b.Begin()
	var mxf model.Fields
	if mx, ok := st.metricExtra.Get("extra"); ok {
		mxf, _ = model.ParseFields(mx)
	}
	if u, ok := st.usageOf(); ok {
		writeTokens(m, &keys.tokens, u, func(k string) bool { return keyListed(st.keys, k) })
		if u.CacheCreate != 0 {
			mxf.SetAny("cache_creation_input_tokens", u.CacheCreate)
		}
	}
	for _, f := range st.metricExtra {
		if f.Key != "extra" {
			m.Raw(f.Key, f.Value)
		}
	}
	if len(mxf) > 0 {
		m.Key("extra")
		mxf.WriteJSON(b)
	}
	m.End()
}

// restoreExtra puts the fields an ATIF reader kept in e.Extra back where
// they came from, so ATIF -> ATIF keeps them.
func (wr *Writer) restoreExtra(e *model.Event) {
	s := wr.cur()
	if s == nil {
		return
	}
	for _, f := range e.Extra {
		switch {
		case f.Key == "atif.observation":
			wr.rep.Lose(model.LossUnfaithful, e.Kind.String()+".extra."+f.Key, "a non-conformant observation (without results[]) written as results[]", e.Loc)
		case f.Key == "subagent_trajectory_ref", f.Key == "result.extra", f.Key == "tool_call.extra", f.Key == "tool_errors":
			// Handled with the call or result.
		case strings.HasPrefix(f.Key, "atif."):
			k := strings.TrimPrefix(f.Key, "atif.")
			min, known := stepKeys[k]
			switch {
			case known && min <= wr.ver && (s.source == "agent" || k != "reasoning_effort"):
				s.fields.Set(k, f.Value)
			case known && min > wr.ver:
				s.extra.Set(k, f.Value)
				wr.rep.LoseRemedy(model.LossMoved, e.Kind.String()+".extra."+f.Key+", "+e.Kind.String()+".extra."+k, "step field "+k+" moved to step extra (not in this ATIF version)", e.Loc, fmt.Sprintf("write --atif-version 1.%d to keep it in place", min))
			default:
				s.extra.Set(k, f.Value)
				wr.rep.Lose(model.LossMoved, e.Kind.String()+".extra."+f.Key+", "+e.Kind.String()+".extra."+k, "step field "+k+" moved to step extra (not in this ATIF version)", e.Loc)
			}
		case strings.HasPrefix(f.Key, "metrics."):
			k := strings.TrimPrefix(f.Key, "metrics.")
			min, known := metricKeys[k]
			switch {
			case known && min <= wr.ver && s.source == "agent":
				s.metricExtra.Set(k, f.Value)
			case known && min > wr.ver:
				wr.rep.LoseRemedy(model.LossDroppedField, e.Kind.String()+".extra."+f.Key, "metrics field "+k, e.Loc, fmt.Sprintf("write --atif-version 1.%d to keep it", min))
			default:
				wr.rep.Lose(model.LossDroppedField, e.Kind.String()+".extra."+f.Key, "metrics field "+k, e.Loc)
			}
		default:
			s.extra.Set(f.Key, f.Value)
		}
	}
}

var metricKeys = map[string]int{"cost_usd": 0, "logprobs": 0, "completion_token_ids": 3, "prompt_token_ids": 4, "extra": 0}

// isParts reports whether raw is a list of ATIF content parts.
func isParts(raw json.RawMessage) bool {
	var parts []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return false
	}
	for _, p := range parts {
		if p.Type != "text" && p.Type != "image" {
			return false
		}
	}
	return true
}
