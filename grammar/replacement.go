package grammar

import "bytes"

// Replacement returns the one replacement that turns the document into b: bytes
// [start, end) of the document become b[start:newEnd], everything before
// start and from end on being the same in both. It compares chunk by chunk
// at memory speed, so a client that sends a whole document again after a
// line was appended (a reload from disk) costs a comparison and an edit of
// the last chunk, not a parse. Identical texts give start == end ==
// newEnd == len(b).
func (t *Tree) Replacement(b []byte) (start, end, newEnd int) {
	prefix, suffix := t.CommonEnds(0, t.Len(), b)
	return prefix, t.Len() - suffix, len(b) - suffix
}

// CommonEnds returns the lengths of the longest common prefix and suffix of
// bytes [from, to) of the document and b, the suffix no longer than what
// the prefix leaves of the shorter of the two. Replacement is CommonEnds
// of the whole document; a part of it (a log's header, its body) is
// compared the same way, chunk by chunk.
func (t *Tree) CommonEnds(from, to int, b []byte) (prefix, suffix int) {
	from = max(0, min(from, t.Len()))
	to = max(from, min(to, t.Len()))
	prefix = t.commonPrefix(from, to, b)
	return prefix, t.commonSuffix(to, b, min(to-from, len(b))-prefix)
}

// commonPrefix is the length of the common prefix of bytes [from, to) of
// the document and b.
func (t *Tree) commonPrefix(from, to int, b []byte) int {
	off := 0
	if from == to {
		return 0
	}
	for _, c := range t.chunksFrom(t.chunkOfByte(from)) {
		if c.at.bytes >= to {
			break
		}
		text := c.text[max(from-c.at.bytes, 0):min(to-c.at.bytes, len(c.text))]
		n := len(text)
		if off+n <= len(b) && bytes.Equal(text, b[off:off+n]) {
			off += n
			continue
		}
		return off + prefixLen(text, b[off:])
	}
	return off
}

// commonSuffix is the length of the common suffix of the document's bytes
// before to and b, at most limit.
func (t *Tree) commonSuffix(to int, b []byte, limit int) int {
	n := 0
	if limit <= 0 {
		return 0
	}
	for ci := t.chunkOfByte(to - 1); ci >= 0 && n < limit; ci-- {
		c, at := t.chunk(ci)
		text := c.text[:min(len(c.text), to-at.bytes)]
		if len(text) > limit-n {
			text = text[len(text)-(limit-n):]
		}
		tail := b[:len(b)-n]
		if bytes.Equal(text, tail[len(tail)-len(text):]) {
			n += len(text)
			continue
		}
		return n + suffixLen(text, tail)
	}
	return n
}

func prefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func suffixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 1; i <= n; i++ {
		if a[len(a)-i] != b[len(b)-i] {
			return i - 1
		}
	}
	return n
}
