package atif

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/internal/jsonl"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// The validator's rules, one code each, so that one can be turned off
// (rlog-ls check --disable ATIF004). Messages follow Harbor's.
const (
	CodeSyntax       = "ATIF001"
	CodeUnknownField = "ATIF002"
	CodeNewerField   = "ATIF003"
	CodeRequired     = "ATIF004"
	CodeType         = "ATIF005"
	CodeSchema       = "ATIF006"
	CodeStepID       = "ATIF007"
	CodeCallRef      = "ATIF008"
	CodeDuplicateID  = "ATIF009"
	CodeAgentOnly    = "ATIF010"
	CodeTimestamp    = "ATIF011"
	CodeSource       = "ATIF012"
	CodeNoSteps      = "ATIF013"
	CodeContentPart  = "ATIF014"
	CodeV17          = "ATIF015"
	CodeJSONLHeader  = "ATIF016"
)

// Rules lists the validator's rules.
var Rules = []model.Rule{
	{Code: CodeSyntax, Title: "Not valid JSON"},
	{Code: CodeUnknownField, Title: "Unknown field (Extra inputs are not permitted)"},
	{Code: CodeNewerField, Title: "Field of a later ATIF version"},
	{Code: CodeRequired, Title: "Required field missing"},
	{Code: CodeType, Title: "Value of the wrong type"},
	{Code: CodeSchema, Title: "Unknown schema_version"},
	{Code: CodeStepID, Title: "step_id not sequential from 1"},
	{Code: CodeCallRef, Title: "source_call_id not among the step's tool calls"},
	{Code: CodeDuplicateID, Title: "Duplicate tool_call_id in a step"},
	{Code: CodeAgentOnly, Title: "Agent-only field on a user or system step"},
	{Code: CodeTimestamp, Title: "Timestamp that is not ISO 8601"},
	{Code: CodeSource, Title: "Step source that is not system, user or agent"},
	{Code: CodeNoSteps, Title: "No steps"},
	{Code: CodeContentPart, Title: "Invalid content part"},
	{Code: CodeV17, Title: "ATIF-v1.7 reference rules"},
	{Code: CodeJSONLHeader, Title: "ATIF-JSONL without a __header__ line first"},
}

// Versions are the ATIF versions the validator and reader know, oldest first.
var Versions = []string{"1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7"}

// minor returns the minor version of "ATIF-v1.N", or -1.
func minor(schema string) int {
	v, ok := strings.CutPrefix(schema, "ATIF-v1.")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 7 {
		return -1
	}
	return n
}

// Validate checks one ATIF document against Harbor's rules: unknown keys
// are errors, required fields and types, step ids 1..N, each observation's
// source_call_id among the same step's tool calls, no duplicate
// tool_call_id in a step, agent-only fields only on agent steps, ISO 8601
// timestamps, and the fields each version adds. It reads the document
// one step at a time and reports every finding with its line and column;
// it never stops at the first finding. Steps before a late schema_version
// are checked without the version's rules.
func Validate(r io.Reader, report func(model.Finding)) error {
	v := &validator{report: report, ver: -1}
	w := jsonscan.NewWalker(r, true)
	v.walker = w
	if w.Kind() != '{' {
		at := w.Pos()
		v.anchor = anchor{path: "trajectory", at: at}
		if _, _, err := w.Value(); err != nil {
			return v.syntax(err)
		}
		v.add(CodeSyntax, "trajectory", "not a JSON object")
		return nil
	}
	rootAt := w.Pos()
	var root model.Fields
	var members []anchor
	steps := -1
	err := w.Object(func(k []byte, keyAt jsonscan.Pos) error {
		key := jsonscan.Key(k)
		if key == "steps" && w.Kind() == '[' {
			steps = 0
			root = append(root, model.Field{Key: key, Value: json.RawMessage("[]")})
			members = append(members, anchor{path: "trajectory.steps", at: keyAt, keyAt: keyAt})
			return w.Array(func(i int, b []byte, at jsonscan.Pos) error {
				steps++
				v.anchor = anchor{path: fmt.Sprintf("trajectory.steps.%d", i), value: b, at: at}
				sf, err := model.ParseValidFieldsView(b)
				if err != nil || sf == nil {
					v.add(CodeType, v.anchor.path, "Input should be an object")
					return nil
				}
				v.step(sf, i, v.anchor.path)
				return nil
			})
		}
		b, at, err := w.Value()
		if err != nil {
			return err
		}
		b = jsonscan.Copy(b)
		root = append(root, model.Field{Key: key, Value: b})
		members = append(members, anchor{path: "trajectory." + key, value: b, at: at, keyAt: keyAt})
		if key == "schema_version" {
			s, _ := jsonscan.String(b)
			v.ver = minor(s)
		}
		return nil
	})
	if err != nil {
		return v.syntax(err)
	}
	if err := w.End(); err != nil {
		return v.syntax(err)
	}
	v.members = members
	v.anchor = anchor{path: "trajectory", at: rootAt}
	v.root(root, steps)
	return nil
}

