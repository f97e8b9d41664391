package tmtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// tmRule is the part of a TextMate rule these tests read.
type tmRule struct {
	Begin    string                           `json:"begin"`
	Match    string                           `json:"match"`
	Patterns []tmRule                         `json:"patterns"`
	Include  string                           `json:"include"`
	Captures map[string]struct{ Name string } `json:"captures"`
}

func tmRepository(t *testing.T) map[string]tmRule {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "grammar", "rlog.tmLanguage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ Repository map[string]tmRule }
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g.Repository
}

// The TextMate grammar's line rules are grammar's kinds, tried in the
// kinds' order, each capturing its kind's prefix; no node needed. (The
// agreement test above holds what they match to the parser, line by line.)
func TestTextMateLineRulesFollowKindTable(t *testing.T) {
	repo := tmRepository(t)
	var want []string
	for k := grammar.Empty; k.IsBody(); k++ {
		rule := "line-" + strings.ReplaceAll(k.String(), "_", "-")
		want = append(want, "#"+rule)
		r, ok := repo[rule]
		if !ok {
			t.Errorf("the TextMate grammar has no rule %s for the %s lines", rule, k)
			continue
		}
		if p := k.Prefix(); p != "" && !strings.Contains(r.Begin+r.Match, "("+p+")") {
			t.Errorf("%s: %q does not capture the prefix %q", rule, r.Begin+r.Match, p)
		}
	}
	var got []string
	for _, p := range repo["body"].Patterns {
		got = append(got, p.Include)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the TextMate grammar tries the line rules %v, want grammar's kinds in order %v", got, want)
	}
}

// The keys the TextMate grammar colours by name are grammar's: ts= as a
// timestamp, and as ids the keys whose value names a call, message, thread
// or span (grammar.Key.IsRef), which semantic tokens colour the same way.
func TestTextMateKeysFollowKeyTable(t *testing.T) {
	// Where the two differ, and why: id_full= and parent_full= are written
	// as JSON strings, which the grammar colours as strings (its id
	// patterns read bare values); orphan_id= ends in _id, which the grammar
	// colours as an id, as it does any *_id key, though the call it names
	// is not in the log.
	notColoured := []grammar.Key{grammar.KeyIDFull, grammar.KeyParentFull}
	colouredToo := []grammar.Key{grammar.KeyOrphanID}

	pair := tmRepository(t)["pair"]
	keyPattern := regexp.MustCompile(`^\(\?:\(\?<!\\S\)\|\\G\)\((.*?)\)\(=\)`)
	var idKeys []*regexp.Regexp
	timestamps := 0
	for _, p := range pair.Patterns {
		m := keyPattern.FindStringSubmatch(p.Match)
		if m == nil {
			continue
		}
		names := regexp.MustCompile(`^(?:` + m[1] + `)$`)
		switch p.Captures["3"].Name {
		case "variable.other.constant.id.rlog":
			idKeys = append(idKeys, names)
		case "constant.numeric.timestamp.rlog":
			timestamps++
			if !names.MatchString(grammar.KeyTS.String()) || grammar.KeyTS.ValueDoc() != "a timestamp" {
				t.Errorf("the TextMate grammar colours %q as a timestamp, grammar's timestamp key is %s", m[1], grammar.KeyTS)
			}
		}
	}
	if len(idKeys) == 0 || timestamps != 1 {
		t.Fatalf("found %d id patterns and %d timestamp patterns in the TextMate grammar's pair rule", len(idKeys), timestamps)
	}
	for _, k := range grammar.Keys() {
		coloured := slices.ContainsFunc(idKeys, func(re *regexp.Regexp) bool { return re.MatchString(k.String()) })
		want := k.IsRef()
		if slices.Contains(notColoured, k) || slices.Contains(colouredToo, k) {
			want = !want
		}
		if coloured != want {
			t.Errorf("%s=: the TextMate grammar colours it as an id: %v, want %v (grammar.Key.IsRef %v)", k, coloured, want, k.IsRef())
		}
	}
}

// The TextMate grammar colours every status of the vocabulary as its
// class says: a success as ok, a failure ([error], [denied],
// [interrupted]) as an error, a pending one as running.
func TestTextMateStatusesFollowStatusTable(t *testing.T) {
	scopes := map[grammar.StatusClass]string{
		grammar.StatusSuccess: "markup.inserted.status.ok.rlog",
		grammar.StatusFailure: "markup.deleted.status.error.rlog",
		grammar.StatusPending: "markup.changed.status.running.rlog",
		grammar.StatusOther:   "constant.language.status.rlog",
	}
	patterns := tmRepository(t)["status"].Patterns
	for _, s := range grammar.Statuses {
		got := ""
		for _, p := range patterns {
			// Go's regexp has no look-ahead: the catch-all's
			// (?!redacted:) matters to no status word.
			m := strings.ReplaceAll(strings.ReplaceAll(p.Match, `\G`, `^`), `(?!redacted:)`, "")
			re, err := regexp.Compile(m)
			if err != nil {
				t.Fatalf("%q: %v", p.Match, err)
			}
			if re.MatchString(s.Word) {
				got = p.Captures["1"].Name
				break
			}
		}
		if got != scopes[s.Class] {
			t.Errorf("the TextMate grammar colours %s as %q, want %q", s.Word, got, scopes[s.Class])
		}
		if s.Class == grammar.StatusFailure && !grammar.StatusFails([]byte(strings.Trim(s.Word, "[]"))) {
			t.Errorf("%s is a failure the readers do not count as one (grammar.StatusFails)", s.Word)
		}
	}
}
