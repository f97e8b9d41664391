package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// runOnTerminal starts bin with a pseudo-terminal as stdin, reads the
// first line it writes to stderr, then interrupts it as Ctrl-C would and
// checks that it exits.
func runOnTerminal(t *testing.T, bin string, args ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = slave
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stderr).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("nothing on stderr")
	}
	// Ctrl-C quits, as the note says.
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running after an interrupt")
	}
	return line
}

// openPTY opens a pseudo-terminal pair (Linux: /dev/ptmx).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		master.Close()
		t.Skipf("unlockpt: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		master.Close()
		t.Skipf("ptsname: %v", errno)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("open the terminal: %v", err)
	}
	if !strings.HasPrefix(slave.Name(), "/dev/pts/") {
		t.Fatal(slave.Name())
	}
	return master, slave
}
