package analysis

import (
	"fmt"
	"unicode/utf8"
)

// BinarySample is how much of a document CheckBinary looks at, as git
// does to tell binary files from text.
const BinarySample = 8000

// CheckBinary reports whether src is not text at all (an image, an
// archive, UTF-16): then its only finding is E007, and the caller checks
// nothing else, rather than reporting an unknown line for every run of
// bytes between two newline bytes. It looks at the first BinarySample
// bytes: NUL bytes (4 at least, and 2% of them), control characters that
// text does not use in a tenth of them, or bytes that are not UTF-8 in
// three tenths, mean binary. A text log with a stray NUL (W013) or Latin-1
// accents (W012) stays text. ok is false when cfg disables E007.
func CheckBinary(src []byte, cfg Config) (Finding, bool) {
	if !cfg.enabled(E007) {
		return Finding{}, false
	}
	head := src[:min(len(src), BinarySample)]
	nul, control, invalid := 0, 0, 0
	for i := 0; i < len(head); {
		c := head[i]
		switch {
		case c == 0:
			nul++
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != '\b' && c != 0x1b:
			control++
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(head[i:])
			if r == utf8.RuneError && size == 1 && len(head)-i >= utf8.UTFMax {
				invalid++ // a sequence cut by the sample's end is not counted
			}
			i += size
			continue
		}
		i++
	}
	n := len(head)
	if !(nul >= 4 && nul*50 >= n) && !(n >= 32 && (nul+control)*10 >= n) && !(n >= 32 && (nul+control+invalid)*10 >= 3*n) {
		return Finding{}, false
	}
	r, _ := RuleFor(E007)
	what := "control characters and bytes that are not UTF-8"
	if nul > 0 {
		what = "NUL bytes"
	}
	return Finding{Code: E007, Severity: cfg.severity(E007, r.Severity), Line: 0,
		Message: fmt.Sprintf("Binary file: not rlog text (%s in its first %d bytes); nothing else was checked", what, n)}, true
}
