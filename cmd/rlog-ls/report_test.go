package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/internal/gen"
	"github.com/rlog-ls/rlog-ls/report"
)

// reportData reads the data out of a session view page.
func reportData(t *testing.T, page string) map[string]any {
	t.Helper()
	const open = `<script type="application/json" id="rlog-data">`
	i := strings.Index(page, open)
	j := strings.Index(page[i+len(open):], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("no data in the page: %.300s", page)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(page[i+len(open):i+len(open)+j]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReportBesideInput(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/logs/timed.rlog")
	if err != nil {
		t.Fatal(err)
	}
	in := writeFile(t, dir, "session.rlog", string(src))
	stdout, stderr, code := runCLI(t, "report", in)
	out := filepath.Join(dir, "session.report.html")
	if code != 0 || stdout != "" || stderr != "rlog-ls report: wrote "+out+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// One page, everything inline: no src= or href= that loads anything.
	for _, bad := range []string{"<script src", "<link ", "@import", "url(", "http://", "https://"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("the page has %q", bad)
		}
	}
	d := reportData(t, string(page))
	sum := d["summary"].(map[string]any)
	if d["file"] != "session.rlog" || d["timed"] != true || sum["tool_calls"] != 11.0 || sum["errors"] != 1.0 {
		t.Errorf("data: file %v timed %v summary %v", d["file"], d["timed"], sum)
	}
	if g, _ := d["generator"].(string); !strings.HasPrefix(g, "rlog-ls ") {
		t.Errorf("generator %q", g)
	}

	// Never over an existing file without --force; with it, replaced.
	checkForceReplaces(t, in, out, func(b []byte) bool { return bytes.HasPrefix(b, []byte("<!doctype html>")) }, "report")
}

func TestReportOutputs(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", cleanHeader+"@start id=x ts=2025-01-01T00:00:00Z\nt!:Read id=a → [running]\no: id=a → [ok] 😀 </script><b>x</b>\n")

	// -o - prints the page; the log's text cannot end the data element.
	stdout, stderr, code := runCLI(t, "report", "-o", "-", in)
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "<!doctype html>") {
		t.Fatalf("-o -: %d %q %.100q", code, stderr, stdout)
	}
	if strings.Count(stdout, "</script>") != 2 {
		t.Errorf("</script> from the log reached the page")
	}
	d := reportData(t, stdout)
	if d["timed"] != false || d["start"] == nil {
		t.Errorf("one timestamp: timed %v start %v", d["timed"], d["start"])
	}

	// -o elsewhere; --link makes line links.
	other := filepath.Join(dir, "sub", "view.html")
	if err := os.Mkdir(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "report", in, "-o", other, "--link", "vscode://file/{path}:{line}"); code != 0 {
		t.Fatalf("-o: %d %q", code, stderr)
	}
	page, _ := os.ReadFile(other)
	d = reportData(t, string(page))
	if d["link"] != "vscode://file/{path}:{line}" || d["path"] != in {
		t.Errorf("link %v path %v", d["link"], d["path"])
	}
}

func TestReportRefusals(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", cleanHeader+"u: hi\n")
	bin := writeFile(t, dir, "b.rlog", "\x00\x01\x02\x03binary\x00\x00\x00")
	if err := os.Symlink(in, filepath.Join(dir, "link-to-input.rlog")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "no input file"},
		{[]string{"report", in, in}, "one input file at a time"},
		{[]string{"report", dir}, "is a folder"},
		{[]string{"report", filepath.Join(dir, "missing.rlog")}, "missing.rlog"},
		{[]string{"report", bin}, "b.rlog"},
		{[]string{"report", "-o", in, "--force", in}, "is the input"},
		{[]string{"report", "--force", "-o", filepath.Join(dir, "link-to-input.rlog"), in}, "is the input"},
		{[]string{"report", "--link", "vscode://file/{path}", in}, "--link needs {line}"},
		{[]string{"report", "-o", filepath.Join(dir, "no", "such", "dir.html"), in}, "cannot write"},
	} {
		stdout, stderr, code := runCLI(t, tc.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != cleanHeader+"u: hi\n" {
		t.Fatal("the input changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files written: %v", entries)
	}
	if out, _, code := runCLI(t, "report", "--help"); code != 0 || !strings.Contains(out, "Usage: rlog-ls report") || !strings.Contains(out, "--link") {
		t.Errorf("help: %q", out)
	}
}

func TestReportPath(t *testing.T) {
	for in, want := range map[string]string{
		"session.rlog": "session.report.html", "a/b/x.rlog": "a/b/x.report.html", "noext": "noext.report.html", ".rlog": ".rlog.report.html",
	} {
		if got := reportPath(in); got != filepath.FromSlash(want) {
			t.Errorf("reportPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// FILE - reads stdin and writes stdout; -o names a file instead, never
// the file stdin comes from.
func TestReportStdin(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.rlog", cleanHeader+"t!:Read id=a → [running]\no: id=a → [ok]\n")
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdout, stderr, code := runCLIStdin(t, f, "report", "-")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d %q", code, stderr)
	}
	if d := reportData(t, stdout); d["file"] != "<stdin>" || d["summary"].(map[string]any)["tool_calls"] != 1.0 {
		t.Errorf("data file %v summary %v", d["file"], d["summary"])
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLIStdin(t, f, "report", "-", "-o", in, "--force"); code != 2 || !strings.Contains(stderr, "is the input") {
		t.Errorf("over the file stdin comes from: %d %q", code, stderr)
	}
}

// The report counts APM from the companion beside the log, as stats does,
// and takes check's --disable and --severity.
func TestReportCompanionAndCodes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"222000-fix-locked-login.rlog", "222000-fix-locked-login.jsonl", "222000-fix-locked-login.sub-DZYW3CfJ.jsonl"} {
		b, err := os.ReadFile(filepath.Join("../../testdata/companions/sdk", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, name, string(b))
	}
	in := filepath.Join(dir, "222000-fix-locked-login.rlog")
	html := ""
	page := func(args ...string) map[string]any {
		t.Helper()
		stdout, stderr, code := runCLI(t, append(append([]string{"report", "-o", "-"}, args...), in)...)
		if code != 0 {
			t.Fatalf("report %v: exit %d, %q", args, code, stderr)
		}
		html = stdout
		return reportData(t, stdout)
	}
	data := page()
	apm := data["summary"].(map[string]any)["apm"].(map[string]any)
	// The page is made to be shared: it names the companion as it is
	// beside the log, not by this machine's path (it used to), and carries
	// no hint for whoever built the binary (a test binary has no version
	// control information, for which version() suggests -ldflags).
	if apm["source"] != "companion" || apm["companion"] != "222000-fix-locked-login.jsonl" {
		t.Errorf("apm %v, want it from the companion, named beside the log", apm)
	}
	if strings.Contains(html, dir) || strings.Contains(html, "ldflags") || !strings.HasPrefix(data["generator"].(string), "rlog-ls ") {
		t.Errorf("the page names this machine's folder or carries a build hint (generator %q)", data["generator"])
	}
	// --link asks for the log's path in the links: then it is there.
	if page("--link", "vscode://file/{path}:{line}"); !strings.Contains(html, dir) {
		t.Errorf("--link: no path in the page")
	}

	// A log with findings: W003 (an unknown line) and S001 (a key).
	log := writeFile(t, dir, "codes.rlog", "---\nformat: rlog/1\nid: s\n---\nu: hello\nnot an rlog line\na: key ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\n")
	codes := func(args ...string) map[string]string {
		t.Helper()
		stdout, stderr, code := runCLI(t, append(append([]string{"report", "-o", "-"}, args...), log)...)
		if code != 0 {
			t.Fatalf("report %v: exit %d, %q", args, code, stderr)
		}
		out := map[string]string{}
		for _, f := range reportData(t, stdout)["findings"].([]any) {
			f := f.(map[string]any)
			out[f["code"].(string)] = f["severity"].(string)
		}
		return out
	}
	if got := codes(); got["W003"] != "warning" || got["S001"] != "error" {
		t.Fatalf("default findings %v", got)
	}
	if got := codes("--disable", "W003", "--severity", "S001=warning"); got["W003"] != "" || got["S001"] != "warning" {
		t.Errorf("configured findings %v", got)
	}
	if _, stderr, code := runCLI(t, "report", "-o", "-", "--disable", "W999", log); code != 2 || !strings.Contains(stderr, "W999") {
		t.Errorf("an unknown code: exit %d, %q", code, stderr)
	}
}

// pageData is reportData as a report.Data.
func pageData(t *testing.T, page string) report.Data {
	t.Helper()
	b, err := json.Marshal(reportData(t, page))
	if err != nil {
		t.Fatal(err)
	}
	var d report.Data
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReportSummaryEqualsStats: the session view's totals, which its cards
// show, are the numbers of `rlog-ls stats --format json` on the same file,
// with a companion or without one (the logs the cards disagreed on, and
// generated ones); the page lists its findings in line order.
func TestReportSummaryEqualsStats(t *testing.T) {
	dir := t.TempDir()
	paths, _ := filepath.Glob("../../testdata/logs/*.rlog")
	more, _ := filepath.Glob("../../testdata/companions/*/*.rlog")
	paths = append(paths, more...)
	logFile, err := os.Create(filepath.Join(dir, "gen-pair.rlog"))
	if err != nil {
		t.Fatal(err)
	}
	record, err := os.Create(filepath.Join(dir, "gen-pair.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.WritePair(logFile, record, 200<<10, 4); err != nil {
		t.Fatal(err)
	}
	logFile.Close()
	record.Close()
	var b bytes.Buffer
	if err := gen.Write(&b, gen.Options{Bytes: 64 << 10, Seed: 9, Timed: true, Streamed: true, FindingRate: 0.05}); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, logFile.Name(), writeFile(t, dir, "gen.rlog", b.String()))
	companions := 0
	for _, p := range paths {
		s := statsOfOne(t, p)
		out := filepath.Join(dir, filepath.Base(p)+".html")
		if _, errOut, code := runCLI(t, "report", "-o", out, p); code != 0 {
			t.Fatalf("%s: report: %d %s", p, code, errOut)
		}
		page, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		d := pageData(t, string(page))
		sum := d.Summary
		c := s.Counters
		want := report.Summary{DurationMS: s.DurationMS, Messages: s.Messages, ToolCalls: s.ToolCalls, Errors: s.Errors,
			Unfinished: s.Unfinished, Subagents: len(s.Subagents),
			Tokens:  report.Tokens{In: c.TokensIn, Out: c.TokensOut, Cached: c.TokensCached, CacheCreate: c.TokensCacheCreate, Messages: c.Messages},
			CostUSD: s.CostUSD, Latency: s.Latency, APM: s.APM}
		if s.LongestGap != nil {
			want.LongestGap = &report.Gap{Line: s.LongestGap.Line, PreviousLine: s.LongestGap.PreviousLine, MS: s.LongestGap.DurationMS}
		}
		// The companion as each names it (stats as found from the path
		// given; the page as it names files): the same file.
		sum.APM.Companion, want.APM.Companion = filepath.Base(sum.APM.Companion), filepath.Base(want.APM.Companion)
		if !reflect.DeepEqual(sum, want) {
			g, _ := json.Marshal(sum)
			w, _ := json.Marshal(want)
			t.Errorf("%s: the page's totals\n%s\nstats\n%s", p, g, w)
		}
		if s.APM.Source == analysis.APMFromCompanion {
			companions++
		}
		for i := 1; i < len(d.Findings); i++ {
			if d.Findings[i].Line < d.Findings[i-1].Line {
				t.Errorf("%s: findings out of line order: %+v", p, d.Findings)
				break
			}
		}
	}
	if companions < 3 {
		t.Errorf("only %d of the logs had their APM from a companion", companions)
	}
}
