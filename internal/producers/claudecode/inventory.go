package claudecode

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/claude/records"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// The categories of a Claude Code inventory: record types, attachment
// types, system subtypes. A record's kind (for its fields) is its record
// type, "attachment/TYPE" or "system/SUBTYPE".
const (
	RecordType     = "record type"
	AttachmentType = "attachment type"
	SystemSubtype  = "system subtype"
)

// fieldRules: deep enough for message.content[].type and toolUseResult's
// keys, not into tool inputs and request shapes, which are data; the keys
// of modelUsage are model names.
var fieldRules = harness.FieldRules{
	Depth: 4,
	Opaque: map[string]bool{
		"message.content[].input": true, "shape": true, "params": true,
		"attachment.systemPrompt": true, "attachment.snapshot": true,
	},
	Keyed: map[string]bool{"modelUsage": true},
}

// TakeInventory reads every .jsonl transcript and .meta.json sidecar under
// dir.
func TakeInventory(dir string) (*harness.Inventory, error) {
	inv := harness.NewInventory(RecordType, AttachmentType, SystemSubtype)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return nil
		case strings.HasSuffix(p, ".jsonl"):
			inv.Files++
			return addTranscript(inv, p)
		case strings.HasSuffix(p, ".meta.json"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			inv.AddFields("subagent-meta", v, fieldRules)
		}
		return nil
	})
	return inv, err
}

func addTranscript(inv *harness.Inventory, path string) error {
	return harness.ScanLines(path, func(n int, line []byte) error {
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		typ, _ := rec["type"].(string)
		inv.Count(RecordType, typ)
		kind := typ
		switch typ {
		case "attachment":
			att, _ := rec["attachment"].(map[string]any)
			at, _ := att["type"].(string)
			inv.Count(AttachmentType, at)
			kind += "/" + at
		case "system":
			sub, _ := rec["subtype"].(string)
			inv.Count(SystemSubtype, sub)
			kind += "/" + sub
		}
		inv.AddFields(kind, rec, fieldRules)
		return nil
	})
}

// vocabulary is each category's list in convert/claude/records.
var vocabulary = harness.VocabularyOf(map[string][]records.Type{
	RecordType:     records.Records,
	AttachmentType: records.Attachments,
	SystemSubtype:  records.SystemSubtypes,
})
