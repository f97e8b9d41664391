package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixture is the log whose statistics analysis/session_test.go works out
// by hand.
const fixture = "../../analysis/testdata/stats.rlog"

// statsJSON runs stats --format json on paths and decodes its document; a
// run that fails or a document that does not decode fails the test.
func statsJSON(t *testing.T, paths ...string) statsDoc {
	t.Helper()
	stdout, stderr, code := runCLI(t, append([]string{"stats", "--format", "json"}, paths...)...)
	if code != 0 {
		t.Fatalf("stats %s: exit %d: %s", strings.Join(paths, " "), code, stderr)
	}
	var doc statsDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stats %s: %v\n%s", strings.Join(paths, " "), err, stdout)
	}
	return doc
}

// statsOfOne is the one session statsJSON finds in the file at path.
func statsOfOne(t *testing.T, path string) sessionJSON {
	t.Helper()
	doc := statsJSON(t, path)
	if len(doc.Sessions) != 1 {
		t.Fatalf("stats %s: %d sessions, not one", path, len(doc.Sessions))
	}
	return doc.Sessions[0]
}

// TestStatsJSONGolden pins the stable JSON document of one session and its
// totals (docs/stats.md describes each field); go test -update rewrites
// testdata/stats.json after a deliberate change.
func TestStatsJSONGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "stats", "--format", "json", fixture)
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	golden := filepath.Join("testdata", "stats.json")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Fatalf("stats --format json changed (go test -update if on purpose):\n%s", out)
	}
	var doc statsDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Sessions[0]
	if doc.Version != 1 || *s.APM.Value != 3 || *s.DurationMS != 240000 || s.Counters.TokensOut != 97 ||
		*s.Latency.P95MS != 30000 || *s.Phases[0].DurationMS != 175000 || s.Phases[1].Tokens.Out != 70 ||
		*s.Subagents[0].EndLine != 18 || s.LongestGap.Line != 19 || s.Tools[0].Tool != "Bash" || s.APM.Source != "rlog" {
		t.Fatalf("%+v", s)
	}
}

// TestStatsDocumentsEveryField: docs/stats.md names every key of the JSON.
func TestStatsDocumentsEveryField(t *testing.T) {
	doc, err := os.ReadFile("../../docs/stats.md")
	if err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCLI(t, "stats", "--format", "json", fixture)
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				keys[k] = true
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	for k := range keys {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/stats.md does not describe %q", k)
		}
	}
}

// TestStatsFolderTotals: a folder gives a row per session and the totals;
// two copies of the fixture double everything, and APM stays 3.
func TestStatsFolderTotals(t *testing.T) {
	src, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, dir, "a/one.rlog", string(src))
	writeFile(t, dir, "a/b/two.rlog", string(src))
	writeFile(t, dir, "a/notes.txt", "not a log")
	out, errOut, code := runCLI(t, "stats", "--format", "json", filepath.Join(dir, "a"))
	if code != 0 || errOut != "" {
		t.Fatalf("%d %q", code, errOut)
	}
	var doc statsDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	tot := doc.Totals
	if len(doc.Sessions) != 2 || tot.Sessions != 2 || tot.DurationMS == nil || *tot.DurationMS != 480000 || tot.Messages != 8 || tot.ToolCalls != 16 ||
		tot.Errors != 2 || tot.Counters.TokensIn != 40 || *tot.APM.Value != 3 || *tot.APM.Minutes != 8 ||
		tot.Latency.Measured != 14 || *tot.Latency.MedianMS != 1500 || tot.Tools[0].Tool != "Bash" || tot.Tools[0].Calls != 6 ||
		*tot.Tools[0].Latency.MedianMS != 25000 {
		t.Fatalf("totals %+v", tot)
	}
	text, _, _ := runCLI(t, "stats", filepath.Join(dir, "a"))
	if !strings.Contains(text, "total (2 sessions)") || strings.Count(text, ".rlog") != 2 {
		t.Fatalf("text:\n%s", text)
	}
}

