// Package sessions lists sessions: one row of figures per session file in
// any format rlog-ls reads (Read), the files its calls changed (Change),
// where an agent keeps the sessions of a folder (Discover), and the index
// in the user's cache folder that keeps the rows of files read before,
// keyed by path, size and modification time (Index). The CLI's `sessions`
// command and the server's rlog/sessions request list through it.
//
// A row's figures are those of `rlog-ls stats`: the session's rlog view
// (View, the text `rlog-ls convert --to rlog` writes) read a window at a
// time into analysis.SessionStream.
package sessions

import (
	"bytes"
	"io"
	"os"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// View streams the rlog view of the session file at path, read as format
// from, through the one conversion pipeline (convert.ConvertFile, as
// `rlog-ls convert --to rlog` and the editor's views convert); a failed
// conversion is the reader's error. Closing the reader stops it.
func View(path string, from convert.Format) io.ReadCloser {
	return view(path, from, convert.Options{})
}

// view is View with options: Read gives an observer, and reads the file
// once (figuresOnly).
func view(path string, from convert.Format, opts convert.Options) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := convert.ConvertFile(path, from, convert.Rlog, pw, opts)
		pw.CloseWithError(err)
	}()
	return pr
}

// viewPart is view of the part sec of the file at path (convert.ConvertPart).
// The lines of the part are counted into sec.Lines, when set, as the
// reader reads them.
func viewPart(path string, from convert.Format, sec section, opts convert.Options) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		f, err := os.Open(path)
		if err == nil {
			var part io.Reader = io.NewSectionReader(f, sec.Off, sec.N)
			if sec.Lines != nil {
				part = &lineCounter{r: part, n: sec.Lines}
			}
			r := io.MultiReader(bytes.NewReader(sec.Head), part)
			_, err = convert.ConvertPart(r, path, from, convert.Rlog, pw, opts)
			f.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr
}

// lineCounter counts the bytes and the newlines r gives.
type lineCounter struct {
	r io.Reader
	n *partLines
}

// partLines are the bytes and the newlines of a part read so far.
type partLines struct {
	bytes int64
	lines int
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.bytes += int64(n)
	c.n.lines += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

// figuresOnly are the options of a view read for its figures only: the
// writer is given empty totals for the header, which it would otherwise
// learn by reading the whole file once before (convert.ConvertFile), and
// which no figure is computed from (analysis counts a session's tokens
// from its lines; TestSessionsEqualStats holds the figures equal to those
// of the view `rlog-ls stats` reads). observe is given every event read.
func figuresOnly(observe model.Sink) convert.Options {
	return convert.Options{Observe: observe, Totals: &model.Usage{}}
}
