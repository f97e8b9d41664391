package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/sessions"
)

// logInput is a log that check and stats read once, from start to end,
// a window at a time (grammar.Stream): their memory does not grow with
// the log but for its call ids. What is known before the first window
// (whether it is text, whether it is JSON) is read from its head.
type logInput struct {
	path string // stdinName for standard input
	br   *bufio.Reader
	size int64 // the file's size, -1 when unknown
	// reopen opens the file again (for the stream to read ahead when the
	// log's header is not closed, for report's second reading); nil for
	// standard input and what is not a regular file.
	reopen func() (io.Reader, error)
	// open opens the log from its start again: the file, or its rlog
	// view's conversion when the file is a session in another format.
	open func() (io.ReadCloser, error)
	// alone says the log has no companion: it is the rlog view of a
	// session file the companion does not index (companion.Formats).
	alone bool
}

// streamingGC paces the collector for the commands that read logs a
// window at a time (unless GOGC or GOMEMLIMIT is set) and returns what
// restores it. What they keep grows with a log only in the tables of its
// call ids and in the report's data; left to GOGC's default, the heap
// would grow to twice that before a collection. After each window, the
// soft memory limit is set a quarter above the live heap, plus some room
// for the windows: the heap stays near what is live, and a collection
// comes only every few windows (at GOGC=25 they came four times as often
// and cost 14% more time).
func streamingGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(-1)
	pacing.Store(true)
	paceGC()
	return func() {
		pacing.Store(false)
		debug.SetMemoryLimit(old)
	}
}

// The pace: the limit is the live heap and a quarter, plus gcRoom, and at
// least gcFloor.
const (
	gcRoom  = 8 << 20
	gcFloor = 32 << 20
)

var (
	pacing   atomic.Bool
	paceLock sync.Mutex
	liveHeap = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
)

// paceGC sets the soft memory limit from the live heap (after a window).
func paceGC() {
	if !pacing.Load() {
		return
	}
	paceLock.Lock()
	defer paceLock.Unlock()
	metrics.Read(liveHeap)
	live := int64(0)
	if liveHeap[0].Value.Kind() == metrics.KindUint64 {
		live = int64(liveHeap[0].Value.Uint64())
	}
	debug.SetMemoryLimit(max(gcFloor, live+live/4+gcRoom))
}

// openLog opens the log at path, or standard input when path is
// stdinName; the caller closes what it returns.
func openLog(path string, open func(string) (io.ReadCloser, error)) (*logInput, io.Closer, error) {
	f, err := open(path)
	if err != nil {
		return nil, nil, err
	}
	// The buffer is for the head (CheckBinary's sample, detecting JSON on
	// stdin); the stream reads past it in windows of its own.
	in := &logInput{path: path, br: bufio.NewReaderSize(f, 16<<10), size: -1}
	// Only a regular file can be read again (a named pipe, /dev/fd/N of a
	// process substitution, cannot).
	if st, ok := f.(interface{ Stat() (os.FileInfo, error) }); ok && path != stdinName {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			if from, ok := convert.ReadableFile(path); ok {
				// A session in another format: its rlog view, the text
				// `rlog-ls convert --to rlog` writes, read as the log.
				f.Close()
				in.open = func() (io.ReadCloser, error) { return sessions.View(path, from), nil }
				r, _ := in.open()
				in.br = bufio.NewReaderSize(r, 16<<10)
				in.reopen = func() (io.Reader, error) { return in.open() }
				in.alone = !slices.Contains(companion.Formats, from)
				return in, r, nil
			}
			in.size = fi.Size()
			in.open = func() (io.ReadCloser, error) { return os.Open(path) }
			in.reopen = func() (io.Reader, error) { return os.Open(path) }
		}
	}
	return in, f, nil
}

// openInput opens a command's one input to read it once, a window at a
// time: standard input when the input names it (name is then stdinName),
// else the file, which must not be a folder (oneAtATime says what to do
// instead), as readInput does for the commands that read it whole.
func openInput(input string, stdin io.Reader, oneAtATime string) (name string, in *logInput, closer io.Closer, err error) {
	if isStdin(input) {
		in, closer, err = openLog(stdinName, func(string) (io.ReadCloser, error) { return io.NopCloser(stdin), nil })
		return stdinName, in, closer, err
	}
	info, err := os.Stat(input)
	if err != nil {
		return input, nil, nil, errors.New(describeIOError(err))
	}
	if info.IsDir() {
		return input, nil, nil, fmt.Errorf("%s is a folder; %s", input, oneAtATime)
	}
	in, closer, err = openLog(input, func(p string) (io.ReadCloser, error) { return os.Open(p) })
	if err != nil {
		return input, nil, nil, errors.New(describeIOError(err))
	}
	return input, in, closer, nil
}

