//go:build !linux

package tail

// networkFileSystem reports whether path is on a file system that does not
// notify of writes made elsewhere. It is known only on Linux; elsewhere use
// polling (watch --poll) for network shares.
func networkFileSystem(string) (string, bool) { return "", false }
