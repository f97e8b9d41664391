package tmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/corpus"
)

type dumpLine struct {
	Text   string      `json:"text"`
	Kind   string      `json:"kind"`
	Tokens []dumpToken `json:"tokens,omitempty"`
}

// dumpToken is a token of grammar.Tokenize as [kind, start, end], with
// offsets in UTF-16 code units, as JavaScript strings count.
type dumpToken [3]any

type dumpFile struct {
	Path  string     `json:"path"`
	Lines []dumpLine `json:"lines"`
}

type mismatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
	Go   string `json:"go"`
	TM   string `json:"tm"`
}

type tokenMismatch struct {
	Path   string   `json:"path"`
	Line   int      `json:"line"`
	Token  string   `json:"token"` // the token's text
	Kind   string   `json:"kind"`  // grammar.TokenKind
	Scopes []string `json:"scopes"`
}

type report struct {
	Lines           int             `json:"lines"`
	Tokens          int             `json:"tokens"`
	Mismatches      []mismatch      `json:"mismatches"`
	TokenMismatches []tokenMismatch `json:"tokenMismatches"`
}

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// unavailable skips the test, or fails it when CI requires it to run.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("RLOG_REQUIRE_TMTEST") == "1" {
		t.Fatalf("%s (RLOG_REQUIRE_TMTEST=1)", msg)
	}
	t.Skip(msg)
}

// dump parses a file and returns its lines with the parser's kinds. The
// first line loses its byte order mark, as editors strip it when they load
// a file; lines are split where the parser splits them (LF, CRLF).
func dump(t *testing.T, path string) dumpFile {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tree := grammar.Parse(src)
	f := dumpFile{Path: path}
	for l := range tree.Lines() {
		text := tree.Text(l)
		if l.Num == 0 {
			text = bytes.TrimPrefix(text, []byte("\uFEFF"))
		}
		dl := dumpLine{Text: string(text), Kind: l.Kind.String()}
		li, full := tree.Info(l.Num)
		skip := len(full) - len(text) // the byte order mark
		for _, tok := range grammar.Tokenize(full, &li) {
			dl.Tokens = append(dl.Tokens, dumpToken{tok.Kind.String(),
				utf16Len(full[skip:tok.Span.Start]), utf16Len(full[skip:tok.Span.End])})
		}
		f.Lines = append(f.Lines, dl)
	}
	return f
}

// utf16Len is the length in UTF-16 code units of b as encoding/json writes
// it (each invalid byte becomes one U+FFFD).
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r > 0xFFFF {
			n += 2
		} else {
			n++
		}
		b = b[size:]
	}
	return n
}

func rlogFiles(t *testing.T, dir string) []string {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".rlog") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGrammarAgreesWithParser(t *testing.T) {
	root := repoRoot(t)
	script := filepath.Join(root, "editors", "vscode", "test", "grammar-agreement.mjs")
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable(t, "node is not installed: the grammar test needs Node.js 20 and `npm ci` in editors/vscode")
	}
	if _, err := os.Stat(filepath.Join(root, "editors", "vscode", "node_modules", "vscode-textmate")); err != nil {
		unavailable(t, "vscode-textmate is not installed: run `npm ci` in editors/vscode")
	}

	files := rlogFiles(t, filepath.Join(root, "testdata"))
	own := rlogFiles(t, "testdata")
	files = append(files, own...)
	corpusFiles := corpus.SweepFiles(t, ".rlog", "rlog", "rlog-derived")
	files = append(files, corpusFiles...)

	in := struct {
		Files []dumpFile `json:"files"`
	}{}
	for _, p := range files {
		in.Files = append(in.Files, dump(t, p))
	}
	kinds := filepath.Join(t.TempDir(), "kinds.json")
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kinds, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, kinds)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", node, script, err, stderr.String())
	}
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("reading the Node report: %v\n%s", err, out)
	}
	want := 0
	for _, f := range in.Files {
		want += len(f.Lines)
	}
	if rep.Lines != want {
		t.Fatalf("the grammar saw %d lines, the parser %d", rep.Lines, want)
	}

	expected := map[Divergence]bool{}
	for _, d := range Divergences {
		expected[d] = false
	}
	var unexpected []string
	for _, m := range rep.Mismatches {
		d := Divergence{filepath.Base(m.Path), m.Line, m.Go, m.TM}
		if _, ok := expected[d]; ok && filepath.Dir(m.Path) == "testdata" {
			expected[d] = true
			continue
		}
		unexpected = append(unexpected, fmt.Sprintf("%s:%d: parser %s, grammar %s: %q", m.Path, m.Line, m.Go, m.TM, m.Text))
	}
	for i, s := range unexpected {
		if i == 50 {
			t.Errorf("... and %d more", len(unexpected)-50)
			break
		}
		t.Error(s)
	}
	for i, m := range rep.TokenMismatches {
		if i == 50 {
			t.Errorf("... and %d more token differences", len(rep.TokenMismatches)-50)
			break
		}
		t.Errorf("%s:%d: parser token %s %q, grammar scopes %v", m.Path, m.Line, m.Kind, m.Token, m.Scopes)
	}
	var missing []string
	for d, seen := range expected {
		if !seen {
			missing = append(missing, fmt.Sprintf("%s:%d: parser %s, grammar %s", d.File, d.Line, d.Parser, d.Highlighter))
		}
	}
	sort.Strings(missing)
	for _, s := range missing {
		t.Errorf("declared divergence no longer occurs (update Divergences): %s", s)
	}
	t.Logf("%d lines in %d files (%d from the corpus), %d tokens; %d known divergences",
		rep.Lines, len(files), len(corpusFiles), rep.Tokens, len(Divergences))
}

// TestFixturesCoverEveryKind keeps the fixtures honest: between them, the
// project's own files hold every line kind the parser knows, so the grammar
// is checked on each even though the corpus uses only a few.
func TestFixturesCoverEveryKind(t *testing.T) {
	seen := map[grammar.Kind]bool{}
	for _, p := range append(rlogFiles(t, "testdata"), rlogFiles(t, filepath.Join(repoRoot(t), "testdata"))...) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for l := range grammar.Parse(src).Lines() {
			seen[l.Kind] = true
		}
	}
	for k := grammar.Empty; k <= grammar.HeaderLine; k++ {
		if !seen[k] {
			t.Errorf("no fixture line of kind %s", k)
		}
	}
}
