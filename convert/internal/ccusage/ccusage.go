// Package ccusage applies, in Go, the rules by which ccusage 20.0.24 (npm
// `ccusage`, the most used token-usage tool for Claude Code) reads Claude
// Code session JSONL, so that tests can check that the transcripts rlog-ls
// writes are counted as the originals are, without installing ccusage.
//
// The rules were read off ccusage's behaviour one change at a time and are
// written down in docs/conversions.md ("What ccusage counts"). In short, a
// line counts when:
//
//   - it contains the bytes `"usage":{` (compact JSON, as Claude Code writes);
//   - no key among id, cwd, model, speed, costUSD, version, sessionId,
//     requestId, isApiErrorMessage, cache_read_input_tokens and
//     cache_creation_input_tokens is written `"<key>":null`;
//   - it is a JSON object whose fields have the types ccusage expects, with
//     a string `timestamp` and `message.usage.input_tokens` and
//     `output_tokens` that are unsigned integers;
//   - its timestamp is `YYYY-MM-DDTHH:MM:SS`, optionally `.mmm` (exactly
//     three digits), then `Z` or `±HH:MM`;
//   - `version`, when present, starts `x.y.z`; `sessionId`, `requestId`,
//     `message.id` and `message.model`, when present, are not empty.
//
// Counted lines are de-duplicated per message: lines with the same message
// id and request id are one message, across files and sessions; lines with
// the same message id and no request id are one message within a session
// (the line's sessionId, else the session its file belongs to). Of one
// message's lines the one with the larger token total is kept, except that
// a main-chain line wins over a sidechain copy. Lines without a message id
// are each counted.
package ccusage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/jsonscan"
)

// Totals are the token totals ccusage reports, over the entries it keeps
// after de-duplication.
type Totals struct {
	Input       int64
	Output      int64
	CacheCreate int64
	CacheRead   int64
	// Entries is the number of usage entries kept after de-duplication
	// (ccusage --debug: "Kept N usage entries").
	Entries int
}

func (t Totals) String() string {
	return fmt.Sprintf("input %d, output %d, cache creation %d, cache read %d (%d entries)",
		t.Input, t.Output, t.CacheCreate, t.CacheRead, t.Entries)
}

// Tokens returns the four token counters, without Entries, for comparing
// what two files count regardless of how many lines carry it.
func (t Totals) Tokens() [4]int64 { return [4]int64{t.Input, t.Output, t.CacheCreate, t.CacheRead} }

// Rule names why a line with usage is not counted.
type Rule string

// The rules, in the order ccusage applies them.
const (
	// RuleNotCompact: the line has a "usage" object but not the exact bytes
	// `"usage":{` (pretty-printed JSON, `"usage": {`).
	RuleNotCompact Rule = "usage-not-compact"
	// RuleNull: `"<key>":null` for a key ccusage does not allow to be null.
	RuleNull Rule = "null-field"
	// RuleShape: not a JSON object of the expected types (invalid JSON, no
	// string timestamp, no message.usage with unsigned integer input_tokens
	// and output_tokens, a field ccusage reads that has the wrong type, is
	// written twice or holds invalid UTF-8).
	RuleShape Rule = "shape"
	// RuleTimestamp: a timestamp ccusage does not parse (a fraction of
	// other than three digits, no zone, ...).
	RuleTimestamp Rule = "timestamp"
	// RuleVersion: a version that does not start with x.y.z.
	RuleVersion Rule = "version"
	// RuleEmpty: an empty sessionId, requestId, message.id or message.model.
	RuleEmpty Rule = "empty-string"
)

// Skip is one line that has usage but is not counted.
type Skip struct {
	File   string // set by CountProject
	Line   int    // 1-based
	Rule   Rule
	Detail string
}

