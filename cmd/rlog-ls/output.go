package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	case errors.Is(err, convert.ErrIsFolder):
		return target + " is a folder; name a file for the output (in it, or elsewhere)"
	case errors.Is(err, convert.ErrNotRegular):
		return target + " is not a regular file (a device, a pipe or a socket); name a file for the output"
	}
	var nr *convert.NotReplacedError
	if errors.As(err, &nr) {
		switch nr.Err {
		case convert.ErrOpenForWriting:
			return target + " is open for writing by " + nr.Why + ": replacing it now would lose what that writes next; not replaced (name another output with -o)"
		case convert.ErrChanged:
			return target + " changed while rlog-ls worked on it (" + nr.Why + "); not replaced (run it again, or name another output with -o)"
		case convert.ErrOwner:
			return "cannot keep the owner and group of " + target + " (" + nr.Why + "); not replaced (name another output with -o)"
		}
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
	in, err := statInput(input, stdin)
	return err == nil && os.SameFile(in, t)
}

// output is where a command writes: standard output, or a file written
// through a convert.AtomicFile that only appears when Commit succeeds.
// Until then, a failure, a panic or a signal (interrupt, terminate, hang
// up) removes the temporary file, so nothing is left behind; and once a
// signal has arrived, nothing is committed.
type output struct {
	w      io.Writer // what to write to
	file   *convert.AtomicFile
	target string
	guard  *signalGuard // nil for stdout
	// settle is how long commit waits for a signal on its way, for an
	// input that another program feeds (see commit); 0 for a file.
	settle time.Duration
}

// signalSettle is how long commit gives a signal that is on its way when
// the input came from a pipe or a terminal: far more than the runtime
// takes to hand a pending signal to a goroutine, even on a busy machine,
// and little beside a conversion.
const signalSettle = 100 * time.Millisecond

// openOutput opens target ("-" for stdout) for command cmd reading input.
// A target that is the input is refused (errSameFile), force or not. The
// caller must call close (which aborts an output not committed).
func openOutput(cmd, input, target string, force bool, stdin io.Reader, stdout, stderr io.Writer) (*output, error) {
	if isStdout(target) {
		return &output{w: stdout, target: "stdout"}, nil
	}
	if sameAsInput(input, target, stdin) {
		return nil, errSameFile
	}
	dir, name := splitTarget(target)
	settle := time.Duration(0)
	if fedByAProgram(input, stdin) {
		settle = signalSettle
	}
	return guardedOutput(cmd, target, "not written", settle, stderr, func() (*convert.AtomicFile, error) {
		return convert.CreateAtomic(dir, name, force)
	})
}

// replaceInput opens the input file itself for its new version (fix
// --write); read is its state from before it was read, and the file is
// replaced only if it is still in that state and nobody else writes to it
// (convert.ReplaceAtomic). The caller must call close.
func replaceInput(cmd, input string, read fs.FileInfo, stderr io.Writer) (*output, error) {
	dir, name := splitTarget(input)
	return guardedOutput(cmd, input, "left as it was", 0, stderr, func() (*convert.AtomicFile, error) {
		return convert.ReplaceAtomic(dir, name, read)
	})
}

// guardedOutput is an output into the file create makes, with a signal
// guard; untouched says what became of target when a signal stops the
// command ("not written").
func guardedOutput(cmd, target, untouched string, settle time.Duration, stderr io.Writer, create func() (*convert.AtomicFile, error)) (*output, error) {
	// The signals are caught before the temporary file exists, and the
	// handler waits for it to be known: no moment leaves it behind.
	g := catchSignals(cmd, target, untouched, stderr)
	g.mu.Lock()
	f, err := create()
	g.file = f
	g.mu.Unlock()
	if err != nil {
		g.stop()
		return nil, err
	}
	return &output{w: f, file: f, target: target, guard: g, settle: settle}, nil
}

