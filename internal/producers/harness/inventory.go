package harness

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
)

// An Inventory counts what a tree of a CLI's session files holds: names in
// categories (record types, payload types, message types, …; each agent
// names its own) and the fields of each kind of record.
type Inventory struct {
	Files int
	// Categories are the category labels in the order reports list them.
	Categories []string
	// Kinds counts, per category, each name seen.
	Kinds map[string]map[string]int
	// Fields counts "KIND: PATH" (object keys joined by dots, [] for an
	// array's elements, to FieldRules.Depth levels) and "KIND: PATH=VALUE"
	// for the values of nested type and subtype keys (content block types,
	// result types).
	Fields map[string]int
}

// NewInventory is an empty inventory of the categories, in that order.
func NewInventory(categories ...string) *Inventory {
	inv := &Inventory{Categories: categories, Kinds: map[string]map[string]int{}, Fields: map[string]int{}}
	for _, c := range categories {
		inv.Kinds[c] = map[string]int{}
	}
	return inv
}

// Count counts one name of a category.
func (inv *Inventory) Count(category, name string) {
	m, ok := inv.Kinds[category]
	if !ok {
		panic("harness: inventory category not declared: " + category)
	}
	m[name]++
}

// FieldRules say how deep AddFields looks and what it does not look into.
type FieldRules struct {
	Depth int
	// Opaque are paths whose contents are data, not format (tool inputs,
	// request shapes).
	Opaque map[string]bool
	// Keyed are paths whose keys are names (models, files), not fields:
	// they count as PATH.*.
	Keyed map[string]bool
}

// AddFields counts the fields of v, a record of kind.
func (inv *Inventory) AddFields(kind string, v any, rules FieldRules) {
	inv.fields(kind, "", v, 0, rules)
}

func (inv *Inventory) fields(kind, path string, v any, depth int, rules FieldRules) {
	if depth > rules.Depth || rules.Opaque[path] {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if rules.Keyed[path] {
				p = path + ".*"
			}
			inv.Fields[kind+": "+p]++
			if s, ok := x.(string); ok && depth > 0 && (k == "type" || k == "subtype") {
				inv.Fields[kind+": "+p+"="+s]++
			}
			inv.fields(kind, p, x, depth+1, rules)
		}
	case []any:
		for _, x := range v {
			inv.fields(kind, path+"[]", x, depth, rules)
		}
	}
}

// Unknown lists "CATEGORY NAME" for each name that known does not know,
// sorted.
func (inv *Inventory) Unknown(known func(category, name string) bool) []string {
	var out []string
	for _, c := range inv.Categories {
		for name := range inv.Kinds[c] {
			if !known(c, name) {
				out = append(out, c+" "+name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// NewSince lists what inv holds and base does not: names first, category
// by category, then fields.
func (inv *Inventory) NewSince(base *Inventory) []string {
	var out []string
	for _, c := range inv.Categories {
		counts := inv.Kinds[c]
		for _, name := range SortedKeys(counts) {
			if _, ok := base.Kinds[c][name]; !ok {
				out = append(out, fmt.Sprintf("%s %s (%d)", c, name, counts[name]))
			}
		}
	}
	for _, f := range SortedKeys(inv.Fields) {
		if _, ok := base.Fields[f]; !ok {
			out = append(out, fmt.Sprintf("field %s (%d)", f, inv.Fields[f]))
		}
	}
	return out
}

// Add adds other's counts to inv.
func (inv *Inventory) Add(other *Inventory) {
	inv.Files += other.Files
	for _, c := range other.Categories {
		if inv.Kinds[c] == nil {
			inv.Categories = append(inv.Categories, c)
			inv.Kinds[c] = map[string]int{}
		}
		for k, n := range other.Kinds[c] {
			inv.Kinds[c][k] += n
		}
	}
	for k, n := range other.Fields {
		inv.Fields[k] += n
	}
}

// DriftReport is the text of a drift run: what fresh holds that the pinned
// fixtures (pinned) never show, what they show that fresh no longer does,
// and the names the records package does not know.
func DriftReport(pinned, fresh *Inventory, known func(category, name string) bool) string {
	var b []byte
	list := func(title string, items []string) {
		b = fmt.Appendf(b, "%s: %d\n", title, len(items))
		for _, it := range items {
			b = fmt.Appendf(b, "  %s\n", it)
		}
	}
	list("New (written now, never in the pinned fixtures)", fresh.NewSince(pinned))
	list("Gone (in the pinned fixtures, not written now)", pinned.NewSince(fresh))
	list("Types the records package does not know", fresh.Unknown(known))
	return string(b)
}

// InventoryOf is the inventory of every scenario's recording in a
// version's folder: of what the CLI wrote, in dir/NAME/Written.
func (d *Driver[S, Step]) InventoryOf(dir string) (*Inventory, error) {
	total := NewInventory()
	for _, s := range d.Scenarios {
		inv, err := d.Take(filepath.Join(dir, d.name(s), d.Written))
		if err != nil {
			return nil, err
		}
		total.Add(inv)
	}
	return total, nil
}

// DriftReport compares the recordings of another version (in fresh) with
// the pinned fixtures (in pinned): what it wrote that the fixtures never
// show, what it no longer wrote, and the names the records package does
// not know (see the function DriftReport).
func (d *Driver[S, Step]) DriftReport(pinned, fresh string) (string, error) {
	base, err := d.InventoryOf(pinned)
	if err != nil {
		return "", fmt.Errorf("the pinned fixtures: %w", err)
	}
	now, err := d.InventoryOf(fresh)
	if err != nil {
		return "", err
	}
	return DriftReport(base, now, d.Vocabulary.Known), nil
}

// A Table is one category of an inventory as a README shows it.
type Table struct{ Title, Category string }

// WriteTables writes each table of inv as Markdown: its names, sorted,
// with their counts under countHeader.
func WriteTables(b *bytes.Buffer, inv *Inventory, countHeader string, tables ...Table) {
	for _, t := range tables {
		fmt.Fprintf(b, "| %s | %s |\n| --- | ---: |\n", t.Title, countHeader)
		counts := inv.Kinds[t.Category]
		for _, name := range SortedKeys(counts) {
			fmt.Fprintf(b, "| `%s` | %d |\n", name, counts[name])
		}
		b.WriteString("\n")
	}
}