func (s Skip) String() string {
	loc := fmt.Sprintf("line %d", s.Line)
	if s.File != "" {
		loc = s.File + ":" + fmt.Sprint(s.Line)
	}
	if s.Detail != "" {
		return loc + ": " + string(s.Rule) + ": " + s.Detail
	}
	return loc + ": " + string(s.Rule)
}

// Count applies ccusage's rules to one transcript.
func Count(r io.Reader) (Totals, []Skip, error) {
	var c counter
	skips, err := c.read(r, "", "")
	return c.totals(), skips, err
}

// CountProject applies ccusage's rules to a Claude Code project folder (a
// folder laid out as `~/.claude/projects/<project>`): every session file
// `<session>.jsonl` in it and every JSONL file below it, such as the
// sub-agent transcripts `<session>/subagents/agent-*.jsonl`, which count
// inside their session. Messages repeated across files count once.
func CountProject(dir string) (Totals, error) {
	t, _, err := CountProjectSkips(dir)
	return t, err
}

// CountProjectSkips is CountProject returning the lines not counted, too.
func CountProjectSkips(dir string) (Totals, []Skip, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".jsonl") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return Totals{}, nil, err
	}
	sort.Strings(files)
	var c counter
	var skips []Skip
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return Totals{}, skips, err
		}
		s, err := c.read(f, rel, fileSession(rel))
		f.Close()
		skips = append(skips, s...)
		if err != nil {
			return c.totals(), skips, err
		}
	}
	return c.totals(), skips, nil
}

// fileSession is the session a file counts in when its lines name none:
// `<session>.jsonl` directly in the project, or the folder above
// `subagents/` for a sub-agent transcript, else the file's parent folder.
func fileSession(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) == 1 {
		return strings.TrimSuffix(parts[0], ".jsonl")
	}
	if len(parts) >= 3 && parts[len(parts)-2] == "subagents" {
		return parts[len(parts)-3]
	}
	return parts[len(parts)-2]
}

// entry is one counted line.
type entry struct {
	usage     usage
	sidechain bool
}

type usage struct{ input, output, cacheCreate, cacheRead int64 }

func (u usage) total() int64 { return u.input + u.output + u.cacheCreate + u.cacheRead }

type dedupeKey struct {
	message    string
	request    string
	hasRequest bool
	session    string
}

type counter struct {
	entries []entry
	byKey   map[dedupeKey]int
}

func (c *counter) totals() Totals {
	var t Totals
	for _, e := range c.entries {
		t.Input += e.usage.input
		t.Output += e.usage.output
		t.CacheCreate += e.usage.cacheCreate
		t.CacheRead += e.usage.cacheRead
	}
	t.Entries = len(c.entries)
	return t
}

// read counts the lines of one file; session is the file's own session
// (from its path), used when a line has no sessionId.
func (c *counter) read(r io.Reader, file, session string) ([]Skip, error) {
	var skips []Skip
	br := bufio.NewReaderSize(r, 1<<16)
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			e, key, hasKey, skip := parseLine(bytes.TrimSuffix(line, []byte("\n")))
			switch {
			case skip != nil:
				skip.File, skip.Line = file, n
				skips = append(skips, *skip)
			case e != nil:
				if hasKey && !key.hasRequest && key.session == "" {
					key.session = session
				}
				c.add(*e, key, hasKey)
			}
		}
		if err == io.EOF {
			return skips, nil
		}
		if err != nil {
			return skips, err
		}
	}
}

func (c *counter) add(e entry, key dedupeKey, hasKey bool) {
	if !hasKey {
		c.entries = append(c.entries, e)
		return
	}
	if c.byKey == nil {
		c.byKey = map[dedupeKey]int{}
	}
	i, seen := c.byKey[key]
	if !seen {
		c.byKey[key] = len(c.entries)
		c.entries = append(c.entries, e)
		return
	}
	old := c.entries[i]
	replace := false
	if e.sidechain != old.sidechain {
		replace = old.sidechain
	} else {
		replace = e.usage.total() > old.usage.total()
	}
	if replace {
		c.entries[i] = e
	}
}

