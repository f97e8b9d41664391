package convert

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rlog-ls/rlog-ls/analysis"
	"github.com/rlog-ls/rlog-ls/grammar"
)

// Validate checks r with the validator of format f and reports each
// finding. It is an error to ask for a format without one.
func Validate(f Format, r io.Reader, report func(Finding)) error {
	fi, ok := Lookup(f)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownFormat, f)
	}
	if fi.Validate == nil {
		return fmt.Errorf("rlog-ls has no validator for %s (%s)", f, fi.Description)
	}
	return fi.Validate(r, report)
}

// ValidatorRules lists the rules of every format's validator, each code
// once, in table order.
func ValidatorRules() []Rule {
	var out []Rule
	seen := map[string]bool{}
	for _, f := range formats {
		for _, r := range f.Rules {
			if !seen[r.Code] {
				seen[r.Code] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// ValidatorCodes expands a code or a family of codes ("ATIF" for every
// ATIF rule, "REPLAY" for every REPLAY rule) into the validator codes it
// names; nil when it names none.
func ValidatorCodes(code string) []string {
	code = strings.ToUpper(strings.TrimSpace(code))
	var out []string
	for _, r := range ValidatorRules() {
		if r.Code == code || len(code) > 2 && strings.TrimRight(r.Code, "0123456789") == code {
			out = append(out, r.Code)
		}
	}
	return out
}

// maxRlogHeader bounds how much of an rlog the output check reads looking
// for the header's end, as the rlog reader does.
const maxRlogHeader = 4 << 20

// validateRlog checks the rules of rlog/1 that make a file unusable: the
// header's (E001-E006, the only error-severity rules). It reads the
// header only; the body's warnings are `rlog-ls check`'s job.
func validateRlog(r io.Reader, report func(Finding)) error {
	br := bufio.NewReader(r)
	var head bytes.Buffer
	delims := 0
	for delims < 2 && head.Len() < maxRlogHeader {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			head.Write(line)
			continue
		}
		head.Write(line)
		if string(bytes.TrimSpace(line)) == "---" {
			delims++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	tree := grammar.Parse(head.Bytes())
	for _, f := range analysis.Check(tree, analysis.Config{}) {
		if f.Severity != analysis.Error {
			continue
		}
		sl, sc := tree.LineColumn(f.Span.Start)
		el, ec := tree.LineColumn(f.Span.End)
		report(Finding{Code: string(f.Code), Message: f.Message, Line: sl, Col: sc, EndLine: el, EndCol: ec})
	}
	return nil
}

// rlogRules are the rlog/1 rules validateRlog applies.
func rlogRules() []Rule {
	var out []Rule
	for _, r := range analysis.Rules {
		if r.Severity == analysis.Error {
			out = append(out, Rule{Code: string(r.Code), Title: r.Title})
		}
	}
	return out
}

// Findings collects findings, keeping the first max of them and counting
// the rest, for callers that show a list.
type Findings struct {
	Max   int
	List  []Finding
	Extra int
	// Disabled codes are left out.
	Disabled []string
}

// Add records f.
func (c *Findings) Add(f Finding) {
	if slices.Contains(c.Disabled, f.Code) {
		return
	}
	if c.Max > 0 && len(c.List) >= c.Max {
		c.Extra++
		return
	}
	c.List = append(c.List, f)
}

// CheckOutput checks a conversion's output with the target format's
// validator, reading r once; formats without a validator pass. It returns
// at most max findings (and how many more there were).
func CheckOutput(to Format, r io.Reader, max int) (*Findings, error) {
	c := &Findings{Max: max}
	fi, ok := Lookup(to)
	if !ok || fi.Validate == nil {
		return c, nil
	}
	return c, fi.Validate(r, c.Add)
}

// ValidateAll is Validate returning every finding.
func ValidateAll(f Format, r io.Reader) ([]Finding, error) {
	var out []Finding
	err := Validate(f, r, func(x Finding) { out = append(out, x) })
	return out, err
}
