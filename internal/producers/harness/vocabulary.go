package harness

import "fmt"

// An Entry is one name of an agent format's vocabulary, as the records
// packages (convert/claude/records, convert/codex/records,
// convert/gemini/records) list it: each has a Type of this shape.
type Entry struct {
	Name  string
	About string
	// Recorded says the pinned version wrote it in the harness's scenarios.
	Recorded bool
}

// A Vocabulary is a records package's lists, by inventory category.
type Vocabulary map[string][]Entry

// VocabularyOf makes a Vocabulary of a records package's lists.
func VocabularyOf[T ~struct {
	Name     string
	About    string
	Recorded bool
}](lists map[string][]T) Vocabulary {
	v := Vocabulary{}
	for category, list := range lists {
		for _, t := range list {
			v[category] = append(v[category], Entry(t))
		}
	}
	return v
}

// Known says whether the vocabulary lists name in category.
func (v Vocabulary) Known(category, name string) bool {
	for _, e := range v[category] {
		if e.Name == name {
			return true
		}
	}
	return false
}

// Mismatches says where the vocabulary and the inventory of the pinned
// fixtures disagree: a name listed twice, a name marked Recorded that no
// fixture has, a name in the fixtures not marked Recorded. (A name in the
// fixtures that is not listed at all is the drivers' checks' to report.)
func (v Vocabulary) Mismatches(inv *Inventory) []string {
	var out []string
	for _, category := range SortedKeys(v) {
		seen := map[string]bool{}
		for _, e := range v[category] {
			if seen[e.Name] {
				out = append(out, fmt.Sprintf("%s %s is listed twice", category, e.Name))
			}
			seen[e.Name] = true
			n := inv.Kinds[category][e.Name]
			if e.Recorded && n == 0 {
				out = append(out, fmt.Sprintf("%s %s is marked Recorded but no fixture has it", category, e.Name))
			}
			if !e.Recorded && n > 0 {
				out = append(out, fmt.Sprintf("%s %s is in the fixtures but not marked Recorded", category, e.Name))
			}
		}
	}
	return out
}