var usageMarker = []byte(`"usage":{`)

// parseLine applies the rules to one line. It returns the entry and its
// de-duplication key (hasKey when the line has a message id), a Skip for a
// line with usage that does not count, or neither for a line without usage.
func parseLine(line []byte) (e *entry, key dedupeKey, hasKey bool, skip *Skip) {
	if !bytes.Contains(line, usageMarker) {
		if hasLooseUsage(line) {
			return nil, key, false, &Skip{Rule: RuleNotCompact, Detail: `"usage" object not written as "usage":{`}
		}
		return nil, key, false, nil
	}
	if f := nullField(line); f != "" {
		return nil, key, false, &Skip{Rule: RuleNull, Detail: `"` + f + `":null`}
	}
	d, why := decode(line)
	if why != "" {
		return nil, key, false, &Skip{Rule: RuleShape, Detail: why}
	}
	if !validTimestamp(d.timestamp) {
		return nil, key, false, &Skip{Rule: RuleTimestamp, Detail: fmt.Sprintf("%q", d.timestamp)}
	}
	if d.version != nil && !semverPrefix(*d.version) {
		return nil, key, false, &Skip{Rule: RuleVersion, Detail: fmt.Sprintf("%q", *d.version)}
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"sessionId", d.sessionID}, {"requestId", d.requestID}, {"message.id", d.messageID}, {"message.model", d.model}} {
		if f.v != nil && *f.v == "" {
			return nil, key, false, &Skip{Rule: RuleEmpty, Detail: f.name}
		}
	}
	e = &entry{usage: d.usage, sidechain: d.sidechain}
	if d.messageID == nil {
		return e, key, false, nil
	}
	// A message with a request id is one message wherever it is; without
	// one, it is one message within a session.
	key.message = *d.messageID
	if d.requestID != nil {
		key.request, key.hasRequest = *d.requestID, true
	} else if d.sessionID != nil {
		key.session = *d.sessionID
	}
	return e, key, true, nil
}

