package grammar

import "slices"

// The rlog/1 vocabulary besides the line kinds (kind.go): the metadata
// keys, the lifecycle events, the result statuses and the header fields.
// Each fact is written here once; the scanner, the rules, hover,
// completion, semantic tokens, the rlog reader and writer, and the tests
// that keep docs/format.md and the TextMate grammar honest read it from
// these tables.

// Key names a metadata key: a key=value that says something about its
// line (when it was written, which call or message it belongs to, how many
// tokens it cost) rather than being part of its text.
//
// What is metadata, and where (docs/format.md, "What is metadata, and
// where"). One rule, read in two ways:
//
//   - The format's keys (Parsed: the reference's, then message_id and
//     tokens_cache_create) are the line's metadata wherever the first of
//     each appears in its content, prose included, as the reference reads
//     them. The scanner keeps that first value (LineInfo.Meta), and every
//     rule and count reads it there.
//   - Writers add the other keys of the table (id_full=, input=, cost_usd=
//     ...), which the format leaves to the text.
//   - A reader of events (the rlog reader of the conversions) takes a
//     line's metadata from where writers put it: the run of Trailing keys
//     that ends the line, and on a line with a result the pairs before its
//     arrow; the fields of x:, @compact and @end lines (summary=,
//     trigger=, ...) it reads on those lines. A key=value anywhere else is
//     text; before a call's arrow, a key that is not CallMeta is an
//     argument of the call.
//   - A writer puts metadata only there, and writes a key= of free text as
//     "key =" where either reading would take it (Checked keys anywhere,
//     Trailing keys at the end of the text).
//
// The two readings differ on a format key inside text, and that difference
// is kept (resolving it either way would change findings or conversions):
// in `a: set step=5 now` the rules see step 5, as the reference does, and
// the reader keeps "set step=5 now" as the text. Usage is the exception:
// the reader counts a line's tokens_*= where the rules do (LineUsage). The
// writer keeps Checked keys out of text, so its lines show the difference
// only for the others (`a: use model=x`: model x to the rules). One more,
// kept as it is: model= before a call's arrow is both the event's model and
// an argument of the call.
type Key uint8

// The format's keys, in the reference parser's order, then the ones
// rlog-ls reads for token accounting (message_id, tokens_cache_create).
// The scanner reads each of them (LineInfo.Meta).
const (
	KeyID Key = iota
	KeyStep
	KeyTS
	KeyTID
	KeySpan
	KeyLatency
	KeyAttempt
	KeyLevel
	KeyParent
	KeySig
	KeyTokensIn
	KeyTokensOut
	KeyTokensCached
	KeyModel
	KeyMessageID
	KeyTokensCacheCreate
	numParsedKeys
)

// The keys writers add that the format leaves to the text: the
// converters' own (a call's whole id and input, Claude Code's entry ids),
// and the fields of x:, @compact and @end lines.
const (
	KeyIDFull Key = numParsedKeys + iota
	KeyParentFull
	KeyUUID
	KeySession
	KeyRole
	KeyStop
	KeyInput
	KeyMeta
	KeyOrphanID
	KeyCostUSD
	KeySummary
	KeyTrigger
	KeyPreTokens
	KeyPostTokens
	KeySuccess
	KeyNumTurns
	KeyDurationMS
	numKeys
)

// NumKeys is how many keys the table has: a reader that keeps something
// for each key sizes its arrays with it.
const NumKeys = int(numKeys)

// valueClass is what a key's value holds. For the format's keys it is
// also how the parser reads it: the longest run of that class after
// "key=", as the reference's capture groups do.
type valueClass uint8

const (
	valueWord      valueClass = iota // \w+
	valueDigits                      // \d+
	valueAttempt                     // \d+(/\d+)?
	valueHexDash                     // [a-f0-9-]+
	valueToken                       // \S+
	valueTimestamp                   // \S+, an RFC 3339 timestamp
	valueText                        // a word, or a JSON string
	valueJSON                        // a JSON object
	valueBool                        // true or false
	valueNumber                      // a decimal number
)

