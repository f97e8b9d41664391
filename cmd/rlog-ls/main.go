// Command rlog-ls is the rlog/1 language server and its command-line tools.
//
//	rlog-ls [serve] [--stdio]     speak LSP on stdin/stdout
//	rlog-ls check PATH...         report findings (for CI and scripts)
//	rlog-ls convert ...           convert between rlog and trajectory formats
//	rlog-ls redact FILE           write a copy with credentials redacted
//	rlog-ls version
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `rlog-ls: the rlog/1 language server and tools

Usage:
  rlog-ls [serve] [--stdio] [--log-level LEVEL] [--log-file PATH] [--trace]
      Speak the Language Server Protocol on stdin/stdout (what editors run).
  rlog-ls check [--format text|json] [--min-severity error|warning|info|hint]
                [--disable CODE,...] [--cpuprofile FILE] PATH...
      Check .rlog files, and folders recursively. Exit 1 if there is an error.
      ATIF (*.json, *.atif.jsonl) and REPLAY (REPLAY.jsonl, *.replay.jsonl)
      files named explicitly are checked with their formats' validators.
  rlog-ls convert [--from FORMAT] --to FORMAT INPUT [-o OUTPUT|-] [--force]
                  [--report text|json] [--atif-version 1.5|1.6|1.7] [--repo-sha SHA]
      Convert between rlog and the trajectory formats: rlog, claude,
      sdk-jsonl (read), trajectory, atif, atif-jsonl, replay, prophet,
      mini-swe (read). The output goes beside the input unless -o is given,
      never over an existing file without --force; the loss report goes to
      stderr.
  rlog-ls redact [-o OUTPUT|-] [--force] FILE
      Write a copy with every credential-like value (S001: API keys, tokens,
      private keys, passwords) replaced by [redacted:kind], beside the input
      as NAME.redacted.EXT unless -o is given, never over an existing file
      without --force.
  rlog-ls version
      Print the version.

Documentation: https://github.com/rlog-ls/rlog-ls (docs/diagnostics.md for every code).
`

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stdin, stdout, stderr)
	case "check":
		return check(args, stdout, stderr)
	case "convert":
		return convertCmd(args, stdout, stderr)
	case "redact":
		return redactCmd(args, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "rlog-ls", version())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "rlog-ls: unknown command %q\n\n%s", cmd, usage)
	return 2
}

// parseOneInput parses args with fl, allowing flags after the input
// (convert --to atif in.rlog -o out.json), and returns the one input file.
// On a problem it has told the user and returns false.
func parseOneInput(fl *flag.FlagSet, args []string, usage string, stderr io.Writer) (string, bool) {
	var inputs []string
	for rest := args; ; {
		if err := fl.Parse(rest); err != nil {
			return "", false
		}
		if fl.NArg() == 0 {
			break
		}
		inputs = append(inputs, fl.Arg(0))
		rest = fl.Args()[1:]
	}
	switch {
	case len(inputs) == 0:
		fmt.Fprintf(stderr, "rlog-ls %s: no input file (%s)\n", fl.Name(), usage)
		return "", false
	case len(inputs) > 1:
		fmt.Fprintf(stderr, "rlog-ls %s: one input file at a time, got %d: %s\n", fl.Name(), len(inputs), strings.Join(inputs, " "))
		return "", false
	}
	return inputs[0], true
}

// version is the module version when installed with go install, or the VCS
// revision of a local build.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}
