package convert

import (
	"path/filepath"
	"strings"

	"github.com/rlog-ls/rlog-ls/convert/sdkjsonl"
)

// Subagents lists the files of the sub-agents the session file at path
// started, in the order they started, each with the call that started it,
// the sub-agent's id (its tid=) and its type where the files say: its
// format's Subagents (FormatInfo). A format that keeps its sub-agents in
// the session's own file, or has none, lists none.
func Subagents(path string) ([]Link, error) {
	if _, _, ok := sdkjsonl.SubFile(path); ok {
		return sdkjsonl.Subagents(path)
	}
	return DetectedFile(path).Subagents()
}

// Subagents is Subagents of the file d looked at.
func (d Detected) Subagents() ([]Link, error) {
	if _, _, ok := sdkjsonl.SubFile(d.Path); ok {
		return sdkjsonl.Subagents(d.Path)
	}
	fi, err := d.links()
	if err != nil || fi.Subagents == nil {
		return nil, err
	}
	return fi.Subagents(d.Path)
}

// ParentOf is the file of the session that started the sub-agent whose
// file is at path, with the call that started it; ok is false for a
// session no other started (or whose parent's file is not there): its
// format's ParentOf (FormatInfo), or for a file named as an autopilot
// sub-agent's (NAME.sub-ID.jsonl, whose first line no format reads), its
// session's file by name.
func ParentOf(path string) (Link, bool, error) {
	if _, _, ok := sdkjsonl.SubFile(path); ok {
		return sdkjsonl.ParentOf(path)
	}
	return DetectedFile(path).ParentOf()
}

// ParentOf is ParentOf of the file d looked at.
func (d Detected) ParentOf() (Link, bool, error) {
	if _, _, ok := sdkjsonl.SubFile(d.Path); ok {
		return sdkjsonl.ParentOf(d.Path)
	}
	fi, err := d.links()
	if err != nil || fi.ParentOf == nil {
		return Link{}, false, err
	}
	return fi.ParentOf(d.Path)
}

// links is the format of the file d looked at, for its links.
func (d Detected) links() (FormatInfo, error) {
	if d.Err != nil {
		return FormatInfo{}, d.Err
	}
	fi, _ := Lookup(d.Format)
	return fi, nil
}

// CompanionNames are the files that may hold the full record of the rlog
// log at rlogPath, in the order they are preferred: NAME.jsonl, then
// NAME.json, for NAME.rlog; for NAME.converted.rlog (the name convert
// gives the rlog it writes), those of NAME.converted and then of NAME.
func CompanionNames(rlogPath string) []string {
	base := strings.TrimSuffix(rlogPath, filepath.Ext(rlogPath))
	bases := []string{base}
	fi, _ := Lookup(Rlog)
	if b, ok := strings.CutSuffix(rlogPath, fi.Extension); ok && b != "" && !strings.HasSuffix(b, string(filepath.Separator)) {
		bases = append(bases, b)
	}
	var out []string
	for _, base := range bases {
		out = append(out, base+".jsonl", base+".json")
	}
	return out
}

// The rlog entry's Subagents asks the table for its companion's format,
// which the table's own initialisation cannot refer to.
func init() {
	for i := range formats {
		if formats[i].Name == Rlog {
			formats[i].Subagents = rlogSubagents
		}
	}
}

// rlogSubagents are the sub-agent files of an rlog log: the autopilot's
// beside it (NAME.sub-ID.jsonl) and those of the session its companion
// holds (a Claude Code transcript's subagents/), whose ids its x: lines
// carry.
func rlogSubagents(path string) ([]Link, error) {
	out, err := sdkjsonl.Subagents(path)
	if err != nil {
		return nil, err
	}
	for _, c := range CompanionNames(path) {
		fi, err := DetectedFile(c).links()
		if err != nil {
			continue
		}
		if fi.Name == Rlog || fi.Subagents == nil {
			break
		}
		more, _ := fi.Subagents(c)
		for _, l := range more {
			if !containsPath(out, l.Path) {
				out = append(out, l)
			}
		}
		break
	}
	return out, nil
}

func containsPath(links []Link, path string) bool {
	for _, l := range links {
		if l.Path == path {
			return true
		}
	}
	return false
}
