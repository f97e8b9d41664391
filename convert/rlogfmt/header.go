package rlogfmt

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// The YAML header: built as yaml.v3 nodes, in the order a reader expects
// (format, id, repo_sha, the agent's fields, the source's other fields, the
// token totals), and written by yaml.v3.

// yamlKey is a key the header, and a tool argument, can be written under.
var yamlKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// The header fields the model has a field of its own for, as the reader
// sets them and the writer writes them (grammar.FieldSpecs names each;
// TestModelHeaderFieldsAreNamed holds them to it). The reader keeps the
// other fields as the header's extras.
const (
	fieldFormat  = "format"
	fieldID      = "id"
	fieldRepoSHA = "repo_sha"
)

// agentFields are the model's other header strings, in the order the
// writer puts them after format, id and repo_sha.
var agentFields = [...]struct {
	name string
	of   func(*model.Header) *string
}{
	{"agent", func(h *model.Header) *string { return &h.AgentName }},
	{"version", func(h *model.Header) *string { return &h.AgentVersion }},
	{"model", func(h *model.Header) *string { return &h.Model }},
	{"branch", func(h *model.Header) *string { return &h.Branch }},
	{"cwd", func(h *model.Header) *string { return &h.Cwd }},
}

// totalFields are the session's token totals, in the order the writer puts
// them; the optional ones only when they are not 0.
var totalFields = [...]struct {
	name     string
	of       func(*model.Usage) *int64
	optional bool
}{
	{"tokens_total_in", func(u *model.Usage) *int64 { return &u.Input }, false},
	{"tokens_total_out", func(u *model.Usage) *int64 { return &u.Output }, false},
	{"tokens_cached", func(u *model.Usage) *int64 { return &u.CacheRead }, true},
	{"tokens_cache_create", func(u *model.Usage) *int64 { return &u.CacheCreate }, true},
}

// modelHeaderFields are the names of every header field the model has a
// field for.
var modelHeaderFields = func() map[string]bool {
	m := map[string]bool{fieldFormat: true, fieldID: true, fieldRepoSHA: true}
	for _, f := range agentFields {
		m[f.name] = true
	}
	for _, f := range totalFields {
		m[f.name] = true
	}
	return m
}()

// isVerb reports whether name is one of rlog/1's lifecycle events (the
// rules hint at others).
func isVerb(name string) bool {
	_, ok := grammar.VerbNamed(name)
	return ok
}

// header writes the YAML header from what the source said so far, and
// reports what it had to make up or leave out. The token totals
// (tokens_total_in, ...) are the source's when it states them before its
// events, else those a reading before this one found (Options.Totals):
// what @end says too. Read once (standard input), the header has none and
// only @end carries them (reported at the end).
func (wr *writer) header() {
	h := wr.h
	fields := headerFields{written: map[string]bool{}}
	wr.wrote = writtenHeader{fields: map[string]string{}, extra: fields.written}
	fields.add(fieldFormat, stringNode(grammar.FormatVersion))
	id := h.ID
	if strings.TrimSpace(id) == "" {
		id = "unknown"
		wr.rep.Lose(model.LossSynthesized, "header.id", "header id: unknown (the source has no session id)", model.Loc{})
	}
	fields.add(fieldID, stringNode(id))
	wr.wrote.fields[fieldID] = id
	sha := wr.repoSHA()
	fields.add(fieldRepoSHA, stringNode(sha))
	wr.wrote.fields[fieldRepoSHA] = sha
	for _, f := range agentFields {
		if v := *f.of(h); v != "" {
			fields.add(f.name, stringNode(v))
			wr.wrote.fields[f.name] = v
		}
	}
	wr.wrote.model = wr.wrote.fields["model"]
	wr.headerExtras(&fields)
	tot := h.Totals
	if tot == nil && !wr.same {
		tot = wr.opt.Totals
	}
	if tot != nil {
		wr.totalsInHeader = true
		for _, f := range totalFields {
			if n := *f.of(tot); n > 0 || !f.optional {
				fields.add(f.name, countNode(n))
			}
		}
	}
	out, err := yaml.Marshal(&fields.node)
	if err != nil && wr.err == nil {
		wr.err = err // nodes built here always encode; kept for safety
	}
	wr.writeLine("---\n", string(unescapeAstral(out)), "---\n")
}

