package analysis

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/rlog-ls/rlog-ls/grammar"
)

// FuzzTextFindingsOfEveryLine holds a chunk summary's text findings (W006,
// W011, W012, W013, S001, H002), which it looks for only on the lines whose
// flags or the chunk's credentials say they have one, to textFindings run
// on every body line, each line's credentials found on their own.
func FuzzTextFindingsOfEveryLine(f *testing.F) {
	for _, s := range []string{
		okHeader + "u: hi\n@blob sha256=ab x\nt:Read id=a -> ok\nu: \xff\na: \x00\nu: [REDACTED] <REDACTED>\n",
		okHeader + "u: key AKIAIOSFODNN7EXAMPLE\nu: plain\na: password=hunter2hunter2 token=ghp_0123456789abcdefghijklmnopqrstuvwxyz\n",
		okHeader + "u: a\r\nu: api_key=sk-ant-0123456789abcdef0123456789abcdef\r\nu: b\n",
		"---\nformat: rlog/1\ntoken: ghp_0123456789abcdefghijklmnopqrstuvwxyz\n---\nu: after the header\n",
		"u: no header AKIAIOSFODNN7EXAMPLE\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	textCode := map[Code]bool{W006: true, W011: true, W012: true, W013: true, S001: true, H002: true}
	f.Fuzz(func(t *testing.T, src []byte, tiny bool) {
		if tiny {
			t.Cleanup(grammar.SetChunkLimitsForTest(2, 40))
		}
		tr := grammar.Parse(bytes.Clone(src))
		for i := range tr.ChunkCount() {
			var got []Finding
			for _, f := range summaryOf(tr, i).local {
				if textCode[f.Code] {
					got = append(got, f)
				}
			}
			c, firstLine, base := tr.ChunkAt(i)
			every := &summarizer{s: &chunkSummary{}, firstLine: firstLine, base: base}
			for li := notBody(tr, i); li < c.LineCount(); li++ {
				var l grammar.Line
				text := tr.ChunkLineInto(c, firstLine, base, li, &l)
				every.textFindings(&l, text, l.Num-firstLine)
			}
			if want := every.s.local; !reflect.DeepEqual(got, want) {
				t.Fatalf("chunk %d: the summary's text findings%s\nthose of every line%s", i, summarizeFindings(got), summarizeFindings(want))
			}
		}
	})
}
