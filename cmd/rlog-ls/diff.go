package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"

	"github.com/rlog-ls/rlog-ls/analysis"
)

// diffContext is the number of unchanged lines around each change, as in
// diff -u and gofmt -d.
const diffContext = 3

// change is a run of whole old lines [from, from+len(old)) replaced by new.
// Lines keep their terminators; the last line of a file may have none.
type change struct {
	from     int
	old, new [][]byte
}

// writeUnifiedDiff writes the unified diff that edits (sorted, not
// overlapping) make to src, headed like gofmt -d's (--- NAME.orig,
// +++ NAME), so patch -p0 applies it. The changes come from the edits
// themselves: the cost is in proportion to the file, whatever changed.
func writeUnifiedDiff(w io.Writer, name string, src []byte, edits []analysis.Edit) error {
	lines := splitLines(src)
	changes := lineChanges(src, lines, edits)
	if len(changes) == 0 {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "diff %s.orig %s\n--- %s.orig\n+++ %s\n", name, name, name, name)
	writeHunks(&b, lines, changes)
	_, err := w.Write(b.Bytes())
	return err
}

// lineChanges turns edits (sorted, not overlapping) of src, split into
// lines, into the runs of lines they change, in order: the lines the
// edits touch are rewritten, the ones that come out the same are left
// out, and runs that meet are one.
func lineChanges(src []byte, lines [][]byte, edits []analysis.Edit) []change {
	starts := make([]int, len(lines)+1)
	for i, l := range lines {
		starts[i+1] = starts[i] + len(l)
	}
	// lineOf is the line holding byte off: the end of a last line without
	// a line break is on that line, the end of a file that ends with one
	// is past the last line (len(lines)).
	lineOf := func(off int) int {
		if n := len(lines); off == len(src) && n > 0 && lines[n-1][len(lines[n-1])-1] != '\n' {
			return n - 1
		}
		return sort.Search(len(lines), func(i int) bool { return starts[i+1] > off })
	}
	var changes []change
	for i := 0; i < len(edits); {
		first := lineOf(edits[i].Start)
		last := lineOf(max(edits[i].End-1, edits[i].Start))
		j := i + 1
		for j < len(edits) && lineOf(edits[j].Start) <= last {
			last = max(last, lineOf(max(edits[j].End-1, edits[j].Start)))
			j++
		}
		// The edits i..j-1 touch lines first..last: rewrite those lines.
		end := min(last+1, len(lines))
		base := starts[first]
		shifted := make([]analysis.Edit, 0, j-i)
		for _, e := range edits[i:j] {
			shifted = append(shifted, analysis.Edit{Start: e.Start - base, End: e.End - base, NewText: e.NewText})
		}
		c := change{from: first, old: lines[first:end], new: splitLines(analysis.ApplyEdits(src[base:starts[end]], shifted))}
		changes = appendChange(changes, c.trimmed(), lines)
		i = j
	}
	return changes
}

// trimmed is c without the lines it leaves as they were, at either end.
func (c change) trimmed() change {
	for len(c.old) > 0 && len(c.new) > 0 && bytes.Equal(c.old[0], c.new[0]) {
		c.from++
		c.old, c.new = c.old[1:], c.new[1:]
	}
	for len(c.old) > 0 && len(c.new) > 0 && bytes.Equal(c.old[len(c.old)-1], c.new[len(c.new)-1]) {
		c.old, c.new = c.old[:len(c.old)-1], c.new[:len(c.new)-1]
	}
	return c
}

// appendChange adds c, a change of lines after those of changes, unless
// it changes nothing; right after the previous change, the two are one
// block, its old lines then its new ones, as diff shows them.
func appendChange(changes []change, c change, lines [][]byte) []change {
	switch {
	case len(c.old)+len(c.new) == 0:
	case len(changes) > 0 && changes[len(changes)-1].from+len(changes[len(changes)-1].old) == c.from:
		prev := &changes[len(changes)-1]
		prev.old = lines[prev.from : c.from+len(c.old)]
		prev.new = append(prev.new[:len(prev.new):len(prev.new)], c.new...)
	default:
		changes = append(changes, c)
	}
	return changes
}

// writeHunks writes changes (in order) of lines as the hunks of a unified
// diff, with diffContext lines of context; changes whose context would
// touch or overlap share a hunk.
func writeHunks(b *bytes.Buffer, lines [][]byte, changes []change) {
	delta := 0 // new line number minus old line number, before the hunk
	for i := 0; i < len(changes); {
		j := i + 1
		for j < len(changes) && changes[j].from-(changes[j-1].from+len(changes[j-1].old)) <= 2*diffContext {
			j++
		}
		from := max(changes[i].from-diffContext, 0)
		last := changes[j-1]
		to := min(last.from+len(last.old)+diffContext, len(lines))
		var body bytes.Buffer
		oldCount, newCount, hunkDelta := 0, 0, 0
		at := from
		for _, c := range changes[i:j] {
			for ; at < c.from; at++ {
				writeDiffLine(&body, ' ', lines[at])
				oldCount++
				newCount++
			}
			for _, l := range c.old {
				writeDiffLine(&body, '-', l)
			}
			for _, l := range c.new {
				writeDiffLine(&body, '+', l)
			}
			oldCount += len(c.old)
			newCount += len(c.new)
			hunkDelta += len(c.new) - len(c.old)
			at = c.from + len(c.old)
		}
		for ; at < to; at++ {
			writeDiffLine(&body, ' ', lines[at])
			oldCount++
			newCount++
		}
		fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(from, oldCount), hunkRange(from+delta, newCount))
		b.Write(body.Bytes())
		delta += hunkDelta
		i = j
	}
}

// hunkRange is a hunk header's "start,count" for 0-based line from; an
// empty range names the line before it, as diff does.
func hunkRange(from, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", from)
	}
	if count == 1 {
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, count)
}

func writeDiffLine(b *bytes.Buffer, mark byte, line []byte) {
	b.WriteByte(mark)
	b.Write(line)
	if len(line) == 0 || line[len(line)-1] != '\n' {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// splitLines splits text after each '\n'; the last line may have none.
func splitLines(text []byte) [][]byte {
	var out [][]byte
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
