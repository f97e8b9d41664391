package rlog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/lsp"
)

// The workspace symbol cache holds at most workspaceCacheBudget symbols
// over all files, keeps its count right as files change and go, and files
// past the budget are still searched (parsed again).
func TestWorkspaceCacheIsBounded(t *testing.T) {
	defer func(b int) { workspaceCacheBudget = b }(workspaceCacheBudget)
	workspaceCacheBudget = 25
	dir := t.TempDir()
	for i := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nid: s%d\n---\n", i)
		for k := range 9 {
			fmt.Fprintf(&b, "t!:Read id=c%d file_path=f%d.go → [running]\n", k, k)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.rlog", i)), []byte(b.String()), 0o644)
	}
	w := newWorkspaceIndex()
	check := func(wantFiles int) {
		t.Helper()
		total := 0
		for _, path := range w.walk(context.Background(), []string{dir}) {
			syms, ok := w.fileSymbols(path, lsp.UTF16)
			if !ok || len(syms) != 10 { // the session and 9 calls
				t.Fatalf("%s: %d symbols, %v", path, len(syms), ok)
			}
			total++
		}
		if total != wantFiles {
			t.Fatalf("%d files searched, want %d", total, wantFiles)
		}
		held := 0
		for _, c := range w.files {
			held += len(c.symbols)
		}
		if held != w.cached || w.cached > workspaceCacheBudget {
			t.Fatalf("cache holds %d symbols, counts %d, budget %d", held, w.cached, workspaceCacheBudget)
		}
	}
	check(6)
	check(6) // again, from the cache where it could keep them
	if len(w.files) != 2 {
		t.Errorf("%d files cached, want 2 (20 of 25 symbols)", len(w.files))
	}
	// Files that change or go are recounted.
	os.Remove(filepath.Join(dir, "f0.rlog"))
	os.Remove(filepath.Join(dir, "f1.rlog"))
	check(4)
	if w.cached != 20 {
		t.Errorf("after removals the cache counts %d symbols", w.cached)
	}
}

// fuzzyMatch's byte-at-a-time ASCII path answers as the rune-at-a-time
// match does, on names and queries mixing ASCII, spaces and runes whose
// lower case is ASCII (the Kelvin sign's is k, İ's is i).
func TestFuzzyMatchEqualsRunes(t *testing.T) {
	alphabet := []string{"a", "b", "k", "K", "\u212a", "i", "I", "İ", "é", "É", " ", "\t", "/", ".", "\xff"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 200000 {
		name, query := word(12), strings.ToLower(word(4))
		if got, want := fuzzyMatch(query, name), fuzzyMatchRunes(query, name); got != want {
			t.Fatalf("fuzzyMatch(%q, %q) = %v, fuzzyMatchRunes %v", query, name, got, want)
		}
	}
	if !fuzzyMatch("mkrls", "Bash make release") || !fuzzyMatch("k", "\u212a") || fuzzyMatch("ab", "ba") {
		t.Error("the examples")
	}
}

// BenchmarkFuzzyMatch is a workspace symbols query against the names of a
// heavy user's indexed calls (a million, as docs/performance.md's store
// has), stopped at the 1,000 results a query returns: one that matches
// early, one that nearly matches every name, one that matches none.
func BenchmarkFuzzyMatch(b *testing.B) {
	names := make([]string, 1_150_000)
	tools := []string{"Bash", "Read", "Write", "Edit", "Grep", "Glob", "WebFetch", "mcp__issues__issue_ready"}
	for i := range names {
		names[i] = tools[i%len(tools)] + " src/module/file" + strconv.Itoa(i) + ".go -run token value"
	}
	for _, q := range []string{"b", "edit parser", "zzz"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				n := 0
				for _, s := range names {
					if fuzzyMatch(q, s) {
						if n++; n == workspaceMaxResults {
							break
						}
					}
				}
			}
		})
	}
}
