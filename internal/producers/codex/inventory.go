package codex

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/codex/records"
	"github.com/rlog-ls/rlog-ls/internal/producers/harness"
)

// The categories of a Codex inventory: line types, response item types,
// event types, item_completed item types. A line's kind (for its fields)
// is its type, "response_item/TYPE", "event_msg/TYPE" or
// "event_msg/item_completed/ITEM".
const (
	LineType         = "line type"
	ResponseItemType = "response_item type"
	EventType        = "event_msg type"
	ItemType         = "item_completed item"
)

// fieldRules: deep enough for payload.item.type and the usage objects,
// not into the environment the model is shown or a compaction's
// replacement history (items, listed under response_item); the keys of a
// FileChange's changes are paths.
var fieldRules = harness.FieldRules{
	Depth: 4,
	Opaque: map[string]bool{
		"payload.state": true, "payload.replacement_history": true, "payload.base_instructions": true,
	},
	Keyed: map[string]bool{"payload.item.changes": true, "payload.item.agents_states": true},
}

// TakeInventory reads every rollout under dir.
func TakeInventory(dir string) (*harness.Inventory, error) {
	inv := harness.NewInventory(LineType, ResponseItemType, EventType, ItemType)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		inv.Files++
		return addRollout(inv, p)
	})
	return inv, err
}

func addRollout(inv *harness.Inventory, path string) error {
	return harness.ScanLines(path, func(n int, raw []byte) error {
		var line map[string]any
		if err := json.Unmarshal(raw, &line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		typ, _ := line["type"].(string)
		inv.Count(LineType, typ)
		kind := typ
		payload, _ := line["payload"].(map[string]any)
		pt, _ := payload["type"].(string)
		switch typ {
		case "response_item":
			inv.Count(ResponseItemType, pt)
			kind += "/" + pt
		case "event_msg":
			inv.Count(EventType, pt)
			kind += "/" + pt
			if pt == "item_completed" {
				item, _ := payload["item"].(map[string]any)
				it, _ := item["type"].(string)
				inv.Count(ItemType, it)
				kind += "/" + it
			}
		}
		inv.AddFields(kind, line, fieldRules)
		return nil
	})
}

// vocabulary is each category's list in convert/codex/records.
var vocabulary = harness.VocabularyOf(map[string][]records.Type{
	LineType:         records.Lines,
	ResponseItemType: records.ResponseItems,
	EventType:        records.Events,
	ItemType:         records.Items,
})
