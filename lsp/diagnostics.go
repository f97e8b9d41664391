package lsp

import (
	"context"
	"fmt"
	"hash/fnv"
	"runtime/debug"
	"sync"
	"time"

	"github.com/segmentio/encoding/json"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// publishDiagnosticsParams replaces protocol's: there Version is a uint32
// with omitempty, so version 0 (Neovim's first) vanishes (pitfall 12), and a
// nil Diagnostics goes out as null, which clients do not read as "clear"
// (pitfall 3).
type publishDiagnosticsParams struct {
	URI         protocol.DocumentURI  `json:"uri"`
	Version     *int32                `json:"version,omitempty"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}

// diagnosticsPublisher computes and publishes each open document's
// diagnostics, per document:
//   - debounced: a run starts once edits pause for the configured delay,
//     and a new edit cancels the run in progress;
//   - versioned: a run publishes only if its snapshot is still the current
//     one, and the check and the send happen under one lock, so results for
//     an old version never arrive after a newer one's;
//   - never null, and cleared with [] when the document closes;
//   - deduplicated: a publish identical to the previous one is skipped.
type diagnosticsPublisher[T Editable[T]] struct {
	s *server[T]

	// sendMu is held from the "still current?" check to the end of the send.
	sendMu sync.Mutex

	mu      sync.Mutex
	stopped bool
	entries map[protocol.DocumentURI]*diagnosticsEntry
}

type diagnosticsEntry struct {
	gen      uint64             // bumped by every schedule; a run of an older one is stale
	timer    *time.Timer        // pending run, if any
	cancel   context.CancelFunc // run in progress, if any
	lastSent uint64             // hash of the last payload sent
	sent     bool
}

func newDiagnosticsPublisher[T Editable[T]](s *server[T]) *diagnosticsPublisher[T] {
	return &diagnosticsPublisher[T]{s: s, entries: map[protocol.DocumentURI]*diagnosticsEntry{}}
}

// schedule (re)starts the debounce for uri after an edit.
func (p *diagnosticsPublisher[T]) schedule(uri protocol.DocumentURI) {
	p.scheduleAfter(uri, p.s.currentSettings().DiagnosticsDelay())
}

// scheduleNow runs uri's diagnostics without waiting: a document just
// opened (or the settings changed) has no typing to wait for.
func (p *diagnosticsPublisher[T]) scheduleNow(uri protocol.DocumentURI) { p.scheduleAfter(uri, 0) }

func (p *diagnosticsPublisher[T]) scheduleAfter(uri protocol.DocumentURI, delay time.Duration) {
	if p.s.opts.Features.Diagnose == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	e := p.entries[uri]
	if e == nil {
		e = &diagnosticsEntry{}
		p.entries[uri] = e
	}
	p.halt(e)
	e.gen++
	gen := e.gen
	p.s.wg.Add(1)
	e.timer = time.AfterFunc(delay, func() {
		defer p.s.wg.Done()
		p.run(uri, gen)
	})
}

// scheduleAll re-runs every open document (the settings changed).
func (p *diagnosticsPublisher[T]) scheduleAll() {
	for _, doc := range p.s.docs.All() {
		p.scheduleNow(doc.URI)
	}
}

// halt stops e's pending and running work. p.mu must be held.
func (p *diagnosticsPublisher[T]) halt(e *diagnosticsEntry) {
	if e.timer != nil && e.timer.Stop() {
		p.s.wg.Done() // its function will never run
	}
	e.timer = nil
	if e.cancel != nil {
		e.cancel()
		e.cancel = nil
	}
}

// forget drops everything about a closed document and clears its
// diagnostics in the editor.
func (p *diagnosticsPublisher[T]) forget(uri protocol.DocumentURI) {
	p.mu.Lock()
	e, known := p.entries[uri]
	if known {
		p.halt(e)
		delete(p.entries, uri)
	}
	stopped := p.stopped
	p.mu.Unlock()
	if stopped || p.s.opts.Features.Diagnose == nil {
		return
	}
	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	payload, _ := json.Marshal(publishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
	p.send(payload)
}

// stop ends all diagnostics work for good (shutdown, or the end of Serve).
func (p *diagnosticsPublisher[T]) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	for _, e := range p.entries {
		p.halt(e)
	}
	clear(p.entries)
}

// run computes uri's diagnostics on its current snapshot and publishes
// them if that snapshot is still current when they are ready.
func (p *diagnosticsPublisher[T]) run(uri protocol.DocumentURI, gen uint64) {
	doc := p.s.docs.Get(uri)
	if doc == nil {
		return
	}
	ctx, cancel := context.WithCancel(p.s.bg)
	defer cancel()
	p.mu.Lock()
	e := p.entries[uri]
	if e == nil || p.stopped || e.gen != gen {
		p.mu.Unlock()
		return
	}
	e.cancel = cancel
	p.mu.Unlock()

	dc := p.s.documentContext(doc)
	diags, ok := p.diagnose(ctx, dc)
	if !ok || ctx.Err() != nil {
		return
	}
	if diags.AfterPublish != nil {
		// Deferred before sendMu is taken, so it runs after sendMu is released.
		defer p.afterPublish(dc, diags.AfterPublish)
	}
	version := doc.Version
	params := publishDiagnosticsParams{URI: uri, Version: &version, Diagnostics: finalizeDiagnostics(diags, dc.Settings)}
	payload, err := json.Marshal(params)
	if err != nil {
		p.s.log.Error("diagnostics cannot be encoded", zap.String("uri", string(uri)), zap.Error(err))
		return
	}
	hash := fnv.New64a()
	_, _ = hash.Write(payload)
	sum := hash.Sum64()

	p.sendMu.Lock()
	defer p.sendMu.Unlock()
	if p.s.docs.Get(uri) != doc {
		return // changed or closed meanwhile; the newer state publishes its own
	}
	p.mu.Lock()
	e = p.entries[uri]
	skip := e == nil || p.stopped || (e.sent && e.lastSent == sum)
	if !skip {
		e.sent, e.lastSent = true, sum
	}
	p.mu.Unlock()
	if skip {
		return
	}
	p.send(payload)
}

// diagnose calls the injected Diagnose; a panic there is logged and
// publishes nothing, instead of ending the process.
func (p *diagnosticsPublisher[T]) diagnose(ctx context.Context, dc *DocumentContext[T]) (diags Diagnostics, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			p.s.log.Error("Diagnose panicked", zap.String("uri", string(dc.Doc.URI)),
				zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
			ok = false
		}
	}()
	return p.s.opts.Features.Diagnose(ctx, dc), true
}

// afterPublish runs a Diagnose's AfterPublish; a panic there is logged.
func (p *diagnosticsPublisher[T]) afterPublish(dc *DocumentContext[T], after func()) {
	defer func() {
		if r := recover(); r != nil {
			p.s.log.Error("AfterPublish panicked", zap.String("uri", string(dc.Doc.URI)),
				zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
		}
	}()
	after()
}

// send publishes params, encoded by json.Marshal.
func (p *diagnosticsPublisher[T]) send(params []byte) {
	if _, err := p.s.stream.writeNotification(protocol.MethodTextDocumentPublishDiagnostics, params); err != nil {
		p.s.log.Debug("publishDiagnostics not sent", zap.Error(err))
	}
}

// Diagnostics is what Diagnose found. A language whose documents can have
// very many diagnostics may stop building them at the cap
// (dc.Settings.Diagnostics.MaxPerDocument, when positive) plus one, which
// places the note about the rest, and count the rest in NotBuilt.
type Diagnostics struct {
	List     []protocol.Diagnostic
	NotBuilt int
	// AfterPublish, when set, is work that can wait until the diagnostics
	// have been sent (filling caches for the requests an editor makes
	// next): it runs once they are published, or found to be the same as
	// the last ones, on the same goroutine, and not at all when the
	// document changed meanwhile.
	AfterPublish func()
}

// finalizeDiagnostics applies the settings to Diagnose's result: disabled
// codes removed, the count capped with a last entry saying how many were
// left out, and never nil.
func finalizeDiagnostics(diags Diagnostics, settings Settings) []protocol.Diagnostic {
	out := make([]protocol.Diagnostic, 0, len(diags.List))
	for _, d := range diags.List {
		if d.Code != nil && settings.CodeDisabled(fmt.Sprint(d.Code)) {
			continue
		}
		out = append(out, d)
	}
	limit := settings.Diagnostics.MaxPerDocument
	total := len(out) + diags.NotBuilt
	if limit <= 0 || total <= limit || len(out) == 0 {
		return out
	}
	omitted := out[min(limit, len(out)-1)]
	out = append(out[:min(limit, len(out)):min(limit, len(out))], protocol.Diagnostic{
		Range:    protocol.Range{Start: omitted.Range.Start, End: omitted.Range.Start},
		Severity: protocol.DiagnosticSeverityInformation,
		Source:   omitted.Source,
		Message:  fmt.Sprintf("%d more diagnostics not shown (the limit is rlog.diagnostics.maxPerDocument = %d)", total-limit, limit),
	})
	return out
}
