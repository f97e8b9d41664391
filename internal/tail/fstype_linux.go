package tail

import "syscall"

// remoteFileSystems are the Linux file system magic numbers (statfs f_type)
// of network and FUSE file systems. Their clients deliver inotify events
// only for writes made through the same client, so a log written on
// another machine, or by the FUSE server, never notifies.
var remoteFileSystems = map[uint32]string{
	0x6969:     "NFS",
	0x517b:     "SMB",
	0xff534d42: "CIFS",
	0xfe534d42: "SMB2",
	0x65735546: "a FUSE mount",
	0x01021997: "9P",
	0x786f4256: "VirtualBox shared folders",
	0x00c36400: "CephFS",
	0x5346414f: "AFS",
	0x73757245: "Coda",
}

// networkFileSystem reports whether path is on a file system that does not
// notify of writes made elsewhere, and names it.
func networkFileSystem(path string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "", false
	}
	name, ok := remoteFileSystems[uint32(st.Type)]
	return name, ok
}
