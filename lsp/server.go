package lsp

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Features is what a language adds to the plumbing: how to parse a
// document, how to diagnose it, which requests it answers and which
// capabilities it advertises for them.
type Features[T Editable[T]] struct {
	// Parse builds a document's text from its bytes. Required.
	Parse func(src []byte) T
	// Diagnose computes a document's diagnostics, in its own goroutine,
	// after the debounce. Disabled codes are filtered and the cap applied
	// after it; it may do both itself, more cheaply (see Diagnostics).
	Diagnose func(ctx context.Context, dc *DocumentContext[T]) Diagnostics
	// Requests maps LSP methods to handlers. The lifecycle methods are the
	// server's own and cannot be overridden.
	Requests map[string]Request[T]
	// Notifications maps LSP notifications to handlers (didSave,
	// didChangeWatchedFiles ...). The server's own (text sync, cancel,
	// configuration, lifecycle) cannot be overridden.
	Notifications map[string]Notification[T]
	// Capabilities adds the providers of Requests to the initialize result.
	Capabilities func(caps *ServerCapabilities, session *Session)
	// Background, when set, runs in its own goroutine from the client's
	// initialized notification until shutdown (or the end of the
	// connection), when ctx ends: work that no message starts, such as
	// following files on disk that the editor shows through the server.
	// workspace returns the open documents and the session as they are
	// at each call.
	Background func(ctx context.Context, workspace func() *WorkspaceContext[T])
	// Section is the configuration section the settings are read from
	// (workspace/configuration's, and the key under which a client may
	// nest them in its other messages), and Settings the language's own
	// options as a client that sends none has them (Settings.Language);
	// nil for none.
	Section  string
	Settings LanguageSettings
}

// Options configure Serve.
type Options[T Editable[T]] struct {
	Features Features[T]
	// Name and Version are reported as serverInfo.
	Name, Version string
	// Logger receives the server's own log (never write it to stdout). nil
	// logs nothing.
	Logger *zap.Logger
	// Trace, when set, receives every JSON-RPC message as sent on the wire.
	Trace *zap.Logger
	// ProcessPollInterval is how often the client's processId is checked
	// for life. 0 means every 5 seconds.
	ProcessPollInterval time.Duration

	// processAlive replaces the liveness probe in tests.
	processAlive func(pid int) bool
	// processStart replaces the process start time probe in tests (see
	// watchProcess); "" means unknown.
	processStart func(pid int) string
}

// Session is what initialize told us about the client. It does not change
// after initialize.
type Session struct {
	ClientName, ClientVersion string
	Encoding                  PositionEncoding
	Capabilities              protocol.ClientCapabilities
	// RawCapabilities holds the client capabilities as sent, for the LSP
	// 3.17 fields protocol v0.12.0 does not know.
	RawCapabilities json.RawMessage
	// InlayHintRefresh says the client answers workspace/inlayHint/refresh
	// (LSP 3.17 workspace.inlayHint.refreshSupport).
	InlayHintRefresh bool
	RootURI          protocol.DocumentURI
	WorkspaceFolders []protocol.WorkspaceFolder
	ProcessID        int
}

type lifecycle int

const (
	stateNew          lifecycle = iota // only initialize and exit are served
	stateRunning                       // after initialize
	stateShuttingDown                  // after shutdown: only exit is served
)

// server is one language server connection, run by Serve.
type server[T Editable[T]] struct {
	opts          Options[T]
	log           *zap.Logger
	conn          jsonrpc2.Conn
	stream        *wireStream
	client        *Client
	docs          *Store[T]
	diagnostics   *diagnosticsPublisher[T]
	settings      *settingsSource
	requests      map[string]Request[T]
	notifications map[string]notificationHandler[T]

	// bg is the context of everything the server runs in the background;
	// it ends when the connection does. wg counts those goroutines, so
	// Serve returns only once they have all finished.
	bg     context.Context
	stopBG context.CancelFunc
	wg     sync.WaitGroup
	// stopFeature ends Features.Background (at shutdown); nil until it
	// runs.
	stopFeature context.CancelFunc

	// stopping is closed by exit and by the client-process watch.
	stopping chan struct{}
	stopOnce sync.Once

	mu       sync.Mutex
	state    lifecycle
	closed   bool // Serve is finishing: no new work may start
	sess     *Session
	inflight map[requestKey]*inflightRequest
}

// readLoopGrace is how long Serve waits for the read loop once stopping.
const readLoopGrace = 100 * time.Millisecond