// valueClassDocs name each class as docs/format.md does.
var valueClassDocs = [...]string{
	valueWord:      "word characters",
	valueDigits:    "digits",
	valueAttempt:   "digits, or digits `/` digits",
	valueHexDash:   "hex digits and `-`",
	valueToken:     "up to whitespace",
	valueTimestamp: "a timestamp",
	valueText:      "a word, or a JSON string",
	valueJSON:      "a JSON object",
	valueBool:      "`true` or `false`",
	valueNumber:    "a decimal number",
}

// keyTrait is a fact about a key that readers and writers act on.
type keyTrait uint8

const (
	// trailing: a reader of events takes it as the line's metadata where
	// it ends the line or comes before the result's arrow (Key.Trailing).
	trailing keyTrait = 1 << iota
	// callMeta: before a call's arrow it is metadata, not an argument.
	callMeta
	// checked: the rules check or count its value wherever the parser
	// finds it (step W004, ts W005, the usage), so a writer keeps it out
	// of free text.
	checked
	// usage: a token count.
	usage
	// ref: its value names a call, message, thread or span of the log.
	ref
)

// keySpec is everything rlog/1 says about one metadata key.
type keySpec struct {
	name   string
	value  valueClass
	traits keyTrait
	doc    string // what the key says, for a reader
}

// The traits of the keys on every line: ids, time and place, the usage.
const (
	lineRef   = trailing | callMeta | ref
	linePlace = trailing | callMeta
	lineUsage = trailing | callMeta | checked | usage
)

var keySpecs = [numKeys]keySpec{
	KeyID: {"id", valueWord, lineRef, "the call id, `\\w+` after `id=`; a value that does not start with a word character is not read."},
	KeyStep: {"step", valueDigits, linePlace | checked,
		"the step number. Steps must not decrease (W004); the *Renumber steps* quick fix rewrites them 1..N."},
	// ts= is read as the whole token, deliberately, so that a bad timestamp
	// is seen (W005) rather than cut to its valid start.
	KeyTS:      {"ts", valueTimestamp, linePlace | checked, "when the line was written, an RFC 3339 timestamp."},
	KeyTID:     {"tid", valueWord, lineRef, "the thread or agent that wrote this line (`tid=1` is the main agent)."},
	KeySpan:    {"span", valueWord, lineRef, "the operation this line belongs to; `parent=` names the enclosing span."},
	KeyLatency: {"latency_ms", valueDigits, linePlace, "how long the call took, in milliseconds."},
	KeyAttempt: {"attempt", valueAttempt, linePlace, "the attempt number, optionally out of a total (`attempt=2/3`)."},
	KeyLevel:   {"level", valueWord, linePlace, "the line's severity (`info`, `warn`, `error`)."},
	KeyParent:  {"parent", valueHexDash, lineRef, "the message or span this line belongs to."},
	KeySig: {"sig", valueToken, trailing,
		"the thinking block's signature, cut short by the writer: opaque, kept for reference only."},
	KeyTokensIn:     {"tokens_in", valueDigits, lineUsage, "the message's input tokens."},
	KeyTokensOut:    {"tokens_out", valueDigits, lineUsage, "the message's output tokens."},
	KeyTokensCached: {"tokens_cached", valueDigits, lineUsage, "the message's input tokens read from the prompt cache."},
	KeyModel:        {"model", valueToken, trailing, "the model that wrote this message, when it differs from the header's."},
	KeyMessageID: {"message_id", valueToken, lineRef | checked,
		"the API message this line came from. Lines of one message share its token usage, counted once."},
	KeyTokensCacheCreate: {"tokens_cache_create", valueDigits, lineUsage, "the message's input tokens written to the prompt cache."},

	KeyIDFull: {"id_full", valueText, lineRef,
		"the call's whole id, where `id=` holds only what the format reads of it (`\\w+`, at most 40 characters)."},
	KeyParentFull: {"parent_full", valueText, lineRef, "the whole id of the entry this line answers, where `parent=` holds its start."},
	KeyUUID:       {"uuid", valueText, lineRef, "the source entry's own id (converted Claude Code sessions)."},
	KeySession:    {"session", valueText, trailing | ref, "the Claude Code session this entry belongs to."},
	KeyRole:       {"role", valueText, trailing, "the role of the source message the line came from."},
	KeyStop:       {"stop", valueText, trailing, "why the model stopped (`end_turn`, `tool_use`, …)."},
	KeyInput:      {"input", valueJSON, trailing, "the call's whole input, where the arguments before the arrow abbreviate it."},
	KeyMeta:       {"meta", valueBool, trailing, "on a user line: the agent's harness wrote it, not the user (Claude Code's meta messages)."},
	KeyOrphanID: {"orphan_id", valueText, trailing,
		"the call a result answers when that call is not in the log (an `id=` would be W002)."},
	KeyCostUSD:    {"cost_usd", valueNumber, trailing, "on `@end`: the session's cost in US dollars."},
	KeySummary:    {"summary", valueText, 0, "on an `x:` line after its status: what the subagent did."},
	KeyTrigger:    {"trigger", valueText, 0, "on `@compact`: what started the compaction (`manual`, `auto`)."},
	KeyPreTokens:  {"pre_tokens", valueDigits, 0, "on `@compact`: the context's tokens before the compaction."},
	KeyPostTokens: {"post_tokens", valueDigits, 0, "on `@compact`: the context's tokens after the compaction."},
	KeySuccess:    {"success", valueBool, 0, "on `@end`: whether the session reached its goal."},
	KeyNumTurns:   {"num_turns", valueDigits, 0, "on `@end`: the session's number of turns."},
	KeyDurationMS: {"duration_ms", valueDigits, 0, "on `@end`: how long the session ran, in milliseconds."},
}

