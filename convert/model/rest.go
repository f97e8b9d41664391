package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/jsonw"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// The rest of an event is what it says that a target format has no field
// for: its time when the format keeps one per step, its entry ids, its
// sub-agent, the source's own fields, how the source wrote it. A writer
// keeps it beside what the format does say (an ATIF step's extra, a
// trajectory step's field, a mini-prophet message's extra), and the reader
// of that format gives it back, so that a round trip through the format
// restores the event instead of losing it. RestOf makes it, ApplyRest
// reads it; docs/conversions.md names where each format keeps it.
//
// The rest is a JSON object whose keys are the event's fields: kind, time,
// id, parent, message_id, model, text, signature, name, call, result,
// subagent, compaction, todos, agent_id, sidechain, meta, step, raw_type,
// raw, parts, extra and form. Usage is not in it (every format that
// counts tokens keeps them its own way) unless the writer asks with
// "+usage" in carried: a usage its record leaves out, [input, output,
// cache read, cache create].
// RestOf is the rest of e for a format that carries the fields named in
// carried (the keys above; "call.input", "result.content" for a part of
// one): a JSON object of its kind and every other field e has. time and
// text, when not carried, are written even when empty, so that the reader
// does not give the event a time or text of the place it reads them from
// (an ATIF step's timestamp). extra and form are always the rest's: a
// rest without them says the event has none.
//
// A field named with a leading "-" in carried is one the writer made up
// for the target (a uuid, a message id a consumer needs) or that the
// record gives all its events (a step's model or usage): the rest says
// the event has none, and the reader takes it out.
func RestOf(e *Event, carried ...string) json.RawMessage {
	var b jsonw.Buf
	c := CarriedOf(carried...)
	WriteRestCarried(&b, e, nil, &c)
	return b.Bytes()
}

// Carried is what a writer carries, as RestOf's carried names it, made
// into the set WriteRestCarried tests (CarriedOf). A writer makes each of
// its lists (a kind of record's, what a record may add) a Carried once
// and adds them (Add) at each rest, instead of having names matched again
// at every rest (about ten a rest). The zero Carried carries nothing.
type Carried struct {
	set carriedSet
	// names is unset's place in unsetLists, 1 on, when unset is a list
	// CarriedUnsets made; 0 for any other. (An index, not a pointer: a
	// Carried stays the size it was, which writers copy with their
	// rests.)
	names uint32
	unset []*jsonw.Name
}

// CarriedOf is the Carried carried names (RestOf's).
func CarriedOf(carried ...string) Carried {
	set, unset := carriedFields(carried, nil)
	// (Clipped: a Carried that adds to one made here appends to its own
	// room, never to this one's.)
	return Carried{set: set, unset: slices.Clip(unset)}
}

// CarriedUnsets is a Carried of each list of names a writer's rests may
// say their event has none of ("-id", ...): the one at i holds the names
// whose bit is set in i (names[0] bit 0, ...), in names' order. A writer
// picks a rest's list by its bits (and adds its sets to it, Add), instead
// of appending names rest after rest; the lists are shared, never
// appended to (CarriedOf clips them).
func CarriedUnsets(names ...string) []Carried {
	lists := make([]Carried, 1<<len(names))
	for i := range lists {
		var l []string
		for j, n := range names {
			if i&(1<<j) != 0 {
				l = append(l, n)
			}
		}
		lists[i] = CarriedOf(l...)
		if len(lists[i].unset) > 0 {
			lists[i].names = addUnsetList(lists[i].unset)
		}
	}
	return lists
}

// unsetLists are the unset lists CarriedUnsets made, each as a
// jsonw.Names (whose member an object that indents stores whole), at
// most maxUnsetLists of them: a list made after those (CarriedUnsets is
// called once for each writer, at package level) has none, and is
// written as NamesName writes it. n is how many.
var unsetLists struct {
	names [maxUnsetLists]atomic.Pointer[jsonw.Names]
	n     atomic.Int32
}

// maxUnsetLists is how many unset lists have a jsonw.Names (the writers
// make about twenty).
const maxUnsetLists = 64

// addUnsetList puts list in unsetLists and returns its place, 1 on (0
// when they are full).
func addUnsetList(list []*jsonw.Name) uint32 {
	i := unsetLists.n.Add(1)
	if i > maxUnsetLists {
		return 0
	}
	unsetLists.names[i-1].Store(jsonw.NewNames(list))
	return uint32(i)
}

// Add puts d's fields in c, its unset names after c's: c is then what
// CarriedOf gives of c's names followed by d's.
func (c *Carried) Add(d *Carried) {
	c.set |= d.set
	if len(d.unset) > 0 {
		// c's names are d's when it had none (the list is d's, shared),
		// else another list.
		if len(c.unset) == 0 {
			c.names = d.names
		} else {
			c.names = 0
		}
	}
	// (One name at a time: appending the list whole calls the runtime's
	// typedslicecopy and memmove for a name or two, more instructions.)
	//lint:ignore S1011 the loop is the faster form here (above)
	for _, n := range d.unset {
		c.unset = append(c.unset, n)
	}
}

// Reset makes c carry nothing, keeping the room of its unset names for
// the next rest's.
func (c *Carried) Reset() {
	c.set = 0
	c.unset = c.unset[:0]
	c.names = 0
}

// WriteRestCarried writes RestOf(e, c's names) where a value goes in b,
// as b writes: compact, indented where it stands, or quoted inside a
// string. A writer writes each rest where it goes instead of building it
// apart and copying it in (and, for a document that is indented or a
// string, reading it again). With usage not nil, the rest ends with it as
// "+usage" writes it, after "unset": for a writer that learns only when
// it writes the rest that its record does not say the event's usage (an
// ATIF step whose metrics are what the step adds to the session's count).
// Every writer's rests are written here, each with a Carried made once.
func WriteRestCarried(b *jsonw.Buf, e *Event, usage *Usage, c *Carried) {
	writeRest(b, e, usage, c)
}