// Serve runs a language server on rwc until the client sends exit, the
// stream ends (the client has gone), the client's process dies, or ctx is
// done. It returns the process exit code the specification asks for: 0 if
// shutdown was requested before the end, 1 otherwise.
func Serve[T Editable[T]](ctx context.Context, rwc io.ReadWriteCloser, opts Options[T]) int {
	return newServer(opts).serve(ctx, rwc)
}

func newServer[T Editable[T]](opts Options[T]) *server[T] {
	if opts.Features.Parse == nil {
		panic("lsp: Options.Features.Parse is required")
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.ProcessPollInterval <= 0 {
		opts.ProcessPollInterval = 5 * time.Second
	}
	if opts.processStart == nil {
		opts.processStart = processStartTime
		if opts.processAlive != nil {
			// A test's own probe: keep the real process table out of it.
			opts.processStart = func(int) string { return "" }
		}
	}
	if opts.processAlive == nil {
		opts.processAlive = processAlive
	}
	s := &server[T]{
		opts:     opts,
		log:      opts.Logger,
		docs:     NewStore(opts.Features.Parse),
		settings: newSettingsSource(opts.Features.Section, opts.Features.Settings),
		inflight: map[requestKey]*inflightRequest{},
		stopping: make(chan struct{}),
		sess:     &Session{},
	}
	s.diagnostics = newDiagnosticsPublisher(s)
	s.requests, s.notifications = s.methodTable()
	return s
}

func (s *server[T]) serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	s.bg, s.stopBG = context.WithCancel(context.WithoutCancel(ctx))
	s.stream = newWireStream(rwc, s.log, newTracer(s.opts.Trace))
	s.conn = jsonrpc2.NewConn(s.stream)
	s.client = &Client{conn: s.conn}
	s.conn.Go(s.bg, s.handle)

	select {
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.log.Debug("connection ended", zap.Error(err))
		}
	case <-ctx.Done():
		s.log.Info("stopping: context done")
	case <-s.stopping:
	}
	_ = s.conn.Close()
	// Closing unblocks the read loop on pipes and sockets (and on Stdio),
	// but not on a transport whose Read ignores Close, such as a bare
	// blocking stdin. The server must stop all the same (its client may be
	// dead), so it waits only a little for the read loop.
	select {
	case <-s.conn.Done():
	case <-time.After(readLoopGrace):
		s.log.Debug("the input is still blocked; not waiting for it")
	}
	s.mu.Lock()
	s.closed = true // a read loop still blocked on stdin must not start work
	s.mu.Unlock()
	s.stopBG()
	s.diagnostics.stop()
	s.awaitBackground()

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == stateShuttingDown {
		return 0
	}
	return 1
}

// backgroundGrace bounds how long Serve waits for background work once its
// context is cancelled: a Diagnose or request that ignores its context, or a
// write to a client that no longer reads, must not keep the process alive.
const backgroundGrace = 2 * time.Second

func (s *server[T]) awaitBackground() {
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(backgroundGrace):
		s.log.Warn("background work did not stop; leaving it", zap.Duration("waited", backgroundGrace))
	}
}

// stop ends Serve; the read loop may be left blocked on its input.
func (s *server[T]) stop() {
	s.stopOnce.Do(func() { close(s.stopping) })
}

// goBackground runs f in the background, counted by wg, unless Serve is
// finishing; it reports whether f was started.
func (s *server[T]) goBackground(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

func (s *server[T]) session() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

func (s *server[T]) currentSettings() Settings { return s.settings.current() }

// documentContext captures what a request or a diagnostics run about doc
// needs; everything in it is immutable.
func (s *server[T]) documentContext(doc *Document[T]) *DocumentContext[T] {
	sess := s.session()
	return &DocumentContext[T]{
		Doc:      doc,
		Mapper:   Mapper{Text: doc.Text, Encoding: sess.Encoding},
		Settings: s.currentSettings(),
		Session:  sess,
		Client:   s.client,
		Log:      s.log,
	}
}

// workspaceContext captures the open documents and the session as they are.
func (s *server[T]) workspaceContext() *WorkspaceContext[T] {
	return &WorkspaceContext[T]{
		Docs:       s.docs.All(),
		Settings:   s.currentSettings(),
		Session:    s.session(),
		Client:     s.client,
		Log:        s.log,
		Rediagnose: s.diagnostics.scheduleNow,
	}
}
