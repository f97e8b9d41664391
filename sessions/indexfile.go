package sessions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The index and its changes file are each one JSON object,
// {"version":N,"entries":[...]}, written and read an entry at a time: a
// store of thousands of sessions is never held as one buffer of text (the
// changes file of 2,000 sessions is tens of MB), only as its entries.

// writeEntries writes entries as an index file of IndexVersion to a
// temporary file in path's folder, an entry at a time, and renames it over
// path, so that no reader ever sees half a file.
func writeEntries[T any](path string, entries []T) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sessions-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	bw := bufio.NewWriterSize(tmp, 1<<16)
	fmt.Fprintf(bw, `{"version":%d,"entries":[`, IndexVersion)
	for i, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			tmp.Close()
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.Write(b)
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// versionError says an index file is of another version.
type versionError struct{ version int }

func (e versionError) Error() string {
	return fmt.Sprintf("the index was of version %d, not %d", e.version, IndexVersion)
}

// readEntries reads an index file from r an entry at a time, each into
// the value next gives, giving each to fn: an error says it is no index
// file of IndexVersion (fn may have been given some of its entries).
func readEntries[T any](r io.Reader, next func() T, fn func(T)) error {
	d := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	delim := func(want json.Delim) error {
		t, err := d.Token()
		if err == nil && t != want {
			err = fmt.Errorf("%v where %v was expected", t, want)
		}
		return err
	}
	if err := delim('{'); err != nil {
		return err
	}
	version := 0
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return err
		}
		switch t {
		case "version":
			if err := d.Decode(&version); err != nil {
				return err
			}
			if version != IndexVersion {
				return versionError{version}
			}
		case "entries":
			if version != IndexVersion {
				return versionError{version}
			}
			if err := delim('['); err != nil {
				return err
			}
			for d.More() {
				e := next()
				if err := d.Decode(e); err != nil {
					return err
				}
				fn(e)
			}
			if err := delim(']'); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return err
			}
		}
	}
	if err := delim('}'); err != nil {
		return err
	}
	if version != IndexVersion {
		return versionError{version}
	}
	return nil
}
