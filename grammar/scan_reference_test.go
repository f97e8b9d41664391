package grammar

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// The byte loop that scanBytes replaced: it visits every byte of a line
// (eight plain bytes with one test) and acts on the special ones. It is
// kept as the reference the jumping scanBytes must equal.

// Byte classes that scanBytesByteLoop stops at; every other byte is skipped with
// one table lookup, so a line is read once whatever it holds.
const (
	spEquals = 1 + iota
	spHigh
	spNUL
	spCR
	spAt
	spOpen
)

var special = func() (t [256]uint8) {
	t['='], t[0], t['\r'], t['@'], t['['], t['<'] = spEquals, spNUL, spCR, spAt, spOpen, spOpen
	for c := 0x80; c < 0x100; c++ {
		t[c] = spHigh
	}
	return t
}()

// scanBytesByteLoop reads the line once: the first result arrow in the content,
// for each key the first key=value whose key is a whole word (\bkey=) and
// whose value is not empty, and the markers and bytes the rules care about.
// Most of a line is none of those: eight bytes without a special one are
// passed over with one test.
func scanBytesByteLoop(t []byte, li *LineInfo, te int) {
	found := 0
	for i := 0; i < len(t); {
		if i+8 <= len(t) {
			b := t[i : i+8 : i+8]
			if special[b[0]]|special[b[1]]|special[b[2]]|special[b[3]]|special[b[4]]|special[b[5]]|special[b[6]]|special[b[7]] == 0 {
				i += 8
				continue
			}
		}
		for end := min(i+8, len(t)); i < end; i++ {
			if special[t[i]] != 0 {
				i = scanSpecial(t, li, te, i, &found)
			}
		}
	}
}

// scanSpecial handles the special byte at i for scanBytesByteLoop and returns the
// index of the last byte it consumed.
func scanSpecial(t []byte, li *LineInfo, te, i int, found *int) int {
	switch special[t[i]] {
	case spEquals:
		if i >= li.Content && i < te && *found < int(numParsedKeys) && metaAt(t, li, li.Content, i, te) != 0 {
			*found++
		}
	case spHigh:
		if t[i] == 0xE2 && i+2 < te && t[i+1] == 0x86 && t[i+2] == 0x92 && !li.Arrow.Valid() && i >= li.Content {
			li.Arrow = Span{i, i + len(arrow)}
			if r := skipSpace(t[:te], i+len(arrow)); r < te {
				li.Result = Span{r, te}
			}
		}
		// Validate the sequence here rather than the whole line again.
		r, size := utf8.DecodeRune(t[i:])
		if r == utf8.RuneError && size == 1 {
			li.Flags |= FlagInvalidUTF8
		}
		return i + size - 1
	case spNUL:
		li.Flags |= FlagNUL
	case spCR:
		li.Flags |= FlagLoneCR // the terminator's CR is not part of text
	case spAt:
		if li.Flags&FlagBlob == 0 {
			if _, ok := blobMarkerAt(t, i); ok {
				li.Flags |= FlagBlob
			}
		}
	case spOpen:
		if m, ok := redactionMarkerAt(t, i); ok {
			if m.Legacy {
				li.Flags |= FlagLegacyRedact
			} else {
				li.Flags |= FlagRedacted
			}
		}
	}
	return i
}

// scanLineByteLoop is scanLine with the byte loop.
func scanLineByteLoop(text []byte) LineInfo {
	var li LineInfo
	te := classifyLine(text, &li)
	scanBytesByteLoop(text, &li, te)
	if li.Kind.TakesResult() && !li.Arrow.Valid() && hasASCIIArrow(text[li.Content:te]) {
		li.Flags |= FlagASCIIArrow
	}
	return li
}

