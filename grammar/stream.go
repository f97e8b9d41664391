package grammar

import (
	"errors"
	"io"
)

// Stream reads a document from an io.Reader a window at a time, for the
// commands that read a log once from start to end (`rlog-ls check` and
// `stats`) in memory that does not grow with it. A window is a Tree of
// the next chunks: the chunks Parse makes of the whole document, at their
// places in it (line numbers and byte offsets are the document's), with
// the document's region and header. A window answers only about its own
// lines (and Len and LineCount are where it ends); nothing of it is kept
// by the stream once the next is read.
//
// The region must be known before the first window: where the header
// starts and ends decides what every line is. A log's header is closed
// within its first lines, and the first window ends after it. A document
// whose header is not closed (or that has none) has its region decided by
// its last line: the stream then holds what it has read until it knows,
// unless StreamOptions.Reopen lets it read ahead.
type Stream struct {
	r      io.Reader
	opts   StreamOptions
	buf    []byte // read and not yet cut into chunks
	eof    bool
	at     pos  // what the chunks cut so far hold
	cut    bool // a chunk was cut: the next is not the document's first
	done   bool
	region Region
	header *Header
	known  bool // the region is known
	held   []*Chunk
	heldAt pos // where the held chunks start
	rs     regionScan
	// bounds are where the buffer's first chunks end, as cuttable finds
	// them (those of chunkBounds): kept from one call to the next while
	// the buffer fills, and handed to buildChunksAt when they are cut.
	bounds []int
	// cutFrom is the buffer the last chunks were cut from (take), which
	// their window owns.
	cutFrom []byte
	// free are buffers of windows handed back (Recycle), read into again
	// instead of new ones. A channel: Recycle may be called while Next
	// runs on another goroutine.
	free chan []byte
}

// StreamOptions tune a Stream.
type StreamOptions struct {
	// WindowBytes is about how much text a window holds (a window is cut
	// after the chunk that reaches it); 0 means DefaultWindowBytes.
	WindowBytes int
	// Reopen, when set, opens the document again from its start (a file
	// can be read twice, standard input cannot). A stream that has read
	// HoldBytes without finding the end of the header reads ahead with it
	// to find the region, instead of holding the document until its end.
	Reopen func() (io.Reader, error)
	// HoldBytes is how much a stream with Reopen reads before it reads
	// ahead; 0 means DefaultHoldBytes.
	HoldBytes int
	// SizeHint, when known (a file's size), sizes the first buffer: a small
	// document is read into one buffer of its size.
	SizeHint int64
}

// DefaultWindowBytes is a window's size: large enough that the work per
// window (scanning and summarising its chunks on every core) costs nothing
// to hand out, small enough that two or three windows are little memory.
const DefaultWindowBytes = 1 << 20

// DefaultHoldBytes is how much a stream with StreamOptions.Reopen reads
// before it reads ahead for the region: a few windows.
const DefaultHoldBytes = 4 << 20

// NewStream reads the document r holds.
func NewStream(r io.Reader, opts StreamOptions) *Stream {
	if opts.WindowBytes <= 0 {
		opts.WindowBytes = DefaultWindowBytes
	}
	if opts.HoldBytes <= 0 {
		opts.HoldBytes = DefaultHoldBytes
	}
	return &Stream{r: r, opts: opts, rs: newRegionScan(), free: make(chan []byte, recycledBuffers)}
}

// recycledBuffers is how many handed-back buffers a stream keeps: a
// reader that reads a window ahead, one window waiting and one being
// checked need no more.
const recycledBuffers = 2

// Recycle hands back window t, which Next returned, for the stream to
// read later windows into its buffer instead of a new one. The caller
// promises that nothing refers to t's text any more: not t, its chunks or
// lines, nor any slice of them (strings made from the text are copies and
// may be kept). Without it, each window is a new buffer of about
// WindowBytes for the collector. The first window, which the header was
// parsed from, is never read into again; recycling a window twice is
// recycling it once. Recycle may be called on another goroutine than
// Next's.
func (s *Stream) Recycle(t *Tree) {
	b := t.buf
	if b == nil {
		return
	}
	t.buf = nil
	select {
	case s.free <- b[:0]:
	default: // enough are kept: the collector takes this one
	}
}

// buffer returns a buffer of length n with room to read more: one handed
// back if it has some (a window's buffer has a window's room, far more
// than the bytes a window leaves to the next), else a new one of capacity
// size.
func (s *Stream) buffer(n, size int) []byte {
	select {
	case b := <-s.free:
		if cap(b) > n {
			return b[:n]
		}
	default:
	}
	return make([]byte, n, size)
}

