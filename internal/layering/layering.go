package layering

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Table is the description of the parts and arrows, as ARCHITECTURE.md's
// "Parts and arrows" section gives it.
type Table struct {
	Parts []Part
	// Externals are the rows of the external imports' table.
	Externals []External
	// Diagram are the names the bird's-eye diagram writes in brackets
	// ([analysis]), with their 1-based lines in the document.
	Diagram []Named
}

// Part is one row of the parts' table: its name, the package patterns it
// holds (a path relative to the module; "X/..." is X and everything under
// it; a "*" stands for one path element), the parts it may import, and
// why. Line is the row's line in the document.
type Part struct {
	Name     string
	Packages []string
	MayUse   []string
	Why      string
	Line     int
}

// External is one row of the external imports' table: an import path
// pattern and the parts that may import what it covers ("—": none).
type External struct {
	Pattern string
	Parts   []string
	Why     string
	Line    int
}

// Named is a name written somewhere in the document.
type Named struct {
	Name string
	Line int
}

// Package is one package of the module: its folder relative to the module
// root (slash-separated) and the imports of its non-test files.
type Package struct {
	Dir     string
	Imports []Import
}

// Import is one import of a file: the path imported and where (file:line,
// relative to the module root).
type Import struct {
	Path, At string
}

// The tables' header rows, by which Parse finds them.
var (
	partsHeader     = []string{"part", "packages", "may import", "why"}
	externalsHeader = []string{"import", "parts", "why"}
)

var (
	codeSpan    = regexp.MustCompile("`([^`]+)`")
	bracketName = regexp.MustCompile(`\[([a-z][a-z0-9/-]*)\]`)
)

// Parse reads the description from doc, ARCHITECTURE.md's text: the
// tables under "## Parts and arrows" and the names in brackets of the
// first code block (the bird's-eye diagram).
func Parse(doc []byte) (*Table, error) {
	t := &Table{}
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(nil, 1<<20)
	n := 0
	inSection, inCode, diagramDone := false, false, false
	var header []string
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			if inCode {
				diagramDone = true
			}
			inCode = !inCode
			continue
		}
		if inCode {
			if !diagramDone {
				for _, m := range bracketName.FindAllStringSubmatch(line, -1) {
					t.Diagram = append(t.Diagram, Named{m[1], n})
				}
			}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			inSection = strings.TrimSpace(line[3:]) == "Parts and arrows"
			header = nil
			continue
		}
		if !inSection {
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			header = nil
			continue
		}
		cells := splitRow(line)
		switch {
		case header == nil:
			header = lower(cells)
			if !slices.Equal(header, partsHeader) && !slices.Equal(header, externalsHeader) {
				return nil, fmt.Errorf("line %d: a table whose header is neither %q nor %q", n, partsHeader, externalsHeader)
			}
		case isRule(cells):
		case slices.Equal(header, partsHeader):
			p := Part{Name: plain(cells[0]), Packages: codeSpans(cells[1]), MayUse: names(cells[2]), Why: cells[3], Line: n}
			if p.Name == "" || len(p.Packages) == 0 {
				return nil, fmt.Errorf("line %d: a part needs a name and its packages (in backticks)", n)
			}
			t.Parts = append(t.Parts, p)
		default:
			pats := codeSpans(cells[0])
			if len(pats) != 1 {
				return nil, fmt.Errorf("line %d: an external import row names one import pattern, in backticks", n)
			}
			t.Externals = append(t.Externals, External{Pattern: pats[0], Parts: names(cells[1]), Why: cells[2], Line: n})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.Parts) == 0 {
		return nil, fmt.Errorf("no table of parts (a header %q) under \"## Parts and arrows\"", partsHeader)
	}
	return t, nil
}

// splitRow splits a table row into its cells, trimmed.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func lower(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ToLower(c)
	}
	return out
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// plain is a cell without its markup.
func plain(cell string) string { return strings.Trim(cell, "*` ") }

func codeSpans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// names are a cell's comma-separated part names; "—" or "" is none.
func names(cell string) []string {
	var out []string
	for _, f := range strings.Split(cell, ",") {
		if f = plain(f); f != "" && f != "—" && f != "-" {
			out = append(out, f)
		}
	}
	return out
}

// Problem is one way the module and its description disagree, with where.
type Problem struct {
	At, Message string
}

func (p Problem) String() string { return p.At + ": " + p.Message }

