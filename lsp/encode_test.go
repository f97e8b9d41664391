package lsp

import (
	stdjson "encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/internal/jsonnum"
)

// trickyStrings need every kind of escape, or none.
var trickyStrings = []string{
	"", "a", "plain ascii text long enough for the fast path", "Read src/lib.rs",
	`quote " and backslash \ and slash /`, "<b>&amp;</b>", "tab\there\nnewline\rcr",
	"\x00\x01\x1f\x7f", "😀 find the bug 漢字", "é naïve Ünïcödé 🚀 λ", "line\u2028sep\u2029para",
	"\xff", "a\xffb", "\xe2\x86", "\xed\xa0\x80", "\xf0\x9f\x98", "… 12 more not shown", "\u00a0nbsp\ufeff",
}

// randomString mixes the pieces that need escaping with plain text.
func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Z", " ", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", `"`, `\`, "<", ">", "&", "é", "→", "😀",
		"\u2028", "\u2029", "\xff", "\xe2\x86", "\xed\xa0\x80", "plain words here"}
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// assertEncodes checks got against both codecs: byte for byte against
// segmentio's (the server's) and encoding/json's. Only where a string holds
// \b or \f does encoding/json differ (it writes them short since Go 1.22);
// there the two must still decode to the same value.
func assertEncodes(t *testing.T, got []byte, v any, hasBF bool) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("differs from segmentio's json.Marshal\n got: %s\nwant: %s", got, want)
	}
	std, err := stdjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !hasBF && string(got) != string(std) {
		t.Fatalf("differs from encoding/json's json.Marshal\n got: %s\nwant: %s", got, std)
	}
	var a, b any
	if err := stdjson.Unmarshal(got, &a); err != nil {
		t.Fatalf("encoding/json cannot read %s: %v", got, err)
	}
	_ = stdjson.Unmarshal(std, &b)
	if ga, _ := stdjson.Marshal(a); string(ga) != string(must(stdjson.Marshal(b))) {
		t.Fatalf("decodes to %s, encoding/json's own to %s", ga, must(stdjson.Marshal(b)))
	}
}

func must(b []byte, _ error) []byte { return b }

func TestAppendString(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	strs := append([]string{"\b", "back\bspace", "form\ffeed"}, trickyStrings...)
	for range 2000 {
		strs = append(strs, randomString(r))
	}
	for _, s := range strs {
		assertEncodes(t, appendString(nil, s), s, strings.ContainsAny(s, "\b\f"))
	}
}

func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, 2, 26, -3, 2.5, 0.1, 1e20, 1e21, 123456789e15, 1e-6, 1e-7,
		-3e-10, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, float64(math.MaxUint32)} {
		got, err := jsonnum.AppendFloat(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		assertEncodes(t, got, f, false)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := jsonnum.AppendFloat(nil, f); err == nil {
			t.Errorf("%v encoded", f)
		}
	}
}

func TestEncodeFoldingRanges(t *testing.T) {
	assertEncodes(t, EncodeFoldingRanges(nil), []protocol.FoldingRange(nil), false)
	assertEncodes(t, EncodeFoldingRanges([]protocol.FoldingRange{}), []protocol.FoldingRange{}, false)
	r := rand.New(rand.NewPCG(7, 8))
	kinds := []protocol.FoldingRangeKind{"", protocol.RegionFoldingRange, protocol.CommentFoldingRange, protocol.ImportsFoldingRange, "x<y>"}
	small := func() uint32 { return []uint32{0, 0, 1, 9, 4096, math.MaxUint32}[r.IntN(6)] }
	for range 200 {
		folds := make([]protocol.FoldingRange, r.IntN(6))
		for i := range folds {
			folds[i] = protocol.FoldingRange{StartLine: small(), StartCharacter: small(), EndLine: small(), EndCharacter: small(), Kind: kinds[r.IntN(len(kinds))]}
		}
		assertEncodes(t, EncodeFoldingRanges(folds), folds, false)
	}
}

func TestEncodeDocumentSymbols(t *testing.T) {
	for _, syms := range [][]protocol.DocumentSymbol{nil, {}} {
		got, err := EncodeDocumentSymbols(syms)
		if err != nil {
			t.Fatal(err)
		}
		assertEncodes(t, got, syms, false)
	}
	r := rand.New(rand.NewPCG(9, 10))
	name := func() string {
		if r.IntN(2) == 0 {
			return trickyStrings[r.IntN(len(trickyStrings))]
		}
		return strings.NewReplacer("\b", "", "\f", "").Replace(randomString(r))
	}
	pos := func() protocol.Position {
		return protocol.Position{Line: []uint32{0, 7, 717281, math.MaxUint32}[r.IntN(4)], Character: uint32(r.IntN(300))}
	}
	var symbols func(depth int) []protocol.DocumentSymbol
	symbols = func(depth int) []protocol.DocumentSymbol {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return []protocol.DocumentSymbol{}
		}
		out := make([]protocol.DocumentSymbol, 1+r.IntN(3))
		for i := range out {
			s := protocol.DocumentSymbol{Name: name(), Kind: protocol.SymbolKind(r.IntN(27)),
				Range: protocol.Range{Start: pos(), End: pos()}, SelectionRange: protocol.Range{Start: pos(), End: pos()}}
			if r.IntN(2) == 0 {
				s.Detail = name()
			}
			if r.IntN(5) == 0 {
				s.Kind = 2.5
			}
			if r.IntN(4) == 0 {
				s.Tags = []protocol.SymbolTag{protocol.SymbolTagDeprecated, 7}[:r.IntN(3)]
			}
			s.Deprecated = r.IntN(4) == 0
			if depth < 4 {
				s.Children = symbols(depth + 1)
			}
			out[i] = s
		}
		return out
	}
	for range 300 {
		syms := symbols(0)
		got, err := EncodeDocumentSymbols(syms)
		if err != nil {
			t.Fatal(err)
		}
		assertEncodes(t, got, syms, false)
	}
	if _, err := EncodeDocumentSymbols([]protocol.DocumentSymbol{{Kind: protocol.SymbolKind(math.NaN())}}); err == nil {
		t.Error("a NaN kind encoded")
	}
}
