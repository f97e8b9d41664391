package convert_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
)

// TestEveryFormatHasASection holds ARCHITECTURE.md's recipe for a new
// format to docs/conversions.md: every format in the table is named, as
// `NAME`, in one of its "## " headings, where its mapping and losses are.
// (The fixture is TestEveryFormatHasAFixture's.)
func TestEveryFormatHasASection(t *testing.T) {
	doc, err := os.ReadFile("../docs/conversions.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, h := range regexp.MustCompile("(?m)^## .*$").FindAll(doc, -1) {
		for _, m := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllSubmatch(h, -1) {
			named[string(m[1])] = true
		}
	}
	for _, f := range convert.Formats() {
		if !named[string(f.Name)] {
			t.Errorf("docs/conversions.md has no section for %s: a heading \"## ... (`%s`)\" with its mapping and losses", f.Name, f.Name)
		}
	}
	if len(named) == 0 {
		t.Error("docs/conversions.md: no headings found")
	}
}
