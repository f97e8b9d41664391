package layering

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayers holds every package of the module to ARCHITECTURE.md's parts
// and arrows: the one description of the layers, which this test reads.
func TestLayers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := Parse(doc)
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: %v", err)
	}
	pkgs, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	imports := 0
	for _, p := range pkgs {
		imports += len(p.Imports)
	}
	if len(pkgs) < 40 || imports < 500 || len(table.Diagram) < 8 || len(table.Externals) == 0 {
		t.Fatalf("%d packages with %d imports, %d parts named by the diagram, %d external rows: the walk or the parsing is wrong",
			len(pkgs), imports, len(table.Diagram), len(table.Externals))
	}
	for _, p := range Check(table, "ARCHITECTURE.md", pkgs) {
		t.Error(p)
	}
}

// small is a description in the document's form, for the checker's own
// tests.
const small = "# A module\n\n```\n [app] ──▶ [core]\n```\n\n## Parts and arrows\n\n" +
	"| part | packages | may import | why |\n|---|---|---|---|\n" +
	"| core | `core/...` | — | the language |\n" +
	"| formats | `conv/...` | core, vocab | one per format |\n" +
	"| vocab | `conv/*/records` | — | names only |\n" +
	"| app | `cmd/...` | core, formats | the commands |\n\n" +
	"| import | parts | why |\n|---|---|---|\n" +
	"| `example.com/proto/...` | app | the protocol stays in the app |\n" +
	"| `example.com/proto/grpc/...` | — | no gRPC |\n\n## Next\n\n| not | a | table | here |\n"

func smallPackages() []Package {
	imp := func(p, at string) Import { return Import{Path: p, At: at} }
	return []Package{
		{Dir: "core"},
		{Dir: "core/sub", Imports: []Import{imp("strings", "core/sub/a.go:3")}},
		{Dir: "conv/claude", Imports: []Import{imp(Module+"/core", "conv/claude/r.go:4"), imp(Module+"/conv/claude/records", "conv/claude/r.go:5")}},
		{Dir: "conv/claude/records"},
		{Dir: "cmd/app", Imports: []Import{imp(Module+"/conv/claude", "cmd/app/main.go:6"), imp("example.com/proto/v1", "cmd/app/main.go:7")}},
	}
}

func problems(t *testing.T, doc string, pkgs []Package) []string {
	t.Helper()
	table, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range Check(table, "DOC.md", pkgs) {
		out = append(out, p.String())
	}
	return out
}

// TestCheckerAcceptsTheSmallModule: a module that keeps its description
// has no problem (records are their own part, the closer pattern).
func TestCheckerAcceptsTheSmallModule(t *testing.T) {
	if got := problems(t, small, smallPackages()); len(got) != 0 {
		t.Fatalf("problems in a module that keeps its description:\n%s", strings.Join(got, "\n"))
	}
}

// TestCheckerFindsWhatBreaksTheDescription: each way of leaving the
// description is one problem that says where it is.
func TestCheckerFindsWhatBreaksTheDescription(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func(string) string
		pkgs func([]Package) []Package
		want string
	}{
		{"an undeclared arrow", nil, func(p []Package) []Package {
			p[1].Imports = append(p[1].Imports, Import{Module + "/cmd/app", "core/sub/a.go:4"})
			return p
		}, "core/sub/a.go:4: core/sub imports cmd/app: the arrow core → app is not declared in DOC.md (part core may import nothing)"},
		{"an arrow to the records' part from the formats' own", nil, func(p []Package) []Package {
			p[4].Imports = append(p[4].Imports, Import{Module + "/conv/claude/records", "cmd/app/main.go:8"})
			return p
		}, "cmd/app/main.go:8: cmd/app imports conv/claude/records: the arrow app → vocab is not declared"},
		{"a package in no part", nil, func(p []Package) []Package {
			return append(p, Package{Dir: "tools"})
		}, "tools: package tools belongs to no part of DOC.md's table"},
		{"a package in two parts", func(d string) string {
			d = strings.Replace(d, "| core | `core/...` |", "| core | `core/...`, `core/sub` |", 1)
			return strings.Replace(d, "| app | `cmd/...` |", "| app | `cmd/...`, `core/sub` |", 1)
		}, nil, "core/sub: package core/sub belongs to core and app alike"},
		{"an external import in the wrong part", nil, func(p []Package) []Package {
			p[0].Imports = append(p[0].Imports, Import{"example.com/proto/v2", "core/b.go:9"})
			return p
		}, "core/b.go:9: core imports example.com/proto/v2: example.com/proto/... (DOC.md:18) allows it only in app, not in part core"},
		{"an external import no row names", nil, func(p []Package) []Package {
			p[0].Imports = append(p[0].Imports, Import{"example.org/other", "core/b.go:2"})
			return p
		}, "core/b.go:2: core imports example.org/other, which no row of DOC.md's external imports allows"},
		{"an external import a closer row forbids", nil, func(p []Package) []Package {
			p[4].Imports = append(p[4].Imports, Import{"example.com/proto/grpc/x", "cmd/app/main.go:9"})
			return p
		}, "cmd/app/main.go:9: cmd/app imports example.com/proto/grpc/x: example.com/proto/grpc/... (DOC.md:19) allows it in no part: no gRPC"},
		{"a part without a package", func(d string) string {
			return strings.Replace(d, "| app |", "| extra | `nowhere` | — | gone |\n| app |", 1)
		}, nil, "DOC.md:14: part extra has no package"},
		{"an arrow to no part", func(d string) string {
			return strings.Replace(d, "| core, formats |", "| core, formats, ui |", 1)
		}, nil, "part app may import ui, which is no part of the table"},
		{"the diagram names no part", func(d string) string {
			return strings.Replace(d, "[core]", "[kernel]", 1)
		}, nil, "DOC.md:4: the diagram names [kernel], which is no part of the table"},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, pkgs := small, smallPackages()
			if c.doc != nil {
				doc = c.doc(doc)
			}
			if c.pkgs != nil {
				pkgs = c.pkgs(pkgs)
			}
			got := problems(t, doc, pkgs)
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Fatalf("problems:\n%s\nwant one with %q", strings.Join(got, "\n"), c.want)
			}
		})
	}
}