// writeRest is WriteRestCarried. A Buf that writes canonical JSON
// (REPLAY's) takes writeRestInOrder.
func writeRest(b *jsonw.Buf, e *Event, usage *Usage, c *Carried) {
	set, unset := c.set, c.unset
	if b.Canonical() {
		writeRestInOrder(b, e, usage, set, unset)
		return
	}
	has := func(f carriedSet) bool { return set&f != 0 }
	o := b.Begin()
	// The kind is always there: a reader lines rests up with its events
	// by it (ApplyRests).
	o.NameName(&restNames.kind, kindName(e.Kind))
	str := func(key *jsonw.Name, f carriedSet, v string) {
		if v != "" && !has(f) {
			o.StrName(key, v)
		}
	}
	if !has(carryTime) {
		o.StrName(&restNames.time, e.Time)
	}
	str(&restNames.id, carryID, e.ID)
	str(&restNames.parent, carryParent, e.ParentID)
	// A message id a reader made up is kept too: it says which events
	// are one response, which a format that groups them (ATIF's steps)
	// needs back.
	str(&restNames.messageID, carryMessageID, e.MessageID)
	str(&restNames.model, carryModel, e.Model)
	if !has(carryText) {
		o.StrName(&restNames.text, e.Text)
	}
	str(&restNames.signature, carrySignature, e.Signature)
	str(&restNames.name, carryName, e.Name)
	if e.Call != nil && !has(carryCall) {
		writeRestCall(b, o, e.Call, set, false)
	}
	if e.Result != nil && !has(carryResult) {
		writeRestResult(b, o, e.Result, set, false)
	}
	if e.Subagent != nil && !has(carrySubagent) {
		writeRestSubagent(b, o, e.Subagent, false)
	}
	if e.Compaction != nil && !has(carryCompaction) {
		writeRestCompaction(b, o, e.Compaction, false)
	}
	if len(e.Todos) > 0 && !has(carryTodos) {
		writeRestTodos(b, o, e.Todos, false)
	}
	str(&restNames.agentID, carryAgentID, e.AgentID)
	if e.Sidechain && !has(carrySidechain) {
		o.Bool("sidechain", true)
	}
	if e.Meta && !has(carryMeta) {
		o.Bool("meta", true)
	}
	if e.Step != 0 && !has(carryStep) {
		o.Int("step", e.Step)
	}
	str(&restNames.rawType, carryRawType, e.RawType)
	if len(e.Raw) > 0 && !has(carryRaw) {
		o.Raw("raw", e.Raw)
	}
	if len(e.Parts) > 0 && !has(carryParts) {
		o.Raw("parts", e.Parts)
	}
	if hasRestExtra(e.Extra) {
		writeRestExtra(b, o, e.Extra)
	}
	if !formIsZero(&e.Form) {
		writeRestForm(b, o, &e.Form, false)
	}
	if u := e.Usage; u != nil && has(carryUsage) {
		// A usage the record leaves out, its format counting it once
		// (a trajectory step that repeats its response's usage).
		o.Raw("usage", usageJSON(*u))
	}
	if len(unset) > 0 {
		// (An object that indents stores the names' member whole.)
		if c.names != 0 && b.Indenting() {
			o.NamesAt(&restNames.unset, unsetLists.names[c.names-1].Load())
		} else {
			o.NamesName(&restNames.unset, unset)
		}
	}
	if usage != nil {
		o.Raw("usage", usageJSON(*usage))
	}
	o.End()
}

// writeRestInOrder is writeRest for a Buf that writes canonical JSON: the
// same members, each written as writeRest writes it, in the order of
// their keys' bytes (agent_id, call, ..., usage), the nested objects'
// too, so that the Buf has nothing to sort (jsonw.Buf.BeginInOrder);
// only extra's keys, any keys, are sorted by the Buf. A usage both
// carried and given is written once, the one given (of a key written
// twice, canonical JSON keeps the last). FuzzWriteRest holds it to
// canon.Append of writeRest's compact rest.
func writeRestInOrder(b *jsonw.Buf, e *Event, usage *Usage, set carriedSet, unset []*jsonw.Name) {
	has := func(f carriedSet) bool { return set&f != 0 }
	o := b.BeginInOrder(true)
	str := func(key *jsonw.Name, f carriedSet, v string) {
		if v != "" && !has(f) {
			o.StrName(key, v)
		}
	}
	str(&restNames.agentID, carryAgentID, e.AgentID)
	if e.Call != nil && !has(carryCall) {
		writeRestCall(b, o, e.Call, set, true)
	}
	if e.Compaction != nil && !has(carryCompaction) {
		writeRestCompaction(b, o, e.Compaction, true)
	}
	if hasRestExtra(e.Extra) {
		writeRestExtra(b, o, e.Extra)
	}
	if !formIsZero(&e.Form) {
		writeRestForm(b, o, &e.Form, true)
	}
	str(&restNames.id, carryID, e.ID)
	o.NameName(&restNames.kind, kindName(e.Kind))
	str(&restNames.messageID, carryMessageID, e.MessageID)
	if e.Meta && !has(carryMeta) {
		o.Bool("meta", true)
	}
	str(&restNames.model, carryModel, e.Model)
	str(&restNames.name, carryName, e.Name)
	str(&restNames.parent, carryParent, e.ParentID)
	if len(e.Parts) > 0 && !has(carryParts) {
		o.Raw("parts", e.Parts)
	}
	if len(e.Raw) > 0 && !has(carryRaw) {
		o.Raw("raw", e.Raw)
	}
	str(&restNames.rawType, carryRawType, e.RawType)
	if e.Result != nil && !has(carryResult) {
		writeRestResult(b, o, e.Result, set, true)
	}
	if e.Sidechain && !has(carrySidechain) {
		o.Bool("sidechain", true)
	}
	str(&restNames.signature, carrySignature, e.Signature)
	if e.Step != 0 && !has(carryStep) {
		o.Int("step", e.Step)
	}
	if e.Subagent != nil && !has(carrySubagent) {
		writeRestSubagent(b, o, e.Subagent, true)
	}
	if !has(carryText) {
		o.StrName(&restNames.text, e.Text)
	}
	if !has(carryTime) {
		o.StrName(&restNames.time, e.Time)
	}
	if len(e.Todos) > 0 && !has(carryTodos) {
		writeRestTodos(b, o, e.Todos, true)
	}
	if len(unset) > 0 {
		o.NamesName(&restNames.unset, unset)
	}
	if usage != nil {
		o.Raw("usage", usageJSON(*usage))
	} else if u := e.Usage; u != nil && has(carryUsage) {
		o.Raw("usage", usageJSON(*u))
	}
	o.End()
}

// The members of a rest that are objects, each written by one function
// for both of writeRest's orders: inOrder writes the object's members
// in the order of their keys (writeRestInOrder's), else in writeRest's.
// o is the rest's object, in b.

// writeRestCall writes the call c's members the rest keeps, if any.
func writeRestCall(b *jsonw.Buf, o *jsonw.Obj, c *ToolCall, set carriedSet, inOrder bool) {
	has := func(f carriedSet) bool { return set&f != 0 }
	id := c.ID != "" && !has(carryCallID)
	name := c.Name != "" && !has(carryCallName)
	input := len(c.Input) > 0 && !has(carryCallInput)
	summary := c.Summary != "" && !has(carryCallSummary)
	if !id && !name && !input && !summary {
		return
	}
	o.KeyName(&restNames.call)
	co := b.BeginInOrder(inOrder)
	if id {
		co.StrName(&restNames.id, c.ID)
	}
	if input && inOrder {
		co.Raw("input", c.Input)
	}
	if name {
		co.StrName(&restNames.name, c.Name)
	}
	if input && !inOrder {
		co.Raw("input", c.Input)
	}
	if summary {
		co.Str("summary", c.Summary)
	}
	co.End()
}

