// Package standin is what every API stand-in of the producer harness
// shares: an HTTP server on 127.0.0.1 that records every request it
// receives, and a script of rules that picks each answer from the request.
// An API's own package (anthropic, and the stand-ins for other vendors'
// APIs) parses its requests, writes its wire format and names its rules;
// this package only serves, records and keeps count.
package standin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// MaxRequests bounds what one server records: a scenario makes tens of
// requests; a client looping on errors is cut off, not remembered forever.
const MaxRequests = 2000

// maxBody bounds one request's body.
const maxBody = 64 << 20

// An Exchange is one request the stand-in received and what it answered.
type Exchange struct {
	Seq    int         // order of arrival, from 1
	Method string      //
	Path   string      // path and query
	Header http.Header // the request's headers
	Body   []byte      // the request's body
	Status int         // the status answered
	Rule   string      // the rule that answered, "" when none did
	Hit    int         // which use of that rule this was, from 1
	Answer any         // what the API's handler answered, in its own terms
}

// URLPath is the exchange's path without its query.
func (ex *Exchange) URLPath() string {
	p, _, _ := strings.Cut(ex.Path, "?")
	return p
}

// A Handler answers one request whose body is already in ex.Body; it
// fills in ex.Rule and ex.Hit when a rule answered, and ex.Answer.
type Handler func(ex *Exchange, w http.ResponseWriter, r *http.Request)

// Server is a stand-in listening on 127.0.0.1.
type Server struct {
	URL string // http://127.0.0.1:PORT

	srv *http.Server
	ln  net.Listener

	mu        sync.Mutex
	exchanges []*Exchange
	dropped   int
	inflight  int // handlers started whose exchange is not yet filled in
}

// Start serves h on a free port of 127.0.0.1, the only address a
// stand-in ever listens on.
func Start(h Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln}
	s.srv = &http.Server{Handler: s.wrap(h), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err) // Serve fails only on a broken listener
		}
	}()
	return s, nil
}

func (s *Server) wrap(h Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ex := &Exchange{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
		s.mu.Lock()
		if len(s.exchanges) >= MaxRequests {
			s.dropped++
			s.mu.Unlock()
			http.Error(w, "stand-in: too many requests", http.StatusTooManyRequests)
			return
		}
		s.exchanges = append(s.exchanges, ex)
		ex.Seq = len(s.exchanges)
		s.inflight++
		s.mu.Unlock()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		// The handler fills in the exchange only here, before it is
		// published to Exchanges below.
		local := *ex
		h(&local, sw, r)
		local.Status = sw.status
		s.mu.Lock()
		*ex = local
		s.inflight--
		s.mu.Unlock()
	})
}

// settleWait bounds how long Exchanges waits for answers in flight.
const settleWait = 5 * time.Second

// Exchanges returns what the server received so far, in order of arrival.
// A client has its answer before the handler has filled in the exchange
// (the rule that answered, the status), so Exchanges first waits, a
// little, for the handlers in flight to finish.
func (s *Server) Exchanges() []Exchange {
	deadline := time.Now().Add(settleWait)
	s.mu.Lock()
	for s.inflight > 0 && time.Now().Before(deadline) {
		s.mu.Unlock()
		time.Sleep(time.Millisecond)
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	out := make([]Exchange, len(s.exchanges))
	for i, ex := range s.exchanges {
		out[i] = *ex
	}
	return out
}

// Err says whether the server turned requests away for being too many.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped > 0 {
		return fmt.Errorf("stand-in: %d requests past the first %d were turned away", s.dropped, MaxRequests)
	}
	return nil
}

// Close stops the server, waiting a little for answers in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// statusWriter remembers the status written; Flush passes through so that
// streamed answers (server-sent events) reach the client as they are
// written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