// repoSHA is the commit the header names: the options', the source's, or
// git's null id (reported).
func (wr *writer) repoSHA() string {
	if wr.opt.RepoSHA != "" {
		return wr.opt.RepoSHA
	}
	if wr.h.RepoSHA != "" {
		return wr.h.RepoSHA
	}
	wr.rep.LoseRemedy(model.LossSynthesized, "header.repo_sha", "header repo_sha: "+NullSHA+" (git's null id; the source names no commit)", model.Loc{}, "name the commit with --repo-sha SHA")
	return NullSHA
}

// headerExtras adds the source's other header fields that fit rlog/1, and
// reports the others.
func (wr *writer) headerExtras(fields *headerFields) {
	for _, f := range wr.h.Extra {
		spec, named := grammar.FieldSpecNamed(f.Key)
		if fields.written[f.Key] || named && spec.Type == grammar.FieldCount || !yamlKey.MatchString(f.Key) {
			wr.rep.Lose(model.LossDroppedField, "header.extra."+f.Key, "header field "+f.Key+" (not a usable rlog header key)", model.Loc{})
			continue
		}
		n, ok := extraNode(spec.Type, named, f.Value)
		if !ok {
			wr.rep.Lose(model.LossDroppedField, "header.extra."+f.Key, "header field "+f.Key+" (its value does not fit the rlog/1 header)", model.Loc{})
			continue
		}
		fields.add(f.Key, n)
	}
}

// headerFields is the header's mapping as it is built.
type headerFields struct {
	node    yaml.Node
	written map[string]bool
}

func (hf *headerFields) add(key string, value *yaml.Node) {
	hf.written[key] = true
	hf.node.Kind = yaml.MappingNode
	hf.node.Content = append(hf.node.Content, stringNode(key), value)
}

// stringNode is s as a YAML string: plain when it is one ASCII token that
// YAML reads back as the same string, double-quoted otherwise, so that the
// header's values look alike and are read back as written.
func stringNode(s string) *yaml.Node {
	s = strings.ToValidUTF8(s, "\uFFFD")
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if !plainToken.MatchString(s) || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		n.Style = yaml.DoubleQuotedStyle
	}
	// Otherwise yaml.v3 writes it plain, or double-quoted when YAML would
	// read the plain form as another type (true, 123, null, ~).
	return n
}

var plainToken = regexp.MustCompile(`^[A-Za-z0-9_./+][A-Za-z0-9_./+@:,()-]*$`)

func countNode(n int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(n, 10)}
}

// extraNode is a source field's JSON value as a header value, or false when
// it does not fit: too long, null, or not of a named field's type. Strings
// are stringNodes; numbers and booleans stay as written; arrays and objects
// are written in flow style.
func extraNode(typ grammar.FieldType, named bool, v json.RawMessage) (*yaml.Node, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || len(v) > LimitComment || string(v) == "null" {
		return nil, false
	}
	var s string
	isStr := json.Unmarshal(v, &s) == nil
	switch {
	case named && typ == grammar.FieldBool:
		if string(v) != "true" && string(v) != "false" {
			return nil, false
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: string(v)}, true
	case named && typ == grammar.FieldList:
		var items []string
		if json.Unmarshal(v, &items) != nil {
			return nil, false
		}
		list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, it := range items {
			list.Content = append(list.Content, stringNode(it))
		}
		return list, true
	case named && typ == grammar.FieldString && !isStr:
		return nil, false
	case isStr:
		if strings.ContainsAny(s, "\n\r") && len(s) > 200 {
			return nil, false
		}
		return stringNode(s), true
	}
	// JSON is YAML: numbers and booleans come back plain, arrays and
	// objects in flow style with their strings double-quoted.
	var doc yaml.Node
	if err := yaml.Unmarshal(v, &doc); err != nil || len(doc.Content) != 1 {
		return nil, false
	}
	return doc.Content[0], true
}

