package difftest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Random runs a random session on doc: setup, edits, settings changes and
// cancelled requests drawn from seed, with a comparison after each batch of
// edits, for the given number of comparisons. It returns the script it
// ran (to the divergence, if one shows) and what it did.
func Random(t testing.TB, o Options, seed uint64, source string, doc []byte, comparisons int) (*Script, Counts, *Divergence) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := &Script{Seed: seed, Source: source, Text: Raw(doc), UTF8: r.IntN(2) == 0, Flat: r.IntN(10) == 0}
	if r.IntN(5) == 0 {
		s.FoldingLimit = 1 + r.IntN(300)
	}
	ss := start(t, o, s)
	defer ss.stop()
	g := &generator{r: r, size: max(len(doc), 2<<10)}
	for range comparisons {
		for _, st := range g.round(ss.text) {
			s.Steps = append(s.Steps, st)
			if d := ss.do(len(s.Steps)-1, st); d != nil {
				return s, ss.counts, d
			}
		}
	}
	return s, ss.counts, nil
}

// generator draws the steps of a random session.
type generator struct {
	r    *rand.Rand
	size int // the document size to stay around
}

// round is a batch of steps ending with a comparison: sometimes new
// settings or cancelled requests, then edits in one or a burst of versions.
func (g *generator) round(t *Text) []Step {
	var steps []Step
	if g.r.IntN(8) == 0 {
		steps = append(steps, Step{Settings: g.settings()})
	}
	if g.r.IntN(6) == 0 {
		var noise []Noise
		for range 1 + g.r.IntN(4) {
			noise = append(noise, Noise{Probe: Probes[g.r.IntN(len(Probes))].Name, Site: g.siteSpec(t)})
		}
		steps = append(steps, Step{Noise: noise})
	}
	versions := 1
	if g.r.IntN(6) == 0 {
		versions = 2 + g.r.IntN(4)
	}
	// The edits are made on a copy, so that each is drawn on the text the
	// ones before it left.
	work := NewText(bytes.Clone(t.Bytes()), t.utf8)
	var change [][]Edit
	for range versions {
		var edits []Edit
		for range 1 + g.r.IntN(3) {
			e := g.edit(work)
			if e.Whole {
				work = NewText([]byte(e.Text), t.utf8)
			} else {
				e.Start, e.End = work.Snap(e.Start), work.Snap(e.End)
				if e.End < e.Start {
					e.Start, e.End = e.End, e.Start
				}
				work.Replace(e.Start, e.End, []byte(e.Text))
			}
			edits = append(edits, e)
		}
		change = append(change, edits)
	}
	steps = append(steps, Step{Change: change})
	cmp := &Compare{Fix: -1}
	for range 3 {
		cmp.Sites = append(cmp.Sites, g.siteSpec(work))
	}
	if g.r.IntN(4) == 0 {
		cmp.Fix = g.r.IntN(3)
	}
	return append(steps, Step{Compare: cmp})
}

func (g *generator) settings() *Settings {
	s := &Settings{DisabledCodes: []string{}, OutlineMax: 2000}
	switch g.r.IntN(4) {
	case 0:
		s.OutlineMax = []int{0, 1, 2, 3, 5, 6, 10, 50, 100, 200}[g.r.IntN(10)]
	case 1:
		s.OutlineMax = 1 + g.r.IntN(3000)
	}
	if g.r.IntN(4) == 0 {
		codes := []string{"W001", "W002", "W003", "W004", "W005", "W007", "W011", "W012", "W013", "I001", "I002", "I004", "S001", "H001", "H002"}
		for range 1 + g.r.IntN(3) {
			s.DisabledCodes = append(s.DisabledCodes, codes[g.r.IntN(len(codes))])
		}
	}
	if g.r.IntN(4) == 0 {
		s.DiagnosticsMax = []int{1, 2, 5, 20, 1000}[g.r.IntN(5)]
	}
	return s
}

