package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rlog-ls/rlog-ls/"

// rule is one layer's limits: the packages under dir (dir itself, or a
// prefix ending in "/...") may not import what forbidden names (project
// paths relative to the module, or any other import path; a trailing
// "/..." covers a whole tree).
type rule struct {
	dir       string
	forbidden []string
	why       string
}

var rules = []rule{
	{"grammar", []string{"analysis", "usage", "lsp/...", "convert/...", "report", "go.lsp.dev/..."},
		"grammar is the language alone: every other layer reads it"},
	{"usage", []string{"grammar", "analysis", "lsp/...", "convert/...", "report", "internal/...", "go.lsp.dev/..."},
		"usage is the one rule for counting tokens, a leaf that analysis and convert/model both read"},
	{"analysis", []string{"lsp/...", "convert/...", "report", "go.lsp.dev/..."},
		"analysis is pure: byte offsets in, findings and facts out, no protocol types"},
	{"report", []string{"lsp/...", "convert/...", "go.lsp.dev/..."},
		"the session view is built from analysis alone, for the CLI and the server alike"},
	{"convert/...", []string{"lsp/...", "report", "go.lsp.dev/..."},
		"conversions run in the CLI without a server"},
	{"convert", []string{"convert/otlp", "go.opentelemetry.io/...", "google.golang.org/protobuf/..."},
		"the conversions know no export: convert/otlp reads sessions through convert, not the other way"},
	{"convert/model", []string{"convert/otlp", "go.opentelemetry.io/...", "google.golang.org/protobuf/..."},
		"the session model knows no export"},
	{"convert/otlp", []string{"internal/producers/...", "google.golang.org/grpc/...", "go.opentelemetry.io/proto/otlp/collector/..."},
		"the OTLP export reads sessions through convert and sends them over plain HTTP: the collector package would link gRPC into the binary"},
	{"sessions", []string{"lsp/...", "go.lsp.dev/..."},
		"the sessions index lists for the CLI and the server alike: the server reads it, not the other way"},
	{"lsp", []string{"grammar", "usage", "analysis", "convert/...", "report", "sessions", "lsp/rlog"},
		"lsp is the server's plumbing and knows nothing of rlog"},
	{"lsp/lsptest", []string{"grammar", "usage", "analysis", "convert/...", "report", "lsp/rlog"},
		"the test client is an editor: it speaks only the protocol"},
	{"internal/difftest", []string{"grammar", "usage", "analysis", "convert/...", "report", "lsp", "lsp/rlog"},
		"the differential harness is black-box: it talks to the server over the stream"},
	{"internal/producers/...", []string{"grammar", "analysis", "lsp/...", "report"},
		"the producer harness drives other programs: it knows their formats, not rlog's"},
	{"...", []string{"cmd/..."}, "commands are leaves"},
}

// TestLayers reads the import lines of every non-test Go file in the
// module and checks them against rules.
func TestLayers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root: %v", err)
	}
	imports := map[string][]string{} // package dir (slash, relative) -> imports
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := filepath.ToSlash(rel)
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			imports[dir] = append(imports[dir], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"grammar", "usage", "analysis", "lsp", "lsp/rlog", "convert", "cmd/rlog-ls"} {
		if _, ok := imports[want]; !ok {
			t.Fatalf("no package %s found under %s: the walk is wrong", want, root)
		}
	}
	checked := 0
	for dir, imps := range imports {
		for _, r := range rules {
			if !covers(r.dir, dir) {
				continue
			}
			for _, imp := range imps {
				name := strings.TrimPrefix(imp, module)
				for _, f := range r.forbidden {
					if covers(f, name) && !(f == "cmd/..." && strings.HasPrefix(dir, "cmd/")) {
						t.Errorf("%s imports %s: %s", dir, imp, r.why)
					}
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no import was checked")
	}
}

// covers reports whether pattern (a path, "X/..." for X and everything
// under it, or "..." for everything) names path.
func covers(pattern, path string) bool {
	if pattern == "..." {
		return true
	}
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == tree || strings.HasPrefix(path, tree+"/")
	}
	return path == pattern
}

// The patterns mean what the rules take them to mean.
func TestCovers(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"lsp", "lsp", true}, {"lsp", "lsp/rlog", false}, {"lsp/...", "lsp/rlog", true},
		{"lsp/...", "lspx", false}, {"go.lsp.dev/...", "go.lsp.dev/protocol", true}, {"...", "grammar", true},
	} {
		if got := covers(c.pattern, c.path); got != c.want {
			t.Errorf("covers(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
}
