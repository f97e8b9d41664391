package jsonscan

import (
	"bytes"
	"testing"
)

// skipWSByByte is skipWS's reference: JSON's four spaces, one byte at a
// time.
func skipWSByByte(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// wsStops are bytes that end a run of white space, the near misses of
// the word test among them: a space with its high bit (0xa0), the bytes
// around the four spaces, a NUL, the first byte of an emoji, invalid
// UTF-8. Every fourth is also put at each place of a run.
var wsStops = []byte{'"', '{', '}', '[', 0xa0, ',', ':', '0', 0, 'a', ']', 0x08, 0x0b, 0x0c, 0x0e, 0x1f, 0xf0, 0x89, 0x8a, 0x8d, '!', 0xff}

// TestSkipWSEdges holds skipWS to the byte loop on runs of each of the
// four spaces and of their mix, of every length 0..40, after a line
// break or not, at every alignment, with a stop after the run (from every
// start) or at each place of it (from the run's start).
func TestSkipWSEdges(t *testing.T) {
	runs := []string{" ", "\t", "\n", "\r", " \t\n\r", "\n ", "\r\n  ", "\n\t"}
	for pad := 0; pad < 8; pad++ {
		for _, unit := range runs {
			for _, lead := range []string{"", "\n", "\r\n", ":", ","} {
				for n := 0; n <= 40; n++ {
					run := []byte(lead + repeatTo(unit, n))
					run = run[:len(lead)+n]
					// From the run's start and the bytes after it (the
					// alignment is pad's), or from every byte.
					check := func(b []byte, every bool) {
						t.Helper()
						for i := 0; i <= len(b); i++ {
							if !every && (i < pad || i > pad+2) {
								continue
							}
							if got, want := skipWS(b, i), skipWSByByte(b, i); got != want {
								t.Fatalf("%q from %d: %d, want %d", b, i, got, want)
							}
						}
					}
					in := append(bytes.Repeat([]byte{'x'}, pad), run...)
					check(in, true)
					for j, stop := range wsStops {
						check(append(in[:len(in):len(in)], stop, ' ', '"'), true)
						for k := pad; k < len(in) && j%4 == 0; k++ {
							b := append([]byte(nil), in...)
							b[k] = stop
							check(b, false)
						}
					}
				}
			}
		}
	}
}

// repeatTo is unit repeated to at least n bytes.
func repeatTo(unit string, n int) string {
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(unit)
	}
	return b.String()
}

// FuzzSkipWS holds skipWS, which jumps over an indentation a word at a
// time, to the byte loop, from every start of any input.
func FuzzSkipWS(f *testing.F) {
	for _, s := range []string{
		"{\n  \"a\": [\n    1,\n    2\n  ]\n}",
		"\n                                 x",
		"\n        \n        \t\r\n         ",
		"\n       \xa0       ",
		"\r\n\t\t\t\t\t\t\t\t\t\"",
		" \t\n\r",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i <= len(b); i++ {
			if got, want := skipWS(b, i), skipWSByByte(b, i); got != want {
				t.Fatalf("%q from %d: %d, want %d", b, i, got, want)
			}
		}
	})
}
