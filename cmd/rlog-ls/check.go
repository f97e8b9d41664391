package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/companion"
	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// jsonFinding is one element of `check --format json`. Lines and columns
// are 1-based and columns count characters; the end is exclusive.
type jsonFinding struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
}

type checkedFile struct {
	path     string
	findings []jsonFinding
	err      error
}

const checkUsage = "rlog-ls check [--format text|json|github] [--min-severity LEVEL] [--disable CODE,...] [--severity CODE=LEVEL,...] [--cpuprofile FILE] PATH..."

const checkAbout = `Check .rlog files, and the .rlog files in folders (recursively), with the rules of
the reference rlog/1 validator and rlog-ls's own; docs/diagnostics.md explains
every code. ATIF (*.json, *.atif.jsonl) and REPLAY (REPLAY.jsonl,
*.replay.jsonl) files named explicitly are checked with their formats' validators.

Findings are printed file by file, in line order: FILE:LINE:COL: SEVERITY CODE:
MESSAGE (text), one JSON array (json), or GitHub Actions workflow commands that
annotate the lines (github).

The last line counts the files checked and the findings; a file that could
not be checked (missing, unreadable, or of a format with no validator, such as
a Claude Code transcript) is counted apart, with its reason above it.

Exit status: 0 when no finding is an error, 1 when one is (a credential, S001,
is an error unless --severity says otherwise), 2 for usage and I/O problems,
a file that could not be checked, and a folder with no .rlog file.`

func check(args []string, stdin io.Reader, stdout, stderr io.Writer) (exit int) {
	cmd := newCommand("check", checkUsage, checkAbout)
	fl := cmd.fl
	opts := addFindingFlags(fl, "output `format`: text, json or github")
	cpuprofile := fl.String("cpuprofile", "", "write a CPU profile to this new `file` (to report a slow file); never overwrites")
	paths, status, done := cmd.parse(args, stdout, stderr)
	if done {
		return status
	}
	format, min, cfg, ok := opts.resolve(cmd, stderr)
	if !ok {
		return 2
	}
	if len(paths) == 0 {
		cmd.fail(stderr, "no files given (try: rlog-ls check session.rlog, or a folder)")
		return 2
	}
	defer streamingGC()()
	if *cpuprofile != "" {
		stop, err := startCPUProfile(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: --cpuprofile: %v\n", err)
			return 2
		}
		defer func() {
			if err := stop(); err != nil {
				fmt.Fprintf(stderr, "rlog-ls check: --cpuprofile: %v\n", err)
				exit = 2
			}
		}()
	}

	files, ioFailed := collect("check", paths, stderr)
	notChecked := 0 // files named that could not be checked
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil && !isStdin(p) {
			notChecked++ // missing or unreadable
		}
	}
	read, settle, ok := readInputs("check", files, stdin, stderr)
	if !ok {
		return 2
	}
	results := checkAll(files, cfg, read)
	settle()
	status = 0
	if ioFailed {
		status = 2
	}
	counts := map[string]int{}
	var all []jsonFinding
	failedResults := 0
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %s\n", describeIOError(r.err))
			status = 2
			failedResults++
			continue
		}
		for _, f := range r.findings {
			sev, _ := analysis.ParseSeverity(f.Severity)
			if sev == analysis.Error && status == 0 {
				status = 1
			}
			if sev > min {
				continue
			}
			counts[f.Severity]++
			all = append(all, f)
		}
	}
	if format == "json" {
		if err := writeCheckJSON(stdout, all); err != nil {
			fmt.Fprintf(stderr, "rlog-ls check: %v\n", err)
			return 2
		}
		return status
	}
	// The findings and the last line through a buffer: a write each 64 KB,
	// not a write a finding (nothing goes to stderr in between).
	out := bufio.NewWriterSize(stdout, 64<<10)
	var line []byte
	for i := range all {
		line = appendFinding(line[:0], format, &all[i])
		out.Write(line)
	}
	// Honest about the files that were not checked (their reasons are on
	// stderr): a transcript with no validator is not "1 file checked".
	checked := plural(len(results)-failedResults, "file") + " checked"
	if notChecked += failedResults; notChecked > 0 {
		checked += fmt.Sprintf(", %d not checked (see above)", notChecked)
	}
	fmt.Fprintf(out, "%s: %s\n", checked, summary(counts))
	out.Flush()
	return status
}

// findingFlags are the flags check and watch share: which findings are
// reported, and in which format.
type findingFlags struct {
	format, minSeverity *string
	codeFlags
}

