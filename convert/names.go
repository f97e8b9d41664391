package convert

import (
	"path/filepath"
	"strings"
)

// formatExtensions are the endings that name a format, longest first, so
// an output name can drop its input's.
var formatExtensions = []string{".trajectory.json", ".replay.jsonl", ".prophet.json", ".atif.jsonl", ".traj.json", ".jsonl", ".json", ".rlog"}

// OutputPath is where a conversion of input to format to goes when no
// output is named: beside the input, named like it with the target
// format's extension (session.rlog -> session.trajectory.json). When that
// is the input's own name, ".converted" goes before the extension.
func OutputPath(input string, to Format) string {
	dir, base := filepath.Split(input)
	stem := base
	lower := strings.ToLower(base)
	for _, ext := range formatExtensions {
		if strings.HasSuffix(lower, ext) && len(base) > len(ext) {
			stem = base[:len(base)-len(ext)]
			break
		}
	}
	fi, _ := Lookup(to)
	out := filepath.Join(dir, stem+fi.Extension)
	if filepath.Clean(out) == filepath.Clean(input) {
		out = filepath.Join(dir, stem+".converted"+fi.Extension)
	}
	return out
}
