package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert"
)

// stdinName is how a command names standard input in its messages.
const stdinName = "<stdin>"

// isStdin reports whether a command-line input names standard input: "-",
// or the names systems give it.
func isStdin(path string) bool {
	switch path {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// readInput reads a command's one input whole: standard input when the
// input names it (name is then stdinName), else the file, which must not
// be a folder (oneAtATime says what to do instead: "redact one file at a
// time"). The error is the line to print.
func readInput(input string, stdin io.Reader, oneAtATime string) (name string, src []byte, err error) {
	if isStdin(input) {
		if src, err = io.ReadAll(stdin); err != nil {
			return stdinName, nil, fmt.Errorf("reading stdin: %v", err)
		}
		return stdinName, src, nil
	}
	info, err := os.Stat(input)
	if err != nil {
		return input, nil, errors.New(describeIOError(err))
	}
	if info.IsDir() {
		return input, nil, fmt.Errorf("%s is a folder; %s", input, oneAtATime)
	}
	if src, err = os.ReadFile(input); err != nil {
		return input, nil, errors.New(describeIOError(err))
	}
	return input, src, nil
}

// isStdout reports whether an output names standard output.
func isStdout(path string) bool {
	switch path {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// errSameFile is the refusal to write a command's output over its input.
var errSameFile = errors.New("the output is the input")

// outputError is the one line that says why target cannot be written.
// The hint for an existing output is -o, never --force: following it
// replaced lossless originals with lossy copies.
func outputError(target string, err error) string {
	switch {
	case errors.Is(err, errSameFile):
		return target + " is the input; name another output with -o"
	case errors.Is(err, convert.ErrExists):
		return target + " exists; name another output with -o"
	}
	return "cannot write " + target + ": " + describeIOError(err)
}

// sameAsInput reports whether target is the input file itself, through
// symbolic and hard links: writing it would replace the input, whatever
// --force says. With stdin as the input, the file stdin was redirected
// from counts.
func sameAsInput(input, target string, stdin io.Reader) bool {
	t, err := os.Stat(target)
	if err != nil {
		return false
	}
	var in os.FileInfo
	if isStdin(input) {
		f, ok := stdin.(*os.File)
		if !ok {
			return false
		}
		in, err = f.Stat()
	} else {
		in, err = os.Stat(input)
	}
	return err == nil && os.SameFile(in, t)
}

// output is where a command writes: standard output, or a file written
// through a convert.AtomicFile that only appears when Commit succeeds.
// Until then, a failure, a panic or a signal (interrupt, terminate, hang
// up) removes the temporary file, so nothing is left behind.
type output struct {
	w      io.Writer // what to write to
	file   *convert.AtomicFile
	stop   func()
	target string
	guard  *signalGuard // nil for stdout
}

// openOutput opens target ("-" for stdout) for command cmd reading input.
// A target that is the input is refused (errSameFile), force or not. The
// caller must call close (which aborts an output not committed).
func openOutput(cmd, input, target string, force bool, stdin io.Reader, stdout, stderr io.Writer) (*output, error) {
	if isStdout(target) {
		return &output{w: stdout, target: "stdout", stop: func() {}}, nil
	}
	if sameAsInput(input, target, stdin) {
		return nil, errSameFile
	}
	dir, name := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	// The signals are caught before the temporary file exists, and the
	// handler waits for it to be known: no moment leaves it behind.
	g := catchSignals(cmd, target, stderr)
	g.mu.Lock()
	f, err := convert.CreateAtomic(dir, name, force)
	g.file = f
	g.mu.Unlock()
	if err != nil {
		g.stop()
		return nil, err
	}
	return &output{w: f, file: f, target: target, stop: g.stop, guard: g}, nil
}

// failed is called when writing the output failed: when a signal aborted
// it, the handler is ending the process with the signal's status, and the
// command waits for that rather than exit with its own.
func (o *output) failed(err error) {
	if o.guard == nil || !errors.Is(err, convert.ErrAborted) {
		return
	}
	select {
	case <-o.guard.caught:
		select {} // the handler calls exit
	default:
	}
}

// commit makes the file appear and returns its path ("stdout" for stdout).
func (o *output) commit() (string, error) {
	if o.file == nil {
		return o.target, nil
	}
	return o.file.Commit()
}

// close stops the signal handler and aborts an output not committed.
func (o *output) close() {
	o.stop()
	if o.file != nil {
		o.file.Abort()
	}
}

// signalExit is the exit status after a signal, as shells report it.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// exit ends the process; tests replace it.
var exit = os.Exit

// signalGuard removes an output's temporary file and ends the process when
// an interrupt, terminate or hang-up signal arrives before stop is called.
type signalGuard struct {
	mu     sync.Mutex
	file   *convert.AtomicFile // nil until created
	stop   func()
	caught chan struct{} // closed when a signal arrived
}

func catchSignals(cmd, target string, stderr io.Writer) *signalGuard {
	g := &signalGuard{caught: make(chan struct{})}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	var once sync.Once
	go func() {
		select {
		case sig := <-sigs:
			close(g.caught)
			g.mu.Lock()
			if g.file != nil && g.file.Abort() {
				fmt.Fprintf(stderr, "rlog-ls %s: stopped by %v after writing %s\n", cmd, sig, target)
			} else {
				fmt.Fprintf(stderr, "rlog-ls %s: stopped by %v; %s not written\n", cmd, sig, target)
			}
			exit(signalExit(sig))
		case <-done:
		}
	}()
	g.stop = func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
		})
	}
	return g
}

// progress shows how a long conversion is going, on a terminal only: after
// a second, a line that is rewritten four times a second with the input
// read (of its size when known), the output written and the time, and that
// is cleared at the end.
type progress struct {
	cmd     string
	w       io.Writer
	total   int64 // input size, 0 when unknown
	read    func() int64
	written func() int64
	start   time.Time
	done    chan struct{}
	wg      sync.WaitGroup
	shown   bool
}

// startProgress starts showing progress on stderr when it is a terminal;
// read and written report the bytes so far (either may be nil).
func startProgress(cmd string, stderr io.Writer, total int64, read, written func() int64) *progress {
	p := &progress{cmd: cmd, w: stderr, total: total, read: read, written: written, start: time.Now(), done: make(chan struct{})}
	if !isTerminal(stderr) {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case now := <-tick.C:
				if now.Sub(p.start) >= time.Second {
					fmt.Fprintf(p.w, "\r\x1b[K%s", p.line(now))
					p.shown = true
				}
			}
		}
	}()
	return p
}

// line is the progress text at now.
func (p *progress) line(now time.Time) string {
	s := "rlog-ls " + p.cmd + ": "
	if p.read != nil {
		r := p.read()
		if p.total > 0 {
			s += fmt.Sprintf("%d%% of %s read", min(100, r*100/p.total), analysis.ByteSize(p.total))
		} else {
			s += analysis.ByteSize(r) + " read"
		}
	}
	if p.written != nil {
		if p.read != nil {
			s += ", "
		}
		s += analysis.ByteSize(p.written()) + " written"
	}
	return s + fmt.Sprintf(", %ds", int(now.Sub(p.start).Seconds()))
}

// stop ends the progress line and clears it.
func (p *progress) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.done)
	p.wg.Wait()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
