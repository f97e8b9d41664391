package sessions

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/convert/model"
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

// effect is what a call of a tool does to files.
type effect uint8

const (
	writesNone    effect = iota // it reads, searches, fetches, asks ...
	writesFile                  // it writes the file its keys name
	writesByShell               // it runs the shell command its keys hold (ShellTargets)
	writesByPatch               // it applies a patch (PatchTargets)
)

// tool is what the sessions know of a tool: the input fields that name
// what a call is about (a file, a pattern, a command, a URL), best first,
// and what it does to files.
type tool struct {
	keys   []string
	effect effect
}

// tools are the tools of Claude Code, Codex CLI and Gemini CLI that
// Targets and Target know; a tool not here changes no file, and what a
// call of it is about is the first of analysis.TargetKeys its input has.
var tools = map[string]tool{
	// Claude Code.
	"Write":        {[]string{"file_path"}, writesFile},
	"Edit":         {[]string{"file_path"}, writesFile},
	"MultiEdit":    {[]string{"file_path"}, writesFile},
	"NotebookEdit": {[]string{"notebook_path"}, writesFile},
	"Bash":         {[]string{"command"}, writesByShell},
	"Read":         {[]string{"file_path"}, writesNone},
	"NotebookRead": {[]string{"notebook_path"}, writesNone},
	"Glob":         {[]string{"pattern"}, writesNone},
	"Grep":         {[]string{"pattern"}, writesNone},
	"LS":           {[]string{"path"}, writesNone},
	"WebFetch":     {[]string{"url"}, writesNone},
	"WebSearch":    {[]string{"query"}, writesNone},
	"Task":         {[]string{"description", "subagent_type"}, writesNone},
	"Agent":        {[]string{"description", "subagent_type"}, writesNone},
	"BashOutput":   {[]string{"bash_id"}, writesNone},
	"KillShell":    {[]string{"shell_id"}, writesNone},
	"SlashCommand": {[]string{"command"}, writesNone},
	"Skill":        {[]string{"skill", "command"}, writesNone},
	// Codex CLI.
	"apply_patch":  {[]string{"input", "patch"}, writesByPatch},
	"exec_command": {[]string{"cmd", "command"}, writesByShell},
	"shell":        {[]string{"command", "cmd"}, writesByShell},
	"local_shell":  {[]string{"command"}, writesByShell},
	"view_image":   {[]string{"path"}, writesNone},
	"web_search":   {[]string{"query"}, writesNone},
	"write_stdin":  {[]string{"chars", "session_id"}, writesNone},
	"spawn_agent":  {[]string{"task_name", "message"}, writesNone},
	// Gemini CLI.
	"write_file":          {[]string{"file_path", "path"}, writesFile},
	"replace":             {[]string{"file_path", "path"}, writesFile},
	"edit":                {[]string{"file_path", "path"}, writesFile},
	"run_shell_command":   {[]string{"command"}, writesByShell},
	"read_file":           {[]string{"file_path", "absolute_path", "path"}, writesNone},
	"read_many_files":     {[]string{"paths", "include"}, writesNone},
	"list_directory":      {[]string{"dir_path", "path"}, writesNone},
	"glob":                {[]string{"pattern"}, writesNone},
	"search_file_content": {[]string{"pattern"}, writesNone},
	"grep_search":         {[]string{"pattern"}, writesNone},
	"web_fetch":           {[]string{"url", "prompt"}, writesNone},
	"google_web_search":   {[]string{"query"}, writesNone},
	"save_memory":         {[]string{"fact"}, writesNone},
	"invoke_agent":        {[]string{"agent_name"}, writesNone},
	"exit_plan_mode":      {[]string{"plan_path"}, writesNone},
}

// workdirKeys name the folder a command ran in, when the call says.
var workdirKeys = []string{"workdir", "cwd", "dir_path", "directory"}

// input is a call's input, decoded once: its fields when it is an
// object (views of its bytes: only the values asked for are decoded),
// else the string it is (apply_patch's free text).
type input struct {
	args model.Fields
	raw  string
}

func decodeInput(in json.RawMessage) input {
	var x input
	if args, err := model.ParseFieldsView(in); err == nil && args != nil {
		x.args = args
	} else if err != nil {
		_ = json.Unmarshal(in, &x.raw)
	}
	return x
}