// Next returns the next window, or io.EOF after the last (a document has
// at least one window, an empty one an empty line). Any other error is the
// reader's.
func (s *Stream) Next() (*Tree, error) {
	for !s.done {
		start := s.at
		chunks, err := s.cutWindow()
		if err != nil {
			return nil, err
		}
		if s.header != nil {
			if len(chunks) > 0 {
				t := s.window(chunks, start)
				t.buf = s.cutFrom
				return t, nil
			}
			continue
		}
		// The first window: held until the region is known and every
		// header line is in it (the header is parsed from it).
		if len(s.held) == 0 {
			s.heldAt = start
		}
		s.held = append(s.held, chunks...)
		if !s.known {
			for _, c := range chunks {
				s.rs.add(c)
			}
			switch {
			case s.rs.closed() || s.done:
				s.region, s.known = s.rs.region(s.at.lines), true
			case s.opts.Reopen != nil && s.at.bytes-s.heldAt.bytes >= s.opts.HoldBytes:
				if s.region, err = s.readAhead(); err != nil {
					return nil, err
				}
				s.known = true
			}
		}
		if !s.known || s.at.lines < s.region.BodyStart && !s.done {
			continue
		}
		t := s.window(s.held, s.heldAt)
		s.held = nil
		s.header = parseHeader(t)
		t.header = s.header
		return t, nil
	}
	return nil, io.EOF
}

// Each calls f with each window in order, and returns the reader's error,
// if any.
func (s *Stream) Each(f func(*Tree)) error {
	for {
		w, err := s.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		f(w)
	}
}

// window makes the tree of chunks, which follow what start counts.
func (s *Stream) window(chunks []*Chunk, start pos) *Tree {
	t := &Tree{pages: paginate(chunks), serial: treeSerial.Add(1), region: s.region, header: s.header}
	t.indexFrom(start)
	return t
}

// cutWindow reads until it can cut about a window of chunks (all the rest
// at the end of the input) and cuts them, exactly where Parse would.
func (s *Stream) cutWindow() ([]*Chunk, error) {
	for {
		end, ok := s.cuttable()
		if ok {
			if s.eof {
				s.done = true
			}
			return s.take(end), nil
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// cuttable returns how much of the buffer can be cut into chunks now, and
// whether to cut it: about a window's worth, or everything at the end of
// the input. A chunk is cut only when the bytes after it are in the buffer:
// where it ends depends on the next line break past chunkMaxBytes, and
// whether it is the document's last chunk (which gets a final empty line
// after a final line break) on whether anything follows it.
func (s *Stream) cuttable() (int, bool) {
	if s.eof {
		return len(s.buf), true
	}
	// A chunk's end found in the buffer is where the chunk ends whatever
	// is read after it (the line that ends it was read), so the search
	// goes on from the last end found before the buffer filled more.
	end := 0
	if n := len(s.bounds); n > 0 {
		end = s.bounds[n-1]
	}
	for end < s.opts.WindowBytes && end+chunkMaxBytes <= len(s.buf) {
		e := chunkEnd(s.buf, end)
		if e >= len(s.buf) {
			break
		}
		end = e
		s.bounds = append(s.bounds, e)
	}
	return end, end >= s.opts.WindowBytes
}

// take cuts the buffer's first end bytes into chunks and keeps the rest
// for the next window, in a buffer of its own (the chunks own theirs).
func (s *Stream) take(end int) []*Chunk {
	var chunks []*Chunk
	if end > 0 || s.done && !s.cut {
		text := s.buf[:end:end]
		if s.done {
			// The end of the input: the rest of its chunks, after those
			// cuttable found before it was read.
			s.bounds = appendChunkBounds(s.bounds, text, true)
		}
		chunks = buildChunksAt(text, s.bounds, !s.cut, s.done)
		s.cut = true
	}
	s.bounds = s.bounds[:0]
	for _, c := range chunks {
		s.at = s.at.plus(c)
	}
	s.cutFrom = s.buf
	if s.done {
		s.buf = nil
		return chunks
	}
	rest := s.buf[end:]
	s.buf = s.buffer(len(rest), max(firstBuffer, 2*len(rest)))
	copy(s.buf, rest)
	return chunks
}

// firstBuffer is the size of a window's buffer until more is read: a
// small log, or the end of a large one, needs no more (a folder of small
// logs is read as fast as it was read whole).
const firstBuffer = 64 << 10

// fill reads more into the buffer, growing it when it is full: to a
// window's size, then (a line longer than a window) twice over.
func (s *Stream) fill() error {
	if len(s.buf) == cap(s.buf) {
		size := firstBuffer
		if h := s.opts.SizeHint; h >= 0 && h < int64(s.opts.WindowBytes) && !s.cut && cap(s.buf) == 0 {
			size = int(h) + 1 // room to read the end
		}
		if cap(s.buf) > 0 {
			size = max(2*cap(s.buf), s.opts.WindowBytes+2*chunkMaxBytes)
		}
		grown := make([]byte, len(s.buf), size)
		copy(grown, s.buf)
		s.buf = grown
	}
	n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	switch {
	case errors.Is(err, io.EOF):
		s.eof = true
	case err != nil:
		return err
	}
	return nil
}

// readAhead finds the region by reading the document again from its start
// with Reopen, keeping nothing of it.
func (s *Stream) readAhead() (Region, error) {
	r, err := s.opts.Reopen()
	if err != nil {
		return Region{}, err
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	ahead := NewStream(r, StreamOptions{WindowBytes: s.opts.WindowBytes})
	for !ahead.done && !ahead.rs.closed() {
		chunks, err := ahead.cutWindow()
		if err != nil {
			return Region{}, err
		}
		for _, c := range chunks {
			ahead.rs.add(c)
		}
	}
	return ahead.rs.region(ahead.at.lines), nil
}