// unescapeAstral writes back as themselves the characters above U+FFFF
// (emoji, rare scripts) that yaml.v3 escapes as \UXXXXXXXX inside double
// quotes: its printable test stops at U+FFFF, though YAML allows them raw.
// An escaped backslash (\\) is passed over, so only the emitter's own
// escapes are read.
func unescapeAstral(out []byte) []byte {
	if !bytes.Contains(out, []byte(`\U`)) {
		return out
	}
	var b bytes.Buffer
	for i := 0; i < len(out); i++ {
		if out[i] != '\\' || i+1 == len(out) {
			b.WriteByte(out[i])
			continue
		}
		if out[i+1] == 'U' && i+10 <= len(out) {
			if r, err := strconv.ParseUint(string(out[i+2:i+10]), 16, 32); err == nil && r > 0xFFFF && utf8.ValidRune(rune(r)) {
				b.WriteRune(rune(r))
				i += 9
				continue
			}
		}
		b.Write(out[i : i+2])
		i++
	}
	return b.Bytes()
}

// begin writes the header and, for other sources, the @start line, at the
// first event (first; nil for an empty session).
func (wr *writer) begin(h *model.Header, first *model.Event) {
	wr.begun = true
	wr.h = h
	// A session first read from rlog (an ATIF file written from an rlog)
	// is rlog text: it is written back as an rlog source is.
	origin, _ := h.First()
	wr.same = origin == Name
	wr.header()
	if !wr.same && (first == nil || first.Kind != model.KindLifecycle || first.Name != grammar.VerbStart) {
		ts := h.Started
		if ts == "" && first != nil {
			ts = first.Time
		}
		wr.startLine(ts)
		subject := "lifecycle"
		if h.Started == "" && ts != "" {
			subject = "lifecycle, header.started"
		}
		wr.rep.Lose(model.LossSynthesized, subject, "@start line (the source has no start event; rlog sessions begin with one)", model.Loc{})
	}
}

// reportLateHeader reports what the header could not say: the prompt,
// and header fields the source gave only after its events began.
func (wr *writer) reportLateHeader() {
	h := wr.h
	if h.Prompt != "" {
		wr.rep.Lose(model.LossDroppedField, "header.prompt", "header prompt (rlog has no prompt field; the first user line keeps its start)", model.Loc{})
	}
	late := func(key string) {
		subject := "header.extra." + key
		switch key {
		case "agent", "model", "branch", "cwd", "id", "repo_sha":
			subject = "header." + key
		case "version":
			subject = "header.agent_version"
		}
		wr.rep.Lose(model.LossDroppedField, subject, "header field "+key+" (known only after the events began; rlog writes its header first)", model.Loc{})
	}
	if h.Totals != nil && !wr.totalsInHeader && wr.same {
		// From rlog, no @end is added: totals the source gives only at its
		// end (through a document format) have no line to go on.
		wr.rep.Lose(model.LossDroppedField, "header.totals", "the session's stated totals, known only after the events began (rlog writes its header first)", model.Loc{})
	}
	if h.CostUSD != nil && !wr.costWritten && wr.same {
		wr.rep.Lose(model.LossDroppedField, "header.cost", "the session's cost, known only after the events began (rlog writes its header first)", model.Loc{})
	}
	for _, f := range agentFields {
		if v := *f.of(h); v != "" && wr.wrote.fields[f.name] != v {
			late(f.name)
		}
	}
	if h.ID != "" && wr.wrote.fields[fieldID] != h.ID {
		late(fieldID)
	}
	if h.RepoSHA != "" && wr.opt.RepoSHA == "" && wr.wrote.fields[fieldRepoSHA] != h.RepoSHA {
		late(fieldRepoSHA)
	}
	for _, f := range h.Extra {
		if wr.wrote.extra[f.Key] || !yamlKey.MatchString(f.Key) {
			continue
		}
		spec, named := grammar.FieldSpecNamed(f.Key)
		if named && spec.Type == grammar.FieldCount {
			continue
		}
		if _, fits := extraNode(spec.Type, named, f.Value); fits {
			late(f.Key)
		}
	}
}
