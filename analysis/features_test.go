package analysis

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

func sampleTree(t *testing.T) (*grammar.Tree, string) {
	t.Helper()
	b, err := os.ReadFile("../testdata/sample.rlog")
	if err != nil {
		t.Fatal(err)
	}
	return grammar.Parse(b), string(b)
}

// at returns the offset of the n-th occurrence of probe plus shift.
func at(t *testing.T, src, probe string, shift int) int {
	t.Helper()
	i := strings.Index(src, probe)
	if i < 0 {
		t.Fatalf("probe %q not found", probe)
	}
	return i + shift
}

func lineOf(src string, off int) int { return strings.Count(src[:off], "\n") }

func TestDefinitionAndReferences(t *testing.T) {
	tr, src := sampleTree(t)
	// From an observation to its t!: line.
	d, ok := Definition(tr, at(t, src, "o: id=v678oiff", 8))
	if !ok || d.Line != lineOf(src, at(t, src, "t!:Read id=v678oiff", 0)) || src[d.Span.Start:d.Span.End] != "v678oiff" {
		t.Fatalf("definition %+v %v", d, ok)
	}
	// From the key itself too, and from a progress line.
	if d2, ok := Definition(tr, at(t, src, "t~:Bash id=Hk3nV8sT", 9)); !ok || d2.Line != lineOf(src, at(t, src, "t!:Bash id=Hk3nV8sT", 0)) {
		t.Fatalf("progress definition %+v", d2)
	}
	// The subagent's x: [started] comes first, but the t!: line starts the call.
	ref, ok := RefAt(tr, at(t, src, "x:Explore id=DZYW3CfJ → [done]", 15))
	if !ok || ref.Name != "DZYW3CfJ" || ref.Kind != CallRef {
		t.Fatalf("ref %+v", ref)
	}
	occ := Occurrences(tr, ref)
	var lines []string
	for _, o := range occ {
		lines = append(lines, fmt.Sprintf("%d%v", o.Line+1, map[bool]string{true: "*", false: ""}[o.Def]))
	}
	if got := strings.Join(lines, " "); got != "27 28* 29 30" {
		t.Fatalf("occurrences %s", got)
	}
	// Not on a symbol.
	if _, ok := RefAt(tr, at(t, src, "u: The checkout", 5)); ok {
		t.Fatal("ref on plain text")
	}
	// An id the reference reads only partly: navigation agrees with the rules.
	tr2 := grammar.Parse([]byte("---\nid: x\n---\nt!:Read id=toolu_01ABC-def\no: id=toolu_01ABC-def → [ok]\n"))
	if d, ok := Definition(tr2, 40); !ok || d.Line != 3 {
		t.Fatalf("hyphenated id: %+v %v", d, ok)
	}
}

func TestMessageNavigation(t *testing.T) {
	src := "---\nid: s\n---\n" +
		"u: question id=91d7a130 id_full=\"91d7a130-d20f-4ca4\" role=\"user\"\n" +
		"th: thinking parent=91d7a130 parent_full=\"91d7a130-d20f-4ca4\" uuid=\"21f548a4-4368\"\n" +
		"a: answer parent=21f548a4 uuid=\"ce9b656e-6c8d\"\n"
	tr := grammar.Parse([]byte(src))
	d, ok := Definition(tr, at(t, src, "parent=21f548a4", 9))
	if !ok || d.Line != 4 {
		t.Fatalf("parent= → uuid line: %+v %v", d, ok)
	}
	d, ok = Definition(tr, at(t, src, "parent=91d7a130", 9))
	if !ok || d.Line != 3 {
		t.Fatalf("parent= → user line: %+v %v", d, ok)
	}
	ref, _ := RefAt(tr, at(t, src, "uuid=\"21f5", 8))
	if occ := Occurrences(tr, ref); len(occ) != 2 {
		t.Fatalf("uuid occurrences %+v", occ)
	}
}

func renderOutline(syms []Symbol, depth int, b *strings.Builder) {
	for _, s := range syms {
		fmt.Fprintf(b, "%s%s (%s) %d\n", strings.Repeat("  ", depth), s.Name, s.Detail, s.Line+1)
		renderOutline(s.Children, depth+1, b)
	}
}

