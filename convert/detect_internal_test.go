package convert

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
)

// sampleFiles are the session files of the repository: every fixture of
// convert, the companions and the transcripts the real agent CLIs wrote.
func sampleFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"testdata/fixtures", "../testdata/companions", "../testdata/agents", "../testdata/logs"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if ext := filepath.Ext(p); !d.IsDir() && (ext == ".json" || ext == ".jsonl" || ext == ".rlog") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 50 {
		t.Fatalf("only %d sample files", len(out))
	}
	return out
}

// detections is what detection says of each file.
func detections(t *testing.T, files []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range files {
		f, err := DetectFile(p)
		out[p] = string(f)
		if err != nil {
			out[p] = "error: " + err.Error()
		}
	}
	return out
}

// TestAddingAFormatChangesNoOtherDetection: a format is one entry of the
// table, whose probe judges only its own evidence, so adding one changes
// the detection of no file of another format, wherever the entry stands
// in the table: neither a format with a marker of its own, nor one that
// claims weakly every JSON object it might be (which takes the JSON files
// of no format, as it should).
func TestAddingAFormatChangesNoOtherDetection(t *testing.T) {
	files := sampleFiles(t)
	before := detections(t, files)
	saved := formats
	t.Cleanup(func() { formats = saved })

	toy := FormatInfo{Name: "toy", Description: "toy session JSONL", JSON: true, Names: []string{"*.toy.jsonl"},
		Detect: func(h *Head) model.Evidence {
			if h.Has("toy_version") {
				return model.Certain
			}
			return model.NoEvidence
		}}
	anyObject := FormatInfo{Name: "any-object", Description: "any JSON object", JSON: true,
		Detect: func(h *Head) model.Evidence {
			if len(h.Keys) > 0 {
				return model.Weak
			}
			return model.NoEvidence
		}}
	for _, c := range []struct {
		name  string
		table []FormatInfo
	}{
		{"toy first", append([]FormatInfo{toy}, saved...)},
		{"toy last", append(slices.Clone(saved), toy)},
		{"weak claimant first", append([]FormatInfo{anyObject}, saved...)},
		{"weak claimant last", append(slices.Clone(saved), anyObject)},
	} {
		formats = c.table
		for p, got := range detections(t, files) {
			if got != before[p] && !strings.HasPrefix(before[p], "error: ") {
				t.Errorf("%s: %s was %s, is now %s", c.name, p, before[p], got)
			}
		}
		if strings.HasPrefix(c.name, "toy") {
			// The toy's own input, with other formats' keys beside its
			// marker, is the toy's.
			if got, err := Detect("x.jsonl", []byte(`{"toy_version":1,"type":"user","sessionId":"s","event":"ToolCall"}`)); got != "toy" {
				t.Errorf("%s: the toy's input is %q, %v", c.name, got, err)
			}
		}
	}
}

// TestEveryFileClaimedStrongly: no sample file rests on a weak claim, so
// that a new format that shares a key with one cannot take it.
func TestEveryFileClaimedStrongly(t *testing.T) {
	for _, p := range sampleFiles(t) {
		h, err := ReadHead(p)
		if err != nil {
			t.Fatal(err)
		}
		best := strongest(h)
		if len(best) == 0 {
			continue // not a session (a sub-agent's meta file, a results file): detection says so
		}
		if e := best[0].Detect(h); e < model.Strong {
			t.Errorf("%s: %s's claim is only %s", p, best[0].Name, e)
		}
	}
}