// ValidateJSONL checks a streaming ATIF-JSONL file: a `__header__` line,
// then one step per line, with the same rules as Validate.
func ValidateJSONL(r io.Reader, report func(model.Finding)) error {
	v := &validator{report: report, ver: -1}
	header := false
	idx := 0
	tooLong := func(n int, err error) {
		v.anchor = anchor{path: "line", at: jsonscan.Pos{Line: n, Col: 1}}
		v.add(CodeSyntax, "line", err.Error())
	}
	err := jsonl.Each(r, func(line []byte, n int) error {
		at := jsonscan.Pos{Line: n, Col: 1}
		v.anchor = anchor{path: "trajectory", value: line, at: at}
		f, perr := model.ParseFields(line)
		if perr != nil || f == nil {
			msg := "not a JSON object"
			var se *jsonscan.SyntaxError
			if errors.As(perr, &se) {
				v.anchor = anchor{path: "line", at: at.Advance(line[:min(se.Offset, len(line))])}
				msg = se.Msg
			}
			v.add(CodeSyntax, "line", msg)
			return nil
		}
		if !header {
			header = true
			if _, ok := f.Get("__header__"); ok {
				v.header(f, true)
				return nil
			}
			v.add(CodeJSONLHeader, "line", "first line is not a __header__ record")
		}
		v.anchor.path = fmt.Sprintf("trajectory.steps.%d", idx)
		v.step(f, idx, v.anchor.path)
		idx++
		return nil
	}, tooLong)
	if err != nil {
		return err
	}
	v.anchor = anchor{path: "trajectory", at: jsonscan.Pos{Line: 1, Col: 1}}
	if !header {
		v.add(CodeJSONLHeader, "trajectory", "empty file: no __header__ line")
	} else if idx == 0 {
		v.add(CodeNoSteps, "trajectory.steps", "at least one step is required")
	}
	return nil
}

// anchor is a value whose place is known, that the paths of findings are
// looked up in: a root member, a step, a line.
type anchor struct {
	path  string // its path ("trajectory.steps.3")
	value []byte // its bytes (nil: only its place is known)
	at    jsonscan.Pos
	keyAt jsonscan.Pos // the place of its key, for a root member
}

type validator struct {
	ver    int
	report func(model.Finding)
	walker *jsonscan.Walker
	// anchor is the value being checked; members are the root's.
	anchor  anchor
	members []anchor
}

// add reports a finding at path, placed by finding path in the value being
// checked or, for the root, in its members.
func (v *validator) add(code, path, msg string) {
	f := model.Finding{Code: code, Path: path, Message: msg}
	a := v.anchor
	if a.path == "trajectory" && a.value == nil {
		for _, m := range v.members {
			if path == m.path || strings.HasPrefix(path, m.path+".") {
				a = m
				break
			}
		}
	}
	start, end := a.at, a.at
	switch rest, ok := strings.CutPrefix(path, a.path); {
	case a.path == path && a.keyAt.Line > 0:
		start = a.keyAt
		end = start
		end.Col += utf8.RuneCountInString(path[strings.LastIndexByte(path, '.')+1:]) + 2
	case ok && a.value != nil:
		var steps []string
		if rest = strings.TrimPrefix(rest, "."); rest != "" {
			steps = strings.Split(rest, ".")
		}
		s, e, _ := jsonscan.Locate(a.value, steps)
		start = a.at.Advance(a.value[:s])
		end = start.Advance(a.value[s:e])
		if end.Line != start.Line {
			end = start
			end.Col++
		}
	default:
		end.Col++
	}
	f.Line, f.Col, f.EndLine, f.EndCol = start.Line, start.Col, end.Line, end.Col
	v.report(f)
}

