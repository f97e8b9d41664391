package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"io/fs"
	"time"
)

// archiveFile is one file of a release archive.
type archiveFile struct {
	Name string
	Mode fs.FileMode
	Data []byte
}

// writeTarGz writes files into a gzip-compressed tar under the folder dir,
// in the given order, owned by root and dated mtime, so that the same files
// give the same bytes.
func writeTarGz(w io.Writer, dir string, files []archiveFile, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode fs.FileMode, typ byte, size int64) *tar.Header {
		return &tar.Header{Name: name, Mode: int64(mode.Perm()), Typeflag: typ, Size: size,
			ModTime: mtime, Uname: "root", Gname: "root"}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, tar.TypeDir, 0)); err != nil {
		return err
	}
	for _, f := range files {
		if err := tw.WriteHeader(hdr(dir+"/"+f.Name, f.Mode, tar.TypeReg, int64(len(f.Data)))); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes files into a zip under the folder dir, in the given order
// and dated mtime, with Unix modes (so unzip keeps the binary executable).
func writeZip(w io.Writer, dir string, files []archiveFile, mtime time.Time) error {
	zw := zip.NewWriter(w)
	d := &zip.FileHeader{Name: dir + "/", Modified: mtime}
	d.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(d); err != nil {
		return err
	}
	for _, f := range files {
		h := &zip.FileHeader{Name: dir + "/" + f.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.Mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}
