package sandbox

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Available says whether Run can make a sandbox here: new network and
// mount namespaces need root.
func Available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: new network and mount namespaces need root (unshare -n)", ErrUnavailable)
	}
	return nil
}

// childAttr starts the child in new network and mount namespaces. With
// CLONE_NEWNS among the unshare flags, the runtime also makes every mount
// private in the child, so the tmpfs it mounts on Root stays its own. The
// child is also the first process of a new PID namespace: when it exits,
// the kernel kills whatever it started that is still running (a CLI's
// background task), and it dies with this process.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:   syscall.CLONE_NEWPID,
		Unshareflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		Pdeathsig:    syscall.SIGKILL,
	}
}

// enter prepares the child: the loopback interface up (what `ip link set
// lo up` does), no interface but it, a private tmpfs on Root, and the PID
// namespace's own /proc.
func enter() error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		return err
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("not a private network: interface %s is here", ifc.Name)
		}
	}
	if err := os.MkdirAll(Root, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", Root, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("mounting a tmpfs on %s: %w", Root, err)
	}
	// /proc of the new PID namespace, so that process ids read there are
	// the ones the job's children have.
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// ifreqFlags is struct ifreq with the flags member of its union.
type ifreqFlags struct {
	name  [syscall.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var req ifreqFlags
	copy(req.name[:], "lo")
	if err := ioctl(fd, syscall.SIOCGIFFLAGS, &req); err != nil {
		return err
	}
	req.flags |= syscall.IFF_UP
	return ioctl(fd, syscall.SIOCSIFFLAGS, &req)
}

func ioctl(fd int, op uintptr, req *ifreqFlags) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), op, uintptr(unsafe.Pointer(req))); errno != 0 {
		return errno
	}
	return nil
}