// writeRestResult writes the result r's members the rest keeps.
func writeRestResult(b *jsonw.Buf, o *jsonw.Obj, r *ToolResult, set carriedSet, inOrder bool) {
	has := func(f carriedSet) bool { return set&f != 0 }
	o.KeyName(&restNames.result)
	ro := b.BeginInOrder(inOrder)
	if r.CallID != "" && !has(carryResultCallID) {
		ro.StrName(&restNames.callID, r.CallID)
	}
	content := !has(carryResultContent)
	if content && inOrder {
		ro.StrName(&restNames.content, r.Content)
	}
	if r.IsError && !has(carryResultIsError) {
		ro.Bool("is_error", true)
	}
	if content && !inOrder {
		ro.StrName(&restNames.content, r.Content)
	}
	if len(r.ContentRaw) > 0 && !has(carryResultRaw) {
		ro.Raw("raw", r.ContentRaw)
	}
	if r.Status != "" && !has(carryResultStatus) {
		ro.Str("status", r.Status)
	}
	ro.End()
}

// writeRestSubagent writes the sub-agent sa.
func writeRestSubagent(b *jsonw.Buf, o *jsonw.Obj, sa *Subagent, inOrder bool) {
	o.Key("subagent")
	so := b.BeginInOrder(inOrder)
	members := [...][2]string{{"id", sa.ID}, {"agent_id", sa.AgentID}, {"type", sa.Type}, {"status", sa.Status}, {"summary", sa.Summary}, {"session_id", sa.SessionID}, {"trajectory_path", sa.TrajectoryPath}}
	if inOrder {
		members = [...][2]string{{"agent_id", sa.AgentID}, {"id", sa.ID}, {"session_id", sa.SessionID}, {"status", sa.Status}, {"summary", sa.Summary}, {"trajectory_path", sa.TrajectoryPath}, {"type", sa.Type}}
	}
	for _, kv := range members {
		if kv[1] != "" {
			so.Str(kv[0], kv[1])
		}
	}
	so.End()
}

// writeRestCompaction writes the compaction c.
func writeRestCompaction(b *jsonw.Buf, o *jsonw.Obj, c *Compaction, inOrder bool) {
	o.Key("compaction")
	co := b.BeginInOrder(inOrder)
	if c.Trigger != "" && !inOrder {
		co.Str("trigger", c.Trigger)
	}
	if c.PostTokens != 0 && inOrder {
		co.Int("post_tokens", c.PostTokens)
	}
	if c.PreTokens != 0 {
		co.Int("pre_tokens", c.PreTokens)
	}
	if c.PostTokens != 0 && !inOrder {
		co.Int("post_tokens", c.PostTokens)
	}
	if c.Trigger != "" && inOrder {
		co.Str("trigger", c.Trigger)
	}
	co.End()
}

// writeRestTodos writes the todo list todos.
func writeRestTodos(b *jsonw.Buf, o *jsonw.Obj, todos []Todo, inOrder bool) {
	o.Key("todos")
	l := b.List()
	for _, t := range todos {
		l.Next()
		to := b.BeginInOrder(inOrder)
		members := [...][2]string{{"id", t.ID}, {"content", t.Content}, {"status", t.Status}, {"priority", t.Priority}}
		if inOrder {
			members = [...][2]string{{"content", t.Content}, {"id", t.ID}, {"priority", t.Priority}, {"status", t.Status}}
		}
		for _, kv := range members {
			if kv[1] != "" {
				to.Str(kv[0], kv[1])
			}
		}
		to.End()
	}
	l.End()
}

// writeRestExtra writes the fields of x a rest keeps (hasRestExtra), in
// their order: a Buf that writes canonical JSON sorts them.
func writeRestExtra(b *jsonw.Buf, o *jsonw.Obj, x Fields) {
	var kept Fields
	for _, f := range x {
		if len(f.Key) > 0 && f.Key[0] != '_' {
			kept = append(kept, f)
		}
	}
	o.Key("extra")
	kept.WriteJSON(b)
}

// formIsZero reports whether f is the zero Form (f == Form{}): its
// strings' lengths and its flags tested at once, where the comparison
// calls the Form's generated equality (about 70 instructions a rest).
// TestFormIsZero holds it to the comparison for each field.
func formIsZero(f *Form) bool {
	return len(f.Content)|len(f.Prefix)|len(f.Keys) == 0 &&
		!(f.NoOutput || f.Inline || f.WholeInput || f.UsageInText)
}

// writeRestForm writes the form f, not the zero Form.
func writeRestForm(b *jsonw.Buf, o *jsonw.Obj, f *Form, inOrder bool) {
	o.Key("form")
	fo := b.BeginInOrder(inOrder)
	if f.Content != "" {
		fo.Str("content", f.Content)
	}
	if inOrder {
		if f.Inline {
			fo.Bool("inline", true)
		}
		if f.Keys != "" {
			fo.Str("keys", f.Keys)
		}
	}
	if f.NoOutput {
		fo.Bool("no_output", true)
	}
	if f.Inline && !inOrder {
		fo.Bool("inline", true)
	}
	if f.Prefix != "" {
		fo.Str("prefix", f.Prefix)
	}
	if inOrder {
		if f.UsageInText {
			fo.Bool("usage_in_text", true)
		}
		if f.WholeInput {
			fo.Bool("whole_input", true)
		}
		fo.End()
		return
	}
	if f.WholeInput {
		fo.Bool("whole_input", true)
	}
	if f.Keys != "" {
		fo.Str("keys", f.Keys)
	}
	if f.UsageInText {
		fo.Bool("usage_in_text", true)
	}
	fo.End()
}

// restNames are the keys writeRest writes most, and kindNamesEscaped the
// kinds' names, each escaped once for every rest (jsonw.Name).
var restNames = struct {
	kind, time, id, parent, messageID, model, text, signature, name, call,
	result, callID, content, agentID, rawType, unset jsonw.Name
}{
	jsonw.NewName("kind"), jsonw.NewName("time"), jsonw.NewName("id"), jsonw.NewName("parent"),
	jsonw.NewName("message_id"), jsonw.NewName("model"), jsonw.NewName("text"),
	jsonw.NewName("signature"), jsonw.NewName("name"), jsonw.NewName("call"),
	jsonw.NewName("result"), jsonw.NewName("call_id"), jsonw.NewName("content"),
	jsonw.NewName("agent_id"), jsonw.NewName("raw_type"), jsonw.NewName("unset"),
}

