package secretrules

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// findWhole is Find without windows: every rule over the whole text, as
// gitleaks runs it. Find must find all it finds.
func findWhole(text []byte) []Finding {
	c := load()
	raw := string(text)
	found := c.keywords.present([]byte(strings.ToLower(raw)), nil)
	lines := newlines(raw)
	var out []Finding
	for i := range c.rules {
		r := &c.rules[i]
		if r.re != nil && c.keywordPresent(r, found) {
			out = c.appendMatches(out, r, raw, 0, len(raw), lines)
		}
	}
	return out
}

func checkFindCoversWhole(t *testing.T, name string, text []byte) int {
	t.Helper()
	got := map[string]bool{}
	for _, f := range Find(text) {
		got[fmt.Sprint(f)] = true
	}
	want := findWhole(text)
	for _, f := range want {
		if !got[fmt.Sprint(f)] {
			t.Errorf("%s: Find misses %+v (%q)", name, f, text[f.MatchStart:f.MatchEnd])
		}
	}
	return len(want)
}

var findSeeds = []string{
	"api_key = \"Zx9vQ2mL7pR4tY8uK3\"\npassword:\n  Zx9vQ2mL7pR4tY8uK3\n",
	"token\n= Zx9vQ2mL7pR4tY8uK3;\n",
	`{"access_token":"Zx9vQ2mL7pR4tY8uK3wq","x":1}`,
	"NEW_RELIC_KEY=NRAK-ABCDEFGHIJKLMNOPQRSTUVWXYZ1",
	"secret ?= Zx9vQ2mL7pR4tY8uK3 || creds := abcd1234EFGH5678ij",
}

// Find's windows around separators hold every match of the assignment
// rules: it finds what running every rule over the whole text finds, on
// the planted corpus, the fixtures and the seeds.
func TestFindCoversWholeText(t *testing.T) {
	n := 0
	for _, s := range findSeeds {
		n += checkFindCoversWhole(t, "seed", []byte(s))
	}
	err := filepath.WalkDir("../../testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n += checkFindCoversWhole(t, p, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 217 {
		t.Errorf("only %d findings compared", n)
	}
}

func FuzzFindCoversWholeText(f *testing.F) {
	for _, s := range findSeeds {
		f.Add([]byte(s))
	}
	planted, _ := os.ReadFile(PlantedCorpus)
	for _, line := range bytes.Split(planted, []byte("\n")) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkFindCoversWhole(t, "fuzz", text) })
}

// A finding in decoded text is reported at the encoded text that holds
// it, through every depth of decoding, whatever was decoded before it.
func TestFindDecoded(t *testing.T) {
	token := "ghp_" + strings.Repeat("aB3dE6gH9k", 3) + "Lm2Np4"
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	once := b64("GITHUB_TOKEN=" + token)
	twice := b64("export X=" + once + " ;")
	other := hex.EncodeToString([]byte("just some printable text here"))
	text := "a %41%42 " + other + " b " + once + " c\n" + other + " d " + twice + " e\n"
	got := FindDecoded([]byte(text))
	var spans []string
	for _, f := range got {
		spans = append(spans, text[f.Start:f.End])
	}
	if len(got) != 2 || spans[0] != once || spans[1] != twice {
		t.Errorf("got %+v: %q", got, spans)
	}
	if fs := Find([]byte(text)); len(fs) != 0 {
		t.Errorf("found without decoding: %+v", fs)
	}
}
