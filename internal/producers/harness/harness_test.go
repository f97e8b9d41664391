package harness

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/producers/standin"
)

func TestReplaceDir(t *testing.T) {
	root := t.TempDir()
	dest, fresh := filepath.Join(root, "v"), filepath.Join(root, "new")
	os.MkdirAll(dest, 0o755)
	os.WriteFile(filepath.Join(dest, "old.txt"), nil, 0o644)
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "new.txt"), nil, 0o644)
	if err := ReplaceDir(fresh, dest); err != nil {
		t.Fatal(err)
	}
	if !IsFile(filepath.Join(dest, "new.txt")) || IsFile(filepath.Join(dest, "old.txt")) {
		t.Error("dest does not hold exactly the fresh folder")
	}
	if _, err := os.Stat(dest + ".old"); !os.IsNotExist(err) {
		t.Error("the old folder is left behind")
	}
}

func TestVocabularyMismatches(t *testing.T) {
	type recType struct {
		Name     string
		About    string
		Recorded bool
	}
	v := VocabularyOf(map[string][]recType{
		"kind": {{"a", "", true}, {"b", "", true}, {"c", "", false}, {"a", "", true}},
	})
	inv := NewInventory("kind")
	inv.Count("kind", "a")
	inv.Count("kind", "c")
	inv.Count("kind", "d")
	want := []string{
		"kind b is marked Recorded but no fixture has it",
		"kind c is in the fixtures but not marked Recorded",
		"kind a is listed twice",
	}
	got := v.Mismatches(inv)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Mismatches %q, want %q", got, want)
	}
	if u := inv.Unknown(v.Known); !slices.Equal(u, []string{"kind d"}) {
		t.Errorf("Unknown %v", u)
	}
}

// TestInventoryAddKeepsTheOrder: categories stay in the order declared,
// whatever order a map would give.
func TestInventoryAddKeepsTheOrder(t *testing.T) {
	total := NewInventory()
	for range 5 {
		inv := NewInventory("z", "a", "m")
		inv.Count("m", "x")
		total.Add(inv)
	}
	if !slices.Equal(total.Categories, []string{"z", "a", "m"}) || total.Kinds["m"]["x"] != 5 {
		t.Errorf("categories %v, kinds %v", total.Categories, total.Kinds)
	}
}

// TestRecordScenarioChecksFirst: a recording never goes into a folder
// that exists, and a driver's missing CLI is said before anything runs.
func TestRecordScenarioChecksFirst(t *testing.T) {
	dir := t.TempDir()
	var job struct{ Out string }
	job.Out = dir
	if _, err := RecordScenario[struct{}](context.Background(), "none", "s", 1, time.Second, dir, errors.New("no CLI"), &job, &job.Out); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("into an existing folder: %v", err)
	}
	out := filepath.Join(dir, "new")
	if _, err := RecordScenario[struct{}](context.Background(), "none", "s", 1, time.Second, out, errors.New("no CLI"), &job, &job.Out); err == nil || err.Error() != "no CLI" {
		t.Errorf("without the CLI: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was made", out)
	}
}

// TestWriteRequests: a line per exchange in order, the bodies and headers
// under bodies/ when asked, and the unscripted ones' sequence numbers.
func TestWriteRequests(t *testing.T) {
	out := t.TempDir()
	exs := []standin.Exchange{
		{Seq: 1, Body: []byte(`{"a":1}`), Header: http.Header{"X-Agent": {"main"}}},
		{Seq: 2, Body: []byte(`{"b":2}`)},
	}
	unscripted, err := WriteRequests(out, "requests.jsonl", exs, true, true, func(ex standin.Exchange) (any, bool) {
		return map[string]int{"seq": ex.Seq}, ex.Seq == 2
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unscripted, []int{2}) {
		t.Errorf("unscripted %v", unscripted)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "requests.jsonl")); string(got) != "{\"seq\":1}\n{\"seq\":2}\n" {
		t.Errorf("requests.jsonl: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "bodies", "002.json")); string(got) != `{"b":2}` {
		t.Errorf("body 2: %q", got)
	}
	if !IsFile(filepath.Join(out, "bodies", "001.headers.json")) {
		t.Error("no headers beside body 1")
	}
	if err := WriteCCUsage(context.Background(), "", nil, nil, filepath.Join(out, "ccusage.json")); err != nil || IsFile(filepath.Join(out, "ccusage.json")) {
		t.Errorf("without ccusage: %v, or a file written", err)
	}
}

func TestScriptProblems(t *testing.T) {
	if p := ScriptProblems(nil, nil, "requests.jsonl"); p != nil {
		t.Errorf("a script answered in full: %q", p)
	}
	want := []string{"requests no rule answered: [3 5] (see requests.jsonl)", "rules that never answered: a, b"}
	if p := ScriptProblems([]int{3, 5}, []string{"a", "b"}, "requests.jsonl"); !slices.Equal(p, want) {
		t.Errorf("%q", p)
	}
}
