package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A log named by a path that cannot be read twice (a named pipe, the
// /dev/fd/N of a shell's process substitution) is read once: report
// makes its page in one reading, and nothing reads the pipe again.
func TestLogsFromANamedPipe(t *testing.T) {
	src, err := os.ReadFile("../../testdata/logs/timed.rlog")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := writeFile(t, dir, "timed.rlog", string(src))
	for _, args := range [][]string{{"check"}, {"stats", "--format", "json"}, {"report", "-o", "-"}} {
		want, _, wantCode := runCLI(t, append(args, file)...)
		pipe := filepath.Join(dir, "pipe.rlog")
		if err := syscall.Mkfifo(pipe, 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
		go func() {
			if w, err := os.OpenFile(pipe, os.O_WRONLY, 0); err == nil {
				w.Write(src)
				w.Close()
			}
		}()
		var out, errb bytes.Buffer
		code := run(append(args, pipe), nil, &out, &errb)
		got := strings.ReplaceAll(out.String(), pipe, file)
		if args[0] == "report" {
			got, want = dataOf(t, got), dataOf(t, want)
		}
		if code != wantCode || got != want {
			t.Errorf("%s of a named pipe: %d %s\n got  %.500s\n want %.500s", args[0], code, errb.String(), got, want)
		}
		os.Remove(pipe)
	}
}

// dataOf is the data of a page, without its name for the log.
func dataOf(t *testing.T, page string) string {
	d := reportData(t, page)
	delete(d, "file")
	delete(d, "path")
	return strings.TrimSpace(jsonString(d))
}
