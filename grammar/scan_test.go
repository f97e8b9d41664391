package grammar

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestLineKinds(t *testing.T) {
	cases := []struct {
		line string
		want Kind
		name string // expected Name text, if any
	}{
		// One of each kind (as the reference parser classifies them; docs/format.md).
		{"", Empty, ""},
		{"   \t ", Empty, ""},
		{"  continuation line", Continuation, ""},
		{"\tt!:Read id=x", Continuation, ""},
		{"  u: indented by two is a continuation", Continuation, ""},
		{"u: Hello", User, ""},
		{"u:Hello", User, ""},
		{"a: Looking now.", Agent, ""},
		{" a: one leading space is still an agent line", Agent, ""},
		{"t!:Read id=toolu_1 file_path=src/lib.rs → [running]", ToolStart, "Read"},
		{"t!:mcp__issues__issue_ready id=VSPaNLqJ  → [running]", ToolStart, "mcp__issues__issue_ready"},
		{"t!:mcp__effect-docs__x id=a", ToolStart, "mcp__effect-docs__x"},
		{"t~:test [64/128 passed]", ToolProgress, "test"},
		{"t:read file.txt → [ok]", Tool, "read"},
		{"t:call_1: Bash ls", Tool, "call_1:"},
		{"t: foo", Unknown, ""},
		{"t!: foo", Unknown, ""},
		{"o: id=call_1 → [ok]", Observation, ""},
		{"o:call_1: [output]", Observation, ""},
		{"s:deploy activate → [loaded]", Skill, "deploy"},
		{"s:deploy", Unknown, ""},
		{"s: deploy now", Unknown, ""},
		{"p:create id=p1 \"Plan\" → [ok]", Plan, "create"},
		{"m: auto", Mode, "auto"},
		{"m:", Unknown, ""},
		{"r: \"auth\" → [2 matches]", Recall, ""},
		{"x:explore id=abc123 → [started]", Subagent, "explore"},
		{"x: explore", Unknown, ""},
		{"c:github.issues state=open → [5]", Mcp, "github.issues"},
		{"c:effect-docs.search q=x", Unknown, ""},
		{"c:a-b.c", Unknown, ""},
		{"c:github.", Unknown, ""},
		{"q: \"Which auth?\" → [selected: OAuth]", Question, ""},
		{"# status: Compacting", Comment, ""},
		{"#comment", Comment, ""},
		{"@phase explore", Phase, "explore"},
		{"@phase", Lifecycle, "phase"},
		{"@phasex y", Lifecycle, "phasex"},
		{"@start id=sess_001 ts=2025-12-19T20:29:02Z", Lifecycle, "start"},
		{"@startup", Lifecycle, "startup"},
		{"@endpoint x", Lifecycle, "endpoint"},
		{"@init model=claude-sonnet-4-5-20250929", Lifecycle, "init"},
		{"@ start", Unknown, ""},
		{"th: Let me analyze... sig=Ep4E...", Thinking, ""},
		{"td: [pending] Fix bug [completed] Add test", Todos, ""},
		{"[terminal memory leak crash - continued in claude code cli]", Unknown, ""},
		{"---", Unknown, ""},
		{"u:\u00a0nbsp", User, ""},
		{"t!:Ünïcödé id=1", ToolStart, "Ünïcödé"},
		{"x:探索 id=1", Subagent, "探索"},
	}
	for _, c := range cases {
		li := ScanLine([]byte(c.line))
		if li.Kind != c.want {
			t.Errorf("%q: kind %v, want %v", c.line, li.Kind, c.want)
			continue
		}
		if got := spanText(c.line, li.Name); got != c.name {
			t.Errorf("%q: name %q, want %q", c.line, got, c.name)
		}
	}
}

// spanText is what span sp of line holds, "" when it is not valid.
func spanText(line string, sp Span) string {
	if !sp.Valid() {
		return ""
	}
	return line[sp.Start:sp.End]
}

