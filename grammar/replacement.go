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
	start = t.commonPrefix(b)
	limit := min(t.Len(), len(b)) - start
	suffix := t.commonSuffix(b, limit)
	return start, t.Len() - suffix, len(b) - suffix
}

func (t *Tree) commonPrefix(b []byte) int {
	off := 0
	for _, c := range t.chunksFrom(0) {
		n := len(c.text)
		if off+n <= len(b) && bytes.Equal(c.text, b[off:off+n]) {
			off += n
			continue
		}
		return off + prefixLen(c.text, b[off:])
	}
	return off
}

// commonSuffix is the length of the common suffix of the document and b,
// at most limit.
func (t *Tree) commonSuffix(b []byte, limit int) int {
	n := 0
	for ci := t.ChunkCount() - 1; ci >= 0 && n < limit; ci-- {
		c, _ := t.chunk(ci)
		text := c.text
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
