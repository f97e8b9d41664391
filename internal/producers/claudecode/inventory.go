package claudecode

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/claude/records"
)

// An Inventory counts what a tree of Claude Code transcripts holds: record
// types, attachment types, system subtypes, and the fields of each kind of
// record (a kind is a record type, "attachment/TYPE" or "system/SUBTYPE").
type Inventory struct {
	Files          int
	Records        map[string]int
	Attachments    map[string]int
	SystemSubtypes map[string]int
	// Fields counts "KIND: PATH" (object keys joined by dots, [] for an
	// array's elements, to fieldDepth levels) and "KIND: PATH=VALUE" for
	// the values of nested type and subtype keys (content block types,
	// result types).
	Fields map[string]int
}

// fieldDepth is how deep Fields looks into a record: deep enough for
// message.content[].type and toolUseResult's keys, not into tool inputs
// and request shapes, which are data.
const fieldDepth = 4

// opaque are paths whose contents are data, not format: tool inputs, the
// API request's shape and parameters, a sub-agent's request shape.
var opaque = map[string]bool{
	"message.content[].input": true, "shape": true, "params": true,
	"attachment.systemPrompt": true, "attachment.snapshot": true,
}

// keyed are paths whose keys are names (models), not fields.
var keyed = map[string]bool{"modelUsage": true}

// TakeInventory reads every .jsonl transcript and .meta.json sidecar under
// dir.
func TakeInventory(dir string) (*Inventory, error) {
	inv := &Inventory{Records: map[string]int{}, Attachments: map[string]int{},
		SystemSubtypes: map[string]int{}, Fields: map[string]int{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case strings.HasSuffix(p, ".jsonl"):
			inv.Files++
			return inv.addTranscript(p)
		case strings.HasSuffix(p, ".meta.json"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			inv.fields("subagent-meta", "", v, 0)
		}
		return nil
	})
	return inv, err
}

func (inv *Inventory) addTranscript(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		typ, _ := rec["type"].(string)
		inv.Records[typ]++
		kind := typ
		switch typ {
		case "attachment":
			att, _ := rec["attachment"].(map[string]any)
			at, _ := att["type"].(string)
			inv.Attachments[at]++
			kind += "/" + at
		case "system":
			sub, _ := rec["subtype"].(string)
			inv.SystemSubtypes[sub]++
			kind += "/" + sub
		}
		inv.fields(kind, "", rec, 0)
	}
	return sc.Err()
}

func (inv *Inventory) fields(kind, path string, v any, depth int) {
	if depth > fieldDepth || opaque[path] {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if keyed[path] {
				p = path + ".*"
			}
			inv.Fields[kind+": "+p]++
			if s, ok := x.(string); ok && depth > 0 && (k == "type" || k == "subtype") {
				inv.Fields[kind+": "+p+"="+s]++
			}
			inv.fields(kind, p, x, depth+1)
		}
	case []any:
		for _, x := range v {
			inv.fields(kind, path+"[]", x, depth)
		}
	}
}

// Unknown lists the record types, attachment types and system subtypes in
// the inventory that the records package does not know.
func (inv *Inventory) Unknown() []string {
	var out []string
	for _, c := range inv.categories() {
		for name := range c.counts {
			if _, ok := c.lookup(name); !ok {
				out = append(out, c.label+" "+name)
			}
		}
	}
	sort.Strings(out)
	return out
}

type category struct {
	label  string
	counts map[string]int
	lookup func(string) (records.Type, bool)
}

func (inv *Inventory) categories() []category {
	return []category{
		{"record type", inv.Records, records.Record},
		{"attachment type", inv.Attachments, records.Attachment},
		{"system subtype", inv.SystemSubtypes, records.SystemSubtype},
	}
}

// NewSince lists what inv holds and base does not: types first, then
// fields.
func (inv *Inventory) NewSince(base *Inventory) []string {
	var out []string
	bc := base.categories()
	for i, c := range inv.categories() {
		for _, name := range sortedKeys(c.counts) {
			if _, ok := bc[i].counts[name]; !ok {
				out = append(out, fmt.Sprintf("%s %s (%d)", c.label, name, c.counts[name]))
			}
		}
	}
	for _, f := range sortedKeys(inv.Fields) {
		if _, ok := base.Fields[f]; !ok {
			out = append(out, fmt.Sprintf("field %s (%d)", f, inv.Fields[f]))
		}
	}
	return out
}

// Add adds other's counts to inv.
func (inv *Inventory) Add(other *Inventory) {
	inv.Files += other.Files
	for _, pair := range [][2]map[string]int{{inv.Records, other.Records}, {inv.Attachments, other.Attachments},
		{inv.SystemSubtypes, other.SystemSubtypes}, {inv.Fields, other.Fields}} {
		for k, n := range pair[1] {
			pair[0][k] += n
		}
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