func TestMetadata(t *testing.T) {
	type kv = map[Key]string
	cases := []struct {
		line   string
		want   kv
		result string
	}{
		{"t:read id=call_42 step=5 ts=2025-12-18T10:30:00Z latency_ms=1234 → [ok]",
			kv{KeyID: "call_42", KeyStep: "5", KeyTS: "2025-12-18T10:30:00Z", KeyLatency: "1234"}, "[ok]"},
		// Word boundaries: tid= is not id=, session-id= is.
		{"a: tid=7 id=real", kv{KeyTID: "7", KeyID: "real"}, ""},
		{"a: session-id=foo", kv{KeyID: "foo"}, ""},
		{"a: uuid=u id_full=\"x\"", kv{}, ""},
		{"a: set id=42", kv{KeyID: "42"}, ""},
		// Ids stop at the first non-word character (reference behaviour).
		{"o: id=toolu_01ABC-def → [ok]", kv{KeyID: "toolu_01ABC"}, "[ok]"},
		{"o: id=\"x\" → [ok]", kv{}, "[ok]"},
		// An empty value is no match; the next occurrence is.
		{"a: id= later id=two", kv{KeyID: "two"}, ""},
		// Offsets are kept whole (deliberate difference: the reference cuts them).
		{"u: hi ts=2025-12-19T20:29:02.123+02:00", kv{KeyTS: "2025-12-19T20:29:02.123+02:00"}, ""},
		{"u: hi ts=yesterday", kv{KeyTS: "yesterday"}, ""},
		{"x: foo", kv{}, ""},
		// The result runs from the first arrow to the end, arrows and pairs included.
		{"o: id=v678oiff → [ok] → Next ready issue:", kv{KeyID: "v678oiff"}, "[ok] → Next ready issue:"},
		{"o: id=toolu_01 → [ok]      1→[workspace]", kv{KeyID: "toolu_01"}, "[ok]      1→[workspace]"},
		{"t!:Read id=a  → [running] tokens_in=2 tokens_out=3 tokens_cached=4",
			kv{KeyID: "a", KeyTokensIn: "2", KeyTokensOut: "3", KeyTokensCached: "4"}, "[running] tokens_in=2 tokens_out=3 tokens_cached=4"},
		{"t:Bash id=call_1 →", kv{KeyID: "call_1"}, ""},
		{"t:read file.txt -> [186 lines]", kv{}, ""},
		{"a: x model=\"claude-sonnet-4-5\" sig=Ep4E... parent=abc-123-def attempt=2/3 level=warn span=t201",
			kv{KeyModel: "\"claude-sonnet-4-5\"", KeySig: "Ep4E...", KeyParent: "abc-123-def", KeyAttempt: "2/3", KeyLevel: "warn", KeySpan: "t201"}, ""},
		{"a: attempt=2/x", kv{KeyAttempt: "2"}, ""},
		{"th: x message_id=\"msg_01\" tokens_cache_create=700", kv{KeyMessageID: "\"msg_01\"", KeyTokensCacheCreate: "700"}, ""},
		{"a: éid=1 id=2", kv{KeyID: "2"}, ""},
		{"# t=00:15:30 step=3", kv{KeyStep: "3"}, ""},
		{"  continuation id=c1", kv{KeyID: "c1"}, ""},
		{"@start id=sess_demo duration=10m", kv{KeyID: "sess_demo"}, ""},
	}
	for _, c := range cases {
		b := []byte(c.line)
		li := ScanLine(b)
		for k := Key(0); k < numParsedKeys; k++ {
			v, ok := li.Value(b, k)
			want, wantOK := c.want[k]
			if ok != wantOK || string(v) != want {
				t.Errorf("%q: %s = %q (%v), want %q (%v)", c.line, k, v, ok, want, wantOK)
			}
		}
		if got := spanText(c.line, li.Result); got != c.result {
			t.Errorf("%q: result %q, want %q", c.line, got, c.result)
		}
	}
}

