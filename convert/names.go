package convert

import (
	"path/filepath"
	"slices"
	"strings"
)

// endings are the name endings OutputPath takes off an input's name
// before putting the target's on: every format's extension and named
// ending, and the plain ones, longest first.
func endings() []string {
	out := []string{".jsonl", ".json", ".rlog"}
	for _, f := range formats {
		if f.Extension != "" {
			out = append(out, f.Extension)
		}
		for _, n := range f.Names {
			if e, ok := strings.CutPrefix(n, "*"); ok && !strings.ContainsAny(e, "*?[") {
				out = append(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// OutputPath is where a conversion of input to format to goes when no
// output is named: beside the input, named like it with the target
// format's extension (session.rlog -> session.atif.json). Every extension
// names its format (.autopilot.json, .claude.jsonl, .converted.rlog, ...),
// so an output never takes the name of a file that belongs with the input:
// the autopilot writes 1609-x.rlog beside 1609-x.json, its lossless
// original, and converting one never targets the other. When the result
// would be the input's own name, ".converted" goes before the extension.
func OutputPath(input string, to Format) string {
	dir, base := filepath.Split(input)
	stem := base
	lower := strings.ToLower(base)
	for _, ext := range endings() {
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