// syntax reports a syntax error where it is; other errors (reading) are
// returned.
func (v *validator) syntax(err error) error {
	var se *jsonscan.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	at := v.walker.Place(int64(se.Offset))
	v.report(model.Finding{Code: CodeSyntax, Message: se.Msg, Line: at.Line, Col: at.Col, EndLine: at.Line, EndCol: at.Col + 1})
	return nil
}

func (v *validator) keys(f model.Fields, path string, allowed map[string]int) {
	for _, fl := range f {
		min, ok := allowed[fl.Key]
		if !ok {
			v.add(CodeUnknownField, path+"."+fl.Key, "Extra inputs are not permitted")
			continue
		}
		if v.ver >= 0 && min > v.ver {
			v.add(CodeNewerField, path+"."+fl.Key, fmt.Sprintf("field %q needs ATIF-v1.%d or later", fl.Key, min))
		}
	}
}

func isString(b []byte) bool { return len(b) > 0 && b[0] == '"' }
func isObject(b []byte) bool { return len(b) > 0 && b[0] == '{' }
func isArray(b []byte) bool  { return len(b) > 0 && b[0] == '[' }
func isNull(b []byte) bool   { return string(b) == "null" }
func isNumber(b []byte) bool {
	return len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9')
}
func isInt(b []byte) bool {
	_, err := strconv.ParseInt(string(b), 10, 64)
	return err == nil
}

func (v *validator) str(f model.Fields, key, path string, required bool) (string, bool) {
	b, ok := f.Get(key)
	if !ok {
		if required {
			v.add(CodeRequired, path+"."+key, "Field required")
		}
		return "", false
	}
	if !isString(b) {
		if isNull(b) && !required {
			return "", false
		}
		v.add(CodeType, path+"."+key, "Input should be a valid string")
		return "", false
	}
	s, _ := f.String(key)
	return s, true
}

func (v *validator) header(f model.Fields, jsonlHeader bool) {
	allowed := rootKeys
	if jsonlHeader {
		allowed = maps.Clone(rootKeys)
		maps.Copy(allowed, jsonlHeaderKeys)
	}
	schema, ok := v.str(f, "schema_version", "trajectory", true)
	if ver := minor(schema); ver >= 0 || v.ver < 0 {
		v.ver = ver
	}
	if ok && v.ver < 0 {
		v.add(CodeSchema, "trajectory.schema_version", fmt.Sprintf("unknown schema_version %q (expected ATIF-v1.0 to ATIF-v1.7)", schema))
	}
	v.keys(f, "trajectory", allowed)
	if v.ver >= 7 {
		v.str(f, "session_id", "trajectory", false)
		v.str(f, "trajectory_id", "trajectory", false)
	} else {
		v.str(f, "session_id", "trajectory", true)
	}
	v.str(f, "notes", "trajectory", false)
	if a, ok := f.Get("agent"); !ok {
		v.add(CodeRequired, "trajectory.agent", "Field required")
	} else if af, err := model.ParseFields(a); err != nil || af == nil {
		v.add(CodeType, "trajectory.agent", "Input should be an object")
	} else {
		v.keys(af, "trajectory.agent", agentKeys)
		v.str(af, "name", "trajectory.agent", true)
		v.str(af, "version", "trajectory.agent", true)
		v.str(af, "model_name", "trajectory.agent", false)
		if td, ok := af.Get("tool_definitions"); ok && !isArray(td) && !isNull(td) {
			v.add(CodeType, "trajectory.agent.tool_definitions", "Input should be a valid list")
		}
		v.extra(af, "trajectory.agent")
	}
	if fm, ok := f.Get("final_metrics"); ok && !isNull(fm) {
		v.finalMetrics(fm)
	}
	v.extra(f, "trajectory")
	if ref, ok := f.Get("continued_trajectory_ref"); ok && !isNull(ref) && !isString(ref) {
		v.add(CodeType, "trajectory.continued_trajectory_ref", "Input should be a valid string")
	}
}

func (v *validator) extra(f model.Fields, path string) {
	if e, ok := f.Get("extra"); ok && !isObject(e) && !isNull(e) {
		v.add(CodeType, path+".extra", "Input should be a valid dictionary")
	}
}

