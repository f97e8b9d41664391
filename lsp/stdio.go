package lsp

import (
	"io"
	"os"
)

// Stdio is the server's transport: stdin and stdout as one stream.
//
// stdin is pumped through an io.Pipe because a blocking read of stdin
// cannot be interrupted by closing it, and Serve must be able to end its
// read loop (after exit, or when the client process has died while the
// pipe stays open). Closing the pipe ends the read at once; the end of
// stdin still arrives as EOF.
func Stdio() io.ReadWriteCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, os.Stdin)
		pw.CloseWithError(err) // nil: EOF
	}()
	return stdio{in: pr}
}

type stdio struct{ in *io.PipeReader }

func (s stdio) Read(p []byte) (int, error) { return s.in.Read(p) }
func (stdio) Write(p []byte) (int, error)  { return os.Stdout.Write(p) }
func (s stdio) Close() error               { return s.in.Close() }
