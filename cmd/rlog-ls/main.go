// Command rlog-ls is the rlog/1 language server and its command-line tools.
//
//	rlog-ls [serve] [--stdio]     speak LSP on stdin/stdout
//	rlog-ls check PATH...         report findings (for CI and scripts)
//	rlog-ls stats PATH...         session statistics
//	rlog-ls sessions [PATH...]    list sessions, newest first
//	rlog-ls fix FILE              apply the editor's quick fixes
//	rlog-ls watch PATH...         report findings as logs grow
//	rlog-ls convert ...           convert between rlog and trajectory formats
//	rlog-ls export --otlp ...      sessions as OpenTelemetry traces
//	rlog-ls redact FILE           write a copy with credentials redacted
//	rlog-ls report FILE           write the session view, one HTML page
//	rlog-ls search PATTERN PATH...  search the full record of sessions
//	rlog-ls compare A B           two runs side by side
//	rlog-ls version
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

var usage = strings.NewReplacer("{{read}}", formatNames(false), "{{write}}", formatNames(true)).Replace(`rlog-ls: the rlog/1 language server and tools

Usage:
  rlog-ls [serve] [--stdio] [--log-level LEVEL] [--log-file PATH] [--trace]
      Speak the Language Server Protocol on stdin/stdout (what editors run).
  rlog-ls check [--format text|json|github] [--min-severity error|warning|info|hint]
                [--disable CODE,...] [--severity CODE=LEVEL,...] [--cpuprofile FILE] PATH...
      Check .rlog files, and folders recursively (- reads stdin). Exit 1 if
      there is an error (a credential, S001, is one), 2 if no .rlog file was
      found.
      JSON files named explicitly are checked with their format's validator
      (ATIF, ATIF-JSONL, REPLAY), whatever their name.
  rlog-ls stats [--format text|json] PATH...
      Session statistics: duration, time per phase, tokens (each message
      counted once), tool calls with errors and latency, subagents, APM.
      A folder gives one row per session and the totals (- reads stdin).
  rlog-ls sessions [--format text|json] [--touched FILE] [--index FILE] [PATH...]
      List sessions, newest first (with no PATH, this folder's: its logs and
      the agents' stores), from an index in the user's cache folder; with
      --touched, the calls that changed FILE as SESSIONFILE:LINE: tool: target.
  rlog-ls fix [--write | -o OUTPUT|-] [--force] [--renumber-steps] [--arrows]
              [--add-end] [--header] FILE|-
      Apply the editor's quick fixes (all of them unless some are named).
      Without --write or -o, print them as a unified diff. --write leaves a
      log alone while another process writes it, or if it changed meanwhile.
  rlog-ls watch [--format text|json|github] [--min-severity LEVEL] [--disable CODE,...]
                [--severity CODE=LEVEL,...] [--quiet DURATION] [--new] [--poll]
                [--poll-interval DURATION] PATH...
      Follow growing logs (files, and folders with new .rlog files) and print
      each new finding once, in check's formats, and a summary of each
      session when it ends (@end) or goes quiet. Ctrl-C stops it; the exit
      status is check's.
  rlog-ls convert [--from FORMAT] --to FORMAT INPUT|- [-o OUTPUT|-] [--force]
                  [--report text|json] [--atif-version 1.5|1.6|1.7] [--repo-sha SHA]
      Convert between rlog and the trajectory formats.
        reads:  {{read}}
        writes: {{write}}
      The output goes beside the input (stdout for stdin) unless -o is given,
      never over the input, never over an existing file without --force, and
      whole or not at all; the loss report goes to stderr.
  rlog-ls export --otlp [-o FILE|- [--force] | --endpoint URL [--protocol http/protobuf|http/json]]
                 [--include-content] [--max-attr BYTES] PATH...
      Export sessions (any format rlog-ls reads, folders too) as
      OpenTelemetry traces on the GenAI conventions: to a file of OTLP/JSON
      (one request a line), or sent to an OTLP/HTTP endpoint
      (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS and _PROTOCOL honoured).
      Message contents only with --include-content, redacted. docs/otel.md
      has the mapping.
  rlog-ls redact [-o OUTPUT|-] [--force] FILE|-
      Write a copy with every credential-like value (S001: API keys, tokens,
      private keys, passwords) replaced by [redacted:kind], beside the input
      as NAME.redacted.EXT (stdout for stdin) unless -o is given, never over
      the input, never over an existing file without --force.
  rlog-ls report [-o OUTPUT|-] [--force] [--link TEMPLATE] [--disable CODE,...]
                 [--severity CODE=LEVEL] FILE
      Write the session view of a log: one self-contained HTML page with the
      timeline of phases, tool calls and subagents, tokens over time, the
      tools' latencies and the findings, every item linked to its line;
      beside the input as NAME.report.html (stdout for stdin) unless -o is
      given, never over the input, never over an existing file without --force.
  rlog-ls search [-i] [-F] [--kind KIND,...] [--format text|json] PATTERN [PATH...]
      Search the full record of sessions (prompts, messages, thinking, tool
      inputs and outputs; an .rlog's companion, a transcript itself), one
      line per hit, FILE:LINE: KIND: EXCERPT, as grep -n. Exit 0 when
      something matched, 1 when nothing did, 2 on an error.
  rlog-ls compare [--format text|json] [--masked] A B
      Two runs side by side (any formats): aligned turn by turn and call by
      call (tool and target), the first point where they differ with both
      places, and both sessions' figures (stats') with the differences.
      --masked: the diff of the two rlog views with ids, times, tokens and
      costs masked. Exit 0 when they do the same, 1 when they differ.
  rlog-ls version
      Print the version.
  rlog-ls help [COMMAND]
      This help, or a command's (also COMMAND --help).

Flags go anywhere on the line; -- ends them. Every command takes --help and --version.
Documentation: https://github.com/rlog-ls/rlog-ls (docs/diagnostics.md for every code).
`)

