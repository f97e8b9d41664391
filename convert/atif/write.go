package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
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

type result struct {
	parts   json.RawMessage // v1.6 content parts, when the source had them
	callID  string
	hasCall bool
	content string
	isError bool
	refs    json.RawMessage
	extra   model.Fields
}

type toolCall struct {
	id, name string
	args     json.RawMessage
	extra    json.RawMessage
}

type step struct {
	parts       json.RawMessage // v1.6 message content parts
	fields      model.Fields    // step-level fields beyond the core ones (reasoning_effort, ...)
	metricExtra model.Fields    // metrics fields beyond the token counts
	source      string
	time        string
	message     string
	model       string
	reasoning   []string
	texts       []string
	calls       []toolCall
	results     []result
	usage       *model.Usage
	msgIDs      map[string]bool
	extra       model.Fields
	key         string // grouping key of an agent step
	srcID       string // ID of the first event, to keep a source step\'s parts together
	present     string // metric keys the source step had ("" = write all)
	loc         model.Loc
	origStep    int64
	renamed     map[string][]string // original call id -> unique ids in order
	closed      bool                // no more events join (a user or system step came after)
}

// builder groups events into ATIF steps.
type builder struct {
	ver    int
	rep    *model.Report
	steps  []*step
	callAt map[string]int // call id -> index of the latest step that has it
}

func (b *builder) cur() *step {
	if len(b.steps) == 0 {
		return nil
	}
	return b.steps[len(b.steps)-1]
}

func groupKey(e *model.Event) string {
	if e.MessageID != "" {
		return "m:" + e.MessageID
	}
	return ""
}

func (b *builder) newStep(source string, e *model.Event) *step {
	s := &step{source: source, time: e.Time, loc: e.Loc, origStep: e.Step, model: e.Model, srcID: e.ID}
	if p, ok := e.Extra.String("_metrics_present"); ok {
		s.present = p
	}
	b.steps = append(b.steps, s)
	return s
}

// agentStep returns the agent step e joins, starting one when needed: a new
// model response (another message id) or anything between starts a step.
func (b *builder) agentStep(e *model.Event) *step {
	s := b.cur()
	k := groupKey(e)
	if s != nil && s.source == "agent" && !s.closed && (k == "" || s.key == "" || s.key == k) {
		if k != "" {
			s.key = k
		}
		return s
	}
	s = b.newStep("agent", e)
	s.key = k
	return s
}

func (b *builder) add(e *model.Event) {
	if s := b.cur(); s != nil && s.time == "" {
		s.time = e.Time
	}
	switch e.Kind {
	case model.KindThinking:
		s := b.agentStep(e)
		if len(s.texts) > 0 || len(s.calls) > 0 {
			// Reasoning after text or calls belongs to the next turn.
			s.closed = true
			s = b.agentStep(e)
		}
		s.reasoning = append(s.reasoning, e.Text)
		if e.Signature != "" {
			s.extra.SetString("signature", e.Signature)
		}
		b.usage(s, e)
	case model.KindAgent:
		s := b.agentStep(e)
		if len(s.calls) > 0 {
			s.closed = true
			s = b.agentStep(e)
		}
		s.texts = append(s.texts, e.Text)
		b.usage(s, e)
	case model.KindToolCall:
		s := b.agentStep(e)
		b.call(s, e)
		b.usage(s, e)
	case model.KindToolResult:
		b.result(e)
	case model.KindUser:
		s := b.newStep("user", e)
		s.message = e.Text
		if e.Usage != nil && !e.Usage.IsZero() {
			b.rep.Add(model.LossDroppedField, "token usage on a user step (metrics are agent-only)", e.Loc)
		}
		s.closed = true
	case model.KindTodos:
		if s := b.lastAgent(); s != nil {
			s.extra.SetAny("todos", e.Todos)
			return
		}
		s := b.newStep("system", e)
		s.message = "todos"
		s.extra.SetAny("todos", e.Todos)
		s.closed = true
	default:
		s := b.newStep("system", e)
		s.closed = true
		s.message = systemMessage(e)
		s.extra.SetString("event", e.Kind.String())
		switch e.Kind {
		case model.KindInit:
			s.extra.SetString("model", e.Model)
		case model.KindCompaction:
			cm := model.Fields{}
			cm.SetString("type", "compaction")
			cm.SetString("boundary", "replace")
			if e.Compaction != nil {
				if e.Compaction.Trigger != "" {
					cm.SetString("trigger", e.Compaction.Trigger)
				}
				if e.Compaction.PreTokens > 0 {
					cm.SetAny("pre_tokens", e.Compaction.PreTokens)
				}
			}
			s.extra.Set("context_management", model.MustJSON(cm))
		case model.KindSubagent:
			s.extra.Set("subagent", model.MustJSON(e.Subagent))
		case model.KindLifecycle, model.KindSystem:
			if e.Name != "" {
				s.extra.SetString("name", e.Name)
			}
		case model.KindPassthrough:
			s.extra.SetString("record_type", e.RawType)
			if len(e.Raw) > 0 {
				s.extra.Set("record", e.Raw)
			}
		}
	}
}

