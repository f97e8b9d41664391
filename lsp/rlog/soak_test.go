package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	segjson "github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// soak makes the soak tests long: go test ./lsp/rlog -run Soak -soak
var soak = flag.Bool("soak", false, "run the soak tests long (minutes): bigger documents, many more edits")

// The soak test is the guard of incremental diagnostics: a client applies
// thousands of random edits to a large generated session, and after each
// batch the diagnostics the server publishes for that version must equal a
// fresh full analysis of the same text (a new parse, a new analyzer),
// converted the same way. The edits aim where incremental analysis can go
// wrong: chunk boundaries of the server's own tree (taken from its current
// snapshot), the header, call ids (renamed, started twice, left
// unfinished), whole t!:/o: lines, pastes and cuts of hundreds of lines,
// line ends of every kind, whole-document replacements, and bursts of
// versions where only the last one is waited for.

// soakModel is the client's copy of the text.
type soakModel struct {
	text []byte
	size int // the size to stay around
	r    *rand.Rand
	enc  int // 0 UTF-16, 1 UTF-8
	ids  []string
	log  []string // the last edits, for a failure report
}

var idPattern = regexp.MustCompile(`\bid=([A-Za-z0-9_-]+)`)

func (m *soakModel) refreshIDs() {
	m.ids = m.ids[:0]
	for _, sm := range idPattern.FindAllSubmatch(m.text, 200) {
		m.ids = append(m.ids, string(sm[1]))
	}
}

func (m *soakModel) id() string {
	if len(m.ids) > 0 && m.r.IntN(3) > 0 {
		return m.ids[m.r.IntN(len(m.ids))]
	}
	return fmt.Sprintf("n%d", m.r.IntN(1000))
}

// snap moves off to a place a position can name: a character start, and
// not between the CR and LF of one line break.
func (m *soakModel) snap(off int) int {
	off = min(max(off, 0), len(m.text))
	for off > 0 && off < len(m.text) && (m.text[off]&0xC0 == 0x80 || m.text[off-1] == '\r' && m.text[off] == '\n') {
		off--
	}
	return off
}

// position is the client's position of a snapped offset.
func (m *soakModel) position(off int) protocol.Position {
	lines := refLines(m.text)
	i := sort.Search(len(lines), func(i int) bool { return lines[i][1] >= off })
	i = min(i, len(lines)-1)
	for i > 0 && lines[i][0] > off {
		i--
	}
	return protocol.Position{Line: uint32(i), Character: uint32(refColumn(m.text[lines[i][0]:off], m.enc))}
}