// hasLooseUsage reports whether line has a "usage" key followed by an
// object with whitespace in between, which ccusage's byte marker misses.
func hasLooseUsage(line []byte) bool {
	key := []byte(`"usage"`)
	for off := 0; ; {
		i := bytes.Index(line[off:], key)
		if i < 0 {
			return false
		}
		j := off + i + len(key)
		j = skipSpace(line, j)
		if j < len(line) && line[j] == ':' {
			j = skipSpace(line, j+1)
			if j < len(line) && line[j] == '{' {
				return true
			}
		}
		off = off + i + 1
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// nullable are the keys ccusage refuses as null anywhere in a line.
var nullable = map[string]bool{
	"id": true, "cwd": true, "model": true, "speed": true, "costUSD": true, "version": true,
	"sessionId": true, "requestId": true, "isApiErrorMessage": true,
	"cache_read_input_tokens": true, "cache_creation_input_tokens": true,
}

// nullField returns the first key ccusage refuses as `"<key>":null`, found
// as ccusage finds it: by the bytes `:null` and the quoted word before
// them, wherever in the line (a tool input's `"id":null` counts too).
func nullField(line []byte) string {
	for off := 0; ; {
		i := bytes.Index(line[off:], []byte(":null"))
		if i < 0 {
			return ""
		}
		at := off + i
		off = at + len(":null")
		end := at - 1
		if end < 0 {
			continue
		}
		if line[end] != '"' {
			for end > 0 && line[end] != '"' {
				end--
			}
		}
		if line[end] != '"' {
			continue
		}
		start := end - 1
		for start > 0 && line[start] != '"' {
			start--
		}
		if start < 0 || line[start] != '"' {
			continue
		}
		if f := string(line[start+1 : end]); nullable[f] {
			return f
		}
	}
}

// decoded is what ccusage reads of a line.
type decoded struct {
	timestamp                     string
	version, sessionID, requestID *string
	messageID, model              *string
	usage                         usage
	sidechain                     bool
}

// decode reads a line with the types ccusage expects; why says what does
// not fit.
func decode(line []byte) (d decoded, why string) {
	hasTimestamp, hasMessage := false, false
	var message []byte
	err := members(line, entryFields, func(k string, v []byte) error {
		switch k {
		case "timestamp":
			s, ok := str(v)
			if !ok {
				return errors.New("timestamp is not a string")
			}
			d.timestamp, hasTimestamp = s, true
		case "version", "sessionId", "requestId":
			p, err := optString(k, v)
			if err != nil {
				return err
			}
			switch k {
			case "version":
				d.version = p
			case "sessionId":
				d.sessionID = p
			default:
				d.requestID = p
			}
		case "costUSD":
			if !jsonscan.IsNull(v) {
				if _, ok := jsonscan.Float(v); !ok || v[0] == '"' {
					return errors.New("costUSD is not a number")
				}
			}
		case "isApiErrorMessage", "isSidechain":
			if jsonscan.IsNull(v) {
				return nil
			}
			b, ok := jsonscan.Bool(v)
			if !ok {
				return errors.New(k + " is not a boolean")
			}
			if k == "isSidechain" {
				d.sidechain = b
			}
		case "message":
			message, hasMessage = v, true
		}
		return nil
	})
	if err != nil {
		return d, err.Error()
	}
	if !hasTimestamp {
		return d, "no timestamp"
	}
	if !hasMessage || len(message) == 0 || message[0] != '{' {
		return d, "message is not an object"
	}
	hasUsage := false
	err = members(message, messageFields, func(k string, v []byte) error {
		switch k {
		case "id", "model":
			p, err := optString("message."+k, v)
			if err != nil {
				return err
			}
			if k == "id" {
				d.messageID = p
			} else {
				d.model = p
			}
		case "usage":
			hasUsage = true
			u, err := decodeUsage(v)
			if err != nil {
				return err
			}
			d.usage = u
		}
		return nil
	})
	if err != nil {
		return d, err.Error()
	}
	if !hasUsage {
		return d, "no message.usage"
	}
	return d, ""
}

// decodeUsage reads message.usage: input_tokens and output_tokens are
// required, the cache counters default to 0, and a cache_creation object
// (5-minute and 1-hour buckets) replaces cache_creation_input_tokens.
func decodeUsage(v []byte) (usage, error) {
	var u usage
	if len(v) == 0 || v[0] != '{' {
		return u, errors.New("message.usage is not an object")
	}
	hasIn, hasOut := false, false
	var buckets []byte
	var flat int64
	err := members(v, usageFields, func(k string, val []byte) error {
		var dst *int64
		switch k {
		case "input_tokens":
			dst, hasIn = &u.input, true
		case "output_tokens":
			dst, hasOut = &u.output, true
		case "cache_read_input_tokens":
			dst = &u.cacheRead
		case "cache_creation_input_tokens":
			dst = &flat
		case "speed":
			if jsonscan.IsNull(val) {
				return nil
			}
			if s, ok := str(val); !ok || s != "standard" && s != "fast" {
				return errors.New("message.usage.speed is not standard or fast")
			}
			return nil
		case "cache_creation":
			if !jsonscan.IsNull(val) {
				if val[0] != '{' {
					return errors.New("message.usage.cache_creation is not an object")
				}
				buckets = val
			}
			return nil
		default:
			return nil
		}
		n, ok := unsigned(val)
		if !ok {
			return errors.New("message.usage." + k + " is not an unsigned integer")
		}
		*dst = n
		return nil
	})
	if err != nil {
		return u, err
	}
	if !hasIn || !hasOut {
		return u, errors.New("message.usage lacks input_tokens or output_tokens")
	}
	u.cacheCreate = flat
	if buckets != nil {
		u.cacheCreate = 0
		err := members(buckets, bucketFields, func(k string, val []byte) error {
			if k != "ephemeral_5m_input_tokens" && k != "ephemeral_1h_input_tokens" {
				return nil
			}
			n, ok := unsigned(val)
			if !ok {
				return errors.New("message.usage.cache_creation." + k + " is not an unsigned integer")
			}
			u.cacheCreate += n
			return nil
		})
		if err != nil {
			return u, err
		}
	}
	return u, nil
}

// members walks a JSON object, failing on invalid JSON and, as serde does
// for the fields of a struct, on a field it reads (one of known) that
// appears twice; other keys may repeat.
func members(b []byte, known map[string]bool, fn func(k string, v []byte) error) error {
	var seen map[string]bool
	return jsonscan.Object(b, func(k, v []byte) error {
		key := jsonscan.Key(k)
		if known[key] {
			if seen[key] {
				return errors.New("duplicate field " + key)
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[key] = true
		}
		return fn(key, v)
	})
}

// The fields ccusage reads, at each level.
var (
	entryFields   = set("timestamp", "version", "sessionId", "requestId", "costUSD", "isApiErrorMessage", "isSidechain", "message")
	messageFields = set("id", "model", "usage")
	usageFields   = set("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "speed", "cache_creation")
	bucketFields  = set("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
)

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// str decodes a string ccusage reads, which must be valid UTF-8 (in the
// fields it does not read, invalid UTF-8 is let through).
func str(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' || !utf8.Valid(v) {
		return "", false
	}
	return jsonscan.String(v)
}

func optString(name string, v []byte) (*string, error) {
	if jsonscan.IsNull(v) {
		return nil, nil
	}
	s, ok := str(v)
	if !ok {
		return nil, errors.New(name + " is not a string")
	}
	return &s, nil
}

// unsigned reads a JSON integer that fits an unsigned 64-bit counter
// (serde refuses 12.0, 1e3 and negative numbers for u64). Counts above
// int64 are refused too; no real transcript comes near.
func unsigned(v []byte) (int64, bool) { return jsonscan.Digits(v) }

// validTimestamp reports whether ccusage parses ts: exactly
// YYYY-MM-DDTHH:MM:SS, then optionally a dot and three digits, then Z or
// ±HH:MM; a real date; hours, minutes and seconds in range.
func validTimestamp(ts string) bool {
	b := []byte(ts)
	var zone int
	switch {
	case (len(b) == 20 || len(b) == 25) && (b[19] == 'Z' || b[19] == '+' || b[19] == '-'):
		zone = 19
	case (len(b) == 24 || len(b) == 29) && b[19] == '.':
		if !digits(b[20:23]) {
			return false
		}
		zone = 23
	default:
		return false
	}
	if dt, shaped := grammar.ReadDateTime(b); !shaped || !dt.Valid() {
		return false
	}
	z := b[zone:]
	switch {
	case len(z) == 1 && z[0] == 'Z':
		return true
	case len(z) == 6 && (z[0] == '+' || z[0] == '-') && z[3] == ':' && digits(z[1:3]) && digits(z[4:6]):
		return num(z[1:3]) <= 23 && num(z[4:6]) <= 59
	}
	return false
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

func num(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}

// semverPrefix reports whether v starts with digits.digits.digit.
func semverPrefix(v string) bool {
	i := 0
	for part := 0; part < 2; part++ {
		start := i
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		if i == start || i >= len(v) || v[i] != '.' {
			return false
		}
		i++
	}
	return i < len(v) && v[i] >= '0' && v[i] <= '9'
}

// ValidTimestamp reports whether ccusage parses ts as a timestamp, for
// writers that check what they write.
func ValidTimestamp(ts string) bool { return validTimestamp(ts) }

// ValidVersion reports whether ccusage accepts v as a `version`.
func ValidVersion(v string) bool { return semverPrefix(v) }
