package grammar

import "slices"

// The rlog/1 vocabulary besides the line kinds (kind.go): the metadata keys
// the parser reads, the lifecycle events, the result statuses and the
// header fields. Each fact is written here once; the scanner, the rules,
// hover, the writers and the tests that keep docs/format.md honest read it
// from these tables.

// Key names a metadata key the parser extracts from a line.
type Key uint8

// The reference parser's metadata keys, in its order, then the ones rlog-ls
// reads for token accounting (message_id, tokens_cache_create).
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
	numKeys
)

// valueClass is what a key's value may hold: the parser reads the longest
// run of that class after "key=", as the reference's capture groups do.
type valueClass uint8

const (
	valueWord    valueClass = iota // \w+
	valueDigits                    // \d+
	valueAttempt                   // \d+(/\d+)?
	valueHexDash                   // [a-f0-9-]+
	valueToken                     // \S+
)

// keySpec is everything rlog/1 says about one metadata key.
type keySpec struct {
	name  string
	value valueClass
	usage bool   // a token count (tokens_*)
	doc   string // what the key says, for a reader
}

var keySpecs = [numKeys]keySpec{
	KeyID: {"id", valueWord, false, "the call id, `\\w+` after `id=`; a value that does not start with a word character is not read."},
	KeyStep: {"step", valueDigits, false,
		"the step number. Steps must not decrease (W004); the *Renumber steps* quick fix rewrites them 1..N."},
	// ts= is read as the whole token, deliberately, so that a bad timestamp
	// is seen (W005) rather than cut to its valid start.
	KeyTS:      {"ts", valueToken, false, "when the line was written, an RFC 3339 timestamp."},
	KeyTID:     {"tid", valueWord, false, "the thread or agent that wrote this line (`tid=1` is the main agent)."},
	KeySpan:    {"span", valueWord, false, "the operation this line belongs to; `parent=` names the enclosing span."},
	KeyLatency: {"latency_ms", valueDigits, false, "how long the call took, in milliseconds."},
	KeyAttempt: {"attempt", valueAttempt, false, "the attempt number, optionally out of a total (`attempt=2/3`)."},
	KeyLevel:   {"level", valueWord, false, "the line's severity (`info`, `warn`, `error`)."},
	KeyParent:  {"parent", valueHexDash, false, "the message or span this line belongs to."},
	KeySig: {"sig", valueToken, false,
		"the thinking block's signature, cut short by the writer: opaque, kept for reference only."},
	KeyTokensIn:     {"tokens_in", valueDigits, true, "the message's input tokens."},
	KeyTokensOut:    {"tokens_out", valueDigits, true, "the message's output tokens."},
	KeyTokensCached: {"tokens_cached", valueDigits, true, "the message's input tokens read from the prompt cache."},
	KeyModel:        {"model", valueToken, false, "the model that wrote this message, when it differs from the header's."},
	KeyMessageID: {"message_id", valueToken, false,
		"the API message this line came from. Lines of one message share its token usage, counted once."},
	KeyTokensCacheCreate: {"tokens_cache_create", valueDigits, true, "the message's input tokens written to the prompt cache."},
}

func (k Key) String() string { return keySpecs[k].name }

// Doc is one sentence on what key k says.
func (k Key) Doc() string { return keySpecs[k].doc }

// IsUsage reports whether k is a token count (tokens_in, tokens_out,
// tokens_cached, tokens_cache_create).
func (k Key) IsUsage() bool { return keySpecs[k].usage }

// Keys lists the metadata keys in the reference's order.
func Keys() []Key {
	out := make([]Key, numKeys)
	for k := range numKeys {
		out[k] = k
	}
	return out
}

// KeyNamed returns the Key spelled name.
func KeyNamed(name string) (Key, bool) {
	k := keyOf([]byte(name))
	return k, k != numKeys
}

// keyOf runs for every "=" of a document, so the keys are found by a
// hash of their length and first and last bytes, and one comparison.
// keySlots[h] is the key with hash h, plus one (0: none).
var maxKeyLen, keySlots = func() (int, [keySlotCount]uint8) {
	n := 0
	var slots [keySlotCount]uint8
	for k, s := range keySpecs {
		n = max(n, len(s.name))
		h := keyHash([]byte(s.name))
		if slots[h] != 0 {
			panic("grammar: keys " + s.name + " and " + keySpecs[slots[h]-1].name + " share a hash slot; change keyHash")
		}
		slots[h] = uint8(k + 1)
	}
	return n, slots
}()

const keySlotCount = 256

func keyHash(b []byte) uint8 {
	return uint8(len(b) + 2*int(b[0]) + 5*int(b[len(b)-1]))
}

// keyOf returns the key spelled b, numKeys when b is not one.
func keyOf(b []byte) Key {
	if len(b) == 0 || len(b) > maxKeyLen {
		return numKeys
	}
	if slot := keySlots[keyHash(b)]; slot != 0 && string(b) == keySpecs[slot-1].name {
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

// Verbs are rlog/1's lifecycle events.
var Verbs = []Verb{
	{"start", "the session started (`id=` is the session, `ts=` when)"},
	{"end", "the session ended cleanly; its `tokens_*` and `cost_usd=` are the session's totals"},
	{"init", "the agent (re)initialised, e.g. after a context compaction or a resume; `model=` is the model"},
	{"phase", "a phase marker; `@phase NAME` starts a named phase"},
	{"checkpoint", "a checkpoint the session can be resumed from"},
	{"pause", "the session paused"},
	{"resume", "the session resumed"},
	{"assess", "the agent assessed its progress"},
	{"notify", "a notification was sent"},
	{"wait-approval", "the agent waits for a human's approval"},
	{"escalate", "the agent escalated to a human"},
	{"batch", "a batch of operations"},
	{"snapshot", "a snapshot of the workspace"},
	{"rotate", "the log was rotated"},
	{"compact", "the context was compacted"},
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
	StatusFailure             // [error]
	StatusPending             // [running], [started]
)

// Status is a bracketed word right after a result's "→".
type Status struct {
	Word  string // with its brackets: "[ok]"
	Class StatusClass
	Doc   string
}

// Statuses are the result statuses rlog/1 writers use.
var Statuses = []Status{
	{"[ok]", StatusSuccess, "the call succeeded."},
	{"[error]", StatusFailure, "the call failed."},
	{"[running]", StatusPending, "the call started; its result follows on an `o:` line."},
	{"[started]", StatusPending, "the subagent started."},
	{"[done]", StatusSuccess, "the subagent finished."},
	{"[skip]", StatusOther, "the call was skipped."},
	{"[loaded]", StatusSuccess, "the skill was loaded."},
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