// unsetNamesEscaped are the names writers make up ("-id" in carried):
// the names of a rest's "unset" list, each escaped once (unsetName).
var unsetNamesEscaped = struct{ usage, step, callID, resultCallID jsonw.Name }{
	jsonw.NewName("usage"), jsonw.NewName("step"), jsonw.NewName("call.id"), jsonw.NewName("result.call_id"),
}

// unsetName is s escaped once (jsonw.Name) for a rest's "unset" list: one
// kept for a name a writer makes up, or made now for any other.
func unsetName(s string) *jsonw.Name {
	switch s {
	case "id":
		return &restNames.id
	case "parent":
		return &restNames.parent
	case "message_id":
		return &restNames.messageID
	case "model":
		return &restNames.model
	case "usage":
		return &unsetNamesEscaped.usage
	case "step":
		return &unsetNamesEscaped.step
	case "call.id":
		return &unsetNamesEscaped.callID
	case "result.call_id":
		return &unsetNamesEscaped.resultCallID
	}
	n := jsonw.NewName(s)
	return &n
}

var kindNamesEscaped, unknownKindEscaped = func() (n [len(kindNames)]jsonw.Name, unknown jsonw.Name) {
	for k := range kindNames {
		n[k] = jsonw.NewName(Kind(k).String())
	}
	return n, jsonw.NewName(Kind(0).String())
}()

// kindName is k.String() escaped once (jsonw.Name).
func kindName(k Kind) *jsonw.Name {
	if int(k) < len(kindNamesEscaped) {
		return &kindNamesEscaped[k]
	}
	return &unknownKindEscaped
}

// carriedSet is a set of the fields a writer carries (RestOf's carried),
// one bit each: writeRest tests a field's bit where it looked for its name
// in carried, about 25 times a rest.
type carriedSet uint32

const (
	carryTime carriedSet = 1 << iota
	carryID
	carryParent
	carryMessageID
	carryModel
	carryText
	carrySignature
	carryName
	carryCall
	carryCallID
	carryCallName
	carryCallInput
	carryCallSummary
	carryResult
	carryResultCallID
	carryResultIsError
	carryResultContent
	carryResultRaw
	carryResultStatus
	carrySubagent
	carryCompaction
	carryTodos
	carryAgentID
	carrySidechain
	carryMeta
	carryStep
	carryRawType
	carryRaw
	carryParts
	carryUsage // "+usage"
)

// carriedFields is the set of the fields carried names, and unset with
// the names carried gives with a leading "-" appended (unsetName), in
// carried's order. A name writeRest does not look for is in neither. (The switch is
// in the loop: a call there made the loop keep its variables in memory
// across it, more instructions than the switch's.)
func carriedFields(carried []string, unset []*jsonw.Name) (carriedSet, []*jsonw.Name) {
	var set carriedSet
	for _, k := range carried {
		switch k {
		case "time":
			set |= carryTime
		case "id":
			set |= carryID
		case "parent":
			set |= carryParent
		case "message_id":
			set |= carryMessageID
		case "model":
			set |= carryModel
		case "text":
			set |= carryText
		case "signature":
			set |= carrySignature
		case "name":
			set |= carryName
		case "call":
			set |= carryCall
		case "call.id":
			set |= carryCallID
		case "call.name":
			set |= carryCallName
		case "call.input":
			set |= carryCallInput
		case "call.summary":
			set |= carryCallSummary
		case "result":
			set |= carryResult
		case "result.call_id":
			set |= carryResultCallID
		case "result.is_error":
			set |= carryResultIsError
		case "result.content":
			set |= carryResultContent
		case "result.raw":
			set |= carryResultRaw
		case "result.status":
			set |= carryResultStatus
		case "subagent":
			set |= carrySubagent
		case "compaction":
			set |= carryCompaction
		case "todos":
			set |= carryTodos
		case "agent_id":
			set |= carryAgentID
		case "sidechain":
			set |= carrySidechain
		case "meta":
			set |= carryMeta
		case "step":
			set |= carryStep
		case "raw_type":
			set |= carryRawType
		case "raw":
			set |= carryRaw
		case "parts":
			set |= carryParts
		case "+usage":
			set |= carryUsage
		default:
			if len(k) > 0 && k[0] == '-' {
				unset = append(unset, unsetName(k[1:]))
			}
		}
	}
	return set, unset
}

// hasRestExtra reports whether a rest keeps any of the fields x: those
// whose keys do not start with "_" (a reader's own notes).
func hasRestExtra(x Fields) bool {
	for _, f := range x {
		if len(f.Key) > 0 && f.Key[0] != '_' {
			return true
		}
	}
	return false
}

// usageJSON is a usage as a rest holds it: [input, output, cache read,
// cache create].
func usageJSON(u Usage) []byte {
	return []byte("[" + strconv.FormatInt(u.Input, 10) + "," + strconv.FormatInt(u.Output, 10) + "," +
		strconv.FormatInt(u.CacheRead, 10) + "," + strconv.FormatInt(u.CacheCreate, 10) + "]")
}

// ApplyRest sets the fields rest names on e, over what the reader made of
// the format's own fields; its extra and form (none when the rest has
// none) replace the reader's. A rest that is not an object of them is an
// error, and changes nothing.
//
// raw must be valid JSON (part of a validated record). Its members are
// read where they are, each value copied only when the event keeps it;
// a rest that names a field twice, writes a key with an escape or holds
// invalid UTF-8 (none of which a writer of ours makes) goes through
// applyRestFields, the simple reading that decodes the whole object first,
// which FuzzApplyRest holds this one equal to.
func ApplyRest(e *Event, raw []byte) error {
	return ApplyRestIn(nil, e, raw)
}

// ApplyRestIn is ApplyRest for a rest that is part of the record ix
// indexed last (ParseRecord): its members, and the members of its values
// (the call, the result, the extra), are found by jumping over what is
// nested in them.
func ApplyRestIn(ix *jsonscan.Index, e *Event, raw []byte) error {
	var found [32]jsonscan.Span
	b := bytes.TrimSpace(raw)
	// Without an index, straight to MemberSpans: the trajectory and REPLAY
	// readers' ApplyRest pays nothing for the index.
	var spans []jsonscan.Span
	var err error
	if ix == nil {
		spans, err = jsonscan.MemberSpans(b, found[:0])
	} else {
		spans, err = ix.MemberSpans(b, found[:0])
	}
	return applyRestSpans(ix, e, raw, b, spans, err, false)
}