// value is the value of key, if the input has it.
func (x input) value(key string) (json.RawMessage, bool) { return x.args.Get(key) }

// str is the first of keys whose value is a non-empty string.
func (x input) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := x.value(k); ok && len(v) > 0 && v[0] == '"' {
			if s := jsonString(v); s != "" {
				return s
			}
		}
	}
	return ""
}

// jsonString is the JSON string v decoded ("" when it is not one): what
// json.Unmarshal gives, without it for the usual string that has no
// escape, control character or invalid UTF-8 (most paths and commands).
func jsonString(v []byte) string {
	plain := len(v) >= 2 && v[len(v)-1] == '"'
	for i := 1; plain && i < len(v)-1; i++ {
		plain = v[i] >= 0x20 && v[i] != '\\' && v[i] != '"'
	}
	if plain && utf8.Valid(v) {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// command is the shell command the first of keys holds: a string, or an
// argv array (["bash", "-lc", "script"] runs its last word).
func (x input) command(keys []string) string {
	if cmd := x.str(keys...); cmd != "" {
		return cmd
	}
	for _, k := range keys {
		var argv []string
		if v, ok := x.value(k); ok && json.Unmarshal(v, &argv) == nil && len(argv) > 0 {
			if len(argv) >= 3 && (argv[1] == "-c" || argv[1] == "-lc") {
				return argv[len(argv)-1]
			}
			return strings.Join(argv, " ")
		}
	}
	return ""
}

// patch is apply_patch's patch: the input's text, or its field.
func (x input) patch(keys []string) string {
	if x.raw != "" {
		return x.raw
	}
	return x.str(keys...)
}

// Targets are the files a call of tool with input changes, as the call
// writes them (relative or absolute), and the folder it ran in when it
// names one: a file tool's file (Write, Edit, MultiEdit, NotebookEdit,
// write_file, replace, edit), apply_patch's Add, Update, Delete and Move
// to files, and what a shell command writes (ShellTargets).
func Targets(name string, in json.RawMessage) (targets []string, workdir string) {
	// Most calls are of tools that change no file (reads, searches): their
	// input is not decoded.
	if tools[name].effect == writesNone {
		return nil, ""
	}
	return decodeInput(in).targets(name)
}

func (x input) targets(name string) (targets []string, workdir string) {
	t := tools[name]
	if t.effect == writesNone {
		return nil, ""
	}
	workdir = x.str(workdirKeys...)
	switch t.effect {
	case writesFile:
		if p := x.str(t.keys...); p != "" {
			return []string{p}, workdir
		}
		return nil, ""
	case writesByPatch:
		return PatchTargets(x.patch(t.keys)), workdir
	default:
		return ShellTargets(x.command(t.keys)), workdir
	}
}

// Target is what a call of tool with input is about, for a reader to
// find it by (a workspace symbol's name after the tool): the file a file
// tool reads or writes, a search's pattern, a fetch's URL, a shell
// command's first line, the files a patch changes; for a tool not in
// tools the first of analysis.TargetKeys its input has. Runs of spaces
// are made one; it is cut at TitleChars; "" when the input names nothing.
func Target(name string, in json.RawMessage) string {
	return decodeInput(in).about(name)
}

// describeCall is Target and Targets of one call, its input decoded once.
func describeCall(name string, in json.RawMessage) (about string, targets []string, workdir string) {
	x := decodeInput(in)
	targets, workdir = x.targets(name)
	return x.about(name), targets, workdir
}

func (x input) about(name string) string {
	t, known := tools[name]
	var s string
	switch {
	case t.effect == writesByPatch:
		patch := x.patch(t.keys)
		if files := PatchTargets(patch); len(files) > 0 {
			s = strings.Join(files, " ")
		} else {
			s = patch
		}
	case t.effect == writesByShell:
		s = x.command(t.keys)
	case known:
		s = x.str(t.keys...)
		if s == "" {
			for _, k := range t.keys {
				// A list of paths (read_many_files).
				var list []string
				if v, ok := x.value(k); ok && json.Unmarshal(v, &list) == nil && len(list) > 0 {
					s = strings.Join(list, " ")
					break
				}
			}
		}
	}
	if s == "" {
		s = x.str(analysis.TargetKeys...)
	}
	if s == "" && x.args == nil {
		s = x.raw
	}
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return firstLine(strings.Join(strings.Fields(line), " "), TitleChars)
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
