package secretrules

import "slices"

// matcher finds which of a set of lower-case words occur in a text, in one
// pass (Aho-Corasick), folding ASCII letters of the text to lower case as
// it reads. Gitleaks runs the same kind of automaton over the lower-cased
// text for its keyword prefilter and its stopwords.
type matcher struct {
	words []string
	// next[state*classes+class] is the state after reading a byte of that
	// class; class 0 is every byte that is in no word.
	next    []int32
	classes int
	class   [256]uint8
	// out[state] lists the words that end at state, its suffixes' too.
	out [][]int32
}

// byteClasses numbers the bytes the words hold from 1, in the order they
// first come (0 is every byte in no word); an upper-case ASCII letter
// reads as its lower case. n counts the classes, 0 included.
func byteClasses(words []string) (class [256]uint8, n int) {
	n = 1
	for _, w := range words {
		for i := range len(w) {
			if c := w[i]; class[c] == 0 {
				class[c] = uint8(n)
				n++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		class[c] = class[c+'a'-'A']
	}
	return class, n
}

func newMatcher(words []string) *matcher {
	m := &matcher{words: words}
	m.class, m.classes = byteClasses(words)
	// The trie, in next itself: a row of classes entries a state, a child's
	// state where the trie has one, 0 (the root, never a child) where not.
	// A map of children a state cost most of the building (about 23M
	// instructions for generic-api-key's 1,446 stopwords).
	states := trieStates(words)
	m.next = make([]int32, m.classes, states*m.classes)
	m.out = make([][]int32, 1, states)
	for wi, w := range words {
		s := int32(0)
		for i := range len(w) {
			k := int(s)*m.classes + int(m.class[w[i]])
			if m.next[k] == 0 {
				m.next[k] = int32(len(m.out))
				m.next = append(m.next, make([]int32, m.classes)...)
				m.out = append(m.out, nil)
			}
			s = m.next[k]
		}
		m.out[s] = append(m.out[s], int32(wi))
	}
	// Breadth first: each state's transitions, through its failure link
	// where it has no child. A state's row is read as the trie's before it
	// is written over, and its failure state, nearer the root, is written
	// over before it.
	fail := make([]int32, len(m.out))
	queue := []int32{}
	for k := range m.classes {
		if n := m.next[k]; n != 0 {
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		row, failRow := m.next[int(s)*m.classes:][:m.classes], m.next[int(fail[s])*m.classes:][:m.classes]
		for k, n := range row {
			if n != 0 {
				fail[n] = failRow[k]
				queue = append(queue, n)
			} else {
				row[k] = failRow[k]
			}
		}
	}
	return m
}

// trieStates counts the states of the words' trie, the root's too: in
// sorted order, each word adds the bytes after the prefix it shares with
// the one before it. (A word with an upper-case letter, which the trie
// reads as its lower case, counts one too many, never too few.)
func trieStates(words []string) int {
	n, prev := 1, ""
	for _, w := range slices.Sorted(slices.Values(words)) {
		common := 0
		for common < len(w) && common < len(prev) && w[common] == prev[common] {
			common++
		}
		n += len(w) - common
		prev = w
	}
	return n
}

// present sets found[i] for every word i that occurs in text and returns
// found (grown to the number of words).
func (m *matcher) present(text []byte, found []bool) []bool {
	found = append(found[:0], make([]bool, len(m.words))...)
	s := int32(0)
	for _, c := range text {
		s = m.next[int(s)*m.classes+int(m.class[c])]
		for _, w := range m.out[s] {
			found[w] = true
		}
	}
	return found
}

// any reports whether some word occurs in text.
func (m *matcher) any(text string) bool {
	s := int32(0)
	for i := range len(text) {
		s = m.next[int(s)*m.classes+int(m.class[text[i]])]
		if len(m.out[s]) > 0 {
			return true
		}
	}
	return false
}

// suffixTrie tells which of a set of lower-case words end at a place in a
// text, reading back from it, ASCII letters folded to lower case: the
// words that end just before a separator (separatorCandidate) are found
// with a few steps at each of the 21 places one may end, instead of a pass
// of the automaton over the 54 bytes where one may start.
type suffixTrie struct {
	class   [256]uint8 // 0 for a byte in no word
	classes int
	// next[node*classes+class] is the node after reading a byte of that
	// class backwards; 0 (the root) for none.
	next []int32
	// ends[node]: bit 1, a word not flagged is read whole at node; bit 2,
	// a flagged one.
	ends []uint8
	// lastTwo[class(a)*classes+class(b)]: a word ends with the bytes a, b.
	// Most places in a text end no word, and this tells at once.
	lastTwo []bool
	// lastThree[class(b)*classes+class(c)]: bit class(a) for each word
	// that ends with the bytes a, b, c (every word has three or more).
	// Where a word ends with b, c (airtable, auth) most texts do not
	// (module, the), and this tells before the trie is walked.
	lastThree []uint64
}

func newSuffixTrie(words []string, flagged []bool) *suffixTrie {
	t := &suffixTrie{}
	t.class, t.classes = byteClasses(words)
	t.next = make([]int32, t.classes)
	t.ends = make([]uint8, 1)
	t.lastTwo = make([]bool, t.classes*t.classes)
	t.lastThree = make([]uint64, t.classes*t.classes)
	if t.classes > 64 {
		panic("suffixTrie: more byte classes than lastThree's bits")
	}
	for wi, w := range words {
		if len(w) < 3 {
			panic("suffixTrie: a word of fewer than three bytes: " + w)
		}
		t.lastTwo[int(t.class[w[len(w)-2]])*t.classes+int(t.class[w[len(w)-1]])] = true
		t.lastThree[int(t.class[w[len(w)-2]])*t.classes+int(t.class[w[len(w)-1]])] |= 1 << t.class[w[len(w)-3]]
		node := int32(0)
		for i := len(w) - 1; i >= 0; i-- {
			k := int(node)*t.classes + int(t.class[w[i]])
			if t.next[k] == 0 {
				t.next[k] = int32(len(t.ends))
				t.next = append(t.next, make([]int32, t.classes)...)
				t.ends = append(t.ends, 0)
			}
			node = t.next[k]
		}
		if flagged[wi] {
			t.ends[node] |= 2
		} else {
			t.ends[node] |= 1
		}
	}
	return t
}

// endsWith reports whether a word ends with the bytes a, b.
func (t *suffixTrie) endsWith(a, b byte) bool {
	ca, cb := t.class[a], t.class[b]
	return ca != 0 && cb != 0 && t.lastTwo[int(ca)*t.classes+int(cb)]
}

// endsWithThree reports whether a word ends with the bytes a, b, c.
func (t *suffixTrie) endsWithThree(a, b, c byte) bool {
	ca, cb, cc := t.class[a], t.class[b], t.class[c]
	return ca != 0 && cb != 0 && cc != 0 && t.lastThree[int(cb)*t.classes+int(cc)]>>ca&1 != 0
}

// endingAt returns the bits (see ends) of the words that end at text[e]
// (exclusive), read back from it.
func (t *suffixTrie) endingAt(text []byte, e int) uint8 {
	node, ends := int32(0), uint8(0)
	for q := e - 1; q >= 0; q-- {
		c := t.class[text[q]]
		if c == 0 {
			break
		}
		if node = t.next[int(node)*t.classes+int(c)]; node == 0 {
			break
		}
		ends |= t.ends[node]
	}
	return ends
}