// applyRestSpans is ApplyRest given where raw's members are: b is raw
// without its surrounding space, spans and err what MemberSpans said of
// it; validUTF8 says raw is known to be valid UTF-8.
func applyRestSpans(ix *jsonscan.Index, e *Event, raw, b []byte, spans []jsonscan.Span, err error, validUTF8 bool) error {
	var keys restKeys
	if err == nil {
		keys.of(b, spans)
	}
	return applyRestKeys(ix, e, raw, b, spans, &keys, err, validUTF8)
}

// applyRestKeys is applyRestSpans given its members' keys (restKeys.of;
// ApplyRests walks them once for the rest's kind and its fields).
func applyRestKeys(ix *jsonscan.Index, e *Event, raw, b []byte, spans []jsonscan.Span, keys *restKeys, err error, validUTF8 bool) error {
	if !validUTF8 && !(ix != nil && ix.ValidUTF8(raw)) && !utf8.Valid(raw) {
		return applyRestFields(e, raw)
	}
	if len(b) == 0 || string(b) == "null" {
		return errRestNull
	}
	if err != nil {
		return err
	}
	if !keys.read {
		return applyRestFields(e, raw)
	}
	for i, m := range spans {
		if err := restField(ix, e, keys.n[i], b[m.ValueStart:m.ValueEnd]); err != nil {
			return fmt.Errorf("rest %s: %w", b[m.KeyStart:m.KeyEnd], err)
		}
	}
	finishRest(e, keys.seen&(1<<restExtra) != 0, keys.seen&(1<<restForm) != 0)
	return nil
}

// restKeys is one walk over a rest's members (of): the number of each
// member's key, which of ours it has, and the kind it names, so that
// ApplyRests finds the rest's kind and sets its fields without looking
// at its keys again. (They were walked twice for its fields, each key
// looked up both times, and once more for its kind: restKindOf.)
type restKeys struct {
	// n numbers the keys (restKeyOf), in order, and seen has the bit of
	// each of ours.
	n    [32]restKey
	seen uint32
	// kindAt is 1 + the place of the last member whose key is kind in
	// any case, or 0: its value, when a string, is the rest's kind
	// (restKindOf; kindName).
	kindAt int
	// read says the walk read every key: each is plain (jsonscan.PlainKey),
	// none of ours comes twice, and they fit in n. A rest whose keys are
	// not read goes through applyRestFields and restKindOf, which read
	// what the walk passes over (none of which a writer of ours makes).
	read bool
}

// of walks the members of b that spans gives (MemberSpans of b, without
// error).
func (k *restKeys) of(b []byte, spans []jsonscan.Span) {
	if len(spans) > len(k.n) {
		return
	}
	for i, m := range spans {
		key := b[m.KeyStart:m.KeyEnd]
		n := restKeyOf(key)
		k.n[i] = n
		if n == restUnknown {
			// (One of ours is plain: only another key is tested.)
			if !jsonscan.PlainKey(key) {
				return
			}
			// A plain key (ASCII) is kind in another case only at its
			// length (KIND, Kind).
			if len(key) == 4 && bytes.EqualFold(key, []byte("kind")) {
				k.kindAt = i + 1
			}
			continue
		}
		if k.seen&(1<<n) != 0 {
			return
		}
		k.seen |= 1 << n
		if n == restKind {
			k.kindAt = i + 1
		}
	}
	k.read = true
}

// kindName is the kind the rest names, as restKindOf(b, spans) reads
// it, spans what k walked.
func (k *restKeys) kindName(b []byte, spans []jsonscan.Span) string {
	if k.read {
		if k.kindAt == 0 {
			return ""
		}
		if m := spans[k.kindAt-1]; b[m.ValueStart] == '"' {
			return restKindString(b[m.ValueStart:m.ValueEnd])
		}
	}
	// (The last kind not a string, restKindOf looks for one before it.)
	return restKindOf(b, spans)
}

var errRestNull = errors.New("rest is null")

// applyRestFields is ApplyRest by decoding the rest into fields first:
// the reference the fast reading is held to, and the reading of what it
// passes over.
func applyRestFields(e *Event, raw []byte) error {
	r, err := ParseValidFields(raw)
	if err != nil {
		return err
	}
	if r == nil {
		return errRestNull
	}
	for _, f := range r {
		if err := restField(nil, e, restKeyOf([]byte(f.Key)), f.Value); err != nil {
			return fmt.Errorf("rest %s: %w", f.Key, err)
		}
	}
	_, extra := r.Get("extra")
	_, form := r.Get("form")
	finishRest(e, extra, form)
	return nil
}

// finishRest ends ApplyRest: extra and form say whether the rest had
// them.
func finishRest(e *Event, extra, form bool) {
	if !extra {
		e.Extra = hintsOf(e.Extra)
	}
	if !form {
		e.Form = Form{}
	}
	// An event of a kind has what writers of that kind read, whatever
	// the rest said.
	switch {
	case e.Kind == KindToolCall && e.Call == nil:
		e.Call = &ToolCall{}
	case e.Kind == KindToolResult && e.Result == nil:
		e.Result = &ToolResult{}
	case e.Kind == KindSubagent && e.Subagent == nil:
		e.Subagent = &Subagent{}
	}
}

// hintsOf is the reader hints among extra (keys starting with "_"), which
// are not the source's: nil when there are none.
func hintsOf(extra Fields) Fields {
	var out Fields
	for _, f := range extra {
		if len(f.Key) > 0 && f.Key[0] == '_' {
			out = append(out, f)
		}
	}
	return out
}

// restKey numbers the keys of a rest (see RestOf) that ApplyRest reads.
type restKey uint8

const (
	restKind restKey = iota
	restUsage
	restTime
	restID
	restParent
	restMessageID
	restModel
	restText
	restSignature
	restName
	restAgentID
	restRawType
	restSidechain
	restMeta
	restStep
	restRaw
	restParts
	restExtra
	restCall
	restResult
	restSubagent
	restCompaction
	restTodos
	restForm
	restUnset
	restUnknown
)

// restKeyOf is the number of the rest's key k (restUnknown for a key
// ApplyRest passes over).
func restKeyOf(k []byte) restKey {
	switch string(k) {
	case "kind":
		return restKind
	case "usage":
		return restUsage
	case "time":
		return restTime
	case "id":
		return restID
	case "parent":
		return restParent
	case "message_id":
		return restMessageID
	case "model":
		return restModel
	case "text":
		return restText
	case "signature":
		return restSignature
	case "name":
		return restName
	case "agent_id":
		return restAgentID
	case "raw_type":
		return restRawType
	case "sidechain":
		return restSidechain
	case "meta":
		return restMeta
	case "step":
		return restStep
	case "raw":
		return restRaw
	case "parts":
		return restParts
	case "extra":
		return restExtra
	case "call":
		return restCall
	case "result":
		return restResult
	case "subagent":
		return restSubagent
	case "compaction":
		return restCompaction
	case "todos":
		return restTodos
	case "form":
		return restForm
	case "unset":
		return restUnset
	}
	return restUnknown
}

