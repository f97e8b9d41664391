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
		// A range request returns the tokens of the lines it covers.
		_ = json.Unmarshal(call(t, c, protocol.MethodSemanticTokensRange, map[string]any{"textDocument": map[string]any{"uri": testURI},
			"range": protocol.Range{Start: protocol.Position{Line: 5}, End: protocol.Position{Line: 5, Character: 3}}}), &res)
		got = decode(t, res.Data, semanticDoc, enc == "utf-8")
		if len(got) != 6 || !strings.HasSuffix(got[0], "o: keyword") {
			t.Errorf("%q range: %v", enc, got)
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