func systemMessage(e *model.Event) string {
	switch e.Kind {
	case model.KindInit:
		return "init model=" + e.Model
	case model.KindCompaction:
		if e.Text != "" {
			return e.Text
		}
		return "context compaction"
	case model.KindSubagent:
		sa := e.Subagent
		msg := "subagent " + sa.Type + " " + sa.Status
		if sa.Summary != "" {
			msg += ": " + sa.Summary
		}
		return strings.TrimSpace(msg)
	case model.KindLifecycle:
		if e.Text != "" {
			return strings.TrimSpace(e.Name + " " + e.Text)
		}
		return e.Name
	case model.KindPassthrough:
		return "record " + e.RawType
	}
	return e.Text
}

func (b *builder) lastAgent() *step {
	for i := len(b.steps) - 1; i >= 0; i-- {
		if b.steps[i].source == "agent" {
			return b.steps[i]
		}
	}
	return nil
}

func (b *builder) usage(s *step, e *model.Event) {
	if e.Usage == nil {
		return
	}
	if s.msgIDs == nil {
		s.msgIDs = map[string]bool{}
	}
	id := e.MessageID
	if id == "" {
		// Without a message id, repeated usage on the events of one step is
		// the same response's: keep the counter-wise maximum.
		id = "\x00step"
	}
	if s.usage == nil {
		u := *e.Usage
		s.usage = &u
		s.msgIDs[id] = true
		return
	}
	if s.msgIDs[id] {
		u := s.usage.Max(*e.Usage)
		s.usage = &u
		return
	}
	s.msgIDs[id] = true
	u := s.usage.Add(*e.Usage)
	s.usage = &u
}

func (b *builder) call(s *step, e *model.Event) {
	id := e.Call.ID
	orig := id
	taken := func(x string) bool {
		for _, c := range s.calls {
			if c.id == x {
				return true
			}
		}
		return false
	}
	if id == "" {
		id = fmt.Sprintf("call_%d_%d", len(b.steps), len(s.calls)+1)
		b.rep.Add(model.LossSynthesized, "tool_call_id for a call without an id", e.Loc)
	}
	if taken(id) {
		n := 2
		for taken(fmt.Sprintf("%s#%d", orig, n)) {
			n++
		}
		id = fmt.Sprintf("%s#%d", orig, n)
		b.rep.Add(model.LossIDUnique, "duplicate tool call id in one step made unique as <id>#n", e.Loc)
	}
	if s.renamed == nil {
		s.renamed = map[string][]string{}
	}
	s.renamed[orig] = append(s.renamed[orig], id)
	args := e.Call.Input
	if len(bytes.TrimSpace(args)) == 0 || args[0] != '{' {
		if len(args) > 0 && string(args) != "null" {
			wrapped := model.Fields{{Key: "input", Value: args}}
			args = model.MustJSON(wrapped)
			b.rep.Add(model.LossDroppedField, "non-object tool input wrapped as {\"input\": ...}", e.Loc)
		} else {
			args = json.RawMessage("{}")
		}
	}
	if e.Call.Summary != "" && len(e.Call.Input) == 0 {
		s.extra.SetString("rlog_args", e.Call.Summary)
	}
	tc := toolCall{id: id, name: e.Call.Name, args: args}
	if x, ok := e.Extra.Get("tool_call.extra"); ok {
		if b.ver >= 7 {
			tc.extra = x
		} else {
			b.rep.Add(model.LossDroppedField, "tool call extra (needs ATIF-v1.7)", e.Loc)
		}
	}
	s.calls = append(s.calls, tc)
	if b.callAt == nil {
		b.callAt = map[string]int{}
	}
	b.callAt[orig] = len(b.steps) - 1
}