func TestFlags(t *testing.T) {
	cases := []struct {
		line string
		want Flags
	}{
		{"o: id=a → @blob sha256=abc bytes=10", FlagBlob},
		{"o: id=a → @blobsha256=abc", 0},
		{"a: API_KEY=[redacted:env_var]", FlagRedacted},
		{"a: key [REDACTED] and <REDACTED:8 chars>", FlagLegacyRedact},
		{"t:read src/auth.rs -> [186 lines]", FlagASCIIArrow},
		{"o: id=call_92 -> [ok] 128 tests passed", FlagASCIIArrow},
		{"a: a->b is fine in prose -> here too", 0}, // agent lines take no result
		{"t:read x → [ok] then -> more", 0},
		{"t:read x->y", 0},
		{"---", FlagDelimiter},
		{" --- ", FlagDelimiter},
		{"a: nul\x00byte", FlagNUL},
		{"a: bad \xff utf8", FlagInvalidUTF8},
		{"a: carriage\rreturn", FlagLoneCR},
	}
	for _, c := range cases {
		li := ScanLine([]byte(c.line))
		if li.Flags != c.want {
			t.Errorf("%q: flags %b, want %b", c.line, li.Flags, c.want)
		}
	}
}

func TestHasInterrupted(t *testing.T) {
	for line, want := range map[string]bool{
		"t:Bash id=call_1 interrupted → [error]": true,
		"a: uninterrupted work":                  false,
		"a: interrupted_x then interrupted.":     true,
		"a: nothing":                             false,
	} {
		if got := HasInterrupted([]byte(line)); got != want {
			t.Errorf("%q: %v", line, got)
		}
	}
}

func TestMarkers(t *testing.T) {
	line := []byte("o: id=a → @blob sha256=abc12 bytes=4 @blob  sha256=0123456789abcdef [redacted:api_key] [REDACTED] <REDACTED>")
	blobs := BlobMarkers(line)
	if len(blobs) != 2 || string(line[blobs[0].SHA.Start:blobs[0].SHA.End]) != "abc12" ||
		string(line[blobs[1].SHA.Start:blobs[1].SHA.End]) != "0123456789abcdef" {
		t.Fatalf("blobs %+v", blobs)
	}
	reds := RedactionMarkers(line)
	if len(reds) != 3 || reds[0].Legacy || !reds[1].Legacy || !reds[2].Legacy ||
		string(line[reds[0].Kind.Start:reds[0].Kind.End]) != "api_key" {
		t.Fatalf("redactions %+v", reds)
	}
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		line string
		want string // kind:text, space separated
	}{
		{"t!:Read id=a1 file_path=/x/y.rs → [running] tokens_in=2",
			"prefix:t!: name:Read key:id equals:= value:a1 key:file_path equals:= value:/x/y.rs arrow:→ status:[running] key:tokens_in equals:= value:2"},
		{`t!:Bash id=q1 cmd="git stash push -m "autopilot-session-log" && gi..." → [running]`,
			`prefix:t!: name:Bash key:id equals:= value:q1 key:cmd equals:= string:"git stash push -m "autopilot-session-log" && gi..." arrow:→ status:[running]`},
		{`t!:Write id=toolu_01 → [running] id_full="toolu_019t" input={"content":"a → b \" }","n":[1,2]} ts=2025-12-11T21:43:45.357Z`,
			`prefix:t!: name:Write key:id equals:= value:toolu_01 arrow:→ status:[running] key:id_full equals:= string:"toolu_019t" key:input equals:= json:{"content":"a → b \" }","n":[1,2]} key:ts equals:= value:2025-12-11T21:43:45.357Z`},
		{`a: input={"unbalanced": [1, 2`, `prefix:a: key:input equals:= json:{"unbalanced": [1, 2`},
		{"o: id=x → [ok] done interrupted", "prefix:o: key:id equals:= value:x arrow:→ status:[ok] text:done flag:interrupted"},
		{"# status: Compacting", "prefix:# comment:status: Compacting"},
		{"@phase explore", "prefix:@phase name:explore"},
		{"t:read src/auth.rs -> [186 lines]", "prefix:t: name:read text:src/auth.rs arrow:-> text:[186 lines]"},
		{"a: key=[redacted:api_key] @blob sha256=abcdef", "prefix:a: key:key equals:= marker:[redacted:api_key] marker:@blob sha256=abcdef"},
		{"a: plain [REDACTED] text", "prefix:a: text:plain marker:[REDACTED] text:text"},
		{"u: extra.eval_suite=tb", "prefix:u: key:extra.eval_suite equals:= value:tb"},
	}
	for _, c := range cases {
		b := []byte(c.line)
		li := ScanLine(b)
		var parts []string
		for _, tok := range Tokenize(b, &li) {
			parts = append(parts, tok.Kind.String()+":"+string(b[tok.Span.Start:tok.Span.End]))
		}
		if got := strings.Join(parts, " "); got != c.want {
			t.Errorf("%q:\n got  %s\n want %s", c.line, got, c.want)
		}
	}
}