// interesting finds what navigation, hover and the quick fixes act on.
var interesting = regexp.MustCompile(`id=|parent=|uuid=|→|->|ts=|tokens_in=|step=|@phase|@start|@end|t!:|t:|o:|x:|q:|---|format:|repo_sha:|\[redacted:|<REDACTED|\[REDACTED\]|@blob|sk-ant-|interrupted|\r`)

// siteSpec picks a place to ask about: anywhere, on something a feature
// explains, or whole lines.
func (g *generator) siteSpec(t *Text) SiteSpec {
	n := t.Len()
	at := g.r.IntN(n + 1)
	switch g.r.IntN(3) {
	case 0:
		// Near at: one of the first matches in the 8 KB after it.
		window := t.Bytes()[at:min(n, at+8<<10)]
		if locs := interesting.FindAllIndex(window, 8); len(locs) > 0 {
			l := locs[g.r.IntN(len(locs))]
			at += l[0] + g.r.IntN(l[1]-l[0]+4)
		}
	case 1:
		// Whole lines: a quick fix's diagnostics are in them.
		start := bytes.LastIndexByte(t.Bytes()[:at], '\n') + 1
		end := at
		for range 1 + g.r.IntN(3) {
			if i := bytes.IndexByte(t.Bytes()[end:], '\n'); i >= 0 {
				end += i + 1
			}
		}
		return SiteSpec{At: at, Start: start, End: end}
	}
	start := at - g.r.IntN(40)
	end := at + []int{0, 1, 10, 100, 1000}[g.r.IntN(5)]
	return SiteSpec{At: at, Start: start, End: end}
}

// snippets are what typing inserts: every kind of character and line end,
// and the pieces of rlog lines.
var snippets = []string{"a", "Z", " ", "  ", "\t", "é", "😀", "漢字", "𝄞", "\n", "\n", "\r\n", "\r", "\x00", "\xff", "\xe2\x86", "\xed\xa0\x80",
	"→", "->", " id=", "id=c1", " parent=abcdef12", "t!:", "t:", "o: ", "u: ", "a: ", "x:", "q: ", "# ", "@phase ", "@start", "@end", "---",
	"[ok]", "[running]", "[done]", "[started]", "[redacted:key]", "[REDACTED]", "<REDACTED:x>", "<REDACTED:", "@blob sha256=ab", " ts=2025-12-19T20:29:02Z",
	" ts=2025-13-45T99:99:99Z", " step=3", " tokens_in=5 message_id=m1", "interrupted", "\"", "=", "{", "[", " sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5 "}

