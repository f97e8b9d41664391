package rlogfmt

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/rlog-ls/rlog-ls/convert/internal/strblock"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// unquoteByEncodingJSON is what unquote did before it used jsonscan.
func unquoteByEncodingJSON(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' {
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return s
		}
		if raw[len(raw)-1] == '"' {
			return raw[1 : len(raw)-1]
		}
		return raw[1:]
	}
	return raw
}

func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"git status"`, `"a\"b"`, `"x\ny"`, `"\u00e9"`, `"a"b"`, `"a\nb"c"`, `"open`, `"`, `plain`, `"tab	in"`, "\"\xff\"", `"\ud800"`, `"x" `, `"\q"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := unquote(raw), unquoteByEncodingJSON(raw); got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json way: %q", raw, got, want)
		}
	})
}

// FuzzRawString holds rawString to json.Unmarshal into a string, which the
// writer used to decode a passed-through rlog line.
func FuzzRawString(f *testing.F) {
	for _, s := range []string{`"t~:Edit id=x [1/2 passed]"`, `null`, ` "a" `, `"a\"b\u00e9\ud800"`, "\"\xff\"", `1`, `{}`, `"open`, ``, ` null `, `nul`, "\u00a0null", "\u0085\"x\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		got, ok := rawString(json.RawMessage(raw))
		if ok != (werr == nil) || ok && got != want {
			t.Fatalf("rawString(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, ok, want, werr)
		}
	})
}

// FuzzIDPrefix: idPrefix's ASCII loop gives what decoding every rune
// gives.
func FuzzIDPrefix(f *testing.F) {
	for _, s := range []string{"", "toolu_01ABC", "abc-def", "a.b", "日本_1", "x\u0301y z", "ab\xffcd", "a1é2-", "_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := idPrefix(s), idPrefixRunes(s); got != want {
			t.Fatalf("idPrefix(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzArgJSON holds appendArgJSON to argValue, the strings it saves.
func FuzzArgJSON(f *testing.F) {
	for _, s := range []string{``, `plain`, `"git status"`, `"a\"b"`, `"x\ny"`, `{"a":1}`, `[1,`, `{x`, `"é"`, "é", `"`, `""`, `"a"b"`, "tab\there", `"open`, "\"\xff\"", `a"b`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, want := appendArgJSON([]byte("x"), []byte(raw)), "x"+string(argValue(raw))
		if string(got) != want {
			t.Fatalf("appendArgJSON(%q) = %s, argValue: %s", raw, got[1:], want[1:])
		}
	})
}

// objectOfFields is the reference for callArgs.object: the arguments set
// one by one on the model's fields (the last value of a name wins, in the
// place of its first), then written as an object.
func objectOfFields(f model.Fields) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, x := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(x.Key))
		b.WriteByte(':')
		b.Write(x.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// FuzzCallArgs holds a call's summary and input, as callArgs builds them
// in the reader's buffers, to the words joined and the model's fields.
// Each line of data is a word, or key=value; key cmd stands for Bash's
// command (an alias).
func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{"a=1\nb=\"x y\"\nword\na=2", "cmd=ls\ncommand=x\ncmd=\"y\"", "k={\"a\":[1]}\n\xff=1\nk\"=2\nk=", ""} {
		f.Add(s)
	}
	var c callArgs
	f.Fuzz(func(t *testing.T, data string) {
		c.reset()
		var words []string
		var fields model.Fields
		for line := range strings.SplitSeq(data, "\n") {
			key, raw, isArg := strings.Cut(line, "=")
			if !isArg {
				c.word([]byte(line))
				words = append(words, line)
				continue
			}
			c.word([]byte(line))
			words = append(words, line)
			name, alias := key, ""
			if key == "cmd" {
				name, alias = "command", "command"
			}
			c.set([]byte(key), alias, []byte(raw))
			fields.Set(name, argValue(raw))
		}
		if got, want := string(c.summary), strings.Join(words, " "); got != want {
			t.Fatalf("summary %q, want %q", got, want)
		}
		if len(fields) == 0 {
			if len(c.args) != 0 {
				t.Fatalf("%d arguments, want none", len(c.args))
			}
			return
		}
		if got, want := string(c.object(func() *strblock.Room { r := strblock.New(16, 8); return &r }())), objectOfFields(fields); got != want {
			t.Fatalf("input %s, want %s", got, want)
		}
	})
}

// FuzzNamesOf holds names.of to string(b) over a run of names read one
// after another, its places overwritten as they go.
func FuzzNamesOf(f *testing.F) {
	for _, s := range []string{"Bash Edit Bash Read Write Bash", "", "a b ab ba", "WebFetch Task WebFetch", "日本 日本 é é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n names
		for _, w := range strings.Split(s, " ") {
			if got := n.of([]byte(w)); got != w {
				t.Fatalf("names.of(%q) = %q", w, got)
			}
		}
	})
}

// TestNamesOfReadAgain: a name read again is the string made the first
// time, not a new one; one longer than maxNameLen is always a new one.
func TestNamesOfReadAgain(t *testing.T) {
	var n names
	first := n.of([]byte("Bash"))
	n.of([]byte("Edit"))
	if again := n.of([]byte("Bash")); unsafe.StringData(again) != unsafe.StringData(first) {
		t.Errorf("Bash read again made a new string")
	}
	// The tools of a Claude Code log, read in turn: each read again is
	// the string made the first time (two names a set chooses alike,
	// as Read and Edit were in one place of sixteen, are both kept).
	tools := strings.Fields("Glob WebFetch TodoWrite Grep mcp__issues__issue_ready Bash Read Edit Write Task github")
	var made []string
	for _, w := range tools {
		made = append(made, n.of([]byte(w)))
	}
	for i, w := range tools {
		if again := n.of([]byte(w)); unsafe.StringData(again) != unsafe.StringData(made[i]) {
			t.Errorf("%s read again made a new string", w)
		}
	}
	// Three names of one set: the two read last are kept, read in any
	// order; the third read makes the oldest way.
	var same []string
	for i := 0; len(same) < 3; i++ {
		if w := "t" + strconv.Itoa(i); nameSet([]byte(w)) == nameSet([]byte("Bash")) {
			same = append(same, w)
		}
	}
	var m names
	a, b := m.of([]byte(same[0])), m.of([]byte(same[1]))
	for range 3 {
		if b2, a2 := m.of([]byte(same[1])), m.of([]byte(same[0])); unsafe.StringData(a2) != unsafe.StringData(a) || unsafe.StringData(b2) != unsafe.StringData(b) {
			t.Fatalf("two names of one set not both kept")
		}
	}
	m.of([]byte(same[2])) // same[1], read before same[0], makes way
	if again := m.of([]byte(same[0])); unsafe.StringData(again) != unsafe.StringData(a) {
		t.Errorf("the name read last made way")
	}
	if again := m.of([]byte(same[1])); unsafe.StringData(again) == unsafe.StringData(b) {
		t.Errorf("a third name of the set kept all three")
	}
	long := []byte(strings.Repeat("x", maxNameLen+1))
	if a, b := n.of(long), n.of(long); unsafe.StringData(a) == unsafe.StringData(b) || a != string(long) {
		t.Errorf("a name longer than maxNameLen was kept")
	}
}
