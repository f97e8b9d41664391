package sessions

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Change is one call's change to one file: the session file's line where
// the call is, the tool, and the file changed (absolute when the session
// says in which folder it ran).
type Change struct {
	Line   int    `json:"line"`
	Tool   string `json:"tool"`
	Target string `json:"target"`
	CallID string `json:"call_id,omitempty"`
}

// fileTools are the tools that write the file their input names, and the
// input field that names it: Claude Code's, Gemini CLI's.
var fileTools = map[string][]string{
	"Write":        {"file_path"},
	"Edit":         {"file_path"},
	"MultiEdit":    {"file_path"},
	"NotebookEdit": {"notebook_path"},
	"write_file":   {"file_path", "path"},
	"replace":      {"file_path", "path"},
	"edit":         {"file_path", "path"},
}

// shellTools are the tools that run a shell command, and the input field
// that holds it (a string, or an argv array); workdirKeys name the folder
// the command ran in, when the call says.
var (
	shellTools  = map[string][]string{"Bash": {"command"}, "exec_command": {"cmd", "command"}, "shell": {"command", "cmd"}, "local_shell": {"command"}, "run_shell_command": {"command"}}
	workdirKeys = []string{"workdir", "cwd", "dir_path", "directory"}
)

// Targets are the files a call of tool with input changes, as the call
// writes them (relative or absolute), and the folder it ran in when it
// names one: a file tool's file (Write, Edit, MultiEdit, NotebookEdit,
// write_file, replace, edit), apply_patch's Add, Update, Delete and Move
// to files, and what a shell command writes (ShellTargets).
func Targets(tool string, input json.RawMessage) (targets []string, workdir string) {
	args := map[string]json.RawMessage{}
	var raw string
	if json.Unmarshal(input, &args) != nil {
		args = nil
		_ = json.Unmarshal(input, &raw)
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			var s string
			if v, ok := args[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
				return s
			}
		}
		return ""
	}
	workdir = str(workdirKeys...)
	if keys, ok := fileTools[tool]; ok {
		if p := str(keys...); p != "" {
			return []string{p}, workdir
		}
		return nil, ""
	}
	if tool == "apply_patch" {
		patch := raw
		if patch == "" {
			patch = str("input", "patch")
		}
		return PatchTargets(patch), workdir
	}
	if keys, ok := shellTools[tool]; ok {
		cmd := str(keys...)
		if cmd == "" {
			// An argv array: ["bash", "-lc", "script"] runs its last word.
			for _, k := range keys {
				var argv []string
				if v, ok := args[k]; ok && json.Unmarshal(v, &argv) == nil && len(argv) > 0 {
					if len(argv) >= 3 && (argv[1] == "-c" || argv[1] == "-lc") {
						cmd = argv[len(argv)-1]
					} else {
						cmd = strings.Join(argv, " ")
					}
					break
				}
			}
		}
		return ShellTargets(cmd), workdir
	}
	return nil, ""
}

// PatchTargets are the files an apply_patch patch adds, updates, deletes
// or moves to.
func PatchTargets(patch string) []string {
	var out []string
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, p); ok && strings.TrimSpace(f) != "" {
				out = append(out, strings.TrimSpace(f))
			}
		}
	}
	return out
}

// ShellTargets are the files a shell command writes, best effort: the
// targets of > and >> (with a file descriptor before them or &), tee's
// files, sed -i's files, the destination of cp, both sides of mv, rm's
// files, touch's files. Commands are split at ;, &, |, && and || and new
// lines; quotes are removed; words with $ or ` (not known before the
// command runs) and /dev/ files are left out.
func ShellTargets(cmd string) []string {
	var out []string
	add := func(w string) {
		if w == "" || strings.ContainsAny(w, "$`*?") || strings.HasPrefix(w, "/dev/") {
			return
		}
		out = append(out, w)
	}
	for _, words := range shellCommands(cmd) {
		// Redirections, anywhere in the command.
		var rest []string
		for i := 0; i < len(words); i++ {
			w := words[i]
			if op, target, ok := redirection(w); ok {
				if target == "" && i+1 < len(words) {
					i++
					target = words[i].text
				}
				if op {
					add(target)
				}
				continue
			}
			rest = append(rest, w.text)
		}
		// Skip leading assignments and the wrappers that run a command.
		for len(rest) > 0 && (strings.Contains(rest[0], "=") && !strings.HasPrefix(rest[0], "-") || rest[0] == "sudo" || rest[0] == "command" || rest[0] == "env") {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			continue
		}
		name, args := filepath.Base(rest[0]), operands(rest[1:])
		switch name {
		case "tee", "rm", "touch", "truncate", "shred", "unlink":
			for _, a := range args {
				add(a)
			}
		case "sed", "perl":
			if inPlace(rest[1:]) && len(args) > 1 {
				for _, a := range args[1:] { // the first operand is the script
					add(a)
				}
			}
		case "mv":
			for _, a := range args {
				add(a)
			}
		case "cp", "install", "ln":
			if len(args) >= 2 {
				add(args[len(args)-1])
			}
		}
	}
	return out
}

