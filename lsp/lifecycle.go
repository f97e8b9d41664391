package lsp

import (
	"context"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// initializeParams is decoded by hand: processId may be null or larger than
// protocol's int32, and the capabilities are decoded leniently apart (a
// client that gets one deep capability wrong still gets served).
type initializeParams struct {
	ProcessID             *int64                     `json:"processId"`
	ClientInfo            *protocol.ClientInfo       `json:"clientInfo"`
	RootURI               protocol.DocumentURI       `json:"rootUri"`
	InitializationOptions json.RawMessage            `json:"initializationOptions"`
	Capabilities          json.RawMessage            `json:"capabilities"`
	WorkspaceFolders      []protocol.WorkspaceFolder `json:"workspaceFolders"`
}

// positionEncodingsOffered reads capabilities.general.positionEncodings
// (LSP 3.17; absent from protocol v0.12.0).
type positionEncodingsOffered struct {
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
}

func (s *server[T]) initialize(raw json.RawMessage) (compute, error) {
	var p initializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	sess := &Session{
		RootURI:          p.RootURI,
		WorkspaceFolders: p.WorkspaceFolders,
		RawCapabilities:  p.Capabilities,
	}
	if p.ClientInfo != nil {
		sess.ClientName, sess.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
	}
	if p.ProcessID != nil && *p.ProcessID > 0 && *p.ProcessID <= 1<<31-1 {
		sess.ProcessID = int(*p.ProcessID)
	}
	if !isAbsent(p.Capabilities) {
		if err := json.Unmarshal(p.Capabilities, &sess.Capabilities); err != nil {
			s.log.Warn("client capabilities partly not understood", zap.Error(err))
		}
		var offered positionEncodingsOffered
		if err := json.Unmarshal(p.Capabilities, &offered); err != nil {
			s.log.Debug("general.positionEncodings not understood", zap.Error(err))
		}
		sess.Encoding = negotiateEncoding(offered.General.PositionEncodings)
		var refreshes clientRefreshes
		if err := json.Unmarshal(p.Capabilities, &refreshes); err != nil {
			s.log.Debug("workspace.inlayHint not understood", zap.Error(err))
		}
		sess.InlayHintRefresh = refreshes.Workspace.InlayHint.RefreshSupport
	}
	if err := s.settings.setBase(p.InitializationOptions); err != nil {
		s.log.Warn("some initializationOptions were not understood", zap.Error(err))
	}

	return func(context.Context) (any, error) {
		s.mu.Lock()
		s.state = stateRunning
		s.sess = sess
		s.mu.Unlock()
		s.log.Info("initialize",
			zap.String("client", sess.ClientName), zap.String("clientVersion", sess.ClientVersion),
			zap.Stringer("positionEncoding", sess.Encoding), zap.Int("processId", sess.ProcessID))
		if sess.ProcessID != 0 {
			s.goBackground(func() { s.watchProcess(sess.ProcessID) })
		}
		return initializeResult{
			Capabilities: s.capabilities(sess),
			ServerInfo:   protocol.ServerInfo{Name: s.opts.Name, Version: s.opts.Version},
		}, nil
	}, nil
}

func (s *server[T]) initialized(context.Context, json.RawMessage) error {
	s.afterInitialized()
	s.startFeatureBackground()
	return nil
}

// startFeatureBackground runs Features.Background, once.
func (s *server[T]) startFeatureBackground() {
	run := s.opts.Features.Background
	s.mu.Lock()
	if run == nil || s.stopFeature != nil || s.state != stateRunning {
		s.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(s.bg)
	s.stopFeature = cancel
	s.mu.Unlock()
	if !s.goBackground(func() { run(ctx, s.workspaceContext) }) {
		cancel()
	}
}

// shutdown stops background work and answers null; from now on requests
// get InvalidRequest and only exit is acted on. Its params are ignored:
// clients send none, null or {}.
func (s *server[T]) shutdown(json.RawMessage) (compute, error) {
	return func(context.Context) (any, error) {
		s.mu.Lock()
		s.state = stateShuttingDown
		if s.stopFeature != nil {
			s.stopFeature()
		}
		s.mu.Unlock()
		s.diagnostics.stop()
		s.log.Info("shutdown")
		return nil, nil
	}, nil
}

// exit ends the connection; Serve then returns 0 if shutdown came first.
func (s *server[T]) exit() {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	s.log.Info("exit", zap.Bool("afterShutdown", state == stateShuttingDown))
	s.stop()
}