// root checks the root's members once the document is read; steps is
// how many steps there were (-1: no list of steps).
func (v *validator) root(f model.Fields, steps int) {
	v.header(f, false)
	if _, ok := f.Get("steps"); !ok {
		v.add(CodeRequired, "trajectory.steps", "Field required")
	} else if steps < 0 {
		v.add(CodeType, "trajectory.steps", "Input should be a valid list")
	} else if steps == 0 {
		v.add(CodeNoSteps, "trajectory.steps", "List should have at least 1 item after validation, not 0")
	}
	if v.ver >= 7 {
		if subs, ok := f.Get("subagent_trajectories"); ok && isArray(subs) {
			seen := map[string]bool{}
			for i, s := range jsonArray(subs) {
				sf, _ := model.ParseFields(s.Value)
				id, _ := sf.String("trajectory_id")
				p := fmt.Sprintf("trajectory.subagent_trajectories.%d", i)
				if id == "" {
					v.add(CodeV17, p+".trajectory_id", "embedded subagent trajectories need a trajectory_id")
				} else if seen[id] {
					v.add(CodeV17, p+".trajectory_id", fmt.Sprintf("duplicate trajectory_id %q", id))
				}
				seen[id] = true
			}
		}
	}
}

// jsonArray splits a JSON array (already validated by ParseFields) into
// its elements.
// object parses b, the value at path, reporting it when it is not an
// object.
func (v *validator) object(b []byte, path string) (model.Fields, bool) {
	f, err := model.ParseFields(b)
	if err != nil || f == nil {
		v.add(CodeType, path, "Input should be an object")
		return nil, false
	}
	return f, true
}

// objects checks b, the list at path, with check on each element that is
// an object (at path.N), reporting a value that is not a list and the
// elements that are not objects.
func (v *validator) objects(b []byte, path string, check func(path string, f model.Fields)) {
	if !isArray(b) {
		v.add(CodeType, path, "Input should be a valid list")
		return
	}
	for j, e := range jsonArray(b) {
		p := fmt.Sprintf("%s.%d", path, j)
		if f, ok := v.object(e.Value, p); ok {
			check(p, f)
		}
	}
}

func jsonArray(b []byte) []model.Field {
	var out []model.Field
	jsonscan.Array(b, func(i int, v []byte) error {
		out = append(out, model.Field{Value: v})
		return nil
	})
	return out
}

func (v *validator) step(f model.Fields, i int, path string) {
	v.keys(f, path, stepKeys)
	if id, ok := f.Get("step_id"); !ok {
		v.add(CodeRequired, path+".step_id", "Field required")
	} else if !isInt(id) {
		v.add(CodeType, path+".step_id", "Input should be a valid integer")
	} else if n, _ := strconv.Atoi(string(id)); n != i+1 {
		v.add(CodeStepID, path+".step_id", fmt.Sprintf("expected %d (sequential from 1), got %d", i+1, n))
	}
	if ts, ok := v.str(f, "timestamp", path, false); ok && !ValidTimestamp(ts) {
		v.add(CodeTimestamp, path+".timestamp", "Invalid ISO 8601 timestamp: "+ts)
	}
	source, _ := v.str(f, "source", path, true)
	switch source {
	case "system", "user", "agent", "":
	default:
		v.add(CodeSource, path+".source", fmt.Sprintf("Input should be 'system', 'user' or 'agent', got %q", source))
	}
	if msg, ok := f.Get("message"); !ok {
		v.add(CodeRequired, path+".message", "Field required")
	} else if isArray(msg) {
		if v.ver >= 0 && v.ver < 6 {
			v.add(CodeNewerField, path+".message", "a list of content parts needs ATIF-v1.6 or later")
		} else {
			v.contentParts(msg, path+".message")
		}
	} else if !isString(msg) {
		v.add(CodeType, path+".message", "Input should be a valid string")
	}
	if source != "agent" && source != "" {
		for _, k := range agentOnlySteps {
			if _, ok := f.Get(k); ok {
				v.add(CodeAgentOnly, path+"."+k, fmt.Sprintf("Field '%s' is only applicable when source is 'agent', but source is '%s'", k, source))
			}
		}
	}
	if re, ok := f.Get("reasoning_effort"); ok && !isString(re) && !isNumber(re) && !isNull(re) {
		v.add(CodeType, path+".reasoning_effort", "Input should be a string or a number")
	}
	v.str(f, "reasoning_content", path, false)
	v.str(f, "model_name", path, false)
	v.extra(f, path)
	callIDs := map[string]bool{}
	if tc, ok := f.Get("tool_calls"); ok && !isNull(tc) {
		v.objects(tc, path+".tool_calls", func(cp string, cf model.Fields) {
			v.keys(cf, cp, toolCallKeys)
			id, ok := v.str(cf, "tool_call_id", cp, true)
			if ok {
				if callIDs[id] {
					v.add(CodeDuplicateID, cp+".tool_call_id", fmt.Sprintf("duplicate tool_call_id '%s' in step %d", id, i+1))
				}
				callIDs[id] = true
			}
			v.str(cf, "function_name", cp, true)
			if a, ok := cf.Get("arguments"); !ok {
				v.add(CodeRequired, cp+".arguments", "Field required")
			} else if !isObject(a) {
				v.add(CodeType, cp+".arguments", "Input should be a valid dictionary")
			}
			v.extra(cf, cp)
		})
	}
	if m, ok := f.Get("metrics"); ok && !isNull(m) {
		v.metrics(m, path+".metrics")
	}
	if obs, ok := f.Get("observation"); ok && !isNull(obs) {
		if source == "system" && v.ver >= 0 && v.ver < 2 {
			v.add(CodeNewerField, path+".observation", "observation on a system step needs ATIF-v1.2 or later")
		}
		v.observation(obs, path+".observation", callIDs, i+1)
	}
	if v.ver >= 7 {
		if lc, ok := f.Get("llm_call_count"); ok {
			if !isInt(lc) || lc[0] == '-' {
				v.add(CodeType, path+".llm_call_count", "Input should be an integer >= 0")
			} else if string(lc) == "0" && source == "agent" {
				for _, k := range []string{"metrics", "reasoning_content"} {
					if _, has := f.Get(k); has {
						v.add(CodeV17, path+"."+k, "llm_call_count is 0, so the step cannot have "+k)
					}
				}
			}
		}
		if c, ok := f.Get("is_copied_context"); ok && string(c) != "true" && string(c) != "false" {
			v.add(CodeType, path+".is_copied_context", "Input should be a valid boolean")
		}
	}
}

