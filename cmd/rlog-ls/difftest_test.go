package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/corpus"
	"github.com/rlog-ls/rlog-ls/internal/difftest"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// The differential harness (internal/difftest) against this command: the
// server that `rlog-ls` serves and the findings of `rlog-ls check`, in
// process by default (the same code as the binary, over its stdin and
// stdout), or the built binary itself with -difftest.binary. See
// docs/reliability.md.
var (
	diffDuration = flag.Duration("difftest.duration", 0, "run random sessions for this long (a long run), e.g. 1h")
	diffSeed     = flag.Uint64("difftest.seed", 0, "the first seed of the random sessions (0: from the clock in a long run)")
	diffBinary   = flag.Bool("difftest.binary", false, "run the built binary (go build) over stdio instead of the server in process")
	diffReplay   = flag.String("difftest.replay", "", "replay this script (a file a failing run saved)")
	diffShrink   = flag.Duration("difftest.shrink", 3*time.Minute, "how long a failing run may take to shrink its script")
)

// diffOptions are the harness's options for this command, in process or
// with the built binary.
func diffOptions(t testing.TB) difftest.Options {
	if !*diffBinary {
		return difftest.Options{
			Serve: func(ctx context.Context, rwc io.ReadWriteCloser) int {
				return serve([]string{"--log-level", "error"}, rwc, rwc, io.Discard)
			},
			Check: func(text []byte, disabled []string) ([]difftest.Finding, error) {
				path, err := writeTemp(text)
				if err != nil {
					return nil, err
				}
				defer os.Remove(path)
				var out, errb bytes.Buffer
				args := []string{"check", "--format", "json", "--disable", strings.Join(disabled, ","), path}
				if code := run(args, strings.NewReader(""), &out, &errb); code == 2 {
					return nil, fmt.Errorf("check: %s", errb.String())
				}
				return decodeFindings(out.Bytes())
			},
		}
	}
	bin := builtBinary(t)
	return difftest.Options{
		Serve: func(ctx context.Context, rwc io.ReadWriteCloser) int {
			cmd := exec.Command(bin, "serve", "--log-level", "error")
			cmd.Stdin, cmd.Stdout = rwc, rwc
			if err := cmd.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); ok {
					return ee.ExitCode()
				}
				return 2
			}
			return 0
		},
		Check: func(text []byte, disabled []string) ([]difftest.Finding, error) {
			path, err := writeTemp(text)
			if err != nil {
				return nil, err
			}
			defer os.Remove(path)
			out, err := exec.Command(bin, "check", "--format", "json", "--disable", strings.Join(disabled, ","), path).Output()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() == 2) {
				return nil, fmt.Errorf("check: %v", err)
			}
			return decodeFindings(out)
		},
	}
}

func writeTemp(text []byte) (string, error) {
	f, err := os.CreateTemp("", "difftest-*.rlog")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.Write(text)
	return f.Name(), err
}

func decodeFindings(out []byte) ([]difftest.Finding, error) {
	var found []difftest.Finding
	if err := json.Unmarshal(out, &found); err != nil {
		return nil, fmt.Errorf("check's output: %v", err)
	}
	return found, nil
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// builtBinary builds this command once.
func builtBinary(t testing.TB) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "difftest-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "rlog-ls")
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		if out, err := exec.Command(goTool, "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// diffDoc is a document a session starts from.
type diffDoc struct {
	source string
	text   []byte
}

var (
	docsOnce sync.Once
	docs     []diffDoc
)

// diffDocs are the documents sessions start from: every .rlog fixture of
// the repository, generated sessions of several sizes and finding rates,
// small awkward ones, and the corpus's logs when it is there.
func diffDocs(t testing.TB) []diffDoc {
	docsOnce.Do(func() {
		root := filepath.Join("..", "..")
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".rlog") {
				if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
					rel, _ := filepath.Rel(root, p)
					docs = append(docs, diffDoc{rel, b})
				}
			}
			return nil
		})
		for i, size := range []int64{2 << 10, 8 << 10, 20 << 10, 60 << 10, 150 << 10} {
			var b bytes.Buffer
			rate := []float64{0, 0.01, 0.05, 0.2, 0.02}[i]
			_ = gen.Write(&b, gen.Options{Bytes: size, FindingRate: rate, Seed: uint64(i + 1)})
			docs = append(docs, diffDoc{fmt.Sprintf("gen %d bytes, finding rate %g", size, rate), b.Bytes()})
		}
		docs = append(docs,
			diffDoc{"empty", nil},
			diffDoc{"no header", []byte("u: hi\na: there\n")},
			diffDoc{"awkward", []byte("\uFEFF---\r\nformat: rlog/1\r\nid: a\r\nrepo_sha: abc1234\r\n---\r\n@start\ru: 😀 漢字 \xff\x00 → [ok]\r" +
				"t!:Read id=c1 → [running]\n\n\n" + strings.Repeat("\n", 125) + "u: a\nu: b\n@phase p\n" + strings.Repeat("u: x\n", 130))},
		)
		if dir, ok := corpus.Find(); ok {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".rlog") {
					if b, err := os.ReadFile(p); err == nil && len(b) < 512<<10 {
						docs = append(docs, diffDoc{"corpus " + filepath.Base(p), b})
					}
				}
				return nil
			})
		}
		sort.SliceStable(docs, func(i, j int) bool { return docs[i].source < docs[j].source })
	})
	if len(docs) == 0 {
		t.Fatal("no documents")
	}
	return docs
}

