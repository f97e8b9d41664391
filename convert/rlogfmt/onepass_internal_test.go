package rlogfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rlog-ls/rlog-ls/convert/model"
	"github.com/rlog-ls/rlog-ls/grammar"
	"github.com/rlog-ls/rlog-ls/internal/gen"
)

// readTwice is the reference reading of a line: the parser's line scan
// (grammar.ScanLine), then the plain tokenizer (grammar.AppendTokens), then
// each key looked up in the table, each a pass of its own. Each key=value's
// three tokens are then made the one pass's key token and pair.
func readTwice(lt *grammar.LineTokens, text []byte) {
	lt.Info = grammar.ScanLine(text)
	toks := grammar.AppendTokens(nil, text, &lt.Info)
	lt.Tokens, lt.Pairs = lt.Tokens[:0], lt.Pairs[:0]
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		lt.Tokens = append(lt.Tokens, tok)
		if tok.Kind != grammar.TokKey {
			continue
		}
		k, _ := grammar.KeyOf(text[tok.Span.Start:tok.Span.End])
		kv := grammar.KeyValue{Key: tok.Span, K: k}
		i++ // the equals sign
		if i+1 < len(toks) && toks[i+1].Key == tok.Span {
			i++
			kv.Value, kv.Kind = toks[i].Span, toks[i].Kind
		}
		lt.Pairs = append(lt.Pairs, kv)
	}
}

// readBoth reads in with the one pass (grammar.LineTokens.Read), each
// event's strings parts of its line's string, and with the reference's
// passes (readTwice), each string a copy of its own, and fails when the
// sessions or the reports differ.
func readBoth(t *testing.T, name string, in []byte) {
	t.Helper()
	var one, two model.Collector
	var oneRep, twoRep model.Report
	oneErr := read(bytes.NewReader(in), &one, &oneRep, (*grammar.LineTokens).Read, false)
	twoErr := read(bytes.NewReader(in), &two, &twoRep, readTwice, true)
	if (oneErr == nil) != (twoErr == nil) {
		t.Fatalf("%s: error %v, two passes %v", name, oneErr, twoErr)
	}
	if !reflect.DeepEqual(one.Session, two.Session) {
		for i := range min(len(one.Session.Events), len(two.Session.Events)) {
			if !reflect.DeepEqual(one.Session.Events[i], two.Session.Events[i]) {
				t.Fatalf("%s: event %d\n one pass %+v\ntwo passes %+v", name, i, one.Session.Events[i], two.Session.Events[i])
			}
		}
		t.Fatalf("%s: sessions differ (header or number of events)", name)
	}
	if oneRep.Text() != twoRep.Text() {
		t.Fatalf("%s: report\n%s\ntwo passes\n%s", name, oneRep.Text(), twoRep.Text())
	}
}

// TestOnePassEqualsTwoPasses: the reader reads each line once
// (grammar.LineTokens.Read); it reads every rlog file of the repository's
// tests and generated sessions exactly as the parser's line scan followed by
// the tokenizer reads them.
func TestOnePassEqualsTwoPasses(t *testing.T) {
	forEachLog(t, []gen.Options{
		{Bytes: 256 << 10, FindingRate: 0.05},
		{Bytes: 256 << 10, FindingRate: 0.2, Timed: true},
		{Bytes: 256 << 10, FindingRate: 0.02, Streamed: true},
	}, readBoth)
}

// forEachLog calls read with every rlog file of the repository's tests
// and with a session generated with each of generated (seeded 1, 2, ...).
func forEachLog(t *testing.T, generated []gen.Options, read func(t *testing.T, name string, in []byte)) {
	t.Helper()
	var files []string
	for _, glob := range []string{"../testdata/*/*/*.rlog", "../testdata/*/*.rlog", "../../testdata/*/*.rlog", "../../grammar/testdata/*/*.rlog"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no rlog files found under testdata")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		read(t, p, data)
	}
	for seed, opts := range generated {
		opts.Seed = uint64(seed + 1)
		var b bytes.Buffer
		if err := gen.Write(&b, opts); err != nil {
			t.Fatal(err)
		}
		read(t, "generated", b.Bytes())
	}
}

// FuzzReadOnePass holds the one pass equal to the reference's passes on
// any input.
func FuzzReadOnePass(f *testing.F) {
	f.Add([]byte("---\nformat: rlog/1\nid: s\n---\nu: hi\nt!:Read id=a path=\"x → y\" → [running]\no: id=a → [ok] tokens_in=3\n"))
	f.Add([]byte("---\n---\n  cont tokens_out=2\nt:x\n@end tokens_in=1\nx:Explore id=t → [done] summary=\"s\"\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\nid: [\r\n---\r\nx:y id=\"q → [done] summary=\"\n\xff a: \x00 [redacted:key] @blob sha256=ab -> q\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		readBoth(t, "fuzz", data)
	})
}