func (b *builder) result(e *model.Event) {
	r := result{content: e.Result.Content, isError: e.Result.IsError}
	if raw := e.Result.ContentRaw; len(raw) > 0 && raw[0] == '[' && isParts(raw) {
		if b.ver >= 6 {
			r.parts = raw
		} else {
			b.rep.Add(model.LossDroppedField, "content parts (images) flattened to text (need ATIF-v1.6)", e.Loc)
		}
	}
	if refs, ok := e.Extra.Get("subagent_trajectory_ref"); ok {
		r.refs = refs
	}
	if x, ok := e.Extra.Get("result.extra"); ok {
		r.extra, _ = model.ParseFields(x)
	}
	if e.Result.Status != "" {
		r.extra.SetString("status", e.Result.Status)
	}
	orig := e.Result.CallID
	if cur := b.cur(); orig == "" && cur != nil && e.ID != "" && cur.srcID == e.ID {
		// A result without a call id from the same source step (terminus-2
		// writes these): it stays on that step.
		cur.results = append(cur.results, r)
		return
	}
	idx, ok := b.callAt[orig]
	if orig == "" || !ok {
		// An observation not tied to any known call: a system step, with the
		// original id kept in extra (Harbor would reject it as source_call_id).
		s := b.cur()
		if s == nil || s.source != "system" || s.closed || orig != "" {
			s = b.newStep("system", e)
			s.message = ""
		}
		s.closed = true
		if orig != "" {
			s.extra.SetString("orphan_call_id", orig)
			b.rep.Add(model.LossMoved, "observation of an unknown call id put on a system step without source_call_id", e.Loc)
		}
		s.results = append(s.results, r)
		return
	}
	s := b.steps[idx]
	if idx != len(b.steps)-1 {
		b.rep.Add(model.LossMoved, "observation moved back to the step of its tool call", e.Loc)
	}
	if q := s.renamed[orig]; len(q) > 0 {
		r.callID = q[0]
		s.renamed[orig] = q[1:]
		if len(q) == 1 {
			// Later results for the same id go to the last call with it.
			s.renamed[orig] = []string{q[0]}
			if len(s.results) > 0 {
				for _, prev := range s.results {
					if prev.callID == q[0] {
						b.rep.Add(model.LossIDUnique, "second result for one call id", e.Loc)
						break
					}
				}
			}
		}
	} else {
		r.callID = orig
	}
	r.hasCall = true
	s.results = append(s.results, r)
	if s.source == "agent" && idx == len(b.steps)-1 {
		// Text after the results starts a new model turn.
		s.closed = true
	}
}

// Write writes s as one ATIF document of the version in opt.
func Write(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	doc, err := Encode(s, rep, opt, false)
	if err != nil {
		return err
	}
	_, err = w.Write(doc)
	return err
}

// WriteJSONL writes s as ATIF-JSONL: a `__header__` line and one step per
// line.
func WriteJSONL(w io.Writer, s *model.Session, rep *model.Report, opt model.Options) error {
	doc, err := Encode(s, rep, opt, true)
	if err != nil {
		return err
	}
	_, err = w.Write(doc)
	return err
}

