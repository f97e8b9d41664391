package corpus

// Find returns the corpus directory and true, or "" and false when it is
// absent; for fuzz seeds, which use the corpus when it is there and must
// not skip without it.
func Find() (string, bool) {
	dir, err := find()
	return dir, err == nil
}
