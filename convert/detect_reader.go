package convert

import (
	"bufio"
	"errors"
	"io"
)

// DetectReader tells the format of the input r is at, from what r has
// buffered (it peeks, it does not consume), for files and stdin alike.
// name breaks ties and covers empty input.
func DetectReader(name string, r *bufio.Reader) (Format, error) {
	head, err := r.Peek(min(r.Size(), 64<<10))
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	return Detect(name, head)
}
