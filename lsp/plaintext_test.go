package lsp

import "sort"

// plainText is the simplest Editable: the bytes and a table of editor line
// starts, rebuilt on every edit. It stands in for the parser's tree in the
// plumbing tests.
type plainText struct {
	b          []byte
	lineStarts []int // first byte of each editor line; lineStarts[0] == 0
}

func newPlainText(b []byte) *plainText {
	t := &plainText{b: b, lineStarts: []int{0}}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			t.lineStarts = append(t.lineStarts, i+1)
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			t.lineStarts = append(t.lineStarts, i+1)
		}
	}
	return t
}

func parsePlain(src []byte) *plainText { return newPlainText(src) }

func (t *plainText) Len() int                    { return len(t.b) }
func (t *plainText) EditorLineCount() int        { return len(t.lineStarts) }
func (t *plainText) EditorLineStart(l int) int   { return t.lineStarts[l] }
func (t *plainText) Slice(start, end int) []byte { return t.b[start:end:end] }
func (t *plainText) String() string              { return string(t.b) }
func (t *plainText) EditorLineAt(off int) int {
	return sort.Search(len(t.lineStarts), func(i int) bool { return t.lineStarts[i] > off }) - 1
}

func (t *plainText) EditorLineEnd(l int) int {
	end := len(t.b)
	if l+1 < len(t.lineStarts) {
		end = t.lineStarts[l+1]
	}
	for end > t.lineStarts[l] && (t.b[end-1] == '\n' || t.b[end-1] == '\r') {
		end--
	}
	return end
}

func (t *plainText) Apply(start, end int, newText []byte) *plainText {
	b := make([]byte, 0, len(t.b)-(end-start)+len(newText))
	b = append(b, t.b[:start]...)
	b = append(b, newText...)
	b = append(b, t.b[end:]...)
	return newPlainText(b)
}
