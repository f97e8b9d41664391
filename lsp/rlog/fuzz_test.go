package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rlog-ls/rlog-ls/internal/corpus"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// Fuzzing the server through its wire with the real rlog features, and
// the position mapping over the parser's own text (the plumbing's fuzz
// targets in package lsp use a toy language and a plain-text Text).

// fuzzDoc has a little of everything: CRLF, a lone CR, astral characters,
// invalid UTF-8, a secret, calls and their uses.
const fuzzDoc = "---\\nformat: rlog/1\\nid: f\\nrepo_sha: abc1234\\n---\\n@start id=s ts=2025-12-19T20:29:02Z\\r\\n" +
	"u: 😀 key sk-ant-api03-Zx9Qm2Lr7Tb4Wn8Kc1Vd6Hs3Jf0Pg5Ya2Ue7Io4Xq9Rt1Mb6Nc3Lz8Kw5\\r" +
	"t!:Read id=c1 file_path=a.go → [running] tokens_in=3\\n  more\\n\\u00ff o: id=c1 → [ok] x\\n@phase p\\nx:Explore id=s2 → [started]\\n"

// fuzzSession is one message per line; the fuzzer mutates the lines.
var fuzzSession = strings.Join([]string{
	`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/a.rlog","languageId":"rlog","version":1,"text":"` + fuzzDoc + `"}}}`,
	`{"jsonrpc":"2.0","id":1001,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///w/a.rlog"},"position":{"line":7,"character":12}}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/a.rlog","version":2},"contentChanges":[{"range":{"start":{"line":6,"character":3},"end":{"line":8,"character":1}},"text":"o: id=zz\r\n"}]}}`,
	`{"jsonrpc":"2.0","id":1002,"method":"textDocument/definition","params":{"textDocument":{"uri":"file:///w/a.rlog"},"position":{"line":9,"character":7}}}`,
	`{"jsonrpc":"2.0","id":1003,"method":"textDocument/references","params":{"textDocument":{"uri":"file:///w/a.rlog"},"position":{"line":8,"character":12},"context":{"includeDeclaration":true}}}`,
	`{"jsonrpc":"2.0","id":1004,"method":"textDocument/documentHighlight","params":{"textDocument":{"uri":"file:///w/a.rlog"},"position":{"line":8,"character":12}}}`,
	`{"jsonrpc":"2.0","id":1005,"method":"textDocument/foldingRange","params":{"textDocument":{"uri":"file:///w/a.rlog"}}}`,
	`{"jsonrpc":"2.0","id":1006,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"file:///w/a.rlog"}}}`,
	`{"jsonrpc":"2.0","id":1007,"method":"textDocument/semanticTokens/full","params":{"textDocument":{"uri":"file:///w/a.rlog"}}}`,
	`{"jsonrpc":"2.0","id":1008,"method":"textDocument/semanticTokens/range","params":{"textDocument":{"uri":"file:///w/a.rlog"},"range":{"start":{"line":2,"character":0},"end":{"line":99,"character":0}}}}`,
	`{"jsonrpc":"2.0","id":1009,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///w/a.rlog"},"range":{"start":{"line":6,"character":0},"end":{"line":7,"character":0}},"context":{"diagnostics":[{"range":{"start":{"line":6,"character":0},"end":{"line":6,"character":2}},"code":"W004","message":"m"}]}}}`,
	`{"jsonrpc":"2.0","id":1010,"method":"workspace/symbol","params":{"query":"re"}}`,
	`{"jsonrpc":"2.0","id":1011,"method":"workspace/executeCommand","params":{"command":"rlog-ls.redact","arguments":["untitled:x"]}}`,
	`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1007}}`,
	`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"rlog":{"disabledCodes":["W002"],"outline":{"maxItems":1}}}}}`,
	`{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///w/a.rlog"}}}`,
}, "\n")