// FuzzScanBytesJumps holds the jumping scanner equal to the byte loop, for
// every line of the input, both alone (ScanLine) and as a line of a chunk
// whose facts were gathered once, scanned into the LineInfo of the line
// before it with only its values cleared (what Parse does): a field a
// line leaves as the line before it had it fails it.
func FuzzScanBytesJumps(f *testing.F) {
	for _, s := range []string{
		sample, "t!:a id=1 → x", "c:a.b", "@phase x", "\xff\x00→=", `a: x="y z" q={"a":[1`,
		"o: x → [ok] [redacted:api_key] <REDACTED> [REDACTED] <REDACTED:x>",
		"a: @blob sha256=abc @blob  sha256=0f", "a: a=1 b= =c id==2 id=3 step=4 ts=5\r\nu: \r x",
		"o: \xe2\x86 → \xe2\x86\x92→", "t: x\xe2\x86\x92 id=\xe2",
		"u: x\no: [redacted:key] y\na: [REDACTED]\n\nq: [ok] z [redacted:b]", // a '[' found by the line before's search
		string(generated(200)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		lacks := lacksOf(text)
		next := searchesOf(text) // the searches the lines of a chunk share
		off := 0
		var got LineInfo // the chunk's lines', as scanChunk reuses it
		var found uint16
		for line := range bytes.SplitSeq(text, []byte{'\n'}) {
			want := scanLineByteLoop(line)
			if alone := ScanLine(line); alone != want {
				t.Fatalf("ScanLine(%q)\n got %+v\nwant %+v", line, alone, want)
			}
			clearMeta(&got, found)
			found = scanLine(line, &got, lacks, next, off)
			if got != want {
				t.Fatalf("scanLine(%q) in a chunk\n got %+v\nwant %+v", line, got, want)
			}
			off += len(line) + 1
		}
	})
}

// FuzzChunkBounds holds chunkEnd, which counts the lines of a chunk's
// first bytes at once, equal to taking the lines one by one, with small
// chunk limits so that both limits are reached.
func FuzzChunkBounds(f *testing.F) {
	f.Add([]byte("a\nbb\nccc\n\n\ndddd\neeeee"), uint8(3), uint8(8))
	f.Add([]byte("0123456789\n0123456789\n"), uint8(2), uint8(11))
	f.Add(generated(50), uint8(7), uint8(200))
	f.Fuzz(func(t *testing.T, text []byte, lines, size uint8) {
		t.Cleanup(SetChunkLimitsForTest(int(lines%20)+1, int(size)+1))
		for start := 0; start < len(text); start++ {
			if got, want := chunkEnd(text, start), chunkEndByLines(text, start); got != want {
				t.Fatalf("chunkEnd(%q, %d) = %d, one line at a time %d (limits %d lines, %d bytes)",
					text, start, got, want, chunkMaxLines, chunkMaxBytes)
			}
		}
	})
}

// FuzzClassifyLine: ClassifyLine gives what ScanLine gives of a line's
// kind, bounds, content, name, metadata, arrow, result and UTF-8 (the
// fields it fills), and zero for the other flags.
func FuzzClassifyLine(f *testing.F) {
	for _, s := range []string{"t!:a id=1 → x", "c:a.b", "@phase x", "\xff\x00→=", `a: x="y → z" → q={"a":[1`, "  cont →", "---", "o: →   ", "x:Explore → [done]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, full := ClassifyLine(line), ScanLine(line)
		want := LineInfo{Kind: full.Kind, Flags: full.Flags & (FlagInvalidUTF8 | FlagDelimiter), Trim: full.Trim, Meta: full.Meta,
			Content: full.Content, Name: full.Name, Arrow: full.Arrow, Result: full.Result}
		if got != want {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	})
}

// metaAtWalkBack is metaAt as it was before it compared the keys' names
// in place: it walks back over the ASCII word characters before the '='
// (not before content), takes the word when the character before it is
// no word character, and looks it up (keyOf).
func metaAtWalkBack(t []byte, li *LineInfo, content, eq, te int) uint16 {
	ks := eq
	for ks > content && t[ks-1] < 0x80 && asciiWord[t[ks-1]] {
		ks--
	}
	if ks == eq || wordBefore(t, ks) {
		return 0
	}
	k := keyOf(t[ks:eq])
	if k == numKeys || li.Meta[k].Valid() {
		return 0
	}
	end := valueEnd(t[:te], k, eq+1)
	if end == eq+1 {
		return 0
	}
	li.Meta[k] = Span{eq + 1, end}
	return 1 << k
}

