package lsp

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/encoding/json"
)

// configSection is the section asked for in workspace/configuration and the
// key under which clients may nest our settings ({"rlog": {...}}).
const configSection = "rlog"

// Settings are the user's options. A Settings value is never modified once
// made: a change builds a new one, so snapshots can share it.
//
// To add an option: add a field with its JSON name (the name users write
// under "rlog." in their editor), give it a default in DefaultSettings, and
// repair out-of-range values in normalize.
type Settings struct {
	// DisabledCodes are diagnostic codes that are never published.
	DisabledCodes []string `json:"disabledCodes"`
	// Severity sets the severity of the codes it names, as the level's
	// name: {"S001": "warning", "W003": "error"}. Levels are error,
	// warning, info (or information) and hint, in any case.
	Severity    map[string]string   `json:"severity"`
	Outline     OutlineSettings     `json:"outline"`
	Diagnostics DiagnosticsSettings `json:"diagnostics"`
	InlayHints  InlayHintSettings   `json:"inlayHints"`
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

// GapThreshold is InlayHints.GapThresholdSeconds as a duration.
func (s Settings) GapThreshold() time.Duration {
	return time.Duration(s.InlayHints.GapThresholdSeconds * float64(time.Second))
}

// OutlineSettings tune the document outline.
type OutlineSettings struct {
	// MaxItems caps the document outline (0: no cap).
	MaxItems int `json:"maxItems"`
}

// DiagnosticsSettings tune diagnostics publishing.
type DiagnosticsSettings struct {
	// MaxPerDocument caps the diagnostics published for one document
	// (0: no cap); a last diagnostic says how many were left out.
	MaxPerDocument int `json:"maxPerDocument"`
	// DebounceMs is how long after an edit diagnostics are computed.
	DebounceMs int `json:"debounceMs"`
}

// DefaultSettings are the settings of a client that sends none.
func DefaultSettings() Settings {
	return Settings{
		Outline:     OutlineSettings{MaxItems: 2000},
		Diagnostics: DiagnosticsSettings{MaxPerDocument: 1000, DebounceMs: 100},
		InlayHints:  InlayHintSettings{Latency: true, Gaps: true, GapThresholdSeconds: 60},
	}
}

// CodeDisabled reports whether diagnostics with this code are switched off.
// Case does not matter: "w001" disables W001.
func (s Settings) CodeDisabled(code string) bool {
	return slices.ContainsFunc(s.DisabledCodes, func(c string) bool { return strings.EqualFold(c, code) })
}

// DiagnosticsDelay is the debounce between an edit and its diagnostics.
func (s Settings) DiagnosticsDelay() time.Duration {
	return time.Duration(s.Diagnostics.DebounceMs) * time.Millisecond
}

// overlay returns s with the options present in raw set over it; options
// raw does not mention keep their value in s. raw may hold the options
// directly or nested under "rlog". null or empty raw changes nothing. On a
// decode error the options read before it still apply (and the error says
// what was wrong).
func (s Settings) overlay(raw json.RawMessage) (Settings, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var nested map[string]json.RawMessage
	if json.Unmarshal(raw, &nested) == nil {
		if inner, ok := nested[configSection]; ok {
			return s.overlay(inner)
		}
	}
	out := s
	// Decoding into a slice reuses its array; s is shared, so copy first.
	out.DisabledCodes = slices.Clone(s.DisabledCodes)
	// Decoding into a map adds to it: a severity map that is given
	// replaces the one before as a whole.
	out.Severity = nil
	err := json.Unmarshal(raw, &out)
	if _, given := nested["severity"]; !given {
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

// normalize replaces values no user means (negative caps and delays).
func (s Settings) normalize() Settings {
	def := DefaultSettings()
	if s.Outline.MaxItems < 0 {
		s.Outline.MaxItems = def.Outline.MaxItems
	}
	if s.Diagnostics.MaxPerDocument < 0 {
		s.Diagnostics.MaxPerDocument = def.Diagnostics.MaxPerDocument
	}
	if s.Diagnostics.DebounceMs < 0 {
		s.Diagnostics.DebounceMs = def.Diagnostics.DebounceMs
	}
	if !(s.InlayHints.GapThresholdSeconds > 0) || s.InlayHints.GapThresholdSeconds > 1e9 {
		s.InlayHints.GapThresholdSeconds = def.InlayHints.GapThresholdSeconds
	}
	return s
}