// edit draws one edit of t, in byte offsets of t.
func (g *generator) edit(t *Text) Edit {
	n := t.Len()
	k := g.r.IntN(100)
	switch {
	case n > 3*g.size && k >= 50:
		k = 62 // too big: cut
	case n < g.size/3 && k >= 56 && k < 68:
		k = 56 // too small: paste
	}
	b := t.Bytes()
	switch {
	case k < 25: // typing: a few characters anywhere
		at := g.r.IntN(n + 1)
		end := at
		if g.r.IntN(3) == 0 {
			end = at + g.r.IntN(6)
		}
		var s strings.Builder
		for range g.r.IntN(4) {
			s.WriteString(snippets[g.r.IntN(len(snippets))])
		}
		return Edit{Start: at, End: min(end, n), Text: Raw(s.String())}
	case k < 35: // a whole line in
		at := g.lineStart(b)
		return Edit{Start: at, End: at, Text: Raw(g.line(b))}
	case k < 42: // whole lines out
		at := g.lineStart(b)
		return Edit{Start: at, End: g.linesAfter(b, at, 1+g.r.IntN(3))}
	case k < 48: // a line end joined, or made another kind
		at := g.r.IntN(n + 1)
		if i := bytes.IndexAny(b[at:], "\r\n"); i >= 0 {
			at += i
			end := at + 1
			if end < n && b[at] == '\r' && b[end] == '\n' {
				end++
			}
			return Edit{Start: at, End: end, Text: Raw([]string{"", " ", "\n", "\r\n", "\r"}[g.r.IntN(5)])}
		}
		return Edit{Start: at, End: at, Text: "\n"}
	case k < 56: // at the server's chunk boundaries (128 lines), blank lines included
		at := g.chunkBoundary(b)
		switch g.r.IntN(4) {
		case 0:
			return Edit{Start: at, End: at, Text: Raw(strings.Repeat("\n", 1+g.r.IntN(3)))}
		case 1:
			return Edit{Start: at, End: g.linesAfter(b, at, 1+g.r.IntN(2))}
		case 2:
			return Edit{Start: at, End: at, Text: Raw(g.line(b))}
		}
		return Edit{Start: max(0, at-g.r.IntN(3)), End: min(n, at+g.r.IntN(3)), Text: Raw([]string{"", "\r", "x", "\r\n"}[g.r.IntN(4)])}
	case k < 62: // a paste of lines from elsewhere
		from := g.lineStart(b)
		to := g.linesAfter(b, from, 1+g.r.IntN(200))
		at := g.lineStart(b)
		return Edit{Start: at, End: at, Text: Raw(b[from:to])}
	case k < 68: // a cut
		at := g.lineStart(b)
		return Edit{Start: at, End: g.linesAfter(b, at, 1+g.r.IntN(200))}
	case k < 73: // an id renamed, a header value changed
		if locs := idValue.FindAllSubmatchIndex(b, 1000); len(locs) > 0 {
			l := locs[g.r.IntN(len(locs))]
			return Edit{Start: l[2], End: l[3], Text: Raw(g.id(b))}
		}
		return Edit{Start: 0, End: 0, Text: "---\nformat: rlog/1\nid: s\nrepo_sha: abc1234\n---\n"}
	case k < 78: // the header
		return g.headerEdit(b)
	case k < 82: // a long line: 40,000 characters of everything
		at := g.lineStart(b)
		return Edit{Start: at, End: at, Text: Raw(g.longLine(40000) + "\n")}
	case k < 85: // a line of very many tokens, or lone CRs
		at := g.lineStart(b)
		unit := []string{"→", "\r→", " k=v", " id=c1", " [REDACTED]", " <REDACTED:", " @blob ", "→ [", "\r"}[g.r.IntN(9)]
		return Edit{Start: at, End: at, Text: Raw("a: x" + strings.Repeat(unit, 200+g.r.IntN(3000)) + "\n")}
	case k < 88: // line ends changed over a region
		at := g.lineStart(b)
		end := g.linesAfter(b, at, 1+g.r.IntN(50))
		nl := []string{"\n", "\r\n", "\r"}[g.r.IntN(3)]
		region := strings.NewReplacer("\r\n", nl, "\n", nl, "\r", nl).Replace(string(b[at:end]))
		return Edit{Start: at, End: end, Text: Raw(region)}
	case k < 89: // the whole document replaced
		return Edit{Whole: true, Text: Raw(b[:g.r.IntN(n+1)])}
	}
	// a line put in the middle of another
	at := g.r.IntN(n + 1)
	return Edit{Start: at, End: at, Text: Raw(g.line(b))}
}

var idValue = regexp.MustCompile(`\bid=(\w+)`)

// lineStart is the start of a random line.
func (g *generator) lineStart(b []byte) int {
	at := g.r.IntN(len(b) + 1)
	return bytes.LastIndexByte(b[:at], '\n') + 1
}

// linesAfter is where the k lines from at end.
func (g *generator) linesAfter(b []byte, at, k int) int {
	for ; k > 0 && at < len(b); k-- {
		i := bytes.IndexByte(b[at:], '\n')
		if i < 0 {
			return len(b)
		}
		at += i + 1
	}
	return at
}

