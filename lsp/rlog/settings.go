package rlog

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/encoding/json"

	"github.com/rlog-ls/rlog-ls/lsp"
)

// Settings are rlog's own options (lsp.Settings.Language), under "rlog."
// beside the server's. A Settings value is never modified once made.
//
// To add an option: add a field with its JSON name (the name users write
// under "rlog." in their editor), give it a default in DefaultSettings,
// and repair out-of-range values in normalize.
type Settings struct {
	// Severity sets the severity of the codes it names, as the level's
	// name: {"S001": "warning", "W003": "error"}. Levels are error,
	// warning, info (or information) and hint, in any case.
	Severity   map[string]string `json:"severity"`
	Outline    OutlineSettings   `json:"outline"`
	InlayHints InlayHintSettings `json:"inlayHints"`
}

// InlayHintSettings choose the inlay hints.
type InlayHintSettings struct {
	// Latency shows, after each o: line, its call's latency.
	Latency bool `json:"latency"`
	// Gaps shows, before a line that follows a pause, the pause.
	Gaps bool `json:"gaps"`
	// GapThresholdSeconds is the shortest pause Gaps shows (0 or less:
	// the default).
	GapThresholdSeconds float64 `json:"gapThresholdSeconds"`
}

// OutlineSettings tune the document outline.
type OutlineSettings struct {
	// MaxItems caps the document outline (0: no cap).
	MaxItems int `json:"maxItems"`
}

// DefaultSettings are rlog's options for a client that sends none.
func DefaultSettings() Settings {
	return Settings{
		Outline:    OutlineSettings{MaxItems: 2000},
		InlayHints: InlayHintSettings{Latency: true, Gaps: true, GapThresholdSeconds: 60},
	}
}

// settingsOf are the rlog options of s.
func settingsOf(s lsp.Settings) Settings {
	if r, ok := s.Language.(Settings); ok {
		return r
	}
	return DefaultSettings()
}

// GapThreshold is InlayHints.GapThresholdSeconds as a duration.
func (s Settings) GapThreshold() time.Duration {
	return time.Duration(s.InlayHints.GapThresholdSeconds * float64(time.Second))
}

// Overlay returns s with the options present in raw set over it
// (lsp.LanguageSettings).
func (s Settings) Overlay(raw json.RawMessage) (lsp.LanguageSettings, error) {
	out := s
	// Decoding into a map adds to it: a severity map that is given
	// replaces the one before as a whole.
	out.Severity = nil
	err := json.Unmarshal(raw, &out)
	var given map[string]json.RawMessage
	if json.Unmarshal(raw, &given) != nil || given["severity"] == nil {
		out.Severity = s.Severity
	}
	if bad := out.dropBadSeverities(); bad != nil && err == nil {
		err = bad
	}
	return out.normalize(), err
}

// severityLevels are the level names rlog.severity accepts, as the LSP
// names its diagnostic severities, with the short forms.
var severityLevels = []string{"error", "warning", "warn", "information", "info", "hint"}

// dropBadSeverities removes the severity entries whose level is not one
// of severityLevels and says which they were.
func (s *Settings) dropBadSeverities() error {
	var bad []string
	for code, level := range s.Severity {
		if !slices.Contains(severityLevels, strings.ToLower(strings.TrimSpace(level))) {
			bad = append(bad, fmt.Sprintf("%s: %q", code, level))
		}
	}
	if bad == nil {
		return nil
	}
	slices.Sort(bad)
	kept := make(map[string]string, len(s.Severity))
	for code, level := range s.Severity {
		if slices.Contains(severityLevels, strings.ToLower(strings.TrimSpace(level))) {
			kept[code] = level
		}
	}
	s.Severity = kept
	return fmt.Errorf("rlog.severity: unknown level for %s (error, warning, info or hint)", strings.Join(bad, ", "))
}

// normalize replaces values no user means (a negative cap, a gap
// threshold that is not positive).
func (s Settings) normalize() Settings {
	def := DefaultSettings()
	if s.Outline.MaxItems < 0 {
		s.Outline.MaxItems = def.Outline.MaxItems
	}
	if !(s.InlayHints.GapThresholdSeconds > 0) || s.InlayHints.GapThresholdSeconds > 1e9 {
		s.InlayHints.GapThresholdSeconds = def.InlayHints.GapThresholdSeconds
	}
	return s
}