// tokenPieces make lines with every kind of token, in the shapes that
// stretch the tokenizer: runs of words, unclosed quotes and brackets,
// statuses with and without their ']', markers and near misses.
var tokenPieces = []string{"u: ", "a: ", "t!:Read ", "o: ", "# ", "  ", "x:E ", "@phase p ", "id=c1 ", "k=v ", `q="a b" `, `q="x `, `j={"a":[1]} `,
	"j=[1, ", "→ ", "→ [ok] ", "→ [", "] ", "-> ", "interrupted ", "word ", "漢字 ", "😀", "@blob sha256=abcdef ", "@blob ", "[redacted:key] ",
	"[REDACTED] ", "<REDACTED:x> ", "<REDACTED: ", "\t", " ", "=", `"`, "\xff"}

func randomTokenLine(r *rand.Rand, n int) []byte {
	var b []byte
	for range n {
		b = append(b, tokenPieces[r.IntN(len(tokenPieces))]...)
	}
	return b
}

// The tokens AppendTokensUntil makes are exactly those of the whole line
// that start before stop, and it appends after what dst holds without
// touching it.
func TestTokensUntilStop(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for range 3000 {
		line := randomTokenLine(r, r.IntN(30))
		li := ScanLine(line)
		all := Tokenize(line, &li)
		dst := []Token{{Kind: TokText, Span: Span{0, 1}}} // another line's run of text
		for stop := 0; stop <= len(line)+1; stop++ {
			got := AppendTokensUntil(dst[:1:1], line, &li, stop)[1:]
			before := 0
			for before < len(all) && all[before].Span.Start < stop {
				before++
			}
			// A key's = and value come with it; nothing else past stop.
			if len(got) < before || len(got) > len(all) || !slices.Equal(got, all[:len(got)]) || len(got) > before+2 {
				t.Fatalf("%q stop %d:\n got  %v\n want %v", line, stop, got, all[:before])
			}
		}
		if got := AppendTokens(dst[:1:1], line, &li)[1:]; !slices.Equal(got, all) {
			t.Fatalf("%q: after another line's tokens\n got  %v\n want %v", line, got, all)
		}
	}
}

// TestContentStart: where each kind's content starts (the white space
// after "u:", "th:" and the like passed over, the names' lines at their
// name), as classifyLine finds it.
func TestContentStart(t *testing.T) {
	for _, c := range []struct {
		line    string
		content int
	}{
		{"", 0}, {"   ", 3}, {"---", 0}, {"  cont", 2}, {"\tcont", 1},
		{"u: x", 3}, {"u:  x", 4}, {"u:x", 2}, {"u:\u00a0x", 4}, {"a: x", 3}, {"a:", 2},
		{"o: id=1", 3}, {"q: why", 3}, {"# x", 2}, {"#x", 1},
		{"th: x", 4}, {"th:  x", 5}, {"td:\tx", 4}, {"th:", 3},
		{"t:read x", 2}, {"t!:Bash id=1", 3}, {"t~:Bash [1/2]", 3}, {"s:deploy x", 2},
		{"p:create x", 2}, {"m: auto", 2}, {"r: x", 2}, {"x:explore id=1", 2}, {"c:a.b x", 2},
		{"@phase explore", 7}, {"@phase  explore", 7}, {"@start id=1", 1}, {"@ start", 0},
		{" u: x", 4}, {"z: x", 0},
	} {
		li := ScanLine([]byte(c.line))
		if li.Content != c.content {
			t.Errorf("%q (%v): content at %d, want %d", c.line, li.Kind, li.Content, c.content)
		}
	}
}