// splitTarget is a path's folder ("." for none) and name.
func splitTarget(path string) (dir, name string) {
	dir, name = filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return dir, name
}

// fedByAProgram reports whether the input is a pipe, a terminal or a
// socket rather than a file: something that ends when the program on the
// other end does.
func fedByAProgram(input string, stdin io.Reader) bool {
	fi, err := statInput(input, stdin)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// statInput is what the input is: the file, or what standard input comes
// from (an error when stdin is no file, as in tests).
func statInput(input string, stdin io.Reader) (os.FileInfo, error) {
	if !isStdin(input) {
		return os.Stat(input)
	}
	f, ok := stdin.(*os.File)
	if !ok {
		return nil, errors.New("standard input is no file")
	}
	return f.Stat()
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
// Once a signal has arrived, nothing is committed: the handler aborts the
// file, and an abort wins over a commit that has not renamed yet
// (convert.AtomicFile); commit then waits for the handler to end the
// process instead of returning.
func (o *output) commit() (string, error) {
	if o.file == nil {
		return o.target, nil
	}
	if o.settle > 0 {
		// The input ended because the program feeding it did; in a
		// pipeline, Ctrl-C ends that program and signals this one at the
		// same moment, so the end may be the signal's doing and the
		// output a truncated one. The kernel had the signal pending here
		// before the other end of the pipe closed, and the runtime takes
		// it on the way back from the read that saw the end; but the
		// goroutines that hand it to the guard (os/signal's loop, then
		// catchSignals') may not have run yet. They get a bounded moment
		// to, before anything is committed.
		t := time.NewTimer(o.settle)
		select {
		case <-o.guard.caught:
			t.Stop()
			select {} // the handler aborts the file and calls exit
		case <-t.C:
		}
	}
	path, err := o.file.Commit()
	o.failed(err)
	return path, err
}

// close stops the signal handler and aborts an output not committed.
func (o *output) close() {
	if o.guard != nil {
		o.guard.stop()
	}
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

// dieBySignalBeforePrinting is for a command that prints what it read
// from standard input fed by another program (check, stats). In a
// pipeline, Ctrl-C ends that program and signals this one at the same
// moment, so the end of the input may be the signal's doing; the
// runtime may hand the signal over only after the read that saw the end
// (see output.commit). It catches the interrupt, terminate and hang-up
// signals from now on and ends the process by the signal itself as soon
// as one comes, as it would without being caught; the function it
// returns, called before printing, gives a signal on its way
// signalSettle to arrive, so that a log cut short is never reported.
func dieBySignalBeforePrinting() (settle func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	caught := make(chan struct{})
	go func() {
		sig := <-sigs
		close(caught)
		signal.Reset(sig)
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(sig) == nil {
			time.Sleep(time.Second) // the signal's own action ends the process
		}
		exit(signalExit(sig)) // where a process cannot signal itself
	}()
	return func() {
		t := time.NewTimer(signalSettle)
		defer t.Stop()
		select {
		case <-caught:
			select {} // the signal ends the process
		case <-t.C:
		}
	}
}

// signalGuard removes an output's temporary file and ends the process when
// an interrupt, terminate or hang-up signal arrives before stop is called.
type signalGuard struct {
	mu     sync.Mutex
	file   *convert.AtomicFile // nil until created
	stop   func()
	caught chan struct{} // closed when a signal arrived
}

// catchSignals starts the guard of target; untouched says what became of
// it when a signal stops the command before it is committed.
func catchSignals(cmd, target, untouched string, stderr io.Writer) *signalGuard {
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
			// Abort wins over a Commit that has not renamed: only one
			// that finished before the signal came leaves the file.
			if g.file != nil && g.file.Abort() {
				fmt.Fprintf(stderr, "rlog-ls %s: stopped by %v after writing %s\n", cmd, sig, target)
			} else {
				fmt.Fprintf(stderr, "rlog-ls %s: stopped by %v; %s %s\n", cmd, sig, target, untouched)
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