// Any sequence of messages (each line of the input is one frame) leaves the
// server serving: a last request is still answered (unless the input told
// it to exit), no handler panics, and every frame it sends is JSON-RPC.
func FuzzServerMessages(f *testing.F) {
	f.Add([]byte(fuzzSession))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{}}`))
	for _, src := range corpusLogs(2, 16<<10) {
		text, _ := json.Marshal(string(src))
		f.Add([]byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/a.rlog","languageId":"rlog","version":1,"text":` + string(text) + `}}}` + "\n" +
			`{"jsonrpc":"2.0","id":1005,"method":"textDocument/foldingRange","params":{"textDocument":{"uri":"file:///w/a.rlog"}}}`))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":4294967296,"method":"textDocument/hover","params":{"textDocument":{"uri":7},"position":"x"}}` + "\n[]\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		core, logs := observer.New(zapcore.ErrorLevel)
		c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
			return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "fuzz", Logger: zap.New(core)})
		})
		params := lsptest.DefaultInitializeParams()
		params["initializationOptions"] = map[string]any{"diagnostics": map[string]any{"debounceMs": 0}}
		c.Initialize(params)
		exits := false
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			exits = exits || bytes.Contains(line, []byte("exit"))
			c.SendRaw(string(line))
		}
		if !exits {
			f := c.RawRequest(`{"jsonrpc":"2.0","id":"fuzz-last","method":"textDocument/foldingRange","params":{"textDocument":{"uri":"file:///w/a.rlog"}}}`)
			if f.Error != nil && f.Error.Code != -32600 { // InvalidRequest: after a shutdown in the input
				t.Fatalf("last request: %s", f.Body)
			}
		}
		for _, fr := range c.Frames() {
			var env struct {
				Version string `json:"jsonrpc"`
			}
			if json.Unmarshal(fr.Body, &env) != nil || env.Version != "2.0" {
				t.Fatalf("server sent %s", fr.Body)
			}
			if fr.Error != nil && fr.Error.Code == -32603 {
				t.Fatalf("internal error: %s", fr.Body)
			}
		}
		for _, e := range logs.All() {
			if strings.Contains(e.Message, "panicked") {
				t.Fatalf("%s: %v", e.Message, e.ContextMap())
			}
		}
	})
}

// refLines splits b at \n, \r\n and lone \r, as editors do: [start, end)
// of each line's content.
func refLines(b []byte) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			out = append(out, [2]int{start, i})
			start = i + 1
		case '\r':
			out = append(out, [2]int{start, i})
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(b)})
}

// refColumn is the column of line[:n] in an encoding (0 UTF-16, 1 UTF-8,
// 2 UTF-32); an invalid byte counts as one U+FFFD.
func refColumn(line []byte, enc int) int {
	col := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		switch enc {
		case 0:
			if r == utf8.RuneError && size == 1 {
				col++
			} else {
				col += len(utf16.Encode([]rune{r}))
			}
		case 1:
			col += size
		default:
			col++
		}
		i += size
	}
	return col
}

// checkMapper checks the parser's editor lines against refLines, and
// every character start's position round trip in the three encodings.
func checkMapper(t *testing.T, d Doc, b []byte) {
	t.Helper()
	lines := refLines(b)
	if d.EditorLineCount() != len(lines) {
		t.Fatalf("%q: %d editor lines, want %d", b, d.EditorLineCount(), len(lines))
	}
	for l, se := range lines {
		if d.EditorLineStart(l) != se[0] || d.EditorLineEnd(l) != se[1] {
			t.Fatalf("%q: line %d is [%d,%d), want %v", b, l, d.EditorLineStart(l), d.EditorLineEnd(l), se)
		}
		for off := se[0]; off <= se[1]; off++ {
			if got := d.EditorLineAt(off); got != l {
				t.Fatalf("%q: EditorLineAt(%d) = %d, want %d", b, off, got, l)
			}
			if off < se[1] && !utf8.RuneStart(b[off]) {
				continue
			}
			if off > se[0] && off < se[1] {
				if r, _ := utf8.DecodeLastRune(b[se[0]:off]); r == utf8.RuneError {
					// Inside or after an invalid sequence: only starts that
					// DecodeRune steps on are character starts.
					if !stepsOn(b[se[0]:se[1]], off-se[0]) {
						continue
					}
				}
			}
			for enc, e := range []lsp.PositionEncoding{lsp.UTF16, lsp.UTF8, lsp.UTF32} {
				m := lsp.Mapper{Text: d, Encoding: e}
				want := protocol.Position{Line: uint32(l), Character: uint32(refColumn(b[se[0]:off], enc))}
				if got := m.Position(off); got != want {
					t.Fatalf("%q %v: Position(%d) = %v, want %v", b, e, off, got, want)
				}
				if got := m.Offset(want); got != off {
					t.Fatalf("%q %v: Offset(%v) = %d, want %d", b, e, want, got, off)
				}
			}
		}
	}
	// A PositionCache agrees with the Mapper, offsets in any order.
	for _, e := range []lsp.PositionEncoding{lsp.UTF16, lsp.UTF8, lsp.UTF32} {
		m := lsp.Mapper{Text: d, Encoding: e}
		c := m.Positions()
		for i := range 3*len(b) + 3 {
			off := (i * 7919) % (len(b) + 3) // jumps about, and past the end
			if i%3 != 0 {
				off = i / 3 // in order
			}
			if got, want := c.Position(off), m.Position(off); got != want {
				t.Fatalf("%q %v: PositionCache.Position(%d) = %v, Mapper says %v", b, e, off, got, want)
			}
		}
	}
	// Past the end clamps.
	m := lsp.Mapper{Text: d, Encoding: lsp.UTF16}
	if got := m.Offset(protocol.Position{Line: uint32(len(lines) + 5)}); got != len(b) {
		t.Fatalf("%q: Offset past the end = %d", b, got)
	}
}