// word is a shell word: its text without quotes, and whether any of it was
// quoted (a quoted > is not a redirection).
type word struct {
	text   string
	quoted bool
}

// redirection reads w as an output redirection (>, >>, 2>, &>, >|, with
// its target joined or next): op is false for one that only duplicates a
// descriptor (2>&1) or reads (<).
func redirection(w word) (op bool, target string, ok bool) {
	if w.quoted {
		return false, "", false
	}
	s := strings.TrimLeft(w.text, "0123456789")
	s = strings.TrimPrefix(s, "&")
	if !strings.HasPrefix(s, ">") {
		if strings.HasPrefix(w.text, "<") {
			t := strings.TrimLeft(w.text, "<")
			return false, t, true
		}
		return false, "", false
	}
	s = strings.TrimLeft(s, ">")
	s = strings.TrimPrefix(s, "|")
	if strings.HasPrefix(s, "&") { // >&2: a descriptor
		return false, "-", true
	}
	return true, s, true
}

// operands are a command's words that are not options (after --, all).
func operands(args []string) []string {
	var out []string
	dash := false
	for _, a := range args {
		if !dash && a == "--" {
			dash = true
			continue
		}
		if !dash && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// inPlace reports whether sed's or perl's options edit files in place.
func inPlace(args []string) bool {
	for _, a := range args {
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") {
			return true
		}
	}
	return false
}

// shellCommands splits a command line into simple commands, each a list
// of words, as far as a reader without a shell can.
func shellCommands(s string) [][]word {
	var cmds [][]word
	var cur []word
	var w strings.Builder
	inWord, quoted := false, false
	flush := func() {
		if inWord {
			cur = append(cur, word{w.String(), quoted})
		}
		w.Reset()
		inWord, quoted = false, false
	}
	end := func() {
		flush()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			inWord, quoted = true, true
			i += j + 1
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				w.WriteByte(s[j])
				j++
			}
			inWord, quoted = true, true
			i = j
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
				inWord = true
			}
		case c == ' ' || c == '\t':
			flush()
		case c == ';' || c == '\n' || c == '|' || c == '(' || c == ')':
			end()
		case c == '&':
			// &> and &>> redirect; & and && end a command.
			if i+1 < len(s) && s[i+1] == '>' {
				w.WriteByte(c)
				inWord = true
			} else if inWord && strings.HasSuffix(w.String(), ">") {
				w.WriteByte(c) // 2>&1
			} else {
				end()
			}
		case c == '>':
			// A redirection starts a word of its own (a>b is a > b).
			if inWord && strings.TrimLeft(w.String(), "0123456789&") != "" && !strings.HasSuffix(w.String(), ">") {
				flush()
			}
			w.WriteByte(c)
			inWord = true
		default:
			if inWord && !quoted && strings.HasSuffix(w.String(), ">") && c != '>' && c != '|' && c != '&' {
				// The target right after the operator, as its own word.
				op := w.String()
				w.Reset()
				cur = append(cur, word{op, false})
				inWord = false
			}
			w.WriteByte(c)
			inWord = true
		}
	}
	end()
	return cmds
}

// resolve is p against base when p is relative and base is known.
func resolve(base, p string) string {
	if p == "" || filepath.IsAbs(p) || base == "" {
		return p
	}
	if strings.HasPrefix(p, "~/") {
		return p
	}
	return filepath.Join(base, p)
}