// restString decodes v, a value of a rest, through ix when there is one
// (a value of the record it indexed, valid UTF-8, is not checked again);
// without, straight to jsonscan: the Claude Code reader's rests, which
// have no index, pay nothing for it.
func restString(ix *jsonscan.Index, v []byte) (string, bool) {
	if ix == nil {
		return jsonscan.String(v)
	}
	return ix.String(v)
}

// restIDString is restString for a string a consumer may keep after its
// event (an id, a time, a model), which an index makes apart from the
// texts (Index.ID).
func restIDString(ix *jsonscan.Index, v []byte) (string, bool) {
	if ix == nil {
		return jsonscan.String(v)
	}
	return ix.ID(v)
}

// restCopy copies v as restString decodes it.
func restCopy(ix *jsonscan.Index, v []byte) json.RawMessage {
	if ix == nil {
		return jsonscan.Copy(v)
	}
	return ix.Copy(v)
}

// restField sets one field of a rest on e. v is valid JSON: the objects
// inside it are read without validating them again.
func restField(ix *jsonscan.Index, e *Event, key restKey, v []byte) error {
	str := func() (string, error) {
		s, ok := restString(ix, v)
		if !ok {
			return "", errors.New("not a string")
		}
		return s, nil
	}
	set := func(dst *string) error {
		s, err := str()
		*dst = s
		return err
	}
	setID := func(dst *string) error {
		s, ok := restIDString(ix, v)
		*dst = s
		if !ok {
			return errors.New("not a string")
		}
		return nil
	}
	switch key {
	case restKind:
		if n := len(v); n >= 2 && v[0] == '"' && v[n-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
			// Every rest has a kind: its bytes are looked up as they are,
			// without a string made of them (KindOf keeps nothing; a byte
			// that decoding would replace is in no kind's name either way).
			// FuzzRestKindField holds this to decoding the string first.
			if k, ok := KindOf(unsafe.String(&v[1], n-2)); ok {
				e.Kind = k
			}
			return nil
		}
		s, err := str()
		if k, ok := KindOf(s); ok {
			e.Kind = k
		}
		return err
	case restUsage:
		var n [4]int64
		count := 0
		err := ix.Array(v, func(_ int, b []byte) error {
			if count < len(n) {
				n[count], _ = jsonscan.Int(b)
			}
			count++
			return nil
		})
		if count == 4 {
			e.Usage = &Usage{Input: n[0], Output: n[1], CacheRead: n[2], CacheCreate: n[3]}
		}
		return err
	case restTime:
		return setID(&e.Time)
	case restID:
		return setID(&e.ID)
	case restParent:
		return setID(&e.ParentID)
	case restMessageID:
		return setID(&e.MessageID)
	case restModel:
		return setID(&e.Model)
	case restText:
		return set(&e.Text)
	case restSignature:
		return set(&e.Signature)
	case restName:
		return set(&e.Name)
	case restAgentID:
		return set(&e.AgentID)
	case restRawType:
		return set(&e.RawType)
	case restSidechain:
		e.Sidechain = true
	case restMeta:
		e.Meta = true
	case restStep:
		n, ok := jsonscan.Int(v)
		if !ok {
			return errors.New("not a number")
		}
		e.Step = n
	case restRaw:
		e.Raw = restCopy(ix, v)
	case restParts:
		e.Parts = restCopy(ix, v)
	case restExtra:
		x, err := ParseIn(ix, v, true)
		if err != nil {
			return err
		}
		e.Extra = append(x, hintsOf(e.Extra)...)
	case restCall:
		if e.Call == nil {
			e.Call = &ToolCall{}
		}
		return ix.Members(v, func(k, val []byte) error {
			switch string(k) {
			case "id":
				e.Call.ID, _ = restIDString(ix, val)
			case "name":
				e.Call.Name, _ = restString(ix, val)
			case "input":
				e.Call.Input = restCopy(ix, val)
			case "summary":
				e.Call.Summary, _ = restString(ix, val)
			}
			return nil
		})
	case restResult:
		if e.Result == nil {
			e.Result = &ToolResult{}
		}
		return ix.Members(v, func(k, val []byte) error {
			switch string(k) {
			case "call_id":
				e.Result.CallID, _ = restIDString(ix, val)
			case "is_error":
				e.Result.IsError = true
			case "content":
				e.Result.Content, _ = restString(ix, val)
			case "raw":
				e.Result.ContentRaw = restCopy(ix, val)
			case "status":
				e.Result.Status, _ = restString(ix, val)
			}
			return nil
		})
	case restSubagent:
		sa := &Subagent{}
		e.Subagent = sa
		return ix.Members(v, func(k, val []byte) error {
			s, _ := restString(ix, val)
			switch string(k) {
			case "id":
				sa.ID = s
			case "agent_id":
				sa.AgentID = s
			case "type":
				sa.Type = s
			case "status":
				sa.Status = s
			case "summary":
				sa.Summary = s
			case "session_id":
				sa.SessionID = s
			case "trajectory_path":
				sa.TrajectoryPath = s
			}
			return nil
		})
	case restCompaction:
		c := &Compaction{}
		e.Compaction = c
		return ix.Members(v, func(k, val []byte) error {
			switch string(k) {
			case "trigger":
				c.Trigger, _ = restString(ix, val)
			case "pre_tokens":
				c.PreTokens, _ = jsonscan.Int(val)
			case "post_tokens":
				c.PostTokens, _ = jsonscan.Int(val)
			}
			return nil
		})
	case restTodos:
		e.Todos = e.Todos[:0]
		return ix.Array(v, func(_ int, t []byte) error {
			var td Todo
			err := ix.Members(t, func(k, val []byte) error {
				s, _ := restString(ix, val)
				switch string(k) {
				case "id":
					td.ID = s
				case "content":
					td.Content = s
				case "status":
					td.Status = s
				case "priority":
					td.Priority = s
				}
				return nil
			})
			e.Todos = append(e.Todos, td)
			return err
		})
	case restForm:
		var f Form
		err := ix.Members(v, func(k, val []byte) error {
			switch string(k) {
			case "content":
				f.Content, _ = restString(ix, val)
			case "no_output":
				f.NoOutput = true
			case "inline":
				f.Inline = true
			case "prefix":
				f.Prefix, _ = restString(ix, val)
			case "whole_input":
				f.WholeInput = true
			case "keys":
				f.Keys, _ = restString(ix, val)
			case "usage_in_text":
				f.UsageInText = true
			}
			return nil
		})
		e.Form = f
		return err
	case restUnset:
		if unsetPlainList(e, v) {
			return nil
		}
		return ix.Array(v, func(_ int, n []byte) error {
			// A name is only compared: one without an escape is looked at
			// in place, no string made of it (a byte that decoding would
			// replace is in no name either way). FuzzRestUnsetField holds
			// this to decoding the names first.
			var name string
			if k := len(n); k >= 2 && n[0] == '"' && bytes.IndexByte(n, '\\') < 0 {
				name = unsafe.String(unsafe.SliceData(n[1:]), k-2)
			} else {
				name, _ = restString(ix, n)
			}
			unsetField(e, name)
			return nil
		})
	}
	return nil
}

