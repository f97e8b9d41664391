package lsp

import (
	"context"
	"reflect"
	"sync"
	"time"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// configurationTimeout bounds a workspace/configuration round trip; a client
// that never answers must not keep a goroutine forever.
const configurationTimeout = 30 * time.Second

// settingsSource layers the settings: defaults, then initializationOptions
// (the base), then the latest answer from the client's configuration. Each
// answer applies to the base, so an option the user removes falls back to
// its default instead of sticking.
type settingsSource struct {
	mu      sync.Mutex
	section string // Features.Section
	def     Settings
	base    Settings
	cur     Settings
	issued  uint64 // generation of the latest configuration read started
	applied uint64 // generation of the read cur comes from
}

func newSettingsSource(section string, language LanguageSettings) *settingsSource {
	def := DefaultSettings(language)
	return &settingsSource{section: section, def: def, base: def, cur: def}
}

func (src *settingsSource) current() Settings {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.cur
}

func (src *settingsSource) setBase(raw json.RawMessage) error {
	src.mu.Lock()
	defer src.mu.Unlock()
	base, err := src.def.overlay(src.section, raw)
	src.base, src.cur = base, base
	return err
}

// begin starts a configuration read and returns its generation.
func (src *settingsSource) begin() uint64 {
	src.mu.Lock()
	defer src.mu.Unlock()
	src.issued++
	return src.issued
}

// apply installs the result of read gen over the base, unless a later read
// has been applied already (two quick didChangeConfiguration notifications
// can be answered out of order). It reports whether the settings changed.
func (src *settingsSource) apply(gen uint64, raw json.RawMessage) (changed bool, err error) {
	src.mu.Lock()
	defer src.mu.Unlock()
	if gen < src.applied {
		return false, nil
	}
	next, err := src.base.overlay(src.section, raw)
	src.applied = gen
	changed = !reflect.DeepEqual(next, src.cur)
	src.cur = next
	return changed, err
}

// clientConfigurable reports whether the client answers workspace/configuration.
func (s *server[T]) clientConfigurable() bool {
	sess := s.session()
	return sess.Capabilities.Workspace != nil && sess.Capabilities.Workspace.Configuration
}

// readConfiguration asks the client for our section and applies the answer.
// It runs off the read loop: it waits for the client's reply.
func (s *server[T]) readConfiguration(gen uint64) {
	ctx, cancel := context.WithTimeout(s.bg, configurationTimeout)
	defer cancel()
	res, err := s.client.Configuration(ctx, protocol.ConfigurationItem{Section: s.settings.section})
	if err != nil {
		s.log.Warn("reading the client's configuration failed", zap.Error(err))
		return
	}
	var raw json.RawMessage
	if len(res) > 0 {
		raw = res[0]
	}
	s.applySettings(gen, raw)
}

func (s *server[T]) applySettings(gen uint64, raw json.RawMessage) {
	changed, err := s.settings.apply(gen, raw)
	if err != nil {
		s.log.Warn("some settings were not understood", zap.Error(err))
	}
	if changed {
		s.log.Info("settings changed", zap.Any("settings", s.currentSettings()))
		s.diagnostics.scheduleAll()
		s.refreshInlayHints()
	}
}

// didChangeConfiguration re-reads the settings. Clients that answer
// workspace/configuration are asked again (the notification's own payload
// is often empty or partial for them); others push the settings in it.
func (s *server[T]) didChangeConfiguration(_ context.Context, raw json.RawMessage) error {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	gen := s.settings.begin()
	if s.clientConfigurable() {
		s.goBackground(func() { s.readConfiguration(gen) })
		return nil
	}
	s.applySettings(gen, p.Settings)
	return nil
}

// afterInitialized reads the configuration and asks to be told of changes,
// where the client supports it. Both wait for the client: off the read loop.
func (s *server[T]) afterInitialized() {
	sess := s.session()
	ws := sess.Capabilities.Workspace
	if ws == nil {
		return
	}
	if ws.Configuration {
		gen := s.settings.begin()
		s.goBackground(func() { s.readConfiguration(gen) })
	}
	if ws.DidChangeConfiguration != nil && ws.DidChangeConfiguration.DynamicRegistration {
		s.goBackground(func() {
			ctx, cancel := context.WithTimeout(s.bg, configurationTimeout)
			defer cancel()
			err := s.client.RegisterCapability(ctx, protocol.Registration{
				ID:     s.opts.Name + ".didChangeConfiguration",
				Method: protocol.MethodWorkspaceDidChangeConfiguration,
			})
			if err != nil {
				s.log.Warn("registering for configuration changes failed", zap.Error(err))
			}
		})
	}
}
