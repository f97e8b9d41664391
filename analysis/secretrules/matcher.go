package secretrules

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
	// ends[state]: bit 1, a word not flagged ends there; bit 2, a flagged
	// one (see flag).
	ends []uint8
}

func newMatcher(words []string) *matcher {
	m := &matcher{words: words}
	m.classes = 1
	for _, w := range words {
		for i := range len(w) {
			if c := w[i]; m.class[c] == 0 {
				m.class[c] = uint8(m.classes)
				m.classes++
			}
		}
	}
	// Upper-case ASCII letters read as their lower case.
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	// The trie.
	type node struct{ child map[uint8]int32 }
	nodes := []node{{child: map[uint8]int32{}}}
	m.out = [][]int32{nil}
	for wi, w := range words {
		s := int32(0)
		for i := range len(w) {
			k := m.class[w[i]]
			n, ok := nodes[s].child[k]
			if !ok {
				n = int32(len(nodes))
				nodes = append(nodes, node{child: map[uint8]int32{}})
				m.out = append(m.out, nil)
				nodes[s].child[k] = n
			}
			s = n
		}
		m.out[s] = append(m.out[s], int32(wi))
	}
	// Breadth first: each state's transitions, through its failure link
	// where it has no child.
	m.next = make([]int32, len(nodes)*m.classes)
	fail := make([]int32, len(nodes))
	queue := []int32{}
	for k := range m.classes {
		if n, ok := nodes[0].child[uint8(k)]; ok {
			m.next[k] = n
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		for k := range m.classes {
			if n, ok := nodes[s].child[uint8(k)]; ok {
				fail[n] = m.next[int(fail[s])*m.classes+k]
				m.next[int(s)*m.classes+k] = n
				queue = append(queue, n)
			} else {
				m.next[int(s)*m.classes+k] = m.next[int(fail[s])*m.classes+k]
			}
		}
	}
	return m
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

// flag marks the words for which flagged[w] is true (see endsAfter).
func (m *matcher) flag(flagged []bool) {
	m.ends = make([]uint8, len(m.out))
	for st, ws := range m.out {
		for _, w := range ws {
			if flagged[w] {
				m.ends[st] |= 2
			} else {
				m.ends[st] |= 1
			}
		}
	}
}

// endsAfter reports whether a word not flagged, and a flagged one, ends in
// text at or after offset from (flag must have been called).
func (m *matcher) endsAfter(text []byte, from int) (plain, flagged bool) {
	s, ends := int32(0), uint8(0)
	for i, c := range text {
		s = m.next[int(s)*m.classes+int(m.class[c])]
		if i+1 >= from {
			ends |= m.ends[s]
		}
	}
	return ends&1 != 0, ends&2 != 0
}