// unsetPlainList reads a rest's unset list v, a valid JSON value, when
// nothing in it needs a walk: an array with no escape and nothing nested
// (no '[' or '{' after its first byte, not even inside a string), whose
// strings are then found by their quotes alone (bytes.IndexByte, which
// passes over an indented list's white space many bytes at a time,
// where the walk looked at each), and whose other elements (numbers,
// true, false, null) name nothing. It reports whether it did: a list it
// does not read is left as it was, for the walk (restField).
// FuzzRestUnsetField holds it to the walk.
func unsetPlainList(e *Event, v []byte) bool {
	if len(v) < 2 || v[0] != '[' || bytes.IndexByte(v, '\\') >= 0 ||
		bytes.IndexByte(v[1:], '[') >= 0 || bytes.IndexByte(v[1:], '{') >= 0 {
		return false
	}
	for i := 1; ; {
		q := bytes.IndexByte(v[i:], '"')
		if q < 0 {
			return true
		}
		start := i + q + 1
		end := start + bytes.IndexByte(v[start:], '"')
		unsetField(e, unsafe.String(unsafe.SliceData(v[start:]), end-start))
		i = end + 1
	}
}

// unsetField takes out of e the field a rest's unset list names.
func unsetField(e *Event, name string) {
	switch name {
	case "id":
		e.ID = ""
	case "parent":
		e.ParentID = ""
	case "message_id":
		e.MessageID = ""
	case "time":
		e.Time = ""
	case "model":
		e.Model = ""
	case "usage":
		e.Usage = nil
	case "step":
		e.Step = 0
	case "call.id":
		if e.Call != nil {
			e.Call.ID = ""
		}
	case "result.call_id":
		if e.Result != nil {
			e.Result.CallID = ""
		}
	}
}

// ApplyRests gives the events a reader made of one record of a format
// (an ATIF step, a Claude Code entry) the rests its writer kept for them
// (RestOf), in order. With own, the first rest is the record's own
// event's, whatever kind the reader made of it (a system step that was a
// lifecycle event), and null says the record has none (a step made for
// results only): that event is left out. The others go to the events of
// their kind in order; a rest whose event the record could not hold (a
// second text of one response) gives an event of its own, base with the
// rest applied. bad reports a rest that cannot be read.
func ApplyRests(events []Event, rests []json.RawMessage, own bool, base Event, bad func(error)) []Event {
	return ApplyRestsIn(nil, events, rests, own, base, bad)
}

// ApplyRestsIn is ApplyRests for rests that are part of the record ix
// indexed last (ParseRecord; RestListIn), read as ApplyRestIn reads one.
func ApplyRestsIn(ix *jsonscan.Index, events []Event, rests []json.RawMessage, own bool, base Event, bad func(error)) []Event {
	a := restApplier{events: events, own: own, ix: ix}
	// Room for a rest's members, zeroed once, not once a rest: each
	// rest's are read before the next's are found.
	var found [32]jsonscan.Span
	for _, r := range rests {
		// The rest's members are found once, for its kind and its fields.
		b := bytes.TrimSpace(r)
		spans, err := ix.MemberSpans(b, found[:0])
		a.apply(r, b, spans, err, &base, bad)
	}
	return a.events
}

// RestListAt is the list of rests b, a value of a validated record, for
// ApplyRestListIn: b without the space around it, nil for null (no rest),
// and RestListIn's error for anything but a list.
func RestListAt(b []byte) ([]byte, error) {
	t := bytes.TrimSpace(b)
	if string(t) == "null" {
		return nil, nil
	}
	if len(t) == 0 || t[0] != '[' {
		return nil, errors.New("not a list")
	}
	return t, nil
}

// ApplyRestListIn is ApplyRestsIn of RestListIn of list (RestListAt's),
// part of the record ix indexed last, in one walk: each rest's members
// are found where the walk over the list finds the rest
// (jsonscan.Index.Objects), not looked for again once the list is made.
// room is where a rest's members are listed, reused from one list to the
// next (nil: a list of each rest's own).
func ApplyRestListIn(ix *jsonscan.Index, events []Event, list []byte, own bool, base Event, bad func(error), room *[]jsonscan.Span) []Event {
	if list == nil {
		return events
	}
	a := restApplier{events: events, own: own, ix: ix}
	var dst []jsonscan.Span
	if room != nil {
		if cap(*room) == 0 {
			*room = make([]jsonscan.Span, 0, 32)
		}
		dst = *room
	}
	ix.Objects(list, dst, func(r []byte, spans []jsonscan.Span, err error) {
		a.apply(r, r, spans, err, &base, bad)
	})
	return a.events
}

// restApplier is ApplyRests one rest at a time. (bad and base are given
// to each call, not kept: kept, bad would leave for the heap with what it
// holds, a reader's event among them, once a record, and base, an event,
// would be copied into it for the few records that need it, or leave
// for the heap too.)
type restApplier struct {
	events []Event
	own    bool
	// validUTF8 says every rest is known to be valid UTF-8.
	validUTF8 bool
	// ix indexes the record the rests are part of, or is nil.
	ix *jsonscan.Index
	// j is the event after the last one a rest went to; started says a
	// rest came.
	j       int
	started bool
}

// apply gives the next rest, raw, to its event: b is raw without its
// surrounding space, spans and err what MemberSpans said of b; base is
// the event a rest with no event of its kind left gives back; bad
// reports a rest that cannot be read.
func (a *restApplier) apply(raw, b []byte, spans []jsonscan.Span, err error, base *Event, bad func(error)) {
	first := !a.started
	a.started = true
	if first && a.own && len(a.events) > 0 {
		if string(b) == "null" {
			a.events = a.events[1:]
		} else if err := applyRestSpans(a.ix, &a.events[0], raw, b, spans, err, a.validUTF8); err != nil {
			bad(err)
		} else {
			a.j = 1
		}
		return
	}
	var keys restKeys
	name := ""
	if err == nil {
		keys.of(b, spans)
		name = keys.kindName(b, spans)
	}
	kind, _ := KindOf(name)
	at := a.j
	for at < len(a.events) && a.events[at].Kind != kind {
		at++
	}
	if at == len(a.events) {
		a.events = slices.Insert(a.events, a.j, *base)
		at = a.j
	}
	if err := applyRestKeys(a.ix, &a.events[at], raw, b, spans, &keys, err, a.validUTF8); err != nil {
		bad(err)
	}
	a.j = at + 1
}