// again opens the log again, to read its first n bytes a second time (a
// pass of its own over what a first pass read); ok is false for standard
// input, which cannot be read twice.
func (in *logInput) again(n int) (again *logInput, closer io.Closer, ok bool, err error) {
	if in.reopen == nil || in.open == nil {
		return nil, nil, false, nil
	}
	f, err := in.open()
	if err != nil {
		return nil, nil, true, err
	}
	limited := func(r io.Reader) io.Reader { return io.LimitReader(r, int64(n)) }
	again = &logInput{path: in.path, br: bufio.NewReaderSize(limited(f), 16<<10), size: int64(n), open: in.open, reopen: func() (io.Reader, error) {
		r, err := in.open()
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{limited(r), r}, nil
	}}
	return again, f, true, nil
}

// head is the log's first bytes, as many as CheckBinary looks at.
func (in *logInput) head() ([]byte, error) {
	head, err := in.br.Peek(analysis.BinarySample)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head, nil
}

// binary is the log's E007 when it is not text.
func (in *logInput) binary(cfg analysis.Config) (analysis.Finding, bool, error) {
	head, err := in.head()
	if err != nil {
		return analysis.Finding{}, false, err
	}
	f, ok := analysis.CheckBinary(head, cfg)
	return f, ok, nil
}

// mayBeJSON reports whether the log might be JSON (its first byte after a
// byte order mark and white space is { or [, or it is all white space as
// far as it was read): then it is read whole, for its format's validator.
func (in *logInput) mayBeJSON() (bool, error) {
	head, err := in.br.Peek(in.br.Size())
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return false, err
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\uFEFF")), " \t\r\n")
	if len(trimmed) == 0 {
		return len(head) == in.br.Size(), nil
	}
	return trimmed[0] == '{' || trimmed[0] == '[', nil
}

// all reads the rest of the log.
func (in *logInput) all() ([]byte, error) { return io.ReadAll(in.br) }

// windowBytes is the size of the windows logs are read in (tests lower
// it); 0 means the grammar's default.
var windowBytes = 0

// afterWindow, when set, is called after each window is read (the memory
// tests sample the heap there).
var afterWindow func()

// windows calls each with the log's windows in order. The next window is
// read and scanned on another goroutine while each works on this one.
func (in *logInput) windows(each func(*grammar.Tree)) error {
	return readWindows(in, func(t *grammar.Tree) *grammar.Tree { return t }, each, false)
}

// checkWindows is windows for check's StreamChecker: the goroutine that
// reads ahead also summarises each window (analysis.SummarizeWindow, on
// every core), so that all check does in file order (sc.Summarized)
// overlaps the next window's scan and summaries, rather than waiting for
// them. The checker keeps nothing of a window's text once it has read it
// but the first window's, so each window after the first is read into the
// buffer of one before it (grammar.Stream.Recycle), not into a new one for
// the collector.
func (in *logInput) checkWindows(sc *analysis.StreamChecker[jsonFinding]) error {
	return readWindows(in, analysis.SummarizeWindow, sc.Summarized, true)
}

// readWindows reads the log's windows on a goroutine of its own, which
// makes each window into what prepare returns; each is called with them
// in order on the caller's, while the next is read and prepared. With
// recycle, each window is handed back to the stream once each returns.
func readWindows[P any](in *logInput, prepare func(*grammar.Tree) P, each func(P), recycle bool) error {
	s := grammar.NewStream(in.br, grammar.StreamOptions{Reopen: in.reopen, WindowBytes: windowBytes, SizeHint: in.size})
	type next struct {
		w   *grammar.Tree
		p   P
		err error
	}
	ahead := make(chan next, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(ahead)
		for {
			n := next{}
			n.w, n.err = s.Next()
			if n.err == nil {
				n.p = prepare(n.w)
			}
			select {
			case ahead <- n:
			case <-stop:
				return
			}
			if n.err != nil {
				return
			}
		}
	}()
	for n := range ahead {
		if errors.Is(n.err, io.EOF) {
			return nil
		}
		if n.err != nil {
			return n.err
		}
		each(n.p)
		if recycle {
			s.Recycle(n.w)
		}
		paceGC()
		if afterWindow != nil {
			afterWindow()
		}
	}
	return nil
}
