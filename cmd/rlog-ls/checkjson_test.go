package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// encodedFindings is what `check --format json` wrote before
// writeCheckJSON: encoding/json's Encoder, indented by two spaces.
func encodedFindings(t testing.TB, fs []jsonFinding) []byte {
	t.Helper()
	if fs == nil {
		fs = []jsonFinding{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(fs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writtenFindings(t testing.TB, fs []jsonFinding) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeCheckJSON(&buf, fs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jsonEdgeStrings have every class of character appendJSONString treats
// apart: each control character, the escaped ASCII, DEL, U+2028 and
// U+2029 and their neighbours, invalid and truncated UTF-8, surrogates
// encoded in UTF-8, emoji, at a string's start, middle and end.
var jsonEdgeStrings = func() []string {
	out := []string{"", "plain", "W003", "error", "/tmp/a b/c.rlog",
		`"`, `\`, `<`, `>`, `&`, "\x7f", "\u2027", "\u2028", "\u2029", "\u202a",
		"é", "日本", "😀", "\xff", "\xe2\x80", "\xe2\x80\xa8\xe2", "\xed\xa0\x80", "\xc0\xaf",
		"Tool start 'call_<x>&\"y\"' has no completion", "a\u2028b\u2029c", "x\xffy😀z\x00"}
	for c := range 0x20 {
		out = append(out, string(rune(c)), "a"+string(rune(c))+"b")
	}
	return out
}()

func TestCheckJSONEdgeStrings(t *testing.T) {
	for _, s := range jsonEdgeStrings {
		for _, str := range []string{s, "start " + s, s + " end", s + s} {
			fs := []jsonFinding{{File: str, Line: 1, Column: 2, EndLine: 3, EndColumn: 4, Severity: str, Code: str, Message: str}}
			if got, want := writtenFindings(t, fs), encodedFindings(t, fs); !bytes.Equal(got, want) {
				t.Fatalf("%q:\n%s\nencoding/json:\n%s", str, got, want)
			}
		}
	}
}

func TestCheckJSONCounts(t *testing.T) {
	for _, fs := range [][]jsonFinding{nil, {}, {{}}, {{}, {}}, {{Line: -1, Column: -99, EndLine: 1 << 40, EndColumn: -1 << 62}}} {
		if got, want := writtenFindings(t, fs), encodedFindings(t, fs); !bytes.Equal(got, want) {
			t.Fatalf("%v:\n%s\nencoding/json:\n%s", fs, got, want)
		}
	}
}

// TestCheckJSONAcrossFlushes writes more than a buffer's worth, so that
// the output goes out in several writes.
func TestCheckJSONAcrossFlushes(t *testing.T) {
	var fs []jsonFinding
	for i := range 3000 {
		fs = append(fs, jsonFinding{File: "logs/s.rlog", Line: i + 1, Column: 1, EndLine: i + 1, EndColumn: 9,
			Severity: "warning", Code: "W002", Message: strings.Repeat("m<\u2028", i%40)})
	}
	got, want := writtenFindings(t, fs), encodedFindings(t, fs)
	if len(want) < 3*64<<10 {
		t.Fatalf("only %d bytes: not several buffers", len(want))
	}
	if !bytes.Equal(got, want) {
		t.Fatal("differs from encoding/json")
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after == 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestCheckJSONWriteError(t *testing.T) {
	fs := make([]jsonFinding, 2000)
	for i := range fs {
		fs[i].Message = strings.Repeat("x", 100)
	}
	for after := range 5 {
		if err := writeCheckJSON(&failingWriter{after: after}, fs); err == nil || err.Error() != "disk full" {
			t.Fatalf("after %d writes: %v", after, err)
		}
	}
	if err := writeCheckJSON(&failingWriter{}, nil); err == nil {
		t.Fatal("no error for the empty list")
	}
}

// FuzzCheckJSONMatchesEncodingJSON holds writeCheckJSON to encoding/json's
// indented output for arbitrary findings: any strings (control
// characters, <>&, U+2028 and U+2029, invalid UTF-8, emoji) and numbers.
func FuzzCheckJSONMatchesEncodingJSON(f *testing.F) {
	for i, s := range jsonEdgeStrings {
		f.Add(s, "warning", "W00"+s, "m "+s, int64(i), int64(-i), uint8(i%4))
	}
	f.Add("a.rlog", "error", "S001", "Tool start 'c<&>\u2028\xff😀' has no completion", int64(1)<<40, int64(-7), uint8(3))
	f.Fuzz(func(t *testing.T, file, severity, code, message string, line, column int64, n uint8) {
		fs := make([]jsonFinding, n%5)
		for i := range fs {
			fs[i] = jsonFinding{File: file, Line: int(line), Column: int(column), EndLine: int(line) + i, EndColumn: int(column) - i,
				Severity: severity, Code: code, Message: message[:len(message)*i/max(len(fs), 1)] + message}
		}
		if got, want := writtenFindings(t, fs), encodedFindings(t, fs); !bytes.Equal(got, want) {
			t.Fatalf("%+v:\n%s\nencoding/json:\n%s", fs, got, want)
		}
	})
}

// githubAnnotation is a finding as a GitHub Actions workflow command,
// which the runner turns into an annotation on the line: the reference
// appendFinding's github lines are held to (check wrote it so before).
func githubAnnotation(f jsonFinding) string {
	return fmt.Sprintf("::%s file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s",
		githubLevel(f.Severity), githubProperty(f.File), f.Line, f.Column, f.EndLine, f.EndColumn, githubProperty(f.Code), githubData(f.Message))
}

// textLine is a finding as check's text line: the reference appendFinding's
// text lines are held to (check wrote it so before).
func textLine(f jsonFinding) string {
	return fmt.Sprintf("%s:%d:%d: %s %s: %s\n", f.File, f.Line, f.Column, f.Severity, f.Code, f.Message)
}

func assertFindingLines(t *testing.T, f jsonFinding) {
	t.Helper()
	if got, want := string(appendFinding(nil, "text", &f)), textLine(f); got != want {
		t.Fatalf("text %q, fmt %q", got, want)
	}
	if got, want := string(appendFinding([]byte("before"), "github", &f)), "before"+githubAnnotation(f)+"\n"; got != want {
		t.Fatalf("github %q, githubAnnotation %q", got, want)
	}
	var buf bytes.Buffer
	printFinding(&buf, "text", f)
	if buf.String() != textLine(f) {
		t.Fatalf("printFinding %q", buf.String())
	}
}

func TestFindingLinesEdgeStrings(t *testing.T) {
	for _, s := range append(jsonEdgeStrings, "%", ":", ",", "%%::,,\r\n", "a%b:c,d\re\nf", "100%25") {
		for _, sev := range []string{"error", "warning", "info", "hint", s} {
			assertFindingLines(t, jsonFinding{File: s, Line: 1, Column: -2, EndLine: 1 << 40, EndColumn: 0, Severity: sev, Code: s, Message: s + "," + s})
		}
	}
}

// FuzzFindingLines holds appendFinding's text and github lines to fmt's
// and githubAnnotation's for arbitrary findings.
func FuzzFindingLines(f *testing.F) {
	for i, s := range jsonEdgeStrings {
		f.Add(s, "warning", "W00"+s, "m%:,\r\n"+s, int64(i), int64(-i))
	}
	f.Add("a:b,c%.rlog", "info", "I004", "50%\r\nnext, a: b", int64(1)<<40, int64(-7))
	f.Fuzz(func(t *testing.T, file, severity, code, message string, line, column int64) {
		assertFindingLines(t, jsonFinding{File: file, Line: int(line), Column: int(column), EndLine: int(line) + 1, EndColumn: int(column) - 1,
			Severity: severity, Code: code, Message: message})
	})
}