func TestOutline(t *testing.T) {
	tr, src := sampleTree(t)
	var b strings.Builder
	syms := Outline(tr, 0)
	renderOutline(syms, 0, &b)
	want := `3f1c9a2e-demo-4b7e-9d1a-sample000001 (autopilot · claude-sonnet-4-5-20250929 · main) 3
  The checkout page rejects valid discount codes — can you… (user) 18
  explore (phase) 20
    Read src/discount/validate.ts (tool call v678oiff) 23
    Grep toUpperCase (tool call Qm2kLs9d) 25
    Explore Find where codes are stored (subagent) 27
    Task Find where codes are stored (tool call DZYW3CfJ) 28
  fix (phase) 32
    Edit src/discount/validate.ts (tool call Yq7pWc2R) 34
    Bash npm test -- discount (tool call Hk3nV8sT) 36
`
	if b.String() != want {
		t.Fatalf("outline:\n%s\nwant:\n%s", b.String(), want)
	}
	// Every range holds its selection and its children.
	var check func(s Symbol)
	check = func(s Symbol) {
		if s.Selection.Start < s.Span.Start || s.Selection.End > s.Span.End {
			t.Errorf("%s: selection %+v outside %+v", s.Name, s.Selection, s.Span)
		}
		for _, c := range s.Children {
			if c.Span.Start < s.Span.Start || c.Span.End > s.Span.End {
				t.Errorf("%s: child %s outside", s.Name, c.Name)
			}
			check(c)
		}
	}
	check(syms[0])
	// The subagent spans to its [done] line.
	sub := syms[0].Children[1].Children[2]
	if lineOf(src, sub.Span.End) != 28 {
		t.Fatalf("subagent span ends on line %d", lineOf(src, sub.Span.End)+1)
	}
}

func TestOutlineCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\nid: big\n---\n@phase a\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "u: q%d\nt!:Read id=c%d file_path=f%d → [running]\no: id=c%d → [ok]\n", i, i, i, i)
	}
	syms := Outline(grammar.Parse([]byte(b.String())), 100)
	count := 0
	var walk func([]Symbol)
	walk = func(ss []Symbol) {
		for _, s := range ss {
			count++
			walk(s.Children)
		}
	}
	walk(syms[0].Children)
	last := syms[0].Children[len(syms[0].Children)-1]
	if last.Kind != MoreSymbol || last.Name != "… 1901 more not shown" || count != 101 {
		t.Fatalf("cap: %d entries, last %q", count, last.Name)
	}
}

func TestFolds(t *testing.T) {
	tr, _ := sampleTree(t)
	var got []string
	for _, f := range Folds(tr) {
		got = append(got, fmt.Sprintf("%d-%d/%d", f.StartLine+1, f.EndLine+1, f.Kind))
	}
	if s := strings.Join(got, " "); s != "1-14/3 16-42/1 20-30/1 27-29/1 32-42/1" {
		t.Fatalf("folds %s", s)
	}
	src := "---\nid: x\n---\n# a\n# b\n\n# c\na: text\n  more\n\tand more\nu: x\n  single\n"
	got = nil
	for _, f := range Folds(grammar.Parse([]byte(src))) {
		got = append(got, fmt.Sprintf("%d-%d/%d", f.StartLine+1, f.EndLine+1, f.Kind))
	}
	if s := strings.Join(got, " "); s != "1-3/3 4-5/2 8-10/1 11-12/1" {
		t.Fatalf("folds %s", s)
	}
}