// FuzzMetaAt holds metaAt, which compares the 16 bytes before an '=' with
// each key's name as two words, equal to the walk back over the word, at
// every '=' of a line in order, from the line's content and from its
// start: keys near the start of the line (read as strings), keys after
// a longer word or a character beyond ASCII, tokens_cache_create (longer
// than the 16 bytes), a key seen twice.
func FuzzMetaAt(f *testing.F) {
	for _, s := range []string{
		"t!:a id=1 → x", "o: id=x → [ok] tid=2 xid=3 \u00e9id=4 _id=5 id=6",
		"a: hello world tokens_in=12 tokens_out=3 tokens_cached=45 tokens_cache_create=6",
		"a: xxxxxxxxxxxxxxxxxxxxxxxxx xtokens_cache_create=1 \u00e9tokens_cache_create=2 tokens_cache_create=3",
		"tokens_cache_create=7", "id=", "=id=1", "a: step=4 step=5 ts=2025-01-01T00:00:00Z sig=a,id=9 attempt=2/3 parent=ab-1",
		"u: message_id=m model=x level=info span=s latency_ms=5 \u0394step=1 \xffid=2",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		li := ClassifyLine(line)
		te := li.Trim.End
		for _, content := range []int{li.Content, 0} {
			var got, want LineInfo
			for eq := content; eq < te; eq++ {
				if line[eq] != '=' {
					continue
				}
				g, w := metaAt(line, &got, content, eq, te), metaAtWalkBack(line, &want, content, eq, te)
				if g != w || got.Meta != want.Meta {
					t.Fatalf("%q, content %d, '=' at %d: got %v %+v, want %v %+v", line, content, eq, g, got.Meta, w, want.Meta)
				}
			}
		}
	})
}

// FuzzMetaIn holds metaIn, which reads the 16 bytes before an '=' from
// the chunk's text, equal to metaAt of the line alone, at every '=' of a
// line in order, for the line after each of a chunk's lines before it:
// none, a short one, one that ends in a key's name or a word character
// (which the line's own start must cut off), one that ends in a byte
// beyond ASCII, and a byte order mark (the document's first line).
func FuzzMetaIn(f *testing.F) {
	for _, s := range []string{
		"o: id=x → [ok] tid=2", "id=1", "d=1 id=2", "=id=1", "tokens_in=5 tokens_out=6",
		"step=1 ts=2025-01-01T00:00:00Z", "\u00e9id=4 _id=5", "tokens_cache_create=3 id=1",
	} {
		f.Add([]byte(s), []byte("a: x tokens_in"))
	}
	f.Fuzz(func(t *testing.T, line, before []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		li := ClassifyLine(line)
		te := li.Trim.End
		for _, prefix := range [][]byte{nil, before, []byte("tid"), []byte("\u00e9"), bom} {
			text := append(append([]byte{}, prefix...), line...)
			if len(prefix) > 0 && !bytes.Equal(prefix, bom) {
				// A line of a chunk follows a line break.
				text = append(append(append([]byte{}, prefix...), '\n'), line...)
			}
			off := len(text) - len(line)
			// The content's start as the line has it, the line's start,
			// and its middle (a key before it is not taken).
			for _, content := range []int{li.Content, 0, te / 2} {
				var got, want LineInfo
				for eq := content; eq < te; eq++ {
					if line[eq] != '=' {
						continue
					}
					g, w := metaIn(text, &got, off, content, off+eq, te), metaAt(line, &want, content, eq, te)
					if g != w || got.Meta != want.Meta {
						t.Fatalf("%q after %q, content %d, '=' at %d: got %v %+v, want %v %+v", line, prefix, content, eq, g, got.Meta, w, want.Meta)
					}
				}
			}
		}
	})
}