func (v *validator) contentParts(b []byte, path string) {
	v.objects(b, path, func(pp string, pf model.Fields) {
		typ, _ := pf.String("type")
		switch typ {
		case "text":
			v.keys(pf, pp, textPartKeys)
			v.str(pf, "text", pp, true)
		case "image":
			v.keys(pf, pp, imagePartKeys)
			src, ok := pf.Get("source")
			if !ok {
				v.add(CodeRequired, pp+".source", "Field required")
				return
			}
			sf, _ := model.ParseFields(src)
			v.keys(sf, pp+".source", imageSourceKeys)
			mt, _ := v.str(sf, "media_type", pp+".source", true)
			switch mt {
			case "image/jpeg", "image/png", "image/gif", "image/webp", "":
			default:
				v.add(CodeContentPart, pp+".source.media_type", "unsupported media_type "+mt)
			}
			v.str(sf, "path", pp+".source", true)
		default:
			v.add(CodeContentPart, pp+".type", fmt.Sprintf("content part type must be 'text' or 'image', got %q", typ))
		}
	})
}

func (v *validator) metrics(b []byte, path string) {
	f, ok := v.object(b, path)
	if !ok {
		return
	}
	v.keys(f, path, metricsKeys)
	for _, k := range []string{"prompt_tokens", "completion_tokens", "cached_tokens"} {
		if x, ok := f.Get(k); ok && !isNull(x) && !isInt(x) {
			v.add(CodeType, path+"."+k, "Input should be a valid integer")
		}
	}
	if x, ok := f.Get("cost_usd"); ok && !isNull(x) && !isNumber(x) {
		v.add(CodeType, path+".cost_usd", "Input should be a valid number")
	}
	v.extra(f, path)
}

func (v *validator) finalMetrics(b []byte) {
	path := "trajectory.final_metrics"
	f, ok := v.object(b, path)
	if !ok {
		return
	}
	v.keys(f, path, finalMetricsKeys)
	for _, k := range []string{"total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_steps"} {
		if x, ok := f.Get(k); ok && !isNull(x) && !isInt(x) {
			v.add(CodeType, path+"."+k, "Input should be a valid integer")
		}
	}
	if x, ok := f.Get("total_steps"); ok && len(x) > 0 && x[0] == '-' {
		v.add(CodeType, path+".total_steps", "Input should be greater than or equal to 0")
	}
	v.extra(f, path)
}

