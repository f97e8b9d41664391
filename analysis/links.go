package analysis

import (
	"bytes"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// LinkKind says what a link points at.
type LinkKind uint8

const (
	LinkFile LinkKind = iota + 1 // a path argument: file_path=, path=, notebook_path= ...
	LinkBlob                     // an @blob sha256= marker: the stored blob
	LinkURL                      // an http or https URL
)

// Link is a place in the document that names something outside it. Target
// is what it names as written (a path with its quotes removed, a blob's
// hex digest, a URL); whether a file or blob exists is for the caller to
// find out.
type Link struct {
	Kind   LinkKind
	Span   grammar.Span
	Target string
}

// pathKeys are the arguments whose value is a file: what Claude Code's
// tools (Read, Edit, Write, NotebookEdit) and the converters write.
var pathKeys = []string{"file_path", "path", "file", "notebook_path", "filename"}

// maxLinks bounds Links: editors ask for a whole document's links, and a
// huge log can hold hundreds of thousands of paths.
const maxLinks = 10000

type linksKey struct{}

// Links returns the document's links in file order, at most maxLinks. Each
// chunk's are found once (memoized with the chunk), by searching its bytes
// for the few patterns that start one, so a large log costs a scan at
// memory speed the first time and nothing for the chunks an edit left.
func Links(t *grammar.Tree) []Link {
	var out []Link
	bodyStart := t.Region().BodyStart
	for i := range t.ChunkCount() {
		c, first, start := t.ChunkAt(i)
		var links []Link
		if first >= bodyStart {
			links = c.Memo(linksKey{}, func() any { return chunkLinks(t, i) }).([]Link)
		} else {
			links = chunkLinks(t, i)
		}
		for _, l := range links {
			if len(out) == maxLinks {
				return out
			}
			l.Span = l.Span.Shift(start)
			out = append(out, l)
		}
	}
	return out
}

// chunkLinks finds the links of chunk i, with spans relative to the chunk.
func chunkLinks(t *grammar.Tree, i int) []Link {
	c, _, base := t.ChunkAt(i)
	text := c.Text()
	if !bytes.Contains(text, []byte("http")) && !bytes.Contains(text, []byte("@blob")) && !mentionsPathKey(text) {
		return nil
	}
	var out []Link
	for l, line := range t.ChunkLines(i) {
		rel := l.Start - base
		if l.Kind.IsBody() && l.Kind != grammar.Continuation {
			out = appendPathLinks(out, line, rel)
		}
		if l.Flags&grammar.FlagBlob != 0 {
			for _, m := range grammar.BlobMarkers(line) {
				if m.SHA.Valid() {
					out = append(out, Link{Kind: LinkBlob, Span: m.Marker.Shift(rel), Target: string(line[m.SHA.Start:m.SHA.End])})
				}
			}
		}
		out = appendURLs(out, line, rel)
	}
	sortLinks(out)
	return out
}

func mentionsPathKey(text []byte) bool {
	for _, k := range pathKeys {
		if bytes.Contains(text, []byte(k+"=")) {
			return true
		}
	}
	return false
}

// appendPathLinks adds the values of the line's path arguments.
func appendPathLinks(out []Link, line []byte, rel int) []Link {
	if !mentionsPathKey(line) {
		return out
	}
	li := grammar.ScanLine(line)
	for _, p := range grammar.Pairs(line, &li) {
		if !p.Value.Valid() || li.Arrow.Valid() && p.Key.Start >= li.Arrow.End {
			continue // a result's text is output, not an argument
		}
		key := string(line[p.Key.Start:p.Key.End])
		isPath := false
		for _, k := range pathKeys {
			isPath = isPath || key == k
		}
		if !isPath {
			continue
		}
		v := p.Value
		if line[v.Start] == '"' && v.Len() >= 2 && line[v.End-1] == '"' {
			v = grammar.Span{Start: v.Start + 1, End: v.End - 1}
		}
		if v.Valid() && !bytes.ContainsAny(line[v.Start:v.End], "\\\"") {
			out = append(out, Link{Kind: LinkFile, Span: v.Shift(rel), Target: string(line[v.Start:v.End])})
		}
	}
	return out
}

// appendURLs adds the http and https URLs of a line. A URL ends at
// whitespace, a quote or a bracket that does not belong to it, and
// trailing punctuation is left out, as in prose.
func appendURLs(out []Link, line []byte, rel int) []Link {
	for i := 0; i < len(line); {
		j := bytes.Index(line[i:], []byte("http"))
		if j < 0 {
			break
		}
		s := i + j
		rest := line[s:]
		var scheme int
		switch {
		case bytes.HasPrefix(rest, []byte("https://")):
			scheme = len("https://")
		case bytes.HasPrefix(rest, []byte("http://")):
			scheme = len("http://")
		default:
			i = s + 4
			continue
		}
		if s > 0 && (isAlnum(line[s-1]) || line[s-1] == '_') {
			i = s + scheme // inside a word: xhttp://
			continue
		}
		e := s + scheme
		for e < len(line) && urlByte(line[e]) {
			e++
		}
		for e > s+scheme && bytes.IndexByte([]byte(".,;:!?'"), line[e-1]) >= 0 {
			e--
		}
		// A closing bracket belongs to the URL only if it opened one.
		for e > s+scheme && (line[e-1] == ')' || line[e-1] == ']') {
			open := byte('(')
			if line[e-1] == ']' {
				open = '['
			}
			if bytes.Count(line[s:e], []byte{open}) >= bytes.Count(line[s:e], []byte{line[e-1]}) {
				break
			}
			e--
		}
		if e > s+scheme {
			out = append(out, Link{Kind: LinkURL, Span: grammar.Span{Start: rel + s, End: rel + e}, Target: string(line[s:e])})
		}
		i = max(e, s+scheme)
	}
	return out
}

// urlByte reports whether b may be part of a URL: anything printable but
// whitespace, quotes, angle brackets, braces and backslashes.
func urlByte(b byte) bool {
	if b <= ' ' || b == 0x7f {
		return false
	}
	switch b {
	case '"', '<', '>', '{', '}', '\\', '`', '|':
		return false
	}
	return true
}

func sortLinks(links []Link) {
	// Few per chunk, mostly in order already.
	for i := 1; i < len(links); i++ {
		for j := i; j > 0 && links[j].Span.Start < links[j-1].Span.Start; j-- {
			links[j], links[j-1] = links[j-1], links[j]
		}
	}
}