// Encode builds the document (or JSONL lines) in memory.
func Encode(s *model.Session, rep *model.Report, opt model.Options, asJSONL bool) ([]byte, error) {
	ver, err := ParseVersion(opt.ATIFVersion)
	if err != nil {
		return nil, err
	}
	b := &builder{ver: ver, rep: rep}
	same := s.Header.SourceFormat == Name || s.Header.SourceFormat == NameJSONL
	for i := range s.Events {
		e := &s.Events[i]
		b.add(e)
		switch {
		case e.Kind == model.KindPassthrough:
		case same:
			b.restoreExtra(e)
		default:
			rep.DropExtras(e)
		}
	}
	if len(b.steps) == 0 {
		st := &step{source: "system", message: "empty session"}
		b.steps = append(b.steps, st)
		rep.Add(model.LossSynthesized, "a system step (ATIF needs at least one step)", model.Loc{})
	}
	h := &s.Header
	schema := fmt.Sprintf("ATIF-v1.%d", ver)
	var out bytes.Buffer
	for i, st := range b.steps {
		if st.origStep != 0 && st.origStep != int64(i+1) {
			rep.Add(model.LossRenumbered, "step_id renumbered 1..N", st.loc)
		}
	}
	// Header / root.
	var root bytes.Buffer
	o := jsonw.Begin(&root)
	if asJSONL {
		o.Bool("__header__", true)
	}
	o.Str("schema_version", schema)
	sessionID := h.ID
	if sessionID == "" {
		sessionID = "unknown"
		rep.Add(model.LossSynthesized, "session_id \"unknown\" (the source has none)", model.Loc{})
	}
	o.Str("session_id", sessionID)
	o.Key("agent")
	a := jsonw.Begin(&root)
	name := h.AgentName
	if name == "" {
		name = "unknown"
		rep.Add(model.LossSynthesized, "agent.name \"unknown\"", model.Loc{})
	}
	a.Str("name", name)
	version := h.AgentVersion
	if version == "" {
		version = "unknown"
		rep.Add(model.LossSynthesized, "agent.version \"unknown\" (required by ATIF)", model.Loc{})
	}
	a.Str("version", version)
	if h.Model != "" {
		a.Str("model_name", h.Model)
	}
	sameFormat := h.SourceFormat == Name || h.SourceFormat == NameJSONL
	for _, f := range h.Extra {
		if k, ok := strings.CutPrefix(f.Key, "agent."); ok {
			if k == "extra" || k == "tool_definitions" && ver >= 5 {
				a.Raw(k, f.Value)
			} else {
				rep.Add(model.LossDroppedField, "agent field "+k, model.Loc{})
			}
		}
	}
	a.End()
	if asJSONL {
		started := h.Started
		if started == "" {
			started = opt.Time().Format(time.RFC3339Nano)
		}
		o.Str("created_at", started)
	}
	if notes, ok := h.Extra.Get("atif.notes"); ok {
		o.Raw("notes", notes)
	}
	var stepsJSON [][]byte
	for i, st := range b.steps {
		stepsJSON = append(stepsJSON, encodeStep(st, i+1, ver, rep))
	}
	if !asJSONL {
		o.Key("steps")
		root.WriteByte('[')
		for i, sj := range stepsJSON {
			if i > 0 {
				root.WriteByte(',')
			}
			root.Write(sj)
		}
		root.WriteByte(']')
	}
	// final_metrics
	tot, haveTot := model.SessionTotals(h, s.Events)
	o.Key("final_metrics")
	fm := jsonw.Begin(&root)
	if haveTot {
		present, known := h.Extra.String("_final_metrics_present")
		has := func(k string) bool { return !known || strings.Contains(","+present+",", ","+k+",") }
		if has("total_prompt_tokens") {
			fm.Int("total_prompt_tokens", tot.Prompt())
		}
		if has("total_completion_tokens") {
			fm.Int("total_completion_tokens", tot.Output)
		}
		if has("total_cached_tokens") {
			fm.Int("total_cached_tokens", tot.CacheRead)
		}
	}
	if h.CostUSD != nil {
		fm.Float("total_cost_usd", *h.CostUSD)
	}
	fm.Int("total_steps", int64(len(b.steps)))
	var fmExtra model.Fields
	if haveTot && tot.CacheCreate != 0 {
		fmExtra.SetAny("cache_creation_input_tokens", tot.CacheCreate)
	}
	for _, f := range h.Extra {
		if k, ok := strings.CutPrefix(f.Key, "final_metrics."); ok && k != "total_steps" {
			if k == "extra" {
				xf, _ := model.ParseFields(f.Value)
				for _, x := range xf {
					if x.Key != "cache_creation_input_tokens" {
						fmExtra.Set(x.Key, x.Value)
					}
				}
			} else {
				fmExtra.Set(k, f.Value)
			}
		}
	}
	if len(fmExtra) > 0 {
		fm.Raw("extra", model.MustJSON(fmExtra))
	}
	fm.End()
	// root extra: header fields ATIF has no place for.
	var extra model.Fields
	if !sameFormat && h.SourceFormat != "" {
		extra.SetString("source_format", h.SourceFormat)
		if h.SourceVersion != "" {
			extra.SetString("source_version", h.SourceVersion)
		}
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
		case strings.HasPrefix(f.Key, "agent."), strings.HasPrefix(f.Key, "final_metrics."), strings.HasPrefix(f.Key, "_"), f.Key == "atif.notes":
		case strings.HasPrefix(f.Key, "atif."):
			k := strings.TrimPrefix(f.Key, "atif.")
			if ver >= 7 && (k == "trajectory_id" || k == "subagent_trajectories") || k == "continued_trajectory_ref" {
				o.Raw(k, f.Value)
			} else {
				extra.Set(k, f.Value)
			}
		default:
			extra.Set(f.Key, f.Value)
		}
	}
	if len(extra) > 0 {
		o.Raw("extra", model.MustJSON(extra))
	}
	o.End()
	if asJSONL {
		out.Write(root.Bytes())
		out.WriteByte('\n')
		for _, sj := range stepsJSON {
			out.Write(sj)
			out.WriteByte('\n')
		}
		return out.Bytes(), nil
	}
	if err := json.Indent(&out, root.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("atif: internal error: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// normalizeTime makes a timestamp acceptable to Harbor (Python
// fromisoformat): at most 6 fraction digits. Other invalid values are
// dropped and reported.
func normalizeTime(ts string, loc model.Loc, rep *model.Report) string {
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
			rep.Add(model.LossTruncated, "timestamp precision beyond microseconds", loc)
		}
	}
	if !ValidTimestamp(ts) {
		rep.Add(model.LossDroppedField, "timestamp that is not ISO 8601", loc)
		return ""
	}
	return ts
}

