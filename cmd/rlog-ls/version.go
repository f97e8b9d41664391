package main

import (
	"runtime/debug"
)

// stampedVersion is set by release builds:
//
//	go build -ldflags "-X main.stampedVersion=v1.2.3" ./cmd/rlog-ls
var stampedVersion string

// version says which rlog-ls this is: the stamped release version, else
// the module version (go install …@v1.2.3, or the pseudo-version go build
// derives from the checkout), else the VCS revision and its date.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionOf(stampedVersion, info)
}

func versionOf(stamped string, info *debug.BuildInfo) string {
	v, note := versionAndNote(stamped, info)
	if note != "" {
		return v + " (" + note + ")"
	}
	return v
}

// pageVersion is the version as a page made to be shared names its
// maker: without versionOf's note to whoever built the binary.
func pageVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	v, _ := versionAndNote(stampedVersion, info)
	return v
}

// versionAndNote is the version, and when it is only "devel", a note on
// why (for the developer who built it).
func versionAndNote(stamped string, info *debug.BuildInfo) (version, note string) {
	if stamped != "" {
		return stamped, ""
	}
	if info == nil {
		return "devel", "no build information"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v, ""
	}
	var rev, when string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel", "built without version control information; release builds set it with -ldflags \"-X main.stampedVersion=VERSION\""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	out := "devel " + rev
	switch {
	case when != "" && modified:
		out += " (" + when + ", with uncommitted changes)"
	case when != "":
		out += " (" + when + ")"
	case modified:
		out += " (with uncommitted changes)"
	}
	return out, ""
}