// stepsOn reports whether decoding line rune by rune lands on offset n.
func stepsOn(line []byte, n int) bool {
	for i := 0; i < len(line); {
		if i == n {
			return true
		}
		_, size := utf8.DecodeRune(line[i:])
		i += size
	}
	return n == len(line)
}

// Positions over the parser's own text, fresh and after an incremental
// edit: the editor lines (\n, \r\n and lone \r) and the columns in UTF-16,
// UTF-8 and UTF-32 round-trip on any bytes.
func FuzzMapperTree(f *testing.F) {
	f.Add([]byte("---\r\nid: x\r---\n😀\xff\r\r\n\na"), uint16(3), uint16(4), []byte("\r"))
	f.Add([]byte(strings.Repeat("t!:R id=c → é\r\n", 50)), uint16(200), uint16(30), []byte("\n\r𝄞"))
	f.Add([]byte("\xed\xa0\x80\xf0\x9f\x98"), uint16(1), uint16(1), []byte("\n"))
	for _, src := range corpusLogs(2, 8<<10) {
		f.Add(src, uint16(len(src)/2), uint16(40), []byte("\r\nt!:R id=x → é\r"))
	}
	f.Fuzz(func(t *testing.T, src []byte, at, length uint16, ins []byte) {
		checkMapper(t, Parse(bytes.Clone(src)), src)
		s := int(at) % (len(src) + 1)
		e := min(len(src), s+int(length))
		edited := Parse(bytes.Clone(src)).Apply(s, e, bytes.Clone(ins))
		want := append(append(append([]byte(nil), src[:s]...), ins...), src[e:]...)
		if !bytes.Equal(edited.Bytes(), want) {
			t.Fatalf("edit gave %q, want %q", edited.Bytes(), want)
		}
		checkMapper(t, edited, want)
	})
}

// corpusLogs returns the first bytes of up to n real logs of the shared
// corpus, when it is present.
func corpusLogs(n, size int) [][]byte {
	dir, ok := corpus.Find()
	if !ok {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(dir, "rlog", "*", "*", "*.rlog"))
	var out [][]byte
	for _, p := range files {
		if len(out) == n {
			break
		}
		if src, err := os.ReadFile(p); err == nil {
			out = append(out, src[:min(len(src), size)])
		}
	}
	return out
}

// The fuzz targets' seeds run as tests; this keeps the session seed honest:
// every request in it is answered without an error.
func TestFuzzSessionSeedIsAnswered(t *testing.T) {
	c := start(t, "", nil)
	for _, line := range strings.Split(fuzzSession, "\n") {
		var env struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(line), &env)
		if env.ID == nil {
			c.SendRaw(line)
			continue
		}
		if fr := c.RawRequest(line); fr.Error != nil && fr.Error.Code != -32800 {
			t.Errorf("%s: %s", line[:min(len(line), 80)], fr.Body)
		}
	}
	// The last line closes the document: its diagnostics are cleared.
	c.WaitDiagnostics("file:///w/a.rlog", lsptest.Cleared)
}