// commands are the subcommands by name.
var commands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"serve":    serve,
	"check":    check,
	"stats":    statsCmd,
	"sessions": sessionsCmd,
	"fix":      fixCmd,
	"watch":    func(a []string, _ io.Reader, o, e io.Writer) int { return watchCmd(a, o, e) },
	"convert":  convertCmd,
	"export":   exportCmd,
	"redact":   redactCmd,
	"report":   reportCmd,
	"search":   searchCmd,
	"compare":  compareCmd,
	"version":  func(a []string, _ io.Reader, o, e io.Writer) int { return versionCmd(a, o, e) },
}

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return serve(nil, stdin, stdout, stderr)
	}
	switch first := args[0]; {
	case isHelpFlag(first):
		fmt.Fprint(stdout, usage)
		return 0
	case first == "help":
		// help --help is this help too, as COMMAND --help is the command's.
		if len(args) > 1 && !isHelpFlag(args[1]) {
			if cmd, ok := commands[args[1]]; ok {
				return cmd([]string{"--help"}, stdin, stdout, stderr)
			}
			fmt.Fprintf(stderr, "rlog-ls help: unknown command %q (one of %s)\n", args[1], commandNames())
			return 2
		}
		fmt.Fprint(stdout, usage)
		return 0
	case first == "-version" || first == "--version":
		fmt.Fprintln(stdout, "rlog-ls", version())
		return 0
	default:
		if strings.HasPrefix(first, "-") {
			// Server flags without the word serve, as editors pass them.
			return serve(args, stdin, stdout, stderr)
		}
		if cmd, ok := commands[first]; ok {
			return cmd(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "rlog-ls: unknown command %q (one of %s; rlog-ls --help for more)\n", args[0], commandNames())
	return 2
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// commandNames lists the commands in the order the usage shows them (a
// test holds the usage and the table to the same commands).
func commandNames() string {
	var names []string
	for _, line := range strings.Split(usage, "\n") {
		rest, ok := strings.CutPrefix(line, "  rlog-ls ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		name = strings.Trim(name, "[]")
		if _, known := commands[name]; known || name == "help" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

func versionCmd(args []string, stdout, stderr io.Writer) int {
	cmd := newCommand("version", "rlog-ls version", "Print the version: the release version when the build was stamped with one, else the module version, else the version control revision and its date.")
	if status, done := cmd.noArgs(args, "", stdout, stderr); done {
		return status
	}
	fmt.Fprintln(stdout, "rlog-ls", version())
	return 0
}
