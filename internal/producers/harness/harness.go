// Package harness is what the drivers of the agent CLIs (claudecode, codex,
// geminicli) share beyond the sandbox and the stand-in server: installing a
// pinned CLI with npm, laying out and copying files, replacing a fixtures
// folder whole, the inventory of what a CLI wrote, and the small text
// helpers their generated READMEs use. An agent's own package keeps what is
// its own: its environment, scenarios, checks and record vocabulary.
package harness

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// RequireEnv=1 (set by .ci/run) makes a missing CLI a failure of the gated
// tests instead of a skip.
const RequireEnv = "RLOG_REQUIRE_PRODUCERS"

// FixedUUID is a UUID (of version 4's layout) made from seed, the same on
// every run: the id a driver gives a CLI's session, so that recording
// again gives the same file names.
func FixedUUID(seed string) string {
	h := sha256.Sum256([]byte(seed))
	h[6] = h[6]&0x0f | 0x40 // version 4 layout
	h[8] = h[8]&0x3f | 0x80 // variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// WriteFiles lays out files (relative paths) under dir.
func WriteFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// CopyTree copies the regular files under src to dst, keeping the layout.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}

// ReplaceDir puts the folder fresh in the place of dest: the old one is
// moved aside first and removed only once the new one is in place.
func ReplaceDir(fresh, dest string) error {
	old := dest + ".old"
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	hadOld := true
	if err := os.Rename(dest, old); err != nil {
		if !os.IsNotExist(err) {
			return err
		}
		hadOld = false
	}
	if err := os.Rename(fresh, dest); err != nil {
		if hadOld {
			os.Rename(old, dest)
		}
		return err
	}
	return os.RemoveAll(old)
}

// IsFile says whether p is a regular file.
func IsFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// WriteJSON writes v indented, with a final line break.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadJSON reads the JSON file path into v.
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Excerpt is the opening of s, at most n bytes, on one line.
func Excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// ShellWords quotes args as a shell would need them, for reading.
func ShellWords(args []string) string {
	var out []string
	for _, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?()[]{}<>|&;#!~") {
			out = append(out, a)
			continue
		}
		out = append(out, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(out, " ")
}

// Sum is the sum of m's counts.
func Sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Counts is "N name, …", the largest first.
func Counts(m map[string]int) string {
	keys := SortedKeys(m)
	sort.SliceStable(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

// Plural is "1 thing" or "N things".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// SortedKeys are m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ModuleRoot is the folder holding go.mod, at or above the working
// directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the module (no go.mod above %s)", dir)
		}
		dir = parent
	}
}

// RunParallel calls f(0), …, f(n-1), at most parallel at once, and waits
// for them all (scenarios run in sandboxes of their own, so several at
// once are safe).
func RunParallel(parallel, n int, f func(i int)) {
	sem := make(chan struct{}, max(parallel, 1))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}

// ScanLines calls f with each line of the file at path and its number,
// from 1 (lines up to 64 MB: a session's line can hold a large tool
// output).
func ScanLines(path string, f func(n int, line []byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := f(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// ExitCode is the exit code of a command that ended with err (0 when
// nil), and a note for its stderr when it did not exit by itself: the
// error that kept it from running, or its kill when ctx ended first.
func ExitCode(ctx context.Context, err error, timeout time.Duration) (code int, note string) {
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		code, note = -1, err.Error()
	}
	if ctx.Err() != nil {
		note += fmt.Sprintf("\n(killed after %s)", timeout)
	}
	return code, note
}