func addFindingFlags(fl *flag.FlagSet, formatUsage string) *findingFlags {
	o := &findingFlags{}
	o.format = fl.String("format", "text", formatUsage)
	o.minSeverity = fl.String("min-severity", "hint", "lowest `level` to report: error, warning, info or hint")
	o.codeFlags.add(fl)
	return o
}

// codeFlags are the flags that configure the codes, as rlog.disabledCodes
// and rlog.severity do in the editor: check, watch and report take them.
type codeFlags struct {
	disable    *string
	severities listFlag
}

func (o *codeFlags) add(fl *flag.FlagSet) {
	o.disable = fl.String("disable", "", "comma-separated `codes` not to report (e.g. W003,I004)")
	fl.Var(&o.severities, "severity", "report a code with another severity, `CODE=LEVEL` (e.g. S001=warning); repeat it or separate with commas")
}

// config checks the flags' values and makes the configuration they say;
// on a mistake it tells the user and returns false.
func (o *codeFlags) config(cmd *command, stderr io.Writer) (analysis.Config, bool) {
	cfg, unknown := disableCodes(strings.Split(*o.disable, ","))
	if len(unknown) > 0 {
		cmd.fail(stderr, "unknown code(s) in --disable: %s (see docs/diagnostics.md)", strings.Join(unknown, ", "))
		return cfg, false
	}
	cfg, problems := severityConfig(cfg, o.severities)
	if len(problems) > 0 {
		cmd.fail(stderr, "--severity: %s", strings.Join(problems, "; "))
		return cfg, false
	}
	return cfg, true
}

// resolve checks the flags' values; on a mistake it tells the user and
// returns false.
func (o *findingFlags) resolve(cmd *command, stderr io.Writer) (format string, min analysis.Severity, cfg analysis.Config, ok bool) {
	format = *o.format
	if format != "text" && format != "json" && format != "github" {
		cmd.fail(stderr, "--format must be text, json or github, not %q", format)
		return "", 0, cfg, false
	}
	if min, ok = analysis.ParseSeverity(*o.minSeverity); !ok {
		cmd.fail(stderr, "--min-severity must be error, warning, info or hint, not %q", *o.minSeverity)
		return "", 0, cfg, false
	}
	if cfg, ok = o.config(cmd, stderr); !ok {
		return "", 0, cfg, false
	}
	return format, min, cfg, true
}

// severityConfig applies --severity CODE=LEVEL values to cfg.
func severityConfig(cfg analysis.Config, specs []string) (analysis.Config, []string) {
	levels := map[string]string{}
	var problems []string
	for _, spec := range specs {
		code, level, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(code) == "" {
			problems = append(problems, fmt.Sprintf("%q is not CODE=LEVEL", spec))
			continue
		}
		levels[code] = level
	}
	cfg, more := cfg.SetSeverities(levels)
	return cfg, append(problems, more...)
}

// startCPUProfile profiles into memory and, when stopped, writes the
// profile to path: a new file, written atomically, never over anything
// that exists (the log being checked included) nor through a symbolic
// link. It refuses an existing path before any work starts.
func startCPUProfile(path string) (stop func() error, err error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("%s exists; name a new file", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s: no such folder", filepath.Dir(path))
	}
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		dir, name := filepath.Split(path)
		if dir == "" {
			dir = "."
		}
		_, err := convert.WriteFileAtomic(dir, name, buf.Bytes(), false)
		if errors.Is(err, convert.ErrExists) {
			return fmt.Errorf("%s exists; the profile was not written", path)
		}
		return err
	}, nil
}

// printFinding writes one finding as a line of text or github output
// (check's and watch's).
func printFinding(w io.Writer, format string, f jsonFinding) {
	var room [256]byte
	w.Write(appendFinding(room[:0], format, &f))
}