// Check holds the module's packages to the description: every package in
// exactly one part (the part whose pattern names it most closely), every
// part with a package, every arrow to a part of the table, every import
// between parts a declared arrow, every import from outside the module
// and its standard library allowed by the external imports' table, and
// the diagram naming only parts. doc names the description's file in the
// problems.
func Check(t *Table, doc string, pkgs []Package) []Problem {
	var probs []Problem
	add := func(at, format string, args ...any) {
		probs = append(probs, Problem{at, fmt.Sprintf(format, args...)})
	}
	byName := map[string]*Part{}
	for i := range t.Parts {
		p := &t.Parts[i]
		if _, dup := byName[p.Name]; dup {
			add(fmt.Sprintf("%s:%d", doc, p.Line), "part %s is in the table twice", p.Name)
		}
		byName[p.Name] = p
	}
	for _, p := range t.Parts {
		for _, u := range p.MayUse {
			if byName[u] == nil {
				add(fmt.Sprintf("%s:%d", doc, p.Line), "part %s may import %s, which is no part of the table", p.Name, u)
			}
		}
	}
	for _, e := range t.Externals {
		for _, u := range e.Parts {
			if byName[u] == nil {
				add(fmt.Sprintf("%s:%d", doc, e.Line), "%s may be imported by %s, which is no part of the table", e.Pattern, u)
			}
		}
	}
	for _, d := range t.Diagram {
		if byName[d.Name] == nil {
			add(fmt.Sprintf("%s:%d", doc, d.Line), "the diagram names [%s], which is no part of the table", d.Name)
		}
	}
	partOf := map[string]string{} // package dir -> part
	used := map[string]bool{}
	for _, pkg := range pkgs {
		part, ties := t.partOf(pkg.Dir)
		switch {
		case part == "":
			add(pkg.Dir, "package %s belongs to no part of %s's table: add it to a part's packages", pkg.Dir, doc)
		case len(ties) > 1:
			add(pkg.Dir, "package %s belongs to %s alike: a package is in one part", pkg.Dir, strings.Join(ties, " and "))
		}
		partOf[pkg.Dir], used[part] = part, true
	}
	for _, p := range t.Parts {
		if !used[p.Name] {
			add(fmt.Sprintf("%s:%d", doc, p.Line), "part %s has no package: %s names none", p.Name, strings.Join(p.Packages, ", "))
		}
	}
	for _, pkg := range pkgs {
		from := partOf[pkg.Dir]
		if from == "" {
			continue
		}
		for _, imp := range pkg.Imports {
			if dir, ok := strings.CutPrefix(imp.Path, Module+"/"); ok || imp.Path == Module {
				to, _ := t.partOf(dir)
				switch {
				case to == "":
					add(imp.At, "%s imports %s, which belongs to no part", pkg.Dir, dir)
				case to != from && !slices.Contains(byName[from].MayUse, to):
					add(imp.At, "%s imports %s: the arrow %s → %s is not declared in %s (part %s may import %s)",
						pkg.Dir, dir, from, to, doc, from, orNothing(byName[from].MayUse))
				}
				continue
			}
			if isStd(imp.Path) {
				continue
			}
			e := t.externalOf(imp.Path)
			switch {
			case e == nil:
				add(imp.At, "%s imports %s, which no row of %s's external imports allows", pkg.Dir, imp.Path, doc)
			case len(e.Parts) == 0:
				add(imp.At, "%s imports %s: %s (%s:%d) allows it in no part: %s", pkg.Dir, imp.Path, e.Pattern, doc, e.Line, e.Why)
			case !slices.Contains(e.Parts, from):
				add(imp.At, "%s imports %s: %s (%s:%d) allows it only in %s, not in part %s: %s",
					pkg.Dir, imp.Path, e.Pattern, doc, e.Line, orNothing(e.Parts), from, e.Why)
			}
		}
	}
	return probs
}

// Module is the module's path.
const Module = "github.com/rlog-ls/rlog-ls"

func orNothing(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, ", ")
}

// partOf is the part whose pattern names dir most closely (see
// closeness), and every part with a pattern as close.
func (t *Table) partOf(dir string) (string, []string) {
	best, bestLen := "", -1
	var ties []string
	for _, p := range t.Parts {
		for _, pat := range p.Packages {
			if !covers(pat, dir) {
				continue
			}
			switch n := closeness(pat); {
			case n > bestLen:
				best, bestLen, ties = p.Name, n, []string{p.Name}
			case n == bestLen && p.Name != best:
				ties = append(ties, p.Name)
			}
		}
	}
	return best, ties
}

// closeness ranks the patterns that cover a path: the longer the path
// they name, the closer; a pattern for one path ("convert") before the
// tree of the same path ("convert/...").
func closeness(pattern string) int {
	tree, isTree := strings.CutSuffix(pattern, "/...")
	if isTree || pattern == "..." {
		return 2 * len(tree)
	}
	return 2*len(pattern) + 1
}

// externalOf is the row whose pattern covers path most closely.
func (t *Table) externalOf(imp string) *External {
	var best *External
	for i := range t.Externals {
		e := &t.Externals[i]
		if covers(e.Pattern, imp) && (best == nil || closeness(e.Pattern) > closeness(best.Pattern)) {
			best = e
		}
	}
	return best
}

// covers reports whether pattern (a path, "X/..." for X and everything
// under it, "..." for everything; "*" stands for one element) names p.
func covers(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		n := strings.Count(tree, "/") + 1
		parts := strings.SplitN(p, "/", n+1)
		if len(parts) < n {
			return false
		}
		ok, _ := path.Match(tree, strings.Join(parts[:n], "/"))
		return ok
	}
	ok, _ := path.Match(pattern, p)
	return ok
}

// isStd reports whether an import path is the standard library's: its
// first element has no dot.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// Packages reads the packages of the module at root: every folder with a
// Go file (testdata, node_modules, hidden folders and nested modules left
// out), with the imports of its non-test files.
func Packages(root string) ([]Package, error) {
	byDir := map[string]*Package{}
	var order []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			if name := d.Name(); name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		dir := filepath.ToSlash(rel)
		pkg := byDir[dir]
		if pkg == nil {
			pkg = &Package{Dir: dir}
			byDir[dir] = pkg
			order = append(order, dir)
		}
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		file, _ := filepath.Rel(root, p)
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			pkg.Imports = append(pkg.Imports, Import{Path: imp, At: fmt.Sprintf("%s:%d", filepath.ToSlash(file), fset.Position(spec.Pos()).Line)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Package, 0, len(order))
	for _, dir := range order {
		out = append(out, *byDir[dir])
	}
	return out, nil
}