func encodeStep(st *step, id, ver int, rep *model.Report) []byte {
	var b bytes.Buffer
	o := jsonw.Begin(&b)
	o.Int("step_id", int64(id))
	if ts := normalizeTime(st.time, st.loc, rep); ts != "" {
		o.Str("timestamp", ts)
	}
	o.Str("source", st.source)
	msg := st.message
	if st.source == "agent" {
		msg = strings.Join(st.texts, "\n\n")
	}
	if len(st.parts) > 0 {
		o.Raw("message", st.parts)
	} else {
		o.Str("message", msg)
	}
	if st.source == "agent" {
		if st.model != "" {
			o.Str("model_name", st.model)
		}
		if len(st.reasoning) > 0 {
			o.Str("reasoning_content", strings.Join(st.reasoning, "\n\n"))
		}
		if len(st.calls) > 0 {
			o.Key("tool_calls")
			b.WriteByte('[')
			for i, c := range st.calls {
				if i > 0 {
					b.WriteByte(',')
				}
				co := jsonw.Begin(&b)
				co.Str("tool_call_id", c.id)
				co.Str("function_name", c.name)
				co.Raw("arguments", c.args)
				if len(c.extra) > 0 {
					co.Raw("extra", c.extra)
				}
				co.End()
			}
			b.WriteByte(']')
		}
	}
	var stepExtra model.Fields
	stepExtra = append(stepExtra, st.extra...)
	if len(st.results) > 0 {
		o.Key("observation")
		ob := jsonw.Begin(&b)
		ob.Key("results")
		b.WriteByte('[')
		var errIDs []string
		for i, r := range st.results {
			if i > 0 {
				b.WriteByte(',')
			}
			ro := jsonw.Begin(&b)
			if r.hasCall {
				ro.Str("source_call_id", r.callID)
			}
			if len(r.parts) > 0 {
				ro.Raw("content", r.parts)
			} else {
				ro.Str("content", r.content)
			}
			if len(r.refs) > 0 {
				ro.Raw("subagent_trajectory_ref", r.refs)
			}
			rx := r.extra.Clone()
			if r.isError {
				rx.Set("is_error", json.RawMessage("true"))
			}
			if len(rx) > 0 {
				if ver >= 7 {
					ro.Raw("extra", model.MustJSON(rx))
				} else {
					if r.isError {
						errIDs = append(errIDs, r.callID)
					}
					if len(r.extra) > 0 {
						rep.Add(model.LossDroppedField, "observation result extra (needs ATIF-v1.7)", st.loc)
					}
				}
			}
			ro.End()
		}
		b.WriteByte(']')
		ob.End()
		if len(errIDs) > 0 {
			stepExtra.SetAny("tool_errors", errIDs)
		}
	}
	if st.source == "agent" && (st.usage != nil || len(st.metricExtra) > 0) {
		o.Key("metrics")
		m := jsonw.Begin(&b)
		mx, _ := st.metricExtra.Get("extra")
		mxf, _ := model.ParseFields(mx)
		has := func(k string) bool { return st.present == "" || strings.Contains(","+st.present+",", ","+k+",") }
		if u := st.usage; u != nil {
			if has("prompt_tokens") {
				m.Int("prompt_tokens", u.Prompt())
			}
			if has("completion_tokens") {
				m.Int("completion_tokens", u.Output)
			}
			if has("cached_tokens") {
				m.Int("cached_tokens", u.CacheRead)
			}
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
			m.Raw("extra", model.MustJSON(mxf))
		}
		m.End()
	}
	for _, f := range st.fields {
		o.Raw(f.Key, f.Value)
	}
	if len(stepExtra) > 0 {
		o.Raw("extra", model.MustJSON(stepExtra))
	}
	o.End()
	return b.Bytes()
}

