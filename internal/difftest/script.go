package difftest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// A Script is one run of the harness, written down: the session's setup,
// the document opened, and the steps, with every edit and every place a
// question is asked in byte offsets of the text at that step. A random run
// records its script as it goes; a failing one is shrunk and saved, and
// replaying the file replays the run exactly (offsets that an edit left
// out of range are clamped, so a shrunk script stays valid).
type Script struct {
	Seed uint64 `json:"seed"` // the seed that generated it (0: written by hand)
	// UTF8 negotiates UTF-8 positions; otherwise UTF-16.
	UTF8 bool `json:"utf8,omitempty"`
	// Flat asks for document symbols without hierarchy.
	Flat bool `json:"flat,omitempty"`
	// FoldingLimit is the client's foldingRange rangeLimit (0: none).
	FoldingLimit int `json:"foldingLimit,omitempty"`
	// Source says where the document came from (a fixture's path, or the
	// generator's options): for people, not for the replay.
	Source string `json:"source,omitempty"`
	// Text is the document opened first.
	Text  Raw    `json:"text"`
	Steps []Step `json:"steps"`
}

// Step is one thing the client does. Exactly one field is set.
type Step struct {
	// Change sends one didChange per element (a burst of versions, of which
	// only the last is waited for), each with its content changes in order.
	Change [][]Edit `json:"change,omitempty"`
	// Settings sends workspace/didChangeConfiguration with these settings.
	Settings *Settings `json:"settings,omitempty"`
	// Compare opens a fresh copy of the text and compares every probe at
	// these places (and the diagnostics, with check's findings).
	Compare *Compare `json:"compare,omitempty"`
	// Noise sends requests about the edited document and cancels them at
	// once (their answers are not compared).
	Noise []Noise `json:"noise,omitempty"`
}

// Edit replaces bytes [Start, End) of the text with Text. Whole replaces
// the whole document (a change without a range).
type Edit struct {
	Start int  `json:"start"`
	End   int  `json:"end"`
	Text  Raw  `json:"text"`
	Whole bool `json:"whole,omitempty"`
}

// Raw is text that may hold invalid UTF-8. In JSON it is a string when it
// is valid UTF-8, else {"base64": ...}, so the bytes come back exactly.
type Raw string

// MarshalJSON implements json.Marshaler.
func (r Raw) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(r)) {
		return json.Marshal(string(r))
	}
	return json.Marshal(map[string][]byte{"base64": []byte(r)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *Raw) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*r = Raw(s)
		return nil
	}
	var enc struct {
		Base64 []byte `json:"base64"`
	}
	if err := json.Unmarshal(b, &enc); err != nil {
		return err
	}
	*r = Raw(enc.Base64)
	return nil
}

// Settings are the rlog settings sent (see the README's table).
type Settings struct {
	DisabledCodes  []string `json:"disabledCodes"`
	OutlineMax     int      `json:"outlineMaxItems"`
	DiagnosticsMax int      `json:"diagnosticsMaxPerDocument"`
}

// Compare is one comparison of the edited document with a fresh open.
type Compare struct {
	Sites []SiteSpec `json:"sites"`
	// Probes limits the comparison to these probes (all when empty); a
	// shrunk script names only the one that diverged.
	Probes []string `json:"probes,omitempty"`
	// Fix applies the edits of the n-th code action (counting those with
	// edits, at any site) to the edited document afterwards, as an editor
	// does when the user picks it; -1: none.
	Fix int `json:"fix"`
}

// SiteSpec is a place questions are asked about: a point and a range, in
// byte offsets (snapped to characters when used).
type SiteSpec struct {
	At    int `json:"at"`
	Start int `json:"start"`
	End   int `json:"end"`
}

// Noise is a request that is cancelled as soon as it is sent.
type Noise struct {
	Probe string   `json:"probe"`
	Site  SiteSpec `json:"site"`
}

// Edits counts the content changes of the script.
func (s *Script) Edits() int {
	n := 0
	for _, st := range s.Steps {
		for _, v := range st.Change {
			n += len(v)
		}
	}
	return n
}

// Save writes the script as indented JSON.
func (s *Script) Save(path string) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Load reads a script written by Save.
func Load(path string) (*Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Script
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &s, nil
}

// String describes the script for a failure report: its setup and each
// step on a line.
func (s *Script) String() string {
	var b strings.Builder
	enc := "UTF-16"
	if s.UTF8 {
		enc = "UTF-8"
	}
	fmt.Fprintf(&b, "seed %d, %s positions", s.Seed, enc)
	if s.Flat {
		b.WriteString(", flat symbols")
	}
	if s.FoldingLimit > 0 {
		fmt.Fprintf(&b, ", folding limit %d", s.FoldingLimit)
	}
	fmt.Fprintf(&b, "\nopen %d bytes (%s): %s\n", len(s.Text), s.Source, quoteShort(s.Text, 200))
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "%3d ", i)
		switch {
		case st.Change != nil:
			for v, edits := range st.Change {
				if v > 0 {
					b.WriteString("; then ")
				}
				b.WriteString("change")
				for _, e := range edits {
					if e.Whole {
						fmt.Fprintf(&b, " whole document %s", quoteShort(e.Text, 80))
						continue
					}
					fmt.Fprintf(&b, " [%d,%d)=%s", e.Start, e.End, quoteShort(e.Text, 80))
				}
			}
		case st.Settings != nil:
			fmt.Fprintf(&b, "settings %+v", *st.Settings)
		case st.Compare != nil:
			fmt.Fprintf(&b, "compare at %v", st.Compare.Sites)
			if len(st.Compare.Probes) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(st.Compare.Probes, ", "))
			}
			if st.Compare.Fix >= 0 {
				fmt.Fprintf(&b, ", then apply quick fix %d", st.Compare.Fix)
			}
		case st.Noise != nil:
			fmt.Fprintf(&b, "%d cancelled requests", len(st.Noise))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func quoteShort[S ~string](s S, n int) string {
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…(%d bytes)", s[:n], len(s))
}
