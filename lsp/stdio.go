package lsp

import (
	"io"
	"os"
)

// Stdio is the server's transport: stdin and stdout as one stream.
func Stdio() io.ReadWriteCloser { return Stream(os.Stdin, os.Stdout) }

// Stream joins in and out into the server's stream.
//
// in is pumped through an io.Pipe because a blocking read of stdin cannot
// be interrupted by closing it, and Serve must be able to end its read loop
// (after exit, or when the client process has died while the pipe stays
// open). Closing the stream ends the read at once; the end of in still
// arrives as EOF.
func Stream(in io.Reader, out io.Writer) io.ReadWriteCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, in)
		pw.CloseWithError(err) // nil: EOF
	}()
	return stream{in: pr, out: out}
}

type stream struct {
	in  *io.PipeReader
	out io.Writer
}

func (s stream) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stream) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stream) Close() error                { return s.in.Close() }