func TestHover(t *testing.T) {
	tr, src := sampleTree(t)
	cases := []struct {
		probe    string
		shift    int
		span     string
		contains []string
	}{
		{"o: id=v678oiff", 8, "id=v678oiff", []string{"**Call `v678oiff`**", "`t!:Read` src/discount/validate.ts, started on line 23", "completed on line 24"}},
		{"t!:Read", 1, "t!:", []string{"tool start"}},
		{"repo_sha: 4f", 2, "repo_sha", []string{"The commit the session ran on", "`4f2a9c1e`"}},
		{"tokens_total_in: 1840", 3, "tokens_total_in", []string{"The lines add up to 1,840"}},
		{"ts=2025-12-19T20:31:40Z", 5, "ts=2025-12-19T20:31:40Z", []string{"Fri 19 Dec 2025 20:31:40.000 UTC", "+2m38s after `@start` (line 16)"}},
		{"tokens_in=610", 4, "tokens_in=610", []string{"| input | 610 | 1,840 |"}},
		{"→ [running] tokens_in=518", 1, "→", []string{"`[running]`", "completed on line 35"}},
		{"@phase fix", 8, "fix", []string{"Phase `fix`", "2 tool calls"}},
		{"x:Explore", 4, "Explore", []string{"Subagent `Explore`"}},
		{"@end", 2, "end", []string{"ended cleanly"}},
	}
	for _, c := range cases {
		h, ok := Hover(tr, at(t, src, c.probe, c.shift))
		if !ok {
			t.Errorf("%q: no hover", c.probe)
			continue
		}
		if got := src[h.Span.Start:h.Span.End]; got != c.span {
			t.Errorf("%q: span %q, want %q", c.probe, got, c.span)
		}
		for _, s := range c.contains {
			if !strings.Contains(h.Markdown, s) {
				t.Errorf("%q: hover lacks %q:\n%s", c.probe, s, h.Markdown)
			}
		}
	}
	if _, ok := Hover(tr, at(t, src, "\n\n@phase fix", 1)); ok {
		t.Error("hover on an empty line")
	}
	// Hover over a redaction and a blob marker, with multi-byte text before them.
	tr2 := grammar.Parse([]byte("---\nid: x\n---\na: 😀 key=[redacted:api_key] @blob sha256=abcdef\n"))
	if h, ok := Hover(tr2, 30); !ok || !strings.Contains(h.Markdown, "api_key") {
		t.Errorf("redaction hover %+v", h)
	}
	if h, ok := Hover(tr2, 52); !ok || !strings.Contains(h.Markdown, "Blob reference") {
		t.Errorf("blob hover %+v", h)
	}
	// Every status of the vocabulary says what it means.
	for _, st := range grammar.Statuses {
		doc := "---\nid: x\n---\no: id=a → " + st.Word + " text\n"
		if h, ok := Hover(grammar.Parse([]byte(doc)), strings.Index(doc, "→")+5); !ok || !strings.Contains(h.Markdown, st.Doc) {
			t.Errorf("hover on %s: %+v", st.Word, h)
		}
	}
	// Every lifecycle event H001 accepts has a hover of its own (@phase
	// alone is one), and every key the parser reads explains itself.
	for _, v := range grammar.Verbs {
		src := "---\nid: x\n---\n@" + v.Name + "\n"
		if h, ok := Hover(grammar.Parse([]byte(src)), len("---\nid: x\n---\n@")); !ok || strings.Contains(h.Markdown, "not a known") || !strings.Contains(h.Markdown, v.Doc) {
			t.Errorf("@%s: hover %q", v.Name, h.Markdown)
		}
	}
	for _, k := range grammar.Keys() {
		if !k.Parsed() {
			continue // a writer's key: text to the format
		}
		src := "---\nid: x\n---\n# " + k.String() + "=5\n"
		if h, ok := Hover(grammar.Parse([]byte(src)), len(src)-4); !ok || h.Markdown == "" {
			t.Errorf("%s=: hover %q", k, h.Markdown)
		}
	}
}

// FoldsUpTo must be exactly the first limit entries of the full list,
// however early it stops reading.
func TestFoldsUpToEqualsPrefixOfFolds(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(8, 400))
	docs := [][]byte{generatedSession(t, 60<<10, 5), generatedSession(t, 20<<10, 9)}
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"@phase p\n", "@start\n", "@end\n", "# c\n", "  cont\n", "  cont\n", "x:E id=s → [started]\n", "x:E id=s → [done]\n", "a: x\n", "\n", "@phase q\n  cont\n"}
	for range 200 {
		var b strings.Builder
		b.WriteString("---\nid: x\n---\n")
		for range 200 {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		docs = append(docs, []byte(b.String()))
	}
	for di, src := range docs {
		tr := grammar.Parse(src)
		all := Folds(tr)
		for _, limit := range []int{0, 1, 2, 3, 5, 10, 50, 200, len(all) - 1, len(all), len(all) + 5} {
			if limit < 0 {
				continue
			}
			want := all[:min(limit, len(all))]
			if got := FoldsUpTo(tr, limit); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("doc %d limit %d:\n got  %v\n want %v", di, limit, got, want)
			}
		}
	}
}