// lineStarts are the byte offsets where lines begin (after \n only: the
// parser's lines, which line edits keep whole).
func (m *soakModel) lineStarts() []int {
	starts := []int{0}
	for i, c := range m.text {
		if c == '\n' && i+1 < len(m.text) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func (m *soakModel) randomLine() int {
	s := m.lineStarts()
	return s[m.r.IntN(len(s))]
}

// lineEnd is the offset after the \n that ends the line starting at off.
func (m *soakModel) lineEnd(off int) int {
	if i := bytes.IndexByte(m.text[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(m.text)
}

var snippets = []string{"a", "é", "😀", "\n", "\r\n", "\r", " id=", "→", "->", "t!:", "o: ", "---\n", " ts=2025-13-45T99:99:99Z", " step=3", "\x00", "  ", "\t", "@end", "[x]",
	"\xff", "\xe2\x86", "\xc3", "\xed\xa0\x80"} // invalid UTF-8 travels raw (see didChangeRaw)

func (m *soakModel) newLine() string {
	id := m.id()
	switch m.r.IntN(12) {
	case 0:
		return "t!:Read id=" + id + " file_path=a.go → [running] tokens_in=3 tokens_out=4\n"
	case 1:
		return "o: id=" + id + " → [ok] fine\n"
	case 2:
		return "t~:Bash id=" + id + " [1/2 passed]\n"
	case 3:
		return fmt.Sprintf("u: go on ts=2025-12-19T20:%02d:00Z step=%d\n", m.r.IntN(60), m.r.IntN(50))
	case 4:
		return "@start id=" + id + " ts=2025-12-19T20:29:02Z\n"
	case 5:
		return "@end tokens_in=1 tokens_out=1\n"
	case 6:
		return "x:Explore id=" + id + " → [started] summary=\"s\"\n"
	case 7:
		return "  a continuation line\n"
	case 8:
		return "# a comment\n"
	case 9:
		return "[something unknown]\n"
	case 10:
		return "t:read x -> [ok]\n"
	default:
		return "a: key sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5 @startup\n"
	}
}

// edit picks one edit of the model, applies it, and returns it as the
// protocol change (positions before the edit, in the client's encoding).
func (m *soakModel) edit(chunkStarts []int) wireChange {
	var start, end int
	var text, what string
	k := m.r.IntN(20)
	switch {
	case len(m.text) > 3*m.size/2 && k >= 14:
		k = 18 // too big: cut instead of pasting
	case len(m.text) < m.size/2 && k == 18:
		k = 16 // too small: paste instead of cutting
	}
	switch {
	case k < 5: // a few characters anywhere
		start = m.snap(m.r.IntN(len(m.text) + 1))
		end = m.snap(start + m.r.IntN(4))
		text, what = snippets[m.r.IntN(len(snippets))], "chars"
	case k < 8: // a whole line in
		start, text, what = m.randomLine(), m.newLine(), "line in"
		end = start
	case k < 10: // whole lines out
		start = m.randomLine()
		end = start
		for range 1 + m.r.IntN(3) {
			end = m.lineEnd(end)
		}
		what = "lines out"
	case k < 12: // an id renamed
		locs := idPattern.FindAllSubmatchIndex(m.text, -1)
		if len(locs) == 0 {
			return m.edit(chunkStarts)
		}
		l := locs[m.r.IntN(len(locs))]
		start, end, text, what = l[2], l[3], m.id(), "id rename"
	case k < 14: // the header
		start, end, text, what = m.headerEdit()
	case k < 16 && len(chunkStarts) > 1: // at a chunk boundary of the server's tree
		b := chunkStarts[1+m.r.IntN(len(chunkStarts)-1)]
		start = m.snap(b - m.r.IntN(3))
		end = m.snap(b + m.r.IntN(3))
		text = []string{"", "\n", "x", m.newLine(), "\r"}[m.r.IntN(5)]
		what = "chunk boundary"
	case k < 18: // a paste of a block of lines from elsewhere
		from := m.randomLine()
		to := from
		for range 1 + m.r.IntN(300) {
			to = m.lineEnd(to)
		}
		start, text, what = m.randomLine(), string(m.text[from:to]), "paste"
		end = start
	case k < 19: // a cut, as large as a paste
		start = m.randomLine()
		end = start
		for range 1 + m.r.IntN(300) {
			end = m.lineEnd(end)
		}
		what = "cut"
	default:
		start = m.snap(m.r.IntN(len(m.text) + 1))
		end, text, what = start, m.newLine(), "line mid-line"
	}
	start, end = m.snap(start), m.snap(end)
	if end < start {
		start, end = end, start
	}
	rng := protocol.Range{Start: m.position(start), End: m.position(end)}
	m.log = append(m.log, fmt.Sprintf("%s: [%d,%d) %v -> %q", what, start, end, rng, truncateForLog(text)))
	if len(m.log) > 12 {
		m.log = m.log[1:]
	}
	m.text = append(m.text[:start:start], append([]byte(text), m.text[end:]...)...)
	return wireChange{Range: &rng, Text: text}
}

// wireChange is a TextDocumentContentChangeEvent as a client sends it.
type wireChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

func truncateForLog(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// headerEdit changes the header: a field's value, a field removed or
// added, the closing --- removed or put back, a line before the header.
func (m *soakModel) headerEdit() (start, end int, text, what string) {
	starts := m.lineStarts()
	n := min(len(starts), 12)
	line := starts[m.r.IntN(n)]
	lineEnd := m.lineEnd(line)
	switch m.r.IntN(6) {
	case 0:
		return line, lineEnd, "", "header line out"
	case 1:
		return line, line, "---\n", "header ---"
	case 2:
		return line, line, []string{"format: rlog/2\n", "repo_sha: 12\n", "id: \n", "notes: [a, b\n", "runner: ci\n"}[m.r.IntN(5)], "header field"
	case 3:
		if c := bytes.IndexByte(m.text[line:lineEnd], ':'); c >= 0 {
			return line + c + 1, m.snap(lineEnd - 1), " " + m.id(), "header value"
		}
		return line, line, "x", "header char"
	case 4:
		return 0, 0, "preamble\n", "before the header"
	default:
		return line, line, "\r\n", "header blank"
	}
}

// expected is what the server must publish for text: a fresh parse and a
// fresh full analysis, converted as diagnose converts.
func expected(uri protocol.DocumentURI, text []byte, enc lsp.PositionEncoding) []protocol.Diagnostic {
	d := Parse(bytes.Clone(text))
	dc := &docCtx{Doc: &lsp.Document[Doc]{URI: uri, Text: d}, Mapper: lsp.Mapper{Text: d, Encoding: enc}}
	out := []protocol.Diagnostic{}
	for _, f := range analysis.Check(grammar.Parse(bytes.Clone(text)), analysis.Config{}) {
		out = append(out, toDiagnostic(dc, dc.Mapper.Positions(), f))
	}
	return out
}

func soakSession(t *testing.T, bytesWanted int64, seed uint64) []byte {
	var b bytes.Buffer
	if err := gen.Write(&b, gen.Options{Bytes: bytesWanted, FindingRate: 0.01, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSoakDiagnosticsEqualFullAnalysis(t *testing.T) {
	size, batches := int64(80<<10), 200
	switch {
	case *soak:
		size, batches = 2<<20, 2500
	case raceEnabled:
		size, batches = 40<<10, 120
	case testing.Short():
		batches = 60
	}
	// Small chunks, so that a document of this size has hundreds of them
	// and edits meet their boundaries often.
	t.Cleanup(grammar.SetChunkLimitsForTest(24, 2<<10))
	for _, enc := range []lsp.PositionEncoding{lsp.UTF16, lsp.UTF8} {
		t.Run(enc.String(), func(t *testing.T) { soakRun(t, enc, size, batches, 7+uint64(enc)) })
	}
}

func soakRun(t *testing.T, enc lsp.PositionEncoding, size int64, batches int, seed uint64) {
	var latest atomic.Pointer[lsp.Document[Doc]]
	feats := Features()
	inner := feats.Diagnose
	feats.Diagnose = func(ctx context.Context, dc *docCtx) lsp.Diagnostics {
		// Runs for older versions can still be under way: keep the newest.
		for {
			old := latest.Load()
			if old != nil && old.Version >= dc.Doc.Version || latest.CompareAndSwap(old, dc.Doc) {
				break
			}
		}
		return inner(ctx, dc)
	}
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: feats, Name: "rlog-ls", Version: "soak"})
	})
	params := lsptest.DefaultInitializeParams()
	params["initializationOptions"] = map[string]any{"diagnostics": map[string]any{"debounceMs": 0, "maxPerDocument": 0}}
	if enc == lsp.UTF8 {
		params["capabilities"] = map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-8"}}}
	}
	c.Initialize(params)

	m := &soakModel{text: soakSession(t, size, seed), size: int(size), r: rand.New(rand.NewPCG(seed, 99)), enc: map[lsp.PositionEncoding]int{lsp.UTF16: 0, lsp.UTF8: 1}[enc]}
	uri := protocol.DocumentURI("file:///soak/session.rlog")
	openRaw(c, uri, 1, string(m.text))
	check := func(version int32) {
		t.Helper()
		p := c.WaitDiagnostics(uri, lsptest.AtVersion(version))
		var got struct {
			Diagnostics json.RawMessage `json:"diagnostics"`
		}
		json.Unmarshal(p.Raw, &got)
		// Encoded with the server's codec, equal lists are equal bytes;
		// JSONEqual settles anything else.
		want, _ := segjson.Marshal(expected(uri, m.text, enc))
		if !bytes.Equal(got.Diagnostics, want) && !lsptest.JSONEqual(got.Diagnostics, want) {
			t.Fatalf("version %d: published diagnostics differ from a full analysis\n%s\nlast edits:\n  %s\n(the text is in %s)",
				version, firstDifference(got.Diagnostics, want), strings.Join(m.log, "\n  "), dumpText(t, m.text))
		}
		if d := latest.Load(); d == nil || !bytes.Equal(d.Text.Bytes(), m.text) {
			t.Fatalf("version %d: the server's text differs from the client's", version)
		}
		c.ForgetFrames() // thousands of publishes of a large document add up
	}
	check(1)
	version := int32(1)
	edits := 0
	for b := 0; b < batches; b++ {
		if b%20 == 0 {
			m.refreshIDs()
		}
		burst := 1
		if b%10 == 9 {
			burst = 5 // versions in a row; only the last is waited for
		}
		for range burst {
			var chunkStarts []int
			if d := latest.Load(); d != nil && bytes.Equal(d.Text.Bytes(), m.text) {
				for i := range d.Text.ChunkCount() {
					_, _, s := d.Text.ChunkAt(i)
					chunkStarts = append(chunkStarts, s)
				}
			}
			version++
			if m.r.IntN(150) == 0 { // a whole-document change
				m.text = soakSession(t, size, m.r.Uint64())
				m.log = append(m.log, "whole document")
				didChangeRaw(c, uri, version, []wireChange{{Text: string(m.text)}})
				edits++
				continue
			}
			var changes []wireChange
			for range 1 + m.r.IntN(3) {
				changes = append(changes, m.edit(chunkStarts))
				edits++
			}
			didChangeRaw(c, uri, version, changes)
		}
		check(version)
		if *soak && b%250 == 249 {
			t.Logf("%s: %d batches, %d edits, %d bytes", enc, b+1, edits, len(m.text))
		}
	}
	t.Logf("%s: %d edits in %d versions, %d bytes at the end", enc, edits, version, len(m.text))
}

// didChangeRaw sends a didChange whose texts travel byte for byte (invalid
// UTF-8 included, which encoding/json would replace).
func didChangeRaw(c *lsptest.Client, uri protocol.DocumentURI, version int32, changes []wireChange) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[`, uri, version)
	for i, ch := range changes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		if ch.Range != nil {
			r, _ := json.Marshal(ch.Range)
			fmt.Fprintf(&b, `"range":%s,`, r)
		}
		fmt.Fprintf(&b, `"text":%s}`, lsptest.RawString(ch.Text))
	}
	b.WriteString("]}}")
	c.SendRaw(b.String())
}

// firstDifference describes where two diagnostics lists first differ.
func firstDifference(got, want json.RawMessage) string {
	var g, w []json.RawMessage
	json.Unmarshal(got, &g)
	json.Unmarshal(want, &w)
	for i := 0; i < max(len(g), len(w)); i++ {
		switch {
		case i >= len(g):
			return fmt.Sprintf("%d published, %d expected; first missing: %s", len(g), len(w), w[i])
		case i >= len(w):
			return fmt.Sprintf("%d published, %d expected; first extra: %s", len(g), len(w), g[i])
		case !lsptest.JSONEqual(g[i], w[i]):
			return fmt.Sprintf("diagnostic %d:\n published %s\n expected  %s", i, g[i], w[i])
		}
	}
	return "equal as lists"
}

// dumpText keeps a failing text for reproduction.
func dumpText(t *testing.T, text []byte) string {
	p := filepath.Join(os.TempDir(), fmt.Sprintf("rlog-soak-%s.rlog", strings.ReplaceAll(t.Name(), "/", "-")))
	if err := os.WriteFile(p, text, 0o644); err != nil {
		return "(not written: " + err.Error() + ")"
	}
	return p
}