// TestParseRefusesABrokenTable: a description that cannot be read is an
// error, not an empty description that lets everything pass.
func TestParseRefusesABrokenTable(t *testing.T) {
	for name, doc := range map[string]string{
		"no section":              "# A module\n\n| part | packages | may import | why |\n|---|---|---|---|\n| core | `core` | — | x |\n",
		"a part without packages": "## Parts and arrows\n\n| part | packages | may import | why |\n|---|---|---|---|\n| core | core | — | x |\n",
		"another table":           "## Parts and arrows\n\n| layer | dirs |\n|---|---|\n| core | `core` |\n",
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The patterns mean what the table takes them to mean.
func TestCovers(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"lsp", "lsp", true}, {"lsp", "lsp/rlog", false}, {"lsp/...", "lsp/rlog", true}, {"lsp/...", "lsp", true},
		{"lsp/...", "lspx", false}, {"go.lsp.dev/...", "go.lsp.dev/protocol", true}, {"...", "grammar", true},
		{"convert/*/records", "convert/claude/records", true}, {"convert/*/records", "convert/claude", false},
		{"convert/*/records", "convert/a/b/records", false}, {"convert/*/...", "convert/claude/records", true},
	} {
		if got := covers(c.pattern, c.path); got != c.want {
			t.Errorf("covers(%q, %q) = %v", c.pattern, c.path, got)
		}
	}
}

// TestTheDescriptionRefusesWhatTheLayersForbid: ARCHITECTURE.md's table
// refuses each import the layers have always forbidden; an arrow added to
// the table that opens one of them fails here, naming it.
func TestTheDescriptionRefusesWhatTheLayersForbid(t *testing.T) {
	root, _ := filepath.Abs("../..")
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	own := func(p string) string { return Module + "/" + p }
	forbidden := map[string][]string{
		"grammar":                  {own("analysis"), own("usage"), own("lsp"), own("lsp/rlog"), own("convert"), own("convert/model"), own("report"), own("companion"), "go.lsp.dev/protocol"},
		"usage":                    {own("grammar"), own("analysis"), own("lsp"), own("convert/model"), own("report"), own("internal/jsonscan"), "go.lsp.dev/protocol"},
		"analysis":                 {own("lsp"), own("lsp/rlog"), own("convert"), own("convert/model"), own("report"), own("companion"), "go.lsp.dev/protocol"},
		"report":                   {own("lsp"), own("convert"), own("convert/model"), own("companion"), "go.lsp.dev/protocol"},
		"convert/claude":           {own("lsp"), own("report"), own("companion"), own("convert/otlp"), "go.lsp.dev/protocol", "go.opentelemetry.io/proto/otlp/trace/v1"},
		"convert":                  {own("convert/otlp"), own("companion"), own("lsp"), own("report"), "go.opentelemetry.io/proto/otlp/trace/v1", "google.golang.org/protobuf/proto"},
		"convert/model":            {own("convert/otlp"), own("convert"), "go.opentelemetry.io/proto/otlp/trace/v1", "google.golang.org/protobuf/proto"},
		"convert/otlp":             {own("internal/producers/harness"), "google.golang.org/grpc", "go.opentelemetry.io/proto/otlp/collector/trace/v1"},
		"companion":                {own("lsp"), own("lsp/rlog"), own("report"), "go.lsp.dev/protocol"},
		"lsp":                      {own("grammar"), own("usage"), own("analysis"), own("convert"), own("convert/model"), own("report"), own("lsp/rlog"), own("companion")},
		"lsp/lsptest":              {own("grammar"), own("usage"), own("analysis"), own("convert"), own("report"), own("lsp/rlog"), own("lsp")},
		"internal/difftest":        {own("grammar"), own("usage"), own("analysis"), own("convert"), own("report"), own("lsp"), own("lsp/rlog")},
		"internal/producers/codex": {own("grammar"), own("analysis"), own("lsp"), own("lsp/rlog"), own("report"), own("convert/codex")},
		"lsp/rlog":                 {own("cmd/rlog-ls")},
		"convert/rlogfmt":          {own("cmd/rlog-ls")},
	}
	for from, imps := range forbidden {
		for _, imp := range imps {
			probe := slices.Clone(pkgs)
			i := slices.IndexFunc(probe, func(p Package) bool { return p.Dir == from })
			if i < 0 {
				t.Fatalf("no package %s", from)
			}
			at := from + "/probe.go:1"
			probe[i].Imports = append(slices.Clone(probe[i].Imports), Import{imp, at})
			found := false
			for _, p := range Check(table, "ARCHITECTURE.md", probe) {
				found = found || p.At == at
			}
			if !found {
				t.Errorf("ARCHITECTURE.md's table lets %s import %s", from, imp)
			}
		}
	}
}
