package otlp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/rlog-ls/rlog-ls/convert"
	"github.com/rlog-ls/rlog-ls/convert/model"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Stats count what an export did, for its summary.
type Stats struct {
	// Sessions exported, Refused (no times, no reader), Spans made.
	Sessions, Refused, Spans int
	// Cut counts attribute values cut to the cap, Redacted the
	// credential-like values replaced (with IncludeContent).
	Cut, Redacted int
}

// ErrNoTimes is why a session without the times of its events is refused.
var ErrNoTimes = errors.New("OTLP spans need the log's times; the session is not exported")

// Exporter exports sessions, one file at a time, to Out.
type Exporter struct {
	Options Options
	Out     Spans
	Stats   Stats
}

// File exports the session in the file at path, read by the reader of its
// detected format, and returns what could not be carried over. The file is
// read twice: first to find its header and check its times (so that a
// refused session sends nothing), then to make its spans.
func (x *Exporter) File(path string) (*model.Report, error) {
	f, err := convert.DetectFile(path)
	if err != nil {
		x.Stats.Refused++
		return nil, err
	}
	fi, _ := convert.Lookup(f)
	if !fi.CanRead() {
		x.Stats.Refused++
		return nil, fmt.Errorf("%s is a %s (%s): %w", filepath.Base(path), fi.Description, fi.Name, convert.ErrNoReader)
	}
	read := func(sink model.Sink, rep *model.Report, sum hash.Hash) error {
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		var r io.Reader = in
		if sum != nil {
			r = io.TeeReader(in, sum)
		}
		if fi.ReadNamed != nil {
			return fi.ReadNamed(r, path, sink, rep)
		}
		return fi.Read(r, sink, rep)
	}
	p := &preflight{sum: sha256.New(), name: filepath.Base(path)}
	if err := read(p, &model.Report{}, p.sum); err != nil {
		x.Stats.Refused++
		return nil, err
	}
	if err := p.refusal(); err != nil {
		x.Stats.Refused++
		return nil, err
	}
	rep := &model.Report{From: string(f), To: "otlp"}
	s := newSession(p, x.Options, x.Out, rep, &x.Stats)
	return rep, read(s, rep, nil)
}

// preflight is the first pass over a session: its final header, the
// digest of its bytes (its key when it names no id), and whether its
// events have the times spans need.
type preflight struct {
	hdr      model.Header
	name     string // the file's name
	sum      hash.Hash
	digest   string
	timed    bool
	timeless *model.Event // the first event needing a time before any time
}

// BorrowsEvents implements model.Borrower: the one event it keeps is a
// copy (Clone).
func (*preflight) BorrowsEvents() bool { return true }

func (p *preflight) Event(_ *model.Header, e *model.Event) error {
	if _, ok := parseTime(e.Time); ok {
		p.timed = true
	} else if !p.timed && p.timeless == nil && needsTime(e) {
		p.timeless = e.Clone()
	}
	return nil
}

func (p *preflight) End(h *model.Header) error {
	p.hdr = *h
	p.digest = hex.EncodeToString(p.sum.Sum(nil))
	return nil
}

// key is what the session's ids derive from: its id and its file's name
// (one session written in two formats is two documents), else its bytes.
func (p *preflight) key() string {
	if p.hdr.ID != "" {
		return "id:" + p.hdr.ID + "\x00" + p.name
	}
	return "sha256:" + p.digest
}

// refusal says why the session cannot be exported: it has no times, or
// an event that needs one comes before the first.
func (p *preflight) refusal() error {
	if p.timeless != nil {
		e := p.timeless
		where := e.Loc.String()
		if where == "" {
			where = "an event"
		}
		return fmt.Errorf("%s: this %s event has no time and none comes before it: %w", where, e.Kind, ErrNoTimes)
	}
	if !p.timed {
		return fmt.Errorf("no event has a time: %w", ErrNoTimes)
	}
	return nil
}

// Batch gathers spans into OTLP requests of at most MaxSpans spans (or
// about MaxBytes bytes), each session's spans under its resource, and
// hands each full request to Send. Flush sends the last one.
type Batch struct {
	MaxSpans, MaxBytes int
	Send               func(td *tracepb.TracesData, spans int) error

	td   *tracepb.TracesData
	cur  *tracepb.ResourceSpans
	res  *resourcepb.Resource
	n, b int
}

// The default batch limits: the OTel SDKs' 512 spans, and far below the
// 4 MiB a gRPC receiver takes by default (the Collector's HTTP receiver
// takes 20 MiB).
const (
	DefaultBatchSpans = 512
	DefaultBatchBytes = 3 << 20
)

// Resource implements Spans.
func (b *Batch) Resource(r *resourcepb.Resource) error {
	b.res, b.cur = r, nil
	return nil
}

// Span implements Spans.
func (b *Batch) Span(sp *tracepb.Span) error {
	if b.td == nil {
		b.td = &tracepb.TracesData{}
	}
	if b.cur == nil {
		b.cur = &tracepb.ResourceSpans{Resource: b.res, ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: ScopeName}}}}
		b.td.ResourceSpans = append(b.td.ResourceSpans, b.cur)
	}
	ss := b.cur.ScopeSpans[0]
	ss.Spans = append(ss.Spans, sp)
	b.n++
	b.b += proto.Size(sp)
	maxSpans, maxBytes := b.MaxSpans, b.MaxBytes
	if maxSpans <= 0 {
		maxSpans = DefaultBatchSpans
	}
	if maxBytes <= 0 {
		maxBytes = DefaultBatchBytes
	}
	if b.n >= maxSpans || b.b >= maxBytes {
		return b.Flush()
	}
	return nil
}

// Flush sends what is gathered, if anything.
func (b *Batch) Flush() error {
	if b.n == 0 {
		return nil
	}
	td, n := b.td, b.n
	b.td, b.cur, b.n, b.b = nil, nil, 0, 0
	return b.Send(td, n)
}