// Rests is a list of rests read once (Read): where each rest is in the
// list and where its members are. A reader keeps one and reads the rests
// of each record into it, reusing its room.
type Rests struct {
	list      []byte
	spans     []jsonscan.Span
	elems     []jsonscan.Element
	validUTF8 bool
}

// Read reads the list of rests b into r as RestList(b, false) does, with
// the same errors, finding where each rest's members are in the same
// pass that validates the list (RestList validates it, then splits it,
// then ApplyRests finds each rest's members: three passes). validUTF8
// says b is known to be valid UTF-8, so no rest is checked again. r holds
// b until the next Read. Apply is then ApplyRests of the list;
// FuzzReadRests holds the two equal.
func (r *Rests) Read(b []byte, validUTF8 bool) error {
	var err error
	r.list, r.validUTF8 = b, validUTF8
	r.spans, r.elems, err = jsonscan.ElementSpans(b, r.spans[:0], r.elems[:0])
	switch {
	case err == nil:
		return nil
	case err == jsonscan.ErrNotArray && string(bytes.TrimSpace(b)) == "null":
		err = nil
	case err == jsonscan.ErrNotArray:
		err = errors.New("not a list")
	default:
		err = errors.New("invalid JSON")
	}
	r.list, r.spans, r.elems = nil, r.spans[:0], r.elems[:0]
	return err
}

// Apply is ApplyRests of the rests r holds.
func (r *Rests) Apply(events []Event, own bool, base Event, bad func(error)) []Event {
	a := restApplier{events: events, own: own, validUTF8: r.validUTF8}
	for _, el := range r.elems {
		raw := r.list[el.Start:el.End]
		if el.N < 0 {
			a.apply(raw, raw, nil, jsonscan.ErrNotObject, &base, bad)
			continue
		}
		a.apply(raw, raw, r.spans[el.First:el.First+el.N], nil, &base, bad)
	}
	return a.events
}

// restKindName is the kind a rest names: what decoding it into a struct
// with a Kind string field tagged "kind" gives (encoding/json: the last
// member whose key is "kind" in any case, when its value is a string), read
// without decoding the rest. r is valid JSON; FuzzRestKindName holds it
// equal to encoding/json.
func restKindName(r []byte) string {
	var found [32]jsonscan.Span
	spans, err := jsonscan.MemberSpans(r, found[:0])
	if err != nil {
		return ""
	}
	return restKindOf(r, spans)
}

// restKindOf is restKindName given where r's members are.
func restKindOf(r []byte, spans []jsonscan.Span) string {
	var kind []byte
	for _, m := range spans {
		k, v := r[m.KeyStart:m.KeyEnd], r[m.ValueStart:m.ValueEnd]
		if len(k) != 4 || !jsonscan.PlainKey(k) {
			// An escaped key can spell kind too (\u006bind, or the Kelvin
			// sign, which folds to k).
			if len(k) < 4 || !bytes.EqualFold(jsonscan.KeyBytes(k), []byte("kind")) {
				continue
			}
		} else if !bytes.EqualFold(k, []byte("kind")) {
			continue
		}
		if len(v) > 0 && v[0] == '"' {
			kind = v
		}
	}
	return restKindString(kind)
}

// restKindString is the kind named by kind, the value of a rest's member
// that restKindOf found (a string), or "" for nil.
func restKindString(kind []byte) string {
	if len(kind) < 2 {
		return ""
	}
	if bytes.IndexByte(kind, '\\') >= 0 {
		s, _ := jsonscan.String(kind)
		return s
	}
	// A kind's name is ASCII: the bytes themselves are compared, without
	// making a string of them (KindOf does not keep s).
	return unsafe.String(unsafe.SliceData(kind[1:]), len(kind)-2)
}

// RestList reads a list of rests (a record's rests: a JSON array of
// objects), as decoding it into []json.RawMessage would: null is no
// rest, anything but an array is an error. The rests are b's own bytes
// (ApplyRests copies what the events keep). validated says b is part of a
// validated record, so it is not validated again.
func RestList(b []byte, validated bool) ([]json.RawMessage, error) {
	if !validated && !jsonscan.Valid(b) {
		return nil, errors.New("invalid JSON")
	}
	return RestListIn(nil, b, nil)
}

// RestListIn is RestList for a list validated already, part of the record
// ix indexed last (ParseRecord): each rest is jumped over, not scanned.
// The list is made in room's room when room is not nil, and room keeps
// it for the next list when it is small (at most maxScratch rests): a
// reader that reads a record's rests and does not keep the list (it
// applies them) reuses one; the list is valid until the next call with
// the same room.
func RestListIn(ix *jsonscan.Index, b []byte, room *[]json.RawMessage) ([]json.RawMessage, error) {
	t := bytes.TrimSpace(b)
	if string(t) == "null" {
		return nil, nil
	}
	if len(t) == 0 || t[0] != '[' {
		return nil, errors.New("not a list")
	}
	var out []json.RawMessage
	if room != nil {
		out = (*room)[:0]
	}
	err := ix.Array(t, func(_ int, v []byte) error {
		out = append(out, v)
		return nil
	})
	if room != nil && cap(out) <= maxScratch {
		*room = out
	}
	if out == nil && err == nil {
		out = []json.RawMessage{}
	}
	return out, err
}

// KindOf is the kind named s (Kind.String's name).
func KindOf(s string) (Kind, bool) {
	if s == "" {
		return 0, false
	}
	if k := kindsByShape[kindShape(s)]; k != 0 && kindNames[k] == s {
		return k, true
	}
	return 0, false
}

// kindsByShape finds a kind by its name's shape (kindShape): every kind's
// name has a shape of its own, so KindOf compares s with one name, not
// with each in turn (each rest's kind is looked up twice: its event's,
// and the field). TestKindShapesDiffer holds the shapes apart, and
// FuzzKindOf KindOf to comparing each name.
var kindsByShape = func() (t [32]Kind) {
	for k := 1; k < len(kindNames); k++ {
		t[kindShape(kindNames[k])] = Kind(k)
	}
	return t
}()

// kindShape is a place in kindsByShape for the name s (not empty): its
// length, first and last bytes mixed.
func kindShape(s string) int {
	return (len(s)*12 ^ int(s[0]) ^ int(s[len(s)-1])) & 31
}