// appendFinding appends one finding as a line of text (FILE:LINE:COL:
// SEVERITY CODE: MESSAGE) or of github output (githubAnnotation's), its
// line break included: written by hand, where fmt's verbs and the
// Replacers' strings cost about 3,400 instructions a finding.
// FuzzFindingLines holds it to fmt and githubAnnotation.
func appendFinding(b []byte, format string, f *jsonFinding) []byte {
	if format == "github" {
		b = append(b, "::"...)
		b = append(b, githubLevel(f.Severity)...)
		b = append(b, " file="...)
		b = appendGithubEscaped(b, f.File, true)
		b = append(b, ",line="...)
		b = strconv.AppendInt(b, int64(f.Line), 10)
		b = append(b, ",col="...)
		b = strconv.AppendInt(b, int64(f.Column), 10)
		b = append(b, ",endLine="...)
		b = strconv.AppendInt(b, int64(f.EndLine), 10)
		b = append(b, ",endColumn="...)
		b = strconv.AppendInt(b, int64(f.EndColumn), 10)
		b = append(b, ",title="...)
		b = appendGithubEscaped(b, f.Code, true)
		b = append(b, "::"...)
		b = appendGithubEscaped(b, f.Message, false)
		return append(b, '\n')
	}
	b = append(b, f.File...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(f.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(f.Column), 10)
	b = append(b, ": "...)
	b = append(b, f.Severity...)
	b = append(b, ' ')
	b = append(b, f.Code...)
	b = append(b, ": "...)
	b = append(b, f.Message...)
	return append(b, '\n')
}

// githubLevel is a severity's level in GitHub's annotations: error,
// warning and notice (info and hint become notice).
func githubLevel(severity string) string {
	if severity != "error" && severity != "warning" {
		return "notice"
	}
	return severity
}

// githubEscaped are the bytes githubProperty escapes (githubData, all but
// : and ,).
var githubEscaped = [256]bool{'%': true, '\r': true, '\n': true, ':': true, ',': true}

// appendGithubEscaped appends s escaped as githubProperty (property) or
// githubData does it.
func appendGithubEscaped(b []byte, s string, property bool) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !githubEscaped[c] {
			continue
		}
		var esc string
		switch {
		case c == '%':
			esc = "%25"
		case c == '\r':
			esc = "%0D"
		case c == '\n':
			esc = "%0A"
		case c == ':' && property:
			esc = "%3A"
		case c == ',' && property:
			esc = "%2C"
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// githubData escapes a workflow command's message: % and line breaks
// would otherwise end or change the command.
func githubData(s string) string { return githubDataEscapes.Replace(s) }

// The escapes of githubData and githubProperty, made once: making a
// Replacer costs more than using it.
var (
	githubDataEscapes     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	githubPropertyEscapes = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// githubProperty escapes a workflow command's property value, where : and
// , also separate.
func githubProperty(s string) string { return githubPropertyEscapes.Replace(s) }

// collect expands folders into the *.rlog files under them; files named
// explicitly are checked whatever their extension (ATIF and REPLAY files
// with their own validators), and "-" (or /dev/stdin) is standard input,
// stdinName. A folder without any .rlog file is an error (a mistyped path
// in CI must not pass as "nothing to check").
func collect(cmd string, args []string, stderr io.Writer) ([]string, bool) {
	// stats takes the sessions of a folder in every format it reads too
	// (a Claude Code projects folder), each read as its rlog view.
	sessions := cmd == "stats"
	none := "no .rlog files"
	if sessions {
		none = "no .rlog files or sessions"
	}
	return collectFiles(cmd, args, stderr, true, none, func(p string, d fs.DirEntry) error {
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".rlog") {
			return errTake
		}
		if sessions {
			return pickSession(p, d)
		}
		return nil
	})
}

// pickSession is collectFiles' pick of the sessions in a folder that
// rlog-ls reads on its own in other formats than rlog (convert.SessionFile:
// not a sub-agent's transcript its session reads, nor a copy the agent
// migrated); a Claude Code session's own folders (subagents/,
// tool-results/) are passed over.
func pickSession(p string, d fs.DirEntry) error {
	if d.IsDir() {
		if d.Name() == "subagents" || d.Name() == "tool-results" {
			return filepath.SkipDir
		}
		return nil
	}
	if isSession(p) {
		return errTake
	}
	return nil
}

// errTake is what a pick function returns for a file it takes.
var errTake = errors.New("take")

// collectFiles expands the folders among args into the files under them
// that pick takes (it returns errTake for those, filepath.SkipDir for a
// folder to pass over); a file named explicitly is taken as it is, and,
// when stdinOK, "-" (or /dev/stdin) is standard input, stdinName. A folder
// where pick takes nothing is an error, whose message is none.
func collectFiles(cmd string, args []string, stderr io.Writer, stdinOK bool, none string, pick func(p string, d fs.DirEntry) error) ([]string, bool) {
	var out []string
	failed := false
	for _, arg := range args {
		if stdinOK && isStdin(arg) {
			out = append(out, stdinName)
			continue
		}
		info, err := os.Stat(arg)
		if err != nil {
			fmt.Fprintf(stderr, "rlog-ls %s: %s\n", cmd, describeIOError(err))
			failed = true
			continue
		}
		if !info.IsDir() {
			out = append(out, arg)
			continue
		}
		before := len(out)
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(stderr, "rlog-ls %s: %s\n", cmd, describeIOError(err))
				failed = true
				return nil
			}
			if p == arg {
				return nil
			}
			switch err := pick(p, d); err {
			case errTake:
				out = append(out, p)
				return nil
			default:
				return err
			}
		})
		if err != nil {
			failed = true
		}
		if len(out) == before {
			fmt.Fprintf(stderr, "rlog-ls %s: %s: %s in this folder\n", cmd, arg, none)
			failed = true
		}
	}
	return out, failed
}

