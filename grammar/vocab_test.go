package grammar

import (
	"os"
	"strings"
	"testing"
)

// The kind table and the classifier agree: a line made of a kind's prefix
// and a typical rest is classified as that kind, and its prefix token is
// the prefix.
func TestKindTableMatchesClassifier(t *testing.T) {
	rest := map[Kind]string{ToolStart: "Read id=a → [running]", ToolProgress: "test id=a [1/2]", Tool: "read id=a → [ok]",
		Skill: "deploy go → [loaded]", Plan: "create → [ok]", Mode: " auto", Subagent: "explore id=b → [started]",
		Mcp: "gh.issues id=c → [1]", Phase: " explore", Lifecycle: "start"}
	seen := map[string]Kind{}
	for k := Empty; k < numKinds; k++ {
		if k.String() == "" || k.String() == "invalid" {
			t.Errorf("kind %d has no name", k)
		}
		p := k.Prefix()
		if p == "" {
			if k.IsBody() && k != Empty && k != Continuation && k != Unknown {
				t.Errorf("%s has no prefix", k)
			}
			continue
		}
		if other, dup := seen[p]; dup {
			t.Errorf("%s and %s share the prefix %q", k, other, p)
		}
		seen[p] = k
		if k.Title() == "" || k.Doc() == "" {
			t.Errorf("%s is not described", k)
		}
		r, ok := rest[k]
		if !ok {
			r = " some text id=x → [ok]"
		}
		line := p + r
		li := ScanLine([]byte(line))
		if li.Kind != k {
			t.Errorf("%q is a %s line, want %s", line, li.Kind, k)
			continue
		}
		toks := Tokenize([]byte(line), &li)
		if toks[0].Kind != TokPrefix || line[toks[0].Span.Start:toks[0].Span.End] != p {
			t.Errorf("%q: first token %+v, want the prefix %q", line, toks[0], p)
		}
	}
}

// Every key is found by its name and by nothing close to it, and its
// value is read with its class.
func TestKeyTable(t *testing.T) {
	for _, k := range Keys() {
		got, ok := KeyNamed(k.String())
		if !ok || got != k {
			t.Errorf("KeyNamed(%q) = %v, %v", k, got, ok)
		}
		for _, near := range []string{k.String() + "s", "x" + k.String(), strings.ToUpper(k.String()), k.String()[:len(k.String())-1]} {
			if _, ok := KeyNamed(near); ok {
				t.Errorf("%q is read as a key", near)
			}
		}
		if k.Doc() == "" {
			t.Errorf("%s has no doc", k)
		}
		// The traits nest: what the rules check is the format's and is
		// metadata to a reader; what is metadata before a call's arrow is
		// metadata at the end of a line too.
		if k.Checked() && (!k.Parsed() || !k.Trailing()) || k.IsUsage() && !k.Checked() || k.CallMeta() && !k.Trailing() {
			t.Errorf("%s: checked %v, usage %v, call metadata %v, trailing %v, parsed %v", k, k.Checked(), k.IsUsage(), k.CallMeta(), k.Trailing(), k.Parsed())
		}
		if k.Parsed() && !k.Trailing() {
			t.Errorf("%s is the format's but not a line's metadata to a reader", k)
		}
		line := []byte("a: " + k.String() + "=1")
		li := ScanLine(line)
		if _, ok := li.Value(line, k); ok != k.Parsed() {
			t.Errorf("%s=1: the scanner reads it: %v, want %v", k, ok, k.Parsed())
		}
	}
	li := ScanLine([]byte("a: x id=ab.c step=12x ts=2025-01-01T00:00:00Z, parent=ab-12g attempt=2/3 tokens_in=5k sig=Ep/4+ model=\"m x\""))
	text := "a: x id=ab.c step=12x ts=2025-01-01T00:00:00Z, parent=ab-12g attempt=2/3 tokens_in=5k sig=Ep/4+ model=\"m x\""
	for k, want := range map[Key]string{KeyID: "ab", KeyStep: "12", KeyTS: "2025-01-01T00:00:00Z,", KeyParent: "ab-12",
		KeyAttempt: "2/3", KeyTokensIn: "5", KeySig: "Ep/4+", KeyModel: "\"m"} {
		v, _ := li.Value([]byte(text), k)
		if string(v) != want {
			t.Errorf("%s=%q, want %q", k, v, want)
		}
	}
}