// diffRun runs one random session and, when it diverges, shrinks and saves
// its script and fails with how to replay it.
func diffRun(t *testing.T, o difftest.Options, seed uint64, comparisons int, shrink time.Duration) difftest.Counts {
	t.Helper()
	all := diffDocs(t)
	doc := all[rand.New(rand.NewPCG(seed, 1)).IntN(len(all))]
	script, counts, d := difftest.Random(t, o, seed, doc.source, doc.text, comparisons)
	if d == nil {
		return counts
	}
	t.Logf("seed %d diverged: %v\nshrinking (at most %v)…", seed, d, shrink)
	small, sd := difftest.Shrink(t, o, script, d, shrink)
	path := filepath.Join(os.TempDir(), fmt.Sprintf("difftest-%d.json", seed))
	if err := small.Save(path); err != nil {
		t.Logf("saving the script: %v", err)
	}
	t.Fatalf("divergence, seed %d: %v\n\nreproduction (%d steps, %d edits; the full run had %d steps):\n%s\nreplay: go test ./cmd/rlog-ls -run 'TestDifferentialReplay$' -difftest.replay=%s\n(copy the file to cmd/rlog-ls/testdata/difftest/ to make it a regression test)",
		seed, sd, len(small.Steps), small.Edits(), len(script.Steps), small, path)
	return counts
}

// TestDifferential is the harness's short run: random sessions in both
// encodings over the fixtures and generated logs, each edited and compared
// with fresh opens and with check. With -difftest.duration it is the long
// run, which logs its counts.
func TestDifferential(t *testing.T) {
	o := diffOptions(t)
	if *diffDuration > 0 {
		seed := *diffSeed
		if seed == 0 {
			seed = uint64(time.Now().UnixNano())
		}
		var total difftest.Counts
		began, lastLog := time.Now(), time.Now()
		for ; time.Since(began) < *diffDuration; seed++ {
			total.Add(diffRun(t, o, seed, 10+int(seed%40), *diffShrink))
			if time.Since(lastLog) > time.Minute {
				t.Logf("%v: %v (next seed %d)", time.Since(began).Round(time.Second), total, seed+1)
				lastLog = time.Now()
			}
		}
		t.Logf("long run, %v from seed %d: %v", time.Since(began).Round(time.Second), *diffSeed, total)
		return
	}
	runs, comparisons := 12, 6
	if testing.Short() {
		runs = 4
	}
	var total difftest.Counts
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		total.Add(diffRun(t, o, seed, comparisons, *diffShrink))
	}
	t.Logf("%v", total)
}

// TestDifferentialReplay replays the scripts of testdata/difftest (runs
// that once diverged, and the issues' reproductions), and the one
// -difftest.replay names.
func TestDifferentialReplay(t *testing.T) {
	o := diffOptions(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "difftest", "*.json"))
	if *diffReplay != "" {
		files = []string{*diffReplay}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := difftest.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, d := difftest.Run(t, o, s); d != nil {
				t.Fatalf("%v\n%s", d, s)
			}
		})
	}
}

// FuzzDifferential is the harness's long run as a fuzz target: each input
// is a random session (its seed, document and length).
func FuzzDifferential(f *testing.F) {
	for seed := range uint64(4) {
		f.Add(seed, uint8(seed*7), uint8(4))
	}
	o := diffOptions(f)
	f.Fuzz(func(t *testing.T, seed uint64, doc, comparisons uint8) {
		all := diffDocs(t)
		d := all[int(doc)%len(all)]
		script, _, div := difftest.Random(t, o, seed, d.source, d.text, 1+int(comparisons%8))
		if div == nil {
			return
		}
		small, sd := difftest.Shrink(t, o, script, div, 30*time.Second)
		path := filepath.Join(os.TempDir(), fmt.Sprintf("difftest-fuzz-%d.json", seed))
		_ = small.Save(path)
		t.Fatalf("divergence: %v\n%s\nreplay: go test ./cmd/rlog-ls -run 'TestDifferentialReplay$' -difftest.replay=%s", sd, small, path)
	})
}
