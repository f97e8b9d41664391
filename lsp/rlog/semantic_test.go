package rlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf16"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

const semanticDoc = "---\n" +
	"id: s1\n" +
	"---\n" +
	"@phase explore\n" +
	"t!:Read id=c1 file_path=\"a b.rs\" → [running] tokens_in=5\n" +
	"o: 😀 id=c1 → [ok] done\n" +
	"# note ts=2025-12-19T20:29:02Z\n" +
	"a: x\rkey=[redacted:k]\n"

// decode turns the relative encoding back into "line:char text type" items,
// cutting the text out of the editor's view of each line.
func decode(t *testing.T, data []uint32, text string, utf8Cols bool) []string {
	t.Helper()
	lines := strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n")
	var out []string
	line, char := uint32(0), uint32(0)
	for i := 0; i+5 <= len(data); i += 5 {
		if data[i] > 0 {
			char = 0
		}
		line += data[i]
		char += data[i+1]
		l := lines[line]
		var piece string
		if utf8Cols {
			piece = l[char : char+data[i+2]]
		} else {
			u := utf16.Encode([]rune(l))
			piece = string(utf16.Decode(u[char : char+data[i+2]]))
		}
		typ := analysis.SemanticTypeNames[data[i+3]]
		for bit, name := range analysis.SemanticModifierNames {
			if data[i+4]&(1<<bit) != 0 {
				typ += "+" + name
			}
		}
		out = append(out, fmt.Sprintf("%d:%d %s %s", line, char, piece, typ))
	}
	return out
}

func TestSemanticTokens(t *testing.T) {
	want := []string{
		"0:0 --- keyword", "1:0 id property", "1:4 s1 string", "2:0 --- keyword",
		"3:0 @phase keyword", "3:7 explore namespace",
		"4:0 t!: keyword", "4:3 Read function", "4:8 id property", "4:10 = operator", "4:11 c1 variable+declaration",
		"4:14 file_path property", "4:23 = operator", `4:24 "a b.rs" string`, "4:33 → operator", "4:35 [running] enumMember+pending",
		"4:45 tokens_in property", "4:54 = operator", "4:55 5 number",
		"5:0 o: keyword", "5:6 id property", "5:8 = operator", "5:9 c1 variable", "5:12 → operator", "5:14 [ok] enumMember+success",
		"6:0 # keyword", "6:2 note comment", "6:7 ts property", "6:9 = operator", "6:10 2025-12-19T20:29:02Z number",
		"7:0 a: keyword", "8:0 key property", "8:3 = operator", "8:4 [redacted:k] macro",
	}
	for _, enc := range []string{"", "utf-8"} {
		c := start(t, enc, nil)
		open(t, c, testURI, semanticDoc)
		var res protocol.SemanticTokens
		if err := json.Unmarshal(call(t, c, protocol.MethodSemanticTokensFull, map[string]any{"textDocument": map[string]any{"uri": testURI}}), &res); err != nil {
			t.Fatal(err)
		}
		got := decode(t, res.Data, semanticDoc, enc == "utf-8")
		if enc == "utf-8" {
			// Columns count bytes there; the pieces they cut out must be the same.
			got, want = withoutColumns(got), withoutColumns(want)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q encoding:\n got:\n%s\n want:\n%s", enc, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// A range request returns the tokens that overlap the range (an
		// empty range: the token at it), not every token of its lines.
		for _, r := range []struct {
			start, end protocol.Position
			want       []string
		}{
			{protocol.Position{Line: 5}, protocol.Position{Line: 5, Character: 3}, []string{"5:0 o: keyword"}},
			{protocol.Position{Line: 5, Character: 7}, protocol.Position{Line: 5, Character: 10}, []string{"5:6 id property", "5:8 = operator", "5:9 c1 variable"}},
			{protocol.Position{Line: 5, Character: 10}, protocol.Position{Line: 5, Character: 10}, []string{"5:9 c1 variable"}},
			{protocol.Position{Line: 7, Character: 1}, protocol.Position{Line: 8, Character: 1}, []string{"7:0 a: keyword", "8:0 key property"}},
		} {
			if enc == "utf-8" {
				// Past the emoji of line 5, a UTF-8 column is 2 more.
				for _, p := range []*protocol.Position{&r.start, &r.end} {
					if p.Line == 5 && p.Character >= 5 {
						p.Character += 2
					}
				}
			}
			_ = json.Unmarshal(call(t, c, protocol.MethodSemanticTokensRange, map[string]any{"textDocument": map[string]any{"uri": testURI},
				"range": protocol.Range{Start: r.start, End: r.end}}), &res)
			got = decode(t, res.Data, semanticDoc, enc == "utf-8")
			want := r.want
			if enc == "utf-8" {
				got, want = withoutColumns(got), withoutColumns(want)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%q range %v–%v: %v, want %v", enc, r.start, r.end, got, want)
			}
		}
	}
}

func withoutColumns(items []string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		pos, rest, _ := strings.Cut(it, " ")
		line, _, _ := strings.Cut(pos, ":")
		out[i] = line + " " + rest
	}
	return out
}