// spec is k's entry in the table; a value that is no key (KeyOf's when it
// finds none) has an empty one.
func (k Key) spec() *keySpec {
	if k < numKeys {
		return &keySpecs[k]
	}
	return &noKeySpec
}

var noKeySpec keySpec

func (k Key) String() string { return k.spec().name }

// Doc is one sentence on what key k says.
func (k Key) Doc() string { return k.spec().doc }

// ValueDoc says what key k's value holds, as docs/format.md says it.
func (k Key) ValueDoc() string { return valueClassDocs[k.spec().value] }

// Parsed reports whether k is one of the format's keys, which the parser
// reads wherever it first appears (LineInfo.Meta), and which the rules and
// every count read.
func (k Key) Parsed() bool { return k < numParsedKeys }

// Trailing reports whether a reader of events takes k as the line's
// metadata where it ends the line (a run of such pairs, and the flag
// "interrupted") or comes before the result's arrow.
func (k Key) Trailing() bool { return k.spec().traits&trailing != 0 }

// CallMeta reports whether k before a call's arrow is metadata; any other
// key=value there is an argument of the call.
func (k Key) CallMeta() bool { return k.spec().traits&callMeta != 0 }

// Checked reports whether the rules check or count k's value wherever the
// parser finds it (step, ts, the usage and its message), so that a writer
// keeps such a key= out of free text.
func (k Key) Checked() bool { return k.spec().traits&checked != 0 }

// IsUsage reports whether k is a token count (tokens_in, tokens_out,
// tokens_cached, tokens_cache_create).
func (k Key) IsUsage() bool { return k.spec().traits&usage != 0 }

// IsRef reports whether k's value names a call, message, thread or span
// of the log (an id, highlighted as one).
func (k Key) IsRef() bool { return k.spec().traits&ref != 0 }

// Keys lists the metadata keys: the format's in the reference's order,
// then the ones writers add.
func Keys() []Key {
	out := make([]Key, numKeys)
	for k := range numKeys {
		out[k] = k
	}
	return out
}

// KeyNamed returns the Key spelled name.
func KeyNamed(name string) (Key, bool) {
	return KeyOf([]byte(name))
}

