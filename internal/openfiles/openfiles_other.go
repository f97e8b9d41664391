//go:build !linux

package openfiles

import "io/fs"

// Supported reports whether Writers can see other processes' files here.
const Supported = false

// Writers lists the processes that hold a file open for writing where
// the system tells it; here it does not, and the list is empty.
func Writers(fs.FileInfo) ([]Process, error) { return nil, nil }