func TestSemanticTokensCapability(t *testing.T) {
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features()})
	})
	res := c.Initialize(nil)
	var init struct {
		Capabilities struct {
			SemanticTokensProvider json.RawMessage `json:"semanticTokensProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		t.Fatal(err)
	}
	lsptest.AssertJSON(t, init.Capabilities.SemanticTokensProvider, `{"legend":{
	  "tokenTypes":["keyword","function","property","operator","string","number","enumMember","comment","variable","macro","event","namespace","type"],
	  "tokenModifiers":["declaration","success","failure","pending"]},"full":true,"range":true}`)
}

// lookupCounter is a document text that counts the editor line lookups
// made through it: the cost of mapping offsets to positions.
type lookupCounter struct {
	Doc
	lookups *int
}

func (c lookupCounter) EditorLineAt(off int) int  { *c.lookups++; return c.Doc.EditorLineAt(off) }
func (c lookupCounter) EditorLineStart(l int) int { *c.lookups++; return c.Doc.EditorLineStart(l) }
func (c lookupCounter) EditorLineEnd(l int) int   { *c.lookups++; return c.Doc.EditorLineEnd(l) }
func (c lookupCounter) EditorLineBounds(off int) (int, int, int) {
	*c.lookups++
	return c.Doc.EditorLineBounds(off)
}

// Semantic tokens on a line that holds a lone CR look up each editor line
// once, not each token's (issue 18: 32,000 arrows after `a: x\r` took 14 s,
// each token's position found from the start of its line), and a range
// request gives the tokens in the range only.
func TestSemanticTokensOnALoneCRLine(t *testing.T) {
	const arrows = 20000
	src := "---\nid: s\n---\na: x\r" + strings.Repeat("→", arrows) + "\n"
	doc := Parse([]byte(src))
	for _, enc := range []lsp.PositionEncoding{lsp.UTF16, lsp.UTF8} {
		lookups := 0
		dc := &docCtx{Doc: &lsp.Document[Doc]{URI: testURI, Text: doc}, Mapper: lsp.Mapper{Text: lookupCounter{doc, &lookups}, Encoding: enc},
			Session: &lsp.Session{Encoding: enc}}
		res, err := encodeSemanticTokens(context.Background(), dc, 0, doc.Len())
		if err != nil {
			t.Fatal(err)
		}
		data := res.(*protocol.SemanticTokens).Data
		width := uint32(1) // an arrow is one UTF-16 unit, three bytes
		if enc == lsp.UTF8 {
			width = 3
		}
		// ---, id, s1, ---, a:, then the arrows from editor line 4 on.
		if got := len(data) / 5; got != 5+arrows {
			t.Fatalf("%v: %d tokens, want %d", enc, got, 5+arrows)
		}
		if arrow := data[5*5 : 5*5+5]; arrow[0] != 1 || arrow[1] != 0 || arrow[2] != width || arrow[3] != uint32(analysis.SemOperator) {
			t.Fatalf("%v: first arrow %v", enc, arrow)
		}
		if last := data[len(data)-5:]; last[0] != 0 || last[1] != width {
			t.Fatalf("%v: last arrow %v", enc, last)
		}
		if lookups > 20 {
			t.Fatalf("%v: %d editor line lookups for %d tokens on 5 editor lines", enc, lookups, len(data)/5)
		}
	}
	// Ten characters of that line: ten arrows.
	c := start(t, "", nil)
	open(t, c, testURI, src)
	var res protocol.SemanticTokens
	_ = json.Unmarshal(call(t, c, protocol.MethodSemanticTokensRange, map[string]any{"textDocument": map[string]any{"uri": testURI},
		"range": protocol.Range{Start: protocol.Position{Line: 4, Character: 100}, End: protocol.Position{Line: 4, Character: 110}}}), &res)
	if len(res.Data) != 10*5 || res.Data[0] != 4 || res.Data[1] != 100 {
		t.Fatalf("range of 10 characters: %d tokens, from %v", len(res.Data)/5, res.Data[:min(5, len(res.Data))])
	}
}