func TestHeaderFieldTable(t *testing.T) {
	if got := strings.Join(RequiredFields(), ","); got != "format,id,repo_sha" {
		t.Errorf("required fields %s", got)
	}
	for _, f := range FieldSpecs {
		if spec, ok := FieldSpecNamed(f.Name); !ok || spec != f {
			t.Errorf("FieldSpecNamed(%q) = %+v", f.Name, spec)
		}
		if f.Doc == "" {
			t.Errorf("%s has no doc", f.Name)
		}
	}
	if _, ok := FieldSpecNamed("prompt"); ok {
		t.Error("prompt is not a header field of rlog/1")
	}
	for _, v := range Verbs {
		if got, ok := VerbNamed(v.Name); !ok || got.Doc == "" {
			t.Errorf("verb %s: %+v", v.Name, got)
		}
	}
	for _, s := range Statuses {
		if got, ok := StatusNamed(s.Word); !ok || got.Doc == "" || !strings.HasPrefix(s.Word, "[") {
			t.Errorf("status %s: %+v", s.Word, got)
		}
	}
}

// docs/format.md describes the vocabulary: every prefix, key, event,
// status and header field (with its type) is in it, so adding one here
// without documenting it fails.
func TestFormatDocCoversVocabulary(t *testing.T) {
	b, err := os.ReadFile("../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	row := func(cell string) string {
		for _, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "| "+cell+" |") || strings.HasPrefix(l, "| "+cell+",") {
				return l
			}
		}
		return ""
	}
	for k := Empty; k < numKinds; k++ {
		if p := k.Prefix(); p != "" && row("`"+p+"`") == "" {
			t.Errorf("docs/format.md has no row for the prefix %s", p)
		}
	}
	// The Metadata section's tables: the format's keys, the keys writers
	// add on any line (Trailing), the fields of some lines; each in the
	// table's order, with its value as ValueDoc says it.
	var tables [][]Key
	for _, k := range Keys() {
		i := 0
		switch {
		case !k.Parsed() && k.Trailing():
			i = 1
		case !k.Parsed():
			i = 2
		}
		for len(tables) <= i {
			tables = append(tables, nil)
		}
		tables[i] = append(tables[i], k)
	}
	section := doc[strings.Index(doc, "\n## Metadata\n"):]
	section = section[:strings.Index(section, "\n### ")]
	var docTables [][]string
	in := false
	for _, l := range strings.Split(section, "\n") {
		switch {
		case l == "| key | value | what it says |":
			docTables, in = append(docTables, nil), true
		case !strings.HasPrefix(l, "|"):
			in = false
		case in && !strings.HasPrefix(l, "| ---"):
			docTables[len(docTables)-1] = append(docTables[len(docTables)-1], l)
		}
	}
	if len(docTables) != len(tables) {
		t.Fatalf("docs/format.md's Metadata section has %d key tables, want %d", len(docTables), len(tables))
	}
	for i, keys := range tables {
		var got, want []string
		for _, r := range docTables[i] {
			cells := strings.Split(r, " | ")
			if len(cells) < 3 {
				t.Errorf("docs/format.md: key row %q", r)
				continue
			}
			got = append(got, strings.TrimPrefix(cells[0], "| ")+" | "+cells[1])
		}
		for _, k := range keys {
			want = append(want, "`"+k.String()+"` | "+k.ValueDoc())
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("docs/format.md's key table %d:\n%s\nwant (grammar's key table):\n%s", i+1, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for _, v := range Verbs {
		if !strings.Contains(doc, "`@"+v.Name+"`") {
			t.Errorf("docs/format.md does not name the event @%s", v.Name)
		}
	}
	for _, s := range Statuses {
		if row("`"+s.Word+"`") == "" {
			t.Errorf("docs/format.md has no row for the status %s", s.Word)
		}
	}
	types := map[FieldType]string{FieldAny: "any", FieldString: "string", FieldBool: "boolean", FieldCount: "count", FieldList: "list"}
	for _, f := range FieldSpecs {
		r := row("`" + f.Name + "`")
		if r == "" || !strings.HasPrefix(strings.TrimPrefix(r, "| `"+f.Name+"` | "), types[f.Type]+" |") {
			t.Errorf("docs/format.md: the header field %s should be a row of type %s: %q", f.Name, types[f.Type], r)
		}
		if f.Required && !strings.Contains(r, "required") {
			t.Errorf("docs/format.md: %s is required", f.Name)
		}
	}
}
