package records

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestEveryTypeHasAMeaning: the reader gives every listed type a meaning,
// and every meaning is of a listed type.
func TestEveryTypeHasAMeaning(t *testing.T) {
	listed := map[string]bool{}
	for prefix, list := range map[string][]Type{"": Records, "attachment:": Attachments, "system:": SystemSubtypes} {
		for _, ty := range list {
			key := prefix + ty.Name
			listed[key] = true
			m, ok := MeaningOf(key)
			if !ok {
				t.Errorf("%s has no meaning in Meanings", key)
				continue
			}
			if m.Use < Conversation || m.Use > Bookkeeping || m.Becomes == "" {
				t.Errorf("%s: meaning %+v has no use or no words", key, m)
			}
		}
	}
	for key := range Meanings {
		if !listed[key] {
			t.Errorf("Meanings has %s, which no list names", key)
		}
	}
}

// TestConversionsDocListsEveryRecordType: docs/conversions.md's table of
// what each record type of the pinned version becomes is Meanings, row
// for row: every type the pinned version wrote (Recorded), its use and
// its words.
func TestConversionsDocListsEveryRecordType(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/conversions.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "### What each record type of Claude Code "+Version+" becomes") {
		t.Errorf("docs/conversions.md has no table for Claude Code %s", Version)
	}
	use := map[Use]string{Conversation: "conversation", Header: "header", Bookkeeping: "bookkeeping"}
	for i, list := range [][]Type{Records, Attachments, SystemSubtypes} {
		prefix := []string{"", "attachment:", "system:"}[i]
		for _, ty := range list {
			if !ty.Recorded {
				continue
			}
			m, _ := MeaningOf(prefix + ty.Name)
			row := fmt.Sprintf("| `%s` | %s | %s |\n", prefix+ty.Name, use[m.Use], m.Becomes)
			if !strings.Contains(string(doc), row) {
				t.Errorf("docs/conversions.md lacks the row\n%s", row)
			}
		}
	}
}