// KeyOf returns the Key spelled b: KeyNamed for a reader going through
// every key=value of a log.
func KeyOf(b []byte) (Key, bool) {
	if k := keyOf(b); k != numKeys {
		return k, true
	}
	k := writerKeyOf(b)
	return k, k != numKeys
}

// writerKeyOf returns the key writers add spelled b, numKeys when b is
// not one.
func writerKeyOf(b []byte) Key {
	if len(b) == 0 || len(b) > maxWriterKeyLen {
		return numKeys
	}
	return slotKey(&writerKeySlots, writerKeyHash(b), b)
}

// keyOf runs for every "=" of a document, so the format's keys are found
// by a hash of their length and first and last bytes, and one comparison.
// keySlots[h] is the key with hash h, plus one (0: none). The keys writers
// add have a table of their own (writerKeySlots), with another hash:
// stop= and step= are alike to this one, and the scanner, which looks
// only for the format's keys, should not pay for them.
var maxParsedKeyLen, keySlots = slotTable(0, numParsedKeys, keyHash)

var maxWriterKeyLen, writerKeySlots = slotTable(numParsedKeys, numKeys, writerKeyHash)

const keySlotCount = 256

// slotTable is keySlots for the keys [from, to), with the longest name.
func slotTable(from, to Key, hash func([]byte) uint8) (int, [keySlotCount]uint8) {
	n := 0
	var slots [keySlotCount]uint8
	for k := from; k < to; k++ {
		s := keySpecs[k]
		h := hash([]byte(s.name))
		if slots[h] != 0 {
			panic("grammar: keys " + s.name + " and " + keySpecs[slots[h]-1].name + " share a hash slot; change the hash")
		}
		slots[h] = uint8(k + 1)
		n = max(n, len(s.name))
	}
	return n, slots
}

func keyHash(b []byte) uint8 {
	return uint8(len(b) + 2*int(b[0]) + 5*int(b[len(b)-1]))
}

func writerKeyHash(b []byte) uint8 {
	return uint8(len(b) + 2*int(b[0]) + 3*int(b[len(b)-1]))
}

// keyOf returns the format's key spelled b, numKeys when b is not one.
func keyOf(b []byte) Key {
	if len(b) == 0 || len(b) > maxParsedKeyLen {
		return numKeys
	}
	return slotKey(&keySlots, keyHash(b), b)
}

// slotKey returns the key in slots at hash h when it is spelled b (two
// spellings can share a hash), numKeys otherwise.
func slotKey(slots *[keySlotCount]uint8, h uint8, b []byte) Key {
	if slot := slots[h]; slot != 0 && string(b) == keySpecs[slot-1].name {
		return Key(slot - 1)
	}
	return numKeys
}

// valueEnd returns where the value of key k starting at i ends, using the
// reference's capture class for k.
func valueEnd(t []byte, k Key, i int) int {
	switch keySpecs[k].value {
	case valueWord:
		return skipWord(t, i)
	case valueDigits:
		return skipDigits(t, i)
	case valueAttempt:
		e := skipDigits(t, i)
		if e > i && e+1 < len(t) && t[e] == '/' && isDigit(t[e+1]) {
			e = skipDigits(t, e+1)
		}
		return e
	case valueHexDash:
		for i < len(t) && (isDigit(t[i]) || 'a' <= t[i] && t[i] <= 'f' || t[i] == '-') {
			i++
		}
		return i
	default:
		return skipNonSpace(t, i)
	}
}

// Verb is a lifecycle event of rlog/1: the word after "@" on a lifecycle
// line. Other words are read too, but are probably typos (H001).
type Verb struct {
	Name string
	Doc  string // what the event says happened
}

// Interrupted is the flag, a bare word anywhere on a line, that marks a
// call that was interrupted (reference: \binterrupted\b). Readers keep it
// with the line's metadata when it is among the pairs that end the line.
const Interrupted = "interrupted"