// restoreExtra puts the fields an ATIF reader kept in e.Extra back where
// they came from, so ATIF -> ATIF keeps them.
func (b *builder) restoreExtra(e *model.Event) {
	s := b.cur()
	if s == nil {
		return
	}
	for _, f := range e.Extra {
		switch {
		case f.Key == "_message_parts":
			if b.ver >= 6 && isParts(f.Value) {
				s.parts = f.Value
			} else {
				b.rep.Add(model.LossDroppedField, "message content parts flattened to text (need ATIF-v1.6)", e.Loc)
			}
		case strings.HasPrefix(f.Key, "_"), f.Key == "subagent_trajectory_ref", f.Key == "result.extra", f.Key == "tool_call.extra", f.Key == "tool_errors", f.Key == "atif.observation":
			// Handled with the call or result, or a reader hint.
		case strings.HasPrefix(f.Key, "atif."):
			k := strings.TrimPrefix(f.Key, "atif.")
			min, known := stepKeys[k]
			if known && min <= b.ver && (s.source == "agent" || k != "reasoning_effort") {
				s.fields.Set(k, f.Value)
			} else {
				s.extra.Set(k, f.Value)
				b.rep.Add(model.LossMoved, "step field "+k+" moved to step extra (not in this ATIF version)", e.Loc)
			}
		case strings.HasPrefix(f.Key, "metrics."):
			k := strings.TrimPrefix(f.Key, "metrics.")
			min, known := metricKeys[k]
			if known && min <= b.ver && s.source == "agent" {
				s.metricExtra.Set(k, f.Value)
			} else {
				b.rep.Add(model.LossDroppedField, "metrics field "+k, e.Loc)
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
