package sessions

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlog-ls/rlog-ls/internal/benchdata"
	agentstore "github.com/rlog-ls/rlog-ls/internal/benchdata/store"
)

// benchStore is the store the listing benchmarks list: RLOG_STORE
// ("SESSIONS:SIZE", default 200:200MB; the figures in docs/performance.md
// are of 2000:2GB), generated into RLOG_STORE_DIR (kept between runs) or a
// temporary folder, of the shape RLOG_STORE_SHAPE names: by default
// transcripts shaped as the Claude Code CLI writes them (what users have),
// "writer" for those our Claude Code writer wrote from generated sessions
// (the store of the figures before the CLI's shape; keep each shape in a
// folder of its own). It returns the work folder the sessions ran in and
// the agents' homes.
func benchStore(b *testing.B) (cwd string, homes Homes) {
	cwd, homes, _ = benchStoreIn(b)
	return cwd, homes
}

// warmIndex is an index of the bench store, listed once: kept beside the
// store in RLOG_STORE_DIR (made again when its version changed), so that
// the benchmarks of later listings do not each make it.
func warmIndex(b *testing.B) (index, cwd string, homes Homes) {
	cwd, homes, dir := benchStoreIn(b)
	index = filepath.Join(dir, "index-v"+strconv.Itoa(IndexVersion)+".json")
	list(b, index, cwd, homes)
	return index, cwd, homes
}

