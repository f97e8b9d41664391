package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one subcommand's flags and help. Every subcommand parses its
// arguments through it, so they all take flags anywhere on the line
// (`check FILE --min-severity warning`), `--` before arguments that start
// with a dash, `-h`/`--help` (help on stdout, exit 0) and `--version`.
type command struct {
	fl *flag.FlagSet
	// usage is the synopsis: "rlog-ls check [flags] PATH...".
	usage string
	// about says what the command does, for --help.
	about   string
	version *bool
}

func newCommand(name, usage, about string) *command {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package's own messages and usage are replaced by ours: one
	// line for a mistake, the full help only when asked for.
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	c := &command{fl: fl, usage: usage, about: about}
	c.version = fl.Bool("version", false, "print the version and exit")
	return c
}

// parse reads args: flags wherever they are, the rest in order. When done
// is true the command has nothing left to do (it printed its help or the
// version, or a usage error) and exits with status.
func (c *command) parse(args []string, stdout, stderr io.Writer) (positional []string, status int, done bool) {
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a) // "-" is stdin, an argument
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		// A flag that takes a value takes the next argument, whatever it
		// looks like (-o -); the flag package reports a missing one.
		if f := c.fl.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	err := c.fl.Parse(flags)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.help(stdout)
		return nil, 0, true
	case err != nil:
		return nil, 2, c.fail(stderr, "%v", err)
	case *c.version:
		fmt.Fprintln(stdout, "rlog-ls", version())
		return nil, 0, true
	}
	return positional, 0, false
}

// noArgs is parse for the commands that take no arguments; why says what
// they do instead, for the message.
func (c *command) noArgs(args []string, why string, stdout, stderr io.Writer) (status int, done bool) {
	rest, status, done := c.parse(args, stdout, stderr)
	if !done && len(rest) > 0 {
		return 2, c.fail(stderr, "unexpected argument %q%s", rest[0], why)
	}
	return status, done
}

// oneInput is parse for the commands that take exactly one input file.
func (c *command) oneInput(args []string, stdout, stderr io.Writer) (input string, status int, done bool) {
	positional, status, done := c.parse(args, stdout, stderr)
	switch {
	case done:
		return "", status, true
	case len(positional) == 0:
		return "", 2, c.fail(stderr, "no input file")
	case len(positional) > 1:
		return "", 2, c.fail(stderr, "one input file at a time, got %d: %s", len(positional), strings.Join(positional, " "))
	}
	return positional[0], 0, false
}

// textOrJSON reports whether format, a --format that takes text or json,
// is one of them; for anything else it prints the mistake first.
func (c *command) textOrJSON(format string, stderr io.Writer) bool {
	if format == "text" || format == "json" {
		return true
	}
	c.fail(stderr, "--format must be text or json, not %q", format)
	return false
}

// fail prints a usage mistake as one line, pointing at --help, and
// returns true (done).
func (c *command) fail(stderr io.Writer, format string, a ...any) bool {
	fmt.Fprintf(stderr, "rlog-ls %s: %s (rlog-ls %s --help for more)\n", c.fl.Name(), fmt.Sprintf(format, a...), c.fl.Name())
	return true
}

// failure is the printer of a command's failures that are no usage
// mistakes: "rlog-ls NAME: MESSAGE" on one line; it returns exit status 2.
func (c *command) failure(stderr io.Writer) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, "rlog-ls %s: %s\n", c.fl.Name(), fmt.Sprintf(format, a...))
		return 2
	}
}

// printJSON writes v to stdout as indented JSON, what --format json prints
// for every command that has it; a failed write is said on stderr as the
// command's (rlog-ls NAME: ...) and answers false.
func printJSON(stdout, stderr io.Writer, command string, v any) bool {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "rlog-ls %s: %v\n", command, err)
		return false
	}
	return true
}

// help prints the synopsis, what the command does, and its flags.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", c.usage, strings.TrimSpace(c.about))
	c.fl.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		value, usage := flag.UnquoteUsage(f)
		if isBoolFlag(f) {
			value = ""
		}
		line := "  " + dash + f.Name
		if value != "" {
			line += " " + strings.ToUpper(value)
		}
		if def := f.DefValue; def != "" && def != "false" && !isBoolFlag(f) {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	})
	fmt.Fprintf(w, "  -h, --help\n      print this help and exit\n")
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// listFlag is a flag that may be given many times, each time with one
// value or a comma-separated list: --severity S001=error,W003=info.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*l = append(*l, item)
		}
	}
	return nil
}

// isTerminal reports whether stream (stdin, stdout or stderr) is an
// interactive terminal (a character device other than the null device):
// where nobody types LSP messages, and where progress can be shown.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}
