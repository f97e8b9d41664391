package convert

// Subagents lists the files of the sub-agents the session file at path
// started, in the order they started, each with the call that started it,
// the sub-agent's id (its tid=) and its type where the files say: its
// format's Subagents (FormatInfo). A format that keeps its sub-agents in
// the session's own file, or has none, lists none.
func Subagents(path string) ([]Link, error) {
	fi, err := linksOf(path)
	if err != nil || fi.Subagents == nil {
		return nil, err
	}
	return fi.Subagents(path)
}

// ParentOf is the file of the session that started the sub-agent whose
// file is at path, with the call that started it; ok is false for a
// session no other started (or whose parent's file is not there): its
// format's ParentOf (FormatInfo).
func ParentOf(path string) (Link, bool, error) {
	fi, err := linksOf(path)
	if err != nil || fi.ParentOf == nil {
		return Link{}, false, err
	}
	return fi.ParentOf(path)
}

// linksOf is the format of the file at path, for its links.
func linksOf(path string) (FormatInfo, error) {
	f, err := DetectFile(path)
	if err != nil {
		return FormatInfo{}, err
	}
	fi, _ := Lookup(f)
	return fi, nil
}