// The lifecycle events readers and writers name.
const (
	VerbStart   = "start"
	VerbEnd     = "end"
	VerbInit    = "init"
	VerbPhase   = "phase"
	VerbCompact = "compact"
	VerbResume  = "resume"
)

// Verbs are rlog/1's lifecycle events.
var Verbs = []Verb{
	{VerbStart, "the session started (`id=` is the session, `ts=` when)"},
	{VerbEnd, "the session ended cleanly; its `tokens_*` and `cost_usd=` are the session's totals"},
	{VerbInit, "the agent (re)initialised, e.g. after a context compaction or a resume; `model=` is the model"},
	{VerbPhase, "a phase marker; `@phase NAME` starts a named phase"},
	{"checkpoint", "a checkpoint the session can be resumed from"},
	{"pause", "the session paused"},
	{VerbResume, "the session resumed"},
	{"assess", "the agent assessed its progress"},
	{"notify", "a notification was sent"},
	{"wait-approval", "the agent waits for a human's approval"},
	{"escalate", "the agent escalated to a human"},
	{"batch", "a batch of operations"},
	{"snapshot", "a snapshot of the workspace"},
	{"rotate", "the log was rotated"},
	{VerbCompact, "the context was compacted"},
}

// VerbNamed returns the lifecycle event called name.
func VerbNamed(name string) (Verb, bool) {
	for _, v := range Verbs {
		if v.Name == name {
			return v, true
		}
	}
	return Verb{}, false
}

// StatusClass says how a result status ended.
type StatusClass uint8

const (
	StatusOther   StatusClass = iota
	StatusSuccess             // [ok], [done], [loaded]
	StatusFailure             // [error], [denied], [interrupted]
	StatusPending             // [running], [started]
)

// Status is a bracketed word right after a result's "→".
type Status struct {
	Word  string // with its brackets: "[ok]"
	Class StatusClass
	Doc   string
}

// The result statuses, without their brackets, as readers and writers
// name them.
const (
	StatusOK      = "ok"
	StatusError   = "error"
	StatusRunning = "running"
	StatusStarted = "started"
	StatusDone    = "done"
	StatusSkip    = "skip"
	StatusLoaded  = "loaded"
	// StatusDenied and StatusInterrupted are failures with a cause: the
	// call never ran because a permission rule or the user refused it,
	// or the user stopped it.
	StatusDenied      = "denied"
	StatusInterrupted = Interrupted
)

// Statuses are the result statuses rlog/1 writers use.
var Statuses = []Status{
	{"[" + StatusOK + "]", StatusSuccess, "the call succeeded."},
	{"[" + StatusError + "]", StatusFailure, "the call failed."},
	{"[" + StatusDenied + "]", StatusFailure, "the call was denied: a permission rule or the user refused it, and it did not run."},
	{"[" + StatusInterrupted + "]", StatusFailure, "the call was interrupted: the user stopped it (or rejected it) before it finished."},
	{"[" + StatusRunning + "]", StatusPending, "the call started; its result follows on an `o:` line."},
	{"[" + StatusStarted + "]", StatusPending, "the subagent started."},
	{"[" + StatusDone + "]", StatusSuccess, "the subagent finished."},
	{"[" + StatusSkip + "]", StatusOther, "the call was skipped."},
	{"[" + StatusLoaded + "]", StatusSuccess, "the skill was loaded."},
}

// StatusNamed returns the status written word (brackets included).
func StatusNamed(word string) (Status, bool) {
	for _, s := range Statuses {
		if s.Word == word {
			return s, true
		}
	}
	return Status{}, false
}

// StatusFails reports whether a result's status word (without its
// brackets) says the call failed: a word starting with "err" (`[error]`,
// `[err: timeout]`) or a failure of the table (`[denied]`,
// `[interrupted]`). Every count of failed calls, the colours and the
// readers of events decide with it.
func StatusFails(word []byte) bool {
	if len(word) >= 3 && word[0] == 'e' && word[1] == 'r' && word[2] == 'r' {
		return true
	}
	switch string(word) {
	case StatusDenied, StatusInterrupted:
		return true
	}
	return false
}