func TestRunningUsageEqualsCountFromStart(t *testing.T) {
	t.Cleanup(grammar.SetChunkLimitsForTest(5, 300))
	var b strings.Builder
	b.WriteString(okHeader)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range 400 {
		switch r.IntN(5) {
		case 0:
			fmt.Fprintf(&b, "a: x message_id=\"m%d\" tokens_in=%d tokens_out=2\n", r.IntN(40), i)
		case 1:
			b.WriteString("t!:R id=a → [running] tokens_in=5 tokens_out=5\n")
		case 2:
			fmt.Fprintf(&b, "th: y tokens_in=%d tokens_out=1 tokens_cached=3\n", r.IntN(3))
		case 3:
			b.WriteString("@end tokens_in=999 tokens_out=999\n")
		default:
			b.WriteString("u: no usage\n")
		}
	}
	tr := grammar.Parse([]byte(b.String()))
	var naive UsageCounter
	for u := range tr.Usage() {
		want := naive.Add(tr, u)
		c, mine, got := runningUsage(tr, u.Line)
		if c.Total() != naive.Total() || c.Messages() != naive.Messages() || got != want || mine != u {
			t.Fatalf("line %d: running %+v %d (%+v), from the start %+v %d (%+v)", u.Line+1, c.Total(), c.Messages(), got,
				naive.Total(), naive.Messages(), want)
		}
	}
}

func TestStatusModifiers(t *testing.T) {
	src := "---\nid: x\n---\no: id=a → [ok] fine\no: id=b → [error] boom interrupted\nt!:R id=c → [running]\nx:E id=d → [done]\no: id=e → [selected: x]\n" +
		"o: id=f → [denied] no\no: id=g → [interrupted]\n"
	tr := grammar.Parse([]byte(src))
	got := map[string]SemanticModifier{}
	for tok := range SemanticTokens(tr, 0, tr.Len()) {
		if tok.Type == SemEnumMember || tok.Type == SemKeyword && tok.Mods != 0 {
			got[src[tok.Span.Start:tok.Span.End]] = tok.Mods
		}
	}
	want := map[string]SemanticModifier{"[ok]": ModSuccess, "[error]": ModFailure, "interrupted": ModFailure,
		"[running]": ModPending, "[done]": ModSuccess, "[selected: x]": 0, "[denied]": ModFailure, "[interrupted]": ModFailure}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

// Hover and RefAt read a line's tokens only up to the offset asked about;
// they answer as when every token of the line is read, at every offset of
// lines with every kind of token.
func TestHoverReadsTokensUpToTheOffset(t *testing.T) {
	tr, _ := sampleTree(t)
	docs := []*grammar.Tree{tr}
	r := rand.New(rand.NewPCG(31, 32))
	pieces := []string{"u: ", "t!:Read ", "o: ", "x:E ", "# ", "id=c1 ", "parent=abcdef12 ", "uuid=\"abcdef12-3\" ", "id_full=x ", "k=v ", `q="a b" `,
		"ts=2025-12-19T20:29:02Z ", "→ ", "→ [ok] ", "→ [running] ", "-> ", "interrupted ", "word ", "😀", "@blob sha256=abcdef ", "[redacted:key] ",
		"<REDACTED:x> ", "tokens_in=5 ", "step=2 ", "input={\"a\":1} ", "summary=\"s\" ", "\t", " "}
	for range 40 {
		var b strings.Builder
		b.WriteString("---\nid: s\n---\nt!:Read id=c1 → [running]\no: id=c1 → [ok]\nu: hi id=abcdef12\n")
		for range 8 {
			for range r.IntN(12) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			b.WriteString("\n")
		}
		docs = append(docs, grammar.Parse([]byte(b.String())))
	}
	for _, tr := range docs {
		for off := 0; off <= tr.Len(); off++ {
			got, gotOK := Hover(tr, off)
			want, wantOK := hover(tr, off, true)
			if gotOK != wantOK || got != want {
				t.Fatalf("offset %d of %q: Hover %v %+v, reading the whole line %v %+v", off, tr.Bytes(), gotOK, got, wantOK, want)
			}
			ref, refOK := RefAt(tr, off)
			wantRef, wantRefOK := refAt(tr, off, true)
			if refOK != wantRefOK || ref != wantRef {
				t.Fatalf("offset %d of %q: RefAt %v %+v, reading the whole line %v %+v", off, tr.Bytes(), refOK, ref, wantRefOK, wantRef)
			}
		}
	}
}