func benchStoreIn(b *testing.B) (cwd string, homes Homes, dir string) {
	b.Helper()
	n, total := 200, int64(200<<20)
	if spec := os.Getenv("RLOG_STORE"); spec != "" {
		count, size, ok := strings.Cut(spec, ":")
		var err error
		if n, err = strconv.Atoi(count); !ok || err != nil {
			b.Fatalf("RLOG_STORE=%q: want SESSIONS:SIZE", spec)
		}
		if total, err = benchdata.ParseSize(size); err != nil {
			b.Fatalf("RLOG_STORE=%q: %v", spec, err)
		}
	}
	dir = os.Getenv("RLOG_STORE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	dir = filepath.Join(dir, strconv.Itoa(n)+"-"+strconv.FormatInt(total, 10))
	cwd = "/work/project"
	homes = Homes{Claude: filepath.Join(dir, ".claude")}
	agentstore.Claude(b, filepath.Join(homes.Claude, "projects", ClaudeProject(cwd)), n, total)
	return cwd, homes, dir
}

// list lists cwd's sessions as `rlog-ls sessions` does: the index opened,
// the stores looked at, the sessions listed, the index saved.
func list(b *testing.B, index, cwd string, homes Homes) *Listing {
	ix := Open(index)
	p := Discover(cwd, homes)
	l := ix.List(context.Background(), Request{Candidates: p.Files, Maybe: p.Maybe, Cwd: cwd})
	if err := ix.Save(); err != nil {
		b.Fatal(err)
	}
	if len(l.Problems) > 0 {
		b.Fatalf("problems: %v", l.Problems[0])
	}
	return l
}

func storeBytes(l *Listing) int64 {
	var n int64
	for _, s := range l.Sessions {
		n += s.Row.Size
	}
	return n
}

// BenchmarkListFirst is the first listing of a store: every session read
// (on every core). MB/s are of the store.
func BenchmarkListFirst(b *testing.B) {
	cwd, homes := benchStore(b)
	dir := b.TempDir()
	var n int64
	i := 0
	for b.Loop() {
		i++
		l := list(b, filepath.Join(dir, strconv.Itoa(i)+".json"), cwd, homes)
		n = storeBytes(l)
		b.ReportMetric(float64(len(l.Sessions)), "sessions")
	}
	b.SetBytes(n)
}

// BenchmarkListAgain is a listing after the first: nothing changed, every
// row from the index (the index file opened and decoded, the store's
// folder read, every file looked at with stat).
func BenchmarkListAgain(b *testing.B) {
	index, cwd, homes := warmIndex(b)
	for b.Loop() {
		if l := list(b, index, cwd, homes); l.Read != 0 {
			b.Fatalf("read %d files", l.Read)
		}
	}
}

// BenchmarkListGrown is a listing after one session (the median size)
// grew by a turn: that session is read from its cut (resume.go), the
// others come from the index. cpu-ms/op is the process's CPU time (user
// and system) a listing, which a loaded machine changes less than the
// wall time.
func BenchmarkListGrown(b *testing.B) {
	index, cwd, homes := warmIndex(b)
	l := list(b, index, cwd, homes)
	grown := l.Sessions[len(l.Sessions)/2].Row.File
	turn := []byte(`{"type":"user","message":{"role":"user","content":"one more"},"uuid":"u-more","timestamp":"2026-11-27T09:30:00.000Z"}` + "\n")
	var cpu time.Duration
	defer func() { b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op") }()
	for b.Loop() {
		b.StopTimer()
		f, err := os.OpenFile(grown, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(turn)
		f.Close()
		b.StartTimer()
		start := cpuTime()
		if l := list(b, index, cwd, homes); l.Read != 1 || l.Resumed != 1 {
			b.Fatalf("read %d files, %d from their cut", l.Read, l.Resumed)
		}
		cpu += cpuTime() - start
	}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestReadHeapStaysConstant: a session is read a window at a time, never
// held: reading a transcript ten times as large peaks at about the same
// heap (what grows with it are its call and message ids, and the calls
// and prompts a row keeps, capped). It measures memory, not time.
func TestReadHeapStaysConstant(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 33 MB of transcripts")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := t.TempDir()
	// One transcript of each size: a store of 1 session of that size, of
	// the writer's shape (the CLI's has sub-agents' files, and a
	// transcript with them is listed without a cut).
	small := agentstore.Generate(t, filepath.Join(dir, "small"), 1, 3<<20, agentstore.Writer)[0]
	large := agentstore.Generate(t, filepath.Join(dir, "large"), 1, 30<<20, agentstore.Writer)[0]
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	afterWindow = func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	defer func() { afterWindow = nil }()
	// kept is what a reading returns and keeps until its end: the calls
	// that changed files and the calls (at most maxCallsKept each), the
	// prompts (at most maxPromptsKept) and the phases, which grow with the
	// session up to their caps.
	var kept [2]uint64
	measure := func(i int, p string) uint64 {
		runtime.GC()
		peak = 0
		s, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Changes {
			kept[i] += uint64(len(c.Tool)+len(c.Target)+len(c.CallID)) + 64
		}
		for _, p := range s.Prompts {
			kept[i] += uint64(len(p.Text)+len(p.ID)) + 48
		}
		for _, c := range s.Calls {
			kept[i] += uint64(len(c.Tool)+len(c.Target)+len(c.ID)) + 56
		}
		for _, p := range s.Phases {
			kept[i] += uint64(len(p.Name)+len(p.ID)) + 40
		}
		return peak
	}
	ps, pl := measure(0, small), measure(1, large)
	fs, _ := os.Stat(small)
	fl, _ := os.Stat(large)
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	t.Logf("peak heap %.1f MB reading %.1f MB, %.1f MB reading %.1f MB (of which the changes, prompts, calls and phases kept: %.1f MB, %.1f MB)",
		mb(ps), mb(uint64(fs.Size())), mb(pl), mb(uint64(fl.Size())), mb(kept[0]), mb(kept[1]))
	// The allowance: a quarter more, 8 MB for the call and message ids
	// the analysis and the usage rule keep, and twice what the larger
	// session keeps more (its slices grow by doubling); the 35 MB more of
	// the larger transcript, or its 12 MB view, would exceed it.
	if pl > ps+ps/4+8<<20+2*(kept[1]-min(kept[1], kept[0])) {
		t.Errorf("peak heap %.1f MB for the small transcript, %.1f MB for the large: it grows with the input", mb(ps), mb(pl))
	}
	// A listing reads a transcript by parts (resume.go: the last turn's
	// lines from the end, then the part before its cut and the part
	// after), each a window at a time too.
	listed := func(p string) uint64 {
		runtime.GC()
		peak = 0
		ix := Open(filepath.Join(t.TempDir(), "index.json"))
		if l := ix.List(context.Background(), Request{Files: []string{p}}); len(l.Sessions) != 1 || ix.entries[p].Cut == nil {
			t.Fatalf("%s: listed %d sessions (%v), or without a cut", p, len(l.Sessions), l.Problems)
		}
		return peak
	}
	ls, ll := listed(small), listed(large)
	t.Logf("peak heap %.1f MB listing the small one, %.1f MB listing the large one", mb(ls), mb(ll))
	if ll > ls+ls/4+8<<20+2*(kept[1]-min(kept[1], kept[0])) {
		t.Errorf("peak heap %.1f MB listing the small transcript, %.1f MB the large: it grows with the input", mb(ls), mb(ll))
	}
}

// symbolsIndex is a copy of the bench store's warm index and its changes
// file (as a listing of rows leaves them: the calls, prompts and phases
// without their lines) in dir, named name.
func symbolsIndex(b *testing.B, dir, name string) string {
	b.Helper()
	index, _, _ := warmIndex(b)
	to := filepath.Join(dir, name+".json")
	for _, p := range [][2]string{{index, to}, {Open(index).changesPath(), Open(to).changesPath()}} {
		data, err := os.ReadFile(p[0])
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p[1], data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return to
}

// listChanges lists the bench store's sessions with their changes,
// prompts, calls and phases, as the server does for workspace symbols.
func listChanges(b *testing.B, ix *Index, cwd string, homes Homes) *Listing {
	p := Discover(cwd, homes)
	l := ix.List(context.Background(), Request{Candidates: p.Files, Maybe: p.Maybe, Cwd: cwd, Changes: true})
	if err := ix.Save(); err != nil {
		b.Fatal(err)
	}
	return l
}

// reportSymbols reports what a listing with changes holds: its calls,
// phases and prompts, the changes file's size, and the heap the index and
// the listing keep (measured after a collection, ix and l still alive).
func reportSymbols(b *testing.B, ix *Index, l *Listing, heapBefore uint64, cpu time.Duration) {
	var calls, phases, prompts int
	for _, s := range l.Sessions {
		calls += len(s.Calls)
		phases += len(s.Phases)
		prompts += len(s.Prompts)
	}
	fi, err := os.Stat(ix.changesPath())
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(cpu.Seconds(), "cpu-s/op")
	b.ReportMetric(float64(calls), "calls")
	b.ReportMetric(float64(phases), "phases")
	b.ReportMetric(float64(prompts), "prompts")
	b.ReportMetric(float64(fi.Size())/(1<<20), "changes-MB")
	b.ReportMetric(float64(ms.HeapAlloc-min(ms.HeapAlloc, heapBefore))/(1<<20), "held-MB")
	runtime.KeepAlive(ix)
	runtime.KeepAlive(l)
}

// heapNow is the heap in use, after two collections (the second empties
// the pools the first left in their victim caches).
func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkSymbolsFirst is the first workspace symbols query (or
// --touched) after a listing of rows: the changes file, whose calls,
// prompts and phases have no lines yet, read; every session file read
// again for the lines of their ids; the changes file written with them.
func BenchmarkSymbolsFirst(b *testing.B) {
	_, cwd, homes := warmIndex(b)
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		index := symbolsIndex(b, dir, strconv.Itoa(i))
		b.StartTimer()
		symbolsQuery(b, index, cwd, homes)
	}
}

// symbolsQuery opens the index and lists with changes, as the server's
// first workspace symbols query does, and reports what it cost and holds
// (reportSymbols).
func symbolsQuery(b *testing.B, index, cwd string, homes Homes) *Listing {
	b.StopTimer()
	before := heapNow()
	b.StartTimer()
	cpu := benchdata.ProcessCPU()
	ix := Open(index)
	l := listChanges(b, ix, cwd, homes)
	cpu = benchdata.ProcessCPU() - cpu
	b.StopTimer()
	reportSymbols(b, ix, l, before, cpu)
	b.StartTimer()
	return l
}

// BenchmarkSymbolsAgain is a workspace symbols query after the first, in
// a new process (`rlog-ls sessions --touched`, a server started again):
// the index and the changes file opened and decoded, nothing read again.
// The server keeps its index open: its later queries do not decode the
// changes file again (BenchmarkSymbolsOpen).
func BenchmarkSymbolsAgain(b *testing.B) {
	_, cwd, homes := warmIndex(b)
	index := symbolsIndex(b, b.TempDir(), "placed")
	listChanges(b, Open(index), cwd, homes) // places them
	for b.Loop() {
		if l := symbolsQuery(b, index, cwd, homes); l.Read != 0 {
			b.Fatalf("read %d files", l.Read)
		}
	}
}

// BenchmarkSymbolsOpen is a workspace symbols query of a server whose
// index is open and has its changes file read: a listing (every file
// looked at with stat) and the sessions' symbols handed over.
func BenchmarkSymbolsOpen(b *testing.B) {
	_, cwd, homes := warmIndex(b)
	index := symbolsIndex(b, b.TempDir(), "open")
	ix := Open(index)
	listChanges(b, ix, cwd, homes)
	for b.Loop() {
		if l := listChanges(b, ix, cwd, homes); l.Read != 0 {
			b.Fatalf("read %d files", l.Read)
		}
	}
}

// TestListingHoldsNoCalls: once the index is saved, a listing of rows (the
// server's Sessions view) holds none of the sessions' changes, prompts,
// calls and phases, which are in the changes file; a listing that asked
// for them keeps them read for the next. It measures memory, not time.
func TestListingHoldsNoCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads 20 MB of transcripts")
	}
	dir := t.TempDir()
	cwd := "/work/project"
	homes := Homes{Claude: filepath.Join(dir, ".claude")}
	// The writer's shape: its 20 MB hold the 10,000 calls measured.
	agentstore.Generate(t, filepath.Join(homes.Claude, "projects", ClaudeProject(cwd)), 20, 20<<20, agentstore.Writer)
	p := Discover(cwd, homes)
	base := heapNow()
	ix := Open(filepath.Join(dir, "sessions.json"))
	ix.List(context.Background(), Request{Candidates: p.Files, Cwd: cwd})
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	rows := heapNow() - min(heapNow(), base)
	l := ix.List(context.Background(), Request{Candidates: p.Files, Cwd: cwd, Changes: true})
	if err := ix.Save(); err != nil {
		t.Fatal(err)
	}
	var calls int
	for _, s := range l.Sessions {
		calls += len(s.Calls)
	}
	l = nil
	symbols := heapNow() - min(heapNow(), base)
	runtime.KeepAlive(ix)
	t.Logf("held after a listing of rows: %.2f MB; after a listing with the %d calls: %.2f MB", float64(rows)/(1<<20), calls, float64(symbols)/(1<<20))
	// Each call costs more than 40 bytes held: a listing of rows that
	// kept them (or the sessions they came with) would hold more than a
	// tenth of what the listing that asked for them holds.
	if calls < 10000 || symbols < uint64(calls)*40 || rows > symbols/10 {
		t.Errorf("%d calls; held %d bytes after a listing of rows, %d after one with calls", calls, rows, symbols)
	}
}
