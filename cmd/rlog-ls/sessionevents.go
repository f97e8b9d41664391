package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
)

// readEvents streams the session in the file at path into sink as the
// one event model, each event with its place: an rlog log through the
// rlog reader, its lines completed from the companion when it has one
// (companion.Completer: the whole record where the line is cut, at the
// line's place); a session in another format through its reader, at the
// transcript's record lines (sub-agents' events at their own files').
// What search and compare read a session with.
func readEvents(path string, sink model.Sink) error {
	rep := &model.Report{}
	if strings.EqualFold(filepath.Ext(path), ".rlog") {
		if complete, ok := companion.Completer(path); ok {
			sink = complete(sink, rep)
		}
		return convert.ReadFile(path, convert.Rlog, sink, rep)
	}
	from, err := sessionOrLog(path)
	if err != nil {
		return err
	}
	return convert.ReadFile(path, from, sink, rep)
}

// sessionOrLog is the format of the file at path when it is a session
// rlog-ls reads (convert.Rlog for an rlog log, by its name or its
// content), or why it is not.
func sessionOrLog(path string) (convert.Format, error) {
	if strings.EqualFold(filepath.Ext(path), ".rlog") {
		return convert.Rlog, nil
	}
	if from, ok := convert.ReadableFile(path); ok {
		return from, nil
	}
	f, err := convert.DetectFile(path)
	switch {
	case err == nil && f == convert.Rlog:
		return convert.Rlog, nil
	case err != nil:
		return "", fmt.Errorf("%s: not a session rlog-ls reads (%v)", path, err)
	}
	return "", fmt.Errorf("%s: not a session rlog-ls reads", path)
}

// eventFile is the file an event was read from: path, or the sub-agent
// file its place names (relative to path's folder).
func eventFile(path string, e *model.Event) string {
	if e.Loc.File == "" || e.Loc.File == filepath.Base(path) {
		return path
	}
	if filepath.IsAbs(e.Loc.File) {
		return e.Loc.File
	}
	return filepath.Join(filepath.Dir(path), filepath.FromSlash(e.Loc.File))
}