func TestStatsProblems(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.rlog", cleanHeader+"u: hi ts=2025-01-01T00:00:00Z\n")
	bin := filepath.Join(dir, "bin.rlog")
	if err := os.WriteFile(bin, append([]byte("\x00\x01\x02\x03\x04"), make([]byte, 400)...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "stats", good, bin, filepath.Join(dir, "missing.rlog"))
	if code != 2 || !strings.Contains(errOut, "bin.rlog: Binary file") || !strings.Contains(errOut, "missing.rlog: no such file") ||
		!strings.Contains(out, "good.rlog") || !strings.Contains(out, "total (1 session)") {
		t.Fatalf("%d %q\n%s", code, errOut, out)
	}
	if _, errOut, code := runCLI(t, "stats", t.TempDir()); code != 2 || !strings.Contains(errOut, "no .rlog files") {
		t.Fatalf("empty folder: %d %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "stats", "--format", "xml", good); code != 2 || !strings.Contains(errOut, "--format") {
		t.Fatalf("%d %q", code, errOut)
	}
	// Without timestamps there is no duration and no APM, and it says so.
	out, _, _ = runCLI(t, "stats", writeFile(t, dir, "nots.rlog", cleanHeader+"u: hi\n"))
	if !strings.Contains(out, "unknown (no ts= values)") || !strings.Contains(out, "APM         unknown: no duration") {
		t.Fatalf("%s", out)
	}
	js, _, _ := runCLI(t, "stats", "--format", "json", filepath.Join(dir, "nots.rlog"))
	if !strings.Contains(js, `"duration_ms": null`) || !strings.Contains(js, `"value": null`) {
		t.Fatalf("%s", js)
	}
}

// TestStatsTotalsOfUnknownDurations: sessions of which none has a
// duration add up to no duration, "—" and null, not 0ms; one known
// duration among unknown ones is the total.
func TestStatsTotalsOfUnknownDurations(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.rlog", cleanHeader+"u: hi ts=2025-01-01T00:00:00Z\n")
	b := writeFile(t, dir, "b.rlog", cleanHeader+"u: hi\n")
	out, _, code := runCLI(t, "stats", a, b)
	total := out[strings.Index(out, "total (2 sessions)"):]
	if code != 0 || strings.Contains(out, "0ms") || !strings.HasPrefix(strings.Fields(total)[3], "—") {
		t.Fatalf("%d\n%s", code, out)
	}
	js, _, _ := runCLI(t, "stats", "--format", "json", a, b)
	var doc statsDoc
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Totals.DurationMS != nil || !strings.Contains(js[strings.Index(js, `"totals"`):], `"duration_ms": null`) {
		t.Fatalf("%s", js)
	}
	timed := writeFile(t, dir, "c.rlog", cleanHeader+"u: hi ts=2025-01-01T00:00:00Z\na: yes ts=2025-01-01T00:00:02Z\n")
	js, _, _ = runCLI(t, "stats", "--format", "json", a, timed)
	doc = statsDoc{}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || doc.Totals.DurationMS == nil || *doc.Totals.DurationMS != 2000 {
		t.Fatalf("%v %s", err, js)
	}
}

func TestDurationText(t *testing.T) {
	for ms, want := range map[float64]string{0.4: "0ms", 750: "750ms", 1000: "1s", 1500: "1.5s", 9960: "10s", 30000: "30s",
		175000: "2m 55s", 3600000: "1h 0m", 45130000: "12h 32m"} {
		if got := durationText(ms); got != want {
			t.Errorf("durationText(%v) = %q, want %q", ms, got, want)
		}
	}
}

// TestStatsTextCapsPhases: a log with thousands of phases lists the first
// ones and says how many more the JSON has.
func TestStatsTextCapsPhases(t *testing.T) {
	var b strings.Builder
	b.WriteString(cleanHeader)
	for i := range maxPhasesShown + 7 {
		b.WriteString("@phase p" + strings.Repeat("x", i%3) + "\nu: hi\n")
	}
	p := writeFile(t, t.TempDir(), "many.rlog", b.String())
	out, _, _ := runCLI(t, "stats", p)
	if !strings.Contains(out, "  … and 7 more phases (--format json lists every phase)\n") {
		t.Fatalf("%s", out)
	}
	js, _, _ := runCLI(t, "stats", "--format", "json", p)
	if strings.Count(js, `"name": `) != maxPhasesShown+7 {
		t.Fatal("the JSON lists every phase")
	}
}

// TestStatsFromTheCompanion: a log with a companion takes APM's counts and
// time from it (the log alone has one timestamp and cut-short lines), and
// says so; a companion of another session is not used.
func TestStatsFromTheCompanion(t *testing.T) {
	const log = "../../testdata/companions/sdk/222000-fix-locked-login.rlog"
	out, errOut, code := runCLI(t, "stats", log)
	if code != 0 || errOut != "" || !strings.Contains(out, "APM         4.90 = (5 messages + 7 tool calls) / 2.5 min, from the companion ../../testdata/companions/sdk/222000-fix-locked-login.jsonl\n") {
		t.Fatalf("%d %q\n%s", code, errOut, out)
	}
	// The rows APM is computed from say what the companion counts: the time
	// is not "unknown" beside "/ 2.5 min", nor 6 calls beside APM's 7.
	for _, want := range []string{"time        2m 27s in the companion (the log has one timestamp, 2025-12-22 22:20:00 UTC)\n",
		"; 5 messages in the companion, which APM counts\n", "tool calls  6: 1 error, 0 unfinished; 7 tool calls in the companion, which APM counts\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text does not say %q:\n%s", want, out)
		}
	}
	out, _, _ = runCLI(t, "stats", "--format", "json", log)
	var doc statsDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	a := doc.Sessions[0].APM
	if a.Source != "companion" || a.Companion != "../../testdata/companions/sdk/222000-fix-locked-login.jsonl" || a.Messages != 5 || a.ToolCalls != 7 || *a.Minutes != 2.45 {
		t.Fatalf("%+v", a)
	}
	out, _, _ = runCLI(t, "stats", "--format", "json", "../../testdata/companions/other-session/230100-other.rlog")
	doc = statsDoc{}
	json.Unmarshal([]byte(out), &doc)
	if a := doc.Sessions[0].APM; a.Source != "rlog" || a.Value != nil {
		t.Fatalf("another session's record was used: %+v", a)
	}
}