func (v *validator) observation(b []byte, path string, callIDs map[string]bool, stepN int) {
	f, ok := v.object(b, path)
	if !ok {
		return
	}
	v.keys(f, path, observationKeys)
	res, ok := f.Get("results")
	if !ok {
		v.add(CodeRequired, path+".results", "Field required")
		return
	}
	v.objects(res, path+".results", func(rp string, rf model.Fields) {
		v.keys(rf, rp, resultKeys)
		if id, ok := v.str(rf, "source_call_id", rp, false); ok && !callIDs[id] {
			v.add(CodeCallRef, rp+".source_call_id", fmt.Sprintf("Observation result references source_call_id '%s' which is not found in step %d's tool_calls", id, stepN))
		}
		if c, ok := rf.Get("content"); ok && !isNull(c) && !isString(c) {
			if isArray(c) && (v.ver < 0 || v.ver >= 6) {
				v.contentParts(c, rp+".content")
			} else {
				v.add(CodeType, rp+".content", "Input should be a valid string")
			}
		}
		if refs, ok := rf.Get("subagent_trajectory_ref"); ok && !isNull(refs) {
			if !isArray(refs) {
				v.add(CodeType, rp+".subagent_trajectory_ref", "Input should be a valid list")
				return
			}
			v.objects(refs, rp+".subagent_trajectory_ref", func(pp string, ff model.Fields) {
				if v.ver >= 7 {
					v.keys(ff, pp, subagentRefKeys17)
					_, hasID := ff.Get("trajectory_id")
					_, hasPath := ff.Get("trajectory_path")
					if !hasID && !hasPath {
						v.add(CodeV17, pp, "a subagent_trajectory_ref needs trajectory_id or trajectory_path (ATIF-v1.7)")
					}
				} else {
					v.keys(ff, pp, subagentRefKeys)
					v.str(ff, "session_id", pp, true)
				}
			})
		}
		v.extra(rf, rp)
	})
}

// ValidTimestamp reports whether s is an ISO 8601 date-time the way
// Harbor checks it (Python datetime.fromisoformat after Z -> +00:00):
// YYYY-MM-DD, then T or a space, HH:MM[:SS[.fraction]], and an optional
// Z or ±HH:MM[:SS] offset. (An offset of eight bytes is taken when its
// first five are ±HH:MM, as before.) Each place is read where it is, two
// digits' value from their bytes: a step's time is checked at every step
// the writer writes (validTimestampPlain in the tests is the way it was
// written first, with closures and strconv.Atoi, and FuzzValidTimestamp
// holds the two equal).
func ValidTimestamp(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' || !allDigits(s[:4]) || !isDigit(s[5]) || !isDigit(s[6]) || !isDigit(s[8]) || !isDigit(s[9]) {
		return false
	}
	if m, d := twoDigits(s[5], s[6]), twoDigits(s[8], s[9]); m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	if len(s) == 10 {
		return true
	}
	if s[10] != 'T' && s[10] != ' ' {
		return false
	}
	if len(s) < 16 || !isDigit(s[11]) || !isDigit(s[12]) || s[13] != ':' || !isDigit(s[14]) || !isDigit(s[15]) ||
		twoDigits(s[11], s[12]) > 23 || twoDigits(s[14], s[15]) > 59 {
		return false
	}
	i := 16
	if i < len(s) && s[i] == ':' {
		if i+3 > len(s) || !isDigit(s[i+1]) || !isDigit(s[i+2]) || twoDigits(s[i+1], s[i+2]) > 59 {
			return false
		}
		i += 3
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j == i+1 {
				return false
			}
			i = j
		}
	}
	rest := s[i:]
	switch {
	case len(rest) == 0, rest == "Z":
		return true
	case rest[0] == '+' || rest[0] == '-':
		switch r := rest[1:]; len(r) {
		case 4:
			return allDigits(r)
		case 5, 8:
			return isDigit(r[0]) && isDigit(r[1]) && r[2] == ':' && isDigit(r[3]) && isDigit(r[4])
		}
	}
	return false
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c-'0' < 10 }

// allDigits reports whether every byte of s is an ASCII digit.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// twoDigits is the value of the two digits hi and lo.
func twoDigits(hi, lo byte) int { return int(hi-'0')*10 + int(lo-'0') }