// FieldType is the YAML type a header field's value must have.
type FieldType uint8

const (
	FieldAny    FieldType = iota // any YAML value
	FieldString                  // one scalar
	FieldBool                    // true or false
	FieldCount                   // a whole number, 0 or more
	FieldList                    // a sequence
)

// FieldSpec is a named field of the rlog/1 header. Fields not listed here
// are kept as extra metadata.
type FieldSpec struct {
	Name     string
	Type     FieldType
	Required bool
	// Reference is false for the fields rlog-ls reads that the reference
	// header does not name (it keeps them as extra, untyped, metadata).
	Reference bool
	Doc       string
}

// FieldSpecs are the header's named fields, the required ones first in
// the order writers put them.
var FieldSpecs = []FieldSpec{
	{"format", FieldString, true, true, "The format and version: `rlog/1`. Required."},
	{"id", FieldString, true, true, "The session id. Required; shared with the companion `.jsonl`."},
	{"repo_sha", FieldString, true, true, "The commit the session ran on (6 to 40 hex characters). Required."},
	{"mode", FieldString, false, true, "The agent's mode (`auto` needs a `sandbox_id`)."},
	{"model", FieldString, false, true, "The model that ran the session."},
	{"agent", FieldString, false, true, "The agent that wrote the log (e.g. `autopilot`)."},
	{"version", FieldString, false, true, "The agent's version."},
	{"repo", FieldString, false, true, "The repository."},
	{"branch", FieldString, false, true, "The git branch."},
	{"dirty", FieldBool, false, true, "Whether the working tree had uncommitted changes (true/false)."},
	{"sandbox_id", FieldString, false, true, "The sandbox the session ran in."},
	{"runner", FieldString, false, true, "Where the session ran; replay needs it (I004)."},
	{"toolset", FieldAny, false, true, "The tools available to the agent (any YAML)."},
	{"skills", FieldList, false, true, "The skills available to the agent (a list)."},
	{"mcp", FieldList, false, true, "The MCP servers available to the agent (a list)."},
	{"budget", FieldString, false, true, "The session's budget."},
	{"duration", FieldString, false, true, "How long the session ran."},
	{"classification", FieldString, false, true, "A classification of the session."},
	{"notes", FieldString, false, true, "Free-form notes."},
	{"client_version", FieldString, false, true, "The Claude Code version of a converted session."},
	{"slug", FieldString, false, true, "Claude Code's human-readable session name."},
	{"cwd", FieldString, false, true, "The working directory."},
	{"tokens_total_in", FieldCount, false, true, "The session's input tokens, as the writer counted them."},
	{"tokens_total_out", FieldCount, false, true, "The session's output tokens, as the writer counted them."},
	{"tokens_cached", FieldCount, false, true, "The session's cached input tokens, as the writer counted them."},
	{"tokens_cache_create", FieldCount, false, false,
		"Tokens written to the prompt cache (converted sessions; not a named field of the reference)."},
}

// FieldSpecNamed returns the header's named field called name.
func FieldSpecNamed(name string) (FieldSpec, bool) {
	i := slices.IndexFunc(FieldSpecs, func(f FieldSpec) bool { return f.Name == name })
	if i < 0 {
		return FieldSpec{}, false
	}
	return FieldSpecs[i], true
}

// RequiredFields are the names of the fields every rlog/1 header must have,
// in the order writers put them.
func RequiredFields() []string {
	var out []string
	for _, f := range FieldSpecs {
		if f.Required {
			out = append(out, f.Name)
		}
	}
	return out
}

// FormatVersion is the header's format: value for this version of rlog.
const FormatVersion = "rlog/1"

// NullRepoSHA is git's null object id, the repo_sha written where the
// commit is not known: it passes the repo_sha check (W009) and says plainly
// that it names no commit.
const NullRepoSHA = "0000000000000000000000000000000000000000"
