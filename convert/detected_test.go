package convert_test

import (
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert"
)

// TestDetectedAnswersAsThePathFunctions: what one look at a file's head
// answers (convert.Detected, as the sessions index asks it) is what
// ReadableFile, SessionFile, Subagents and ParentOf answer of the file,
// each looking again, for every recorded session and fixture.
func TestDetectedAnswersAsThePathFunctions(t *testing.T) {
	n := 0
	for _, root := range []string{"../testdata/agents", "testdata"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			n++
			det := convert.DetectedFile(p)
			f1, ok1 := det.Readable()
			if f2, ok2 := convert.ReadableFile(p); f1 != f2 || ok1 != ok2 {
				t.Errorf("%s: Readable %q %v, ReadableFile %q %v", p, f1, ok1, f2, ok2)
			}
			f1, ok1 = det.Session()
			if f2, ok2 := convert.SessionFile(p); f1 != f2 || ok1 != ok2 {
				t.Errorf("%s: Session %q %v, SessionFile %q %v", p, f1, ok1, f2, ok2)
			}
			l1, err1 := det.Subagents()
			l2, err2 := convert.Subagents(p)
			if !reflect.DeepEqual(l1, l2) || (err1 == nil) != (err2 == nil) {
				t.Errorf("%s: Subagents %v (%v), convert.Subagents %v (%v)", p, l1, err1, l2, err2)
			}
			p1, ok1, err1 := det.ParentOf()
			p2, ok2, err2 := convert.ParentOf(p)
			if p1 != p2 || ok1 != ok2 || (err1 == nil) != (err2 == nil) {
				t.Errorf("%s: ParentOf %v %v (%v), convert.ParentOf %v %v (%v)", p, p1, ok1, err1, p2, ok2, err2)
			}
			return nil
		})
	}
	if n == 0 {
		t.Skip("no recorded sessions or fixtures found")
	}
}
