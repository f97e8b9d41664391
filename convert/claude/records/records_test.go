package records

import "testing"

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
