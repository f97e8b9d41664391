package sessions

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// The index and its changes file are each one JSON object,
// {"version":N,"entries":[...]}, written and read an entry at a time: a
// store of thousands of sessions is never held as one buffer of text (the
// changes file of 2,000 sessions is tens of MB), only as its entries.

// writeEntries writes entries as a file of the version given to a
// temporary file in path's folder, an entry at a time, and renames it over
// path, so that no reader ever sees half a file.
func writeEntries[T any](path string, version int, entries []T) error {
	return writeEntriesFrom(path, version, func(put func(any) error) error {
		for _, e := range entries {
			if err := put(e); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeEntriesFrom is writeEntries of the entries each gives to put, one
// at a time (a value to marshal, or a json.RawMessage of one, written as
// it is): an error of each or put leaves path as it was.
func writeEntriesFrom(path string, version int, each func(put func(any) error) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sessions-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing is there
	bw := bufio.NewWriterSize(tmp, 1<<16)
	fmt.Fprintf(bw, `{"version":%d,"entries":[`, version)
	n := 0
	err = each(func(e any) error {
		// A json.RawMessage is one this package marshaled: written as it
		// is, not scanned again.
		b, ok := e.(json.RawMessage)
		if !ok {
			var err error
			if b, err = json.Marshal(e); err != nil {
				return err
			}
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		tmp.Close()
		return err
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

// versionError says an index file is of another version than want.
type versionError struct{ version, want int }

func (e versionError) Error() string {
	return fmt.Sprintf("the index was of version %d, not %d", e.version, e.want)
}

// readEntries reads an index file from r an entry at a time, each into
// the value next gives, giving each to fn: an error says it is no file of
// the version wanted, or one cut, corrupt or with anything after it (fn
// may have been given some of its entries). The version comes first:
// entries of another are not read.
func readEntries[T any](r io.Reader, want int, next func() T, fn func(T)) error {
	d := json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
	delim := func(delim json.Delim) error {
		t, err := d.Token()
		if err == nil && t != delim {
			err = fmt.Errorf("%v where %v was expected", t, delim)
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
			if version != want {
				return versionError{version, want}
			}
		case "entries":
			if version != want {
				return versionError{version, want}
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
	if version != want {
		return versionError{version, want}
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errors.New("something after the index")
	}
	return nil
}