// isSession reports whether the file at path, not rlog, is a session
// rlog-ls reads (.jsonl and .json files only: a folder's other files are
// not looked at).
func isSession(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	if ext != ".jsonl" && ext != ".json" || strings.HasSuffix(p, ".meta.json") {
		return false
	}
	_, ok := convert.SessionFile(p)
	return ok
}

// readInputs returns how command cmd (check, stats) opens its files: from
// disk, and standard input (named "-" or /dev/stdin, at most once).
func readInputs(cmd string, paths []string, stdin io.Reader, stderr io.Writer) (open func(string) (io.ReadCloser, error), settle func(), ok bool) {
	n := 0
	for _, p := range paths {
		if p == stdinName {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintf(stderr, "rlog-ls %s: standard input named more than once\n", cmd)
		return nil, nil, false
	}
	settle = func() {}
	if n == 1 && fedByAProgram(stdinName, stdin) {
		settle = dieBySignalBeforePrinting()
	}
	return func(p string) (io.ReadCloser, error) {
		if p == stdinName {
			return io.NopCloser(stdin), nil
		}
		return os.Open(p)
	}, settle, true
}

// checkAll checks files on every core and returns results in input order.
func checkAll(paths []string, cfg analysis.Config, open func(string) (io.ReadCloser, error)) []checkedFile {
	return eachFile(paths, func(path string) checkedFile {
		r := checkFile(path, cfg, open)
		inLineOrder(r.findings)
		return r
	})
}

// eachFile runs do on every path, on every core, and returns the results
// in the order of paths.
func eachFile[T any](paths []string, do func(path string) T) []T {
	results := make([]T, len(paths))
	// Workers take the next file themselves: handing files out from another
	// goroutine kept a core waiting for it between files.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(paths), 1)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(paths); i = int(next.Add(1)) - 1 {
				results[i] = do(paths[i])
			}
		})
	}
	wg.Wait()
	return results
}

// checkFile checks one file, or standard input. A log is read once, a
// window at a time (see logInput), unless it has a companion: joining the
// two needs the whole log.
func checkFile(path string, cfg analysis.Config, open func(string) (io.ReadCloser, error)) checkedFile {
	in, closer, err := openLog(path, open)
	if err != nil {
		return checkedFile{path: path, err: err}
	}
	defer closer.Close()
	// A regular file's name and head say its format (read apart from the
	// log); what cannot be read twice (standard input, a named pipe) is
	// told by its content.
	byContent := in.reopen == nil
	if !byContent {
		if r, ok := checkOtherFormat(path, nil, cfg); ok {
			return r
		}
	}
	if f, ok, err := in.binary(cfg); err != nil {
		return checkedFile{path: path, err: err}
	} else if ok {
		return checkedFile{path: path, findings: []jsonFinding{binaryFinding(path, f)}}
	}
	whole := false
	if byContent {
		if whole, err = in.mayBeJSON(); err != nil {
			return checkedFile{path: path, err: err}
		}
	} else if _, ok := companion.Locate(path); ok && !in.alone {
		whole = true
	}
	if !whole {
		sc := analysis.NewStreamChecker(cfg, -1, func(t *grammar.Tree, f analysis.Finding) jsonFinding { return toJSONFinding(path, t, f) })
		if err := in.checkWindows(sc); err != nil {
			return checkedFile{path: path, err: err}
		}
		found, _ := sc.End()
		return checkedFile{path: path, findings: found}
	}
	src, err := in.all()
	if err != nil {
		return checkedFile{path: path, err: err}
	}
	return checkWhole(path, src, byContent, cfg)
}

// checkWhole checks a log read whole (src; path names it, or is stdinName):
// a log with a companion, standard input that may be JSON, and the
// reference the streaming path is tested against. byContent says the
// format is told by the content (standard input, a named pipe), not by
// the name.
func checkWhole(path string, src []byte, byContent bool, cfg analysis.Config) checkedFile {
	if byContent {
		if r, ok := checkOtherFormat(path, src, cfg); ok {
			return r
		}
	}
	tree := grammar.Parse(src)
	r := checkedFile{path: path}
	found := analysis.Check(tree, cfg)
	if !byContent {
		// Where the log and its companion (NAME.jsonl or NAME.json) disagree.
		if p, ok := companion.Load(path, tree); ok {
			for _, f := range companion.Filter(p.Findings(), cfg) {
				found = append(found, f.Finding)
			}
		}
	}
	for _, f := range found {
		r.findings = append(r.findings, toJSONFinding(path, tree, f))
	}
	return r
}

