package lsp

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/encoding/json"
)

// Settings are the user's options: the server's own (which codes are
// published, how many and when) and the language's (Language). A Settings
// value is never modified once made: a change builds a new one, so
// snapshots can share it.
//
// To add an option of the server: add a field with its JSON name (the
// name users write under the section, "rlog.", in their editor), give it a
// default in DefaultSettings, and repair out-of-range values in normalize.
// A language's options are its own (Features.Settings).
type Settings struct {
	// DisabledCodes are diagnostic codes that are never published.
	DisabledCodes []string            `json:"disabledCodes"`
	Diagnostics   DiagnosticsSettings `json:"diagnostics"`
	// Language are the language's own options, read from the same
	// section; nil for a language that has none.
	Language LanguageSettings `json:"-"`
}

// LanguageSettings are a language's own options. A value is never
// modified once made, and compares with reflect.DeepEqual (a change of
// settings is told by it).
type LanguageSettings interface {
	// Overlay returns the options with those present in raw (the
	// section's object) set over them, as Settings.overlay does: options
	// raw does not mention keep their value; on an error, the options
	// read before it still apply.
	Overlay(raw json.RawMessage) (LanguageSettings, error)
}

// DiagnosticsSettings tune diagnostics publishing.
type DiagnosticsSettings struct {
	// MaxPerDocument caps the diagnostics published for one document
	// (0: no cap); a last diagnostic says how many were left out.
	MaxPerDocument int `json:"maxPerDocument"`
	// DebounceMs is how long after an edit diagnostics are computed.
	DebounceMs int `json:"debounceMs"`
}

// DefaultSettings are the settings of a client that sends none, for a
// language whose options are language.
func DefaultSettings(language LanguageSettings) Settings {
	return Settings{
		Diagnostics: DiagnosticsSettings{MaxPerDocument: 1000, DebounceMs: 100},
		Language:    language,
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
// directly or nested under section (Features.Section: {"rlog": {...}}).
// null or empty raw changes nothing. On a decode error the options read
// before it still apply (and the error says what was wrong).
func (s Settings) overlay(section string, raw json.RawMessage) (Settings, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var nested map[string]json.RawMessage
	if json.Unmarshal(raw, &nested) == nil {
		if inner, ok := nested[section]; ok && section != "" {
			return s.overlay(section, inner)
		}
	}
	out := s
	// Decoding into a slice reuses its array; s is shared, so copy first.
	out.DisabledCodes = slices.Clone(s.DisabledCodes)
	err := json.Unmarshal(raw, &out)
	if s.Language != nil {
		var langErr error
		out.Language, langErr = s.Language.Overlay(raw)
		if err == nil {
			err = langErr
		}
	}
	return out.normalize(), err
}

// normalize replaces values no user means (negative caps and delays).
func (s Settings) normalize() Settings {
	def := DefaultSettings(nil)
	if s.Diagnostics.MaxPerDocument < 0 {
		s.Diagnostics.MaxPerDocument = def.Diagnostics.MaxPerDocument
	}
	if s.Diagnostics.DebounceMs < 0 {
		s.Diagnostics.DebounceMs = def.Diagnostics.DebounceMs
	}
	return s
}