// chunkBoundary is the start of a line near a multiple of 128 lines (the
// server's chunks hold up to 128 lines), or near the start.
func (g *generator) chunkBoundary(b []byte) int {
	lines := bytes.Count(b, []byte{'\n'})
	target := g.r.IntN(3)
	if lines >= 120 {
		target = 128*(g.r.IntN(lines/128+1)) + g.r.IntN(7) - 3
	}
	return g.linesAfter(b, 0, max(target, 0))
}

// id is an id from the document or a new one.
func (g *generator) id(b []byte) string {
	if locs := idValue.FindAllSubmatchIndex(b, 200); len(locs) > 0 && g.r.IntN(3) > 0 {
		l := locs[g.r.IntN(len(locs))]
		return string(b[l[2]:l[3]])
	}
	return fmt.Sprintf("n%d", g.r.IntN(1000))
}

// line is an rlog line of any kind, with ids from the document.
func (g *generator) line(b []byte) string {
	id := g.id(b)
	lines := []string{
		"t!:Read id=" + id + " file_path=a.go → [running] tokens_in=3 tokens_out=4\n",
		"o: id=" + id + " → [ok] fine\n",
		"t~:Bash id=" + id + " [1/2 passed]\n",
		fmt.Sprintf("u: go on ts=2025-12-19T20:%02d:00Z step=%d\n", g.r.IntN(60), g.r.IntN(50)),
		"@start id=" + id + " ts=2025-12-19T20:29:02Z\n",
		"@end tokens_in=1 tokens_out=1\n",
		"x:Explore id=" + id + " → [started] summary=\"s\"\n",
		"x:Explore id=" + id + " → [done]\n",
		"@phase " + []string{"explore", "fix", "review"}[g.r.IntN(3)] + "\n",
		"  a continuation line\n",
		"# a comment\n",
		"[something unknown]\n",
		"t:read x -> [ok]\n",
		"q: which one? id=" + id + " → [selected: a]\n",
		"c:github.issues id=" + id + " → [3 issues]\n",
		"a: reply parent=" + id + " uuid=\"" + id + "-1\"\n",
		"th: hmm sig=abc tokens_in=10 message_id=m1\n",
		"a: key sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5 @blob sha256=abcdef0123\n",
		"u: 漢字 😀 é \xff ts=2025-12-19T20:29:02Z\n",
		"\n",
	}
	return lines[g.r.IntN(len(lines))]
}

// longLine is an agent line of about n characters of every width.
func (g *generator) longLine(n int) string {
	pieces := []string{"word ", "key=value ", "漢字", "😀", "é", "→ ", "id=c1 ", "\"quoted text\" ", "[REDACTED] ", "\t", "x"}
	var b strings.Builder
	b.WriteString("a: ")
	for chars := 0; chars < n; {
		p := pieces[g.r.IntN(len(pieces))]
		b.WriteString(p)
		chars += len([]rune(p))
	}
	return b.String()
}

// headerEdit changes the header: a field's value, a field removed or
// added, the closing --- removed or put back, a line before the header.
func (g *generator) headerEdit(b []byte) Edit {
	line := g.linesAfter(b, 0, g.r.IntN(12))
	end := g.linesAfter(b, line, 1)
	switch g.r.IntN(6) {
	case 0:
		return Edit{Start: line, End: end}
	case 1:
		return Edit{Start: line, End: line, Text: "---\n"}
	case 2:
		return Edit{Start: line, End: line, Text: Raw([]string{"format: rlog/2\n", "repo_sha: 12\n", "id: \n", "notes: [a, b\n", "runner: ci\n", "id: x\r\n"}[g.r.IntN(6)])}
	case 3:
		if c := bytes.IndexByte(b[line:end], ':'); c >= 0 {
			return Edit{Start: line + c + 1, End: max(line+c+1, end-1), Text: Raw(" " + g.id(b))}
		}
		return Edit{Start: line, End: line, Text: "x"}
	case 4:
		return Edit{Start: 0, End: 0, Text: "preamble\n"}
	}
	return Edit{Start: line, End: line, Text: "\r\n"}
}
