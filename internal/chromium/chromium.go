// Package chromium drives a headless Chromium through the DevTools
// protocol over a pipe (--remote-debugging-pipe: commands on the child's
// fd 3, replies and events on its fd 4, each message NUL-terminated), for
// tests that open pages the project writes. It needs nothing but the
// browser: no WebSocket, no Node.
package chromium

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Path finds Chromium: $CHROMIUM, else chromium or chromium-browser on
// PATH, else "" when there is none.
func Path() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File // our end of the child's fd 3
	out     *os.File // our end of the child's fd 4
	profile string

	writeMu sync.Mutex
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan reply
	events  []Event
	changed chan struct{} // closed and replaced when an event arrives
	done    chan struct{}
	err     error
}

// Event is a protocol event.
type Event struct {
	Session string
	Method  string
	Params  json.RawMessage
}

type reply struct {
	Result json.RawMessage
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start runs Chromium headless with a fresh profile, off the network's
// usual background traffic. The browser ends with Close.
func Start(path string, extraArgs ...string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "rlog-chromium-")
	if err != nil {
		return nil, err
	}
	childIn, in, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	out, childOut, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	args := append([]string{"--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--force-color-profile=srgb",
		"--disable-features=Translate,OptimizationHints,MediaRouter", "--user-data-dir=" + profile}, extraArgs...)
	cmd := exec.Command(path, append(args, "about:blank")...)
	cmd.ExtraFiles = []*os.File{childIn, childOut} // fds 3 and 4
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(profile)
		return nil, err
	}
	childIn.Close()
	childOut.Close()
	b := &Browser{cmd: cmd, in: in, out: out, profile: profile, waiting: map[int]chan reply{},
		changed: make(chan struct{}), done: make(chan struct{})}
	go b.read()
	return b, nil
}

func (b *Browser) read() {
	r := bufio.NewReaderSize(b.out, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = r.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.waiting[m.ID]; ok {
				ch <- reply{Result: m.Result, Error: m.Error}
				delete(b.waiting, m.ID)
			}
		} else if m.Method != "" {
			b.events = append(b.events, Event{Session: m.SessionID, Method: m.Method, Params: m.Params})
			close(b.changed)
			b.changed = make(chan struct{})
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.err = fmt.Errorf("chromium: the connection ended: %w", err)
	for id, ch := range b.waiting {
		close(ch)
		delete(b.waiting, id)
	}
	b.mu.Unlock()
	close(b.done)
}

// call sends a command (to a page when session is set) and decodes its
// result into result (when not nil).
func (b *Browser) call(ctx context.Context, session, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if params == nil {
		raw = []byte("{}")
	}
	ch := make(chan reply, 1)
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return b.err
	}
	b.nextID++
	id := b.nextID
	b.waiting[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(message{ID: id, Method: method, Params: raw, SessionID: session})
	b.writeMu.Lock()
	_, err = b.in.Write(append(msg, 0))
	b.writeMu.Unlock()
	if err != nil {
		return err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return b.err
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close ends the browser and removes its profile.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-exited
	}
	b.in.Close()
	b.out.Close()
	return os.RemoveAll(b.profile)
}

// Page is one tab, attached to.
type Page struct {
	b       *Browser
	session string
	target  string
}

// NewPage opens a tab and attaches to it.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	return &Page{b: b, session: attached.SessionID, target: created.TargetID}, nil
}

// Call sends a command to the page.
func (p *Page) Call(ctx context.Context, method string, params, result any) error {
	return p.b.call(ctx, p.session, method, params, result)
}

// Events returns the page's events so far.
func (p *Page) Events() []Event {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	var out []Event
	for _, e := range p.b.events {
		if e.Session == p.session {
			out = append(out, e)
		}
	}
	return out
}

// WaitEvent waits for the page's first event of method (since the start).
func (p *Page) WaitEvent(ctx context.Context, method string) (Event, error) {
	for {
		p.b.mu.Lock()
		for _, e := range p.b.events {
			if e.Session == p.session && e.Method == method {
				p.b.mu.Unlock()
				return e, nil
			}
		}
		changed := p.b.changed
		p.b.mu.Unlock()
		select {
		case <-changed:
		case <-p.b.done:
			return Event{}, p.b.err
		case <-ctx.Done():
			return Event{}, fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		}
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value into out (when not nil). An exception is an error.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception *struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		msg := e.Text
		if e.Exception != nil {
			msg = e.Exception.Description
		}
		return errors.New("evaluating " + abbreviate(expr) + ": " + msg)
	}
	if out != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

// WaitFor evaluates expr until it is true.
func (p *Page) WaitFor(ctx context.Context, expr string) error {
	for {
		var ok bool
		if err := p.Eval(ctx, "!!("+expr+")", &ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", abbreviate(expr), ctx.Err())
		}
	}
}

func abbreviate(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