// binaryFinding is the one finding of a binary file (E007, from
// analysis.CheckBinary), at its start: not one per line of garbage.
func binaryFinding(path string, f analysis.Finding) jsonFinding {
	return jsonFinding{File: path, Line: 1, Column: 1, EndLine: 1, EndColumn: 1,
		Severity: f.Severity.String(), Code: string(f.Code), Message: f.Message}
}

// toJSONFinding places a finding of the file at path for the output.
func toJSONFinding(path string, tree *grammar.Tree, f analysis.Finding) jsonFinding {
	sl, sc := tree.LineColumn(f.Span.Start)
	el, ec := tree.LineColumn(f.Span.End)
	return jsonFinding{
		File: path, Line: sl, Column: sc, EndLine: el, EndColumn: ec,
		Severity: f.Severity.String(), Code: string(f.Code), Message: f.Message,
	}
}

// inLineOrder sorts a file's findings by line and column; findings at the
// same place keep their order.
func inLineOrder(fs []jsonFinding) {
	slices.SortStableFunc(fs, func(a, b jsonFinding) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

func describeIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return pe.Path + ": no such file or folder"
		case errors.Is(err, fs.ErrPermission):
			return pe.Path + ": permission denied"
		}
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

func summary(counts map[string]int) string {
	return fmt.Sprintf("%s, %s, %d info, %s",
		plural(counts["error"], "error"), plural(counts["warning"], "warning"), counts["info"], plural(counts["hint"], "hint"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// disableCodes is analysis.DisableCodes that also takes the codes of the
// formats' validators (ATIF002, or ATIF for all of them).
func disableCodes(codes []string) (analysis.Config, []string) {
	var rlogCodes, validator []string
	for _, c := range codes {
		if vc := convert.ValidatorCodes(c); vc != nil {
			validator = append(validator, vc...)
		} else {
			rlogCodes = append(rlogCodes, c)
		}
	}
	cfg, unknown := analysis.DisableCodes(rlogCodes)
	for _, c := range validator {
		cfg.Disabled[c] = true
	}
	return cfg, unknown
}

// checkOtherFormat checks a file (or src, standard input read whole) that
// is not rlog with its format's
// validator (ATIF, ATIF-JSONL, REPLAY), each finding at its line and
// column; a file of a format with no validator, or JSON of no known
// format, is refused with one line. ok is false for rlog and other text,
// which the rlog rules check.
func checkOtherFormat(path string, src []byte, cfg analysis.Config) (checkedFile, bool) {
	var h *convert.Head
	var err error
	if src != nil {
		h = convert.HeadOf("", src)
	} else if h, err = convert.ReadHead(path); err != nil {
		return checkedFile{path: path, err: err}, true
	}
	if !h.IsJSON() && !h.JSONArray {
		return checkedFile{}, false
	}
	format, err := convert.DetectHead(h)
	switch fi, _ := convert.Lookup(format); {
	case err != nil:
		return checkedFile{path: path, err: fmt.Errorf("%v; check reads rlog, ATIF, ATIF-JSONL and REPLAY files", err)}, true
	case format == convert.Rlog:
		return checkedFile{}, false
	case fi.Validate == nil && fi.CanRead() && src == nil:
		// Checked as its rlog view (see openLog).
		return checkedFile{}, false
	case fi.Validate == nil:
		return checkedFile{path: path, err: fmt.Errorf("%s is %s, which rlog-ls has no validator for (convert it to rlog to check it: rlog-ls convert --to rlog %s)", path, fi.Description, path)}, true
	}
	var in io.Reader = bytes.NewReader(src)
	if src == nil {
		f, err := os.Open(path)
		if err != nil {
			return checkedFile{path: path, err: err}, true
		}
		defer f.Close()
		in = f
	}
	r := checkedFile{path: path}
	err = convert.Validate(format, in, func(v convert.Finding) {
		if cfg.Disabled[v.Code] {
			return
		}
		msg := v.Message
		if v.Path != "" {
			msg = v.Path + ": " + msg
		}
		line, col := max(v.Line, 1), max(v.Col, 1)
		r.findings = append(r.findings, jsonFinding{File: path, Line: line, Column: col,
			EndLine: max(v.EndLine, line), EndColumn: max(v.EndCol, col), Severity: "error", Code: v.Code, Message: msg})
	})
	if err != nil {
		return checkedFile{path: path, err: err}, true
	}
	return r, true
}
