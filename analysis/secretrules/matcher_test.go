package secretrules

import (
	"strings"
	"testing"
)

// asciiLower folds ASCII letters to lower case and leaves every other
// byte as it is, as the matcher reads a text.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// matcherAgreesWithContains holds the matcher built from words to the
// simple reference: word i is present in text where the text, ASCII
// letters folded, contains it.
func matcherAgreesWithContains(t *testing.T, m *matcher, words []string, text string) {
	t.Helper()
	// The table is made the size of the trie once: a count too small
	// would grow it (and keep up to twice the room), one too large
	// keep room no state uses.
	if n := trieStates(words); len(m.out) != n || len(m.next) != n*m.classes || cap(m.next) != len(m.next) {
		t.Fatalf("%d states, a table of %d rows of %d (room for %d rows): trieStates counts %d", len(m.out), len(m.next)/m.classes, m.classes, cap(m.next)/m.classes, n)
	}
	lower := asciiLower(text)
	found := m.present([]byte(text), nil)
	anyWord := false
	for i, w := range words {
		want := strings.Contains(lower, w)
		anyWord = anyWord || want
		if found[i] != want {
			t.Fatalf("word %q in %q: present says %v, the text holds it: %v", w, text, found[i], want)
		}
	}
	if got := m.any(text); got != anyWord {
		t.Fatalf("any(%q) = %v, want %v", text, got, anyWord)
	}
}

// The rules' own word lists: every keyword and every stopword found in
// a text that holds it (in upper case, between other bytes), and none in
// a text of others' pieces.
func TestMatcherFindsTheRulesWords(t *testing.T) {
	c := load()
	var lists [][]string
	lists = append(lists, c.keywords.words)
	for _, r := range c.rules {
		for _, a := range r.allow() {
			if a.stopwords != nil {
				lists = append(lists, a.stopwords.words)
			}
		}
	}
	for _, g := range c.global() {
		if g.stopwords != nil {
			lists = append(lists, g.stopwords.words)
		}
	}
	if len(lists) < 3 {
		t.Fatalf("%d word lists: the keywords and generic-api-key's and the global stopwords expected", len(lists))
	}
	for _, words := range lists {
		m := newMatcher(words)
		for i, w := range words {
			matcherAgreesWithContains(t, m, words, "x="+strings.ToUpper(w)+"; ")
			if i > 0 {
				prev := words[i-1]
				matcherAgreesWithContains(t, m, words, prev[len(prev)/2:]+w[:len(w)/2]+"\t"+w+prev)
			}
		}
	}
}

func FuzzMatcher(f *testing.F) {
	f.Add("he she his hers", "ushers")
	f.Add("abc bcd cde", "ABCDE abcd")
	f.Add("api_key token secret", "my API_KEY=tok secreT")
	f.Add("a aa aaa", "aaaa")
	f.Fuzz(func(t *testing.T, list, text string) {
		var words []string
		for _, w := range strings.Fields(asciiLower(list)) {
			if len(words) < 64 {
				words = append(words, w)
			}
		}
		matcherAgreesWithContains(t, newMatcher(words), words, text)
	})
}
