package difftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// Options say what the harness runs against.
type Options struct {
	// Serve runs the server on a connection: in process, or the built
	// binary over its stdin and stdout (see Binary).
	Serve lsptest.ServeFunc
	// Check returns `rlog-ls check --format json`'s findings for a text;
	// nil compares no diagnostics with check.
	Check Checker
	// Probes are the questions asked (Probes when nil).
	Probes []Probe
}

// Checker runs `rlog-ls check --format json --disable CODES` on a file
// holding text and returns its findings.
type Checker func(text []byte, disabled []string) ([]Finding, error)

// Finding is one finding as `check --format json` prints it: 1-based
// lines and columns (columns count characters; the end is exclusive).
type Finding struct {
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line"`
	EndColumn int    `json:"end_column"`
	Severity  string `json:"severity"`
	Code      string `json:"code"`
	Message   string `json:"message"`
}

// Counts are what a run did.
type Counts struct {
	Runs        int // scripts run
	Versions    int // didChange notifications
	Edits       int // content changes in them
	Comparisons int // answers compared (a probe at a site, the diagnostics, check's findings)
	Requests    int // requests sent, cancelled ones included
	Cancelled   int // requests cancelled as soon as sent
}

// Add adds c2 to c.
func (c *Counts) Add(c2 Counts) {
	c.Runs += c2.Runs
	c.Versions += c2.Versions
	c.Edits += c2.Edits
	c.Comparisons += c2.Comparisons
	c.Requests += c2.Requests
	c.Cancelled += c2.Cancelled
}

func (c Counts) String() string {
	return fmt.Sprintf("%d runs, %d edits in %d versions, %d comparisons, %d requests (%d cancelled)",
		c.Runs, c.Edits, c.Versions, c.Comparisons, c.Requests, c.Cancelled)
}

// Divergence is a difference the harness found.
type Divergence struct {
	Step   int    // the script step where it showed
	Probe  string // the probe, "diagnostics" or "check"
	Detail string
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("step %d, %s: %s", d.Step, d.Probe, d.Detail)
}

// The documents of a run: the one edited, and a fresh copy per comparison,
// with the same name so that answers that use it (a missing header id)
// agree.
const (
	editedURI = protocol.DocumentURI("file:///difftest/edited/session.rlog")
	freshURI  = "file:///difftest/fresh%d/session.rlog"
)

// session is one server and the client's state of its edited document.
type session struct {
	t        testing.TB
	o        Options
	probes   []Probe
	c        *lsptest.Client
	script   *Script
	text     *Text
	version  int32
	fresh    int
	settings Settings
	counts   Counts
	step     int
	noiseID  int
	// applied is a log of the quick fixes applied, for the report.
	applied []string
	// lastPublished is the edited document's last diagnostics waited for.
	lastPublished lsptest.Published
}

// start initializes a server as the script says and opens its document.
func start(t testing.TB, o Options, s *Script) *session {
	ss := &session{t: t, o: o, probes: o.Probes, script: s, text: NewText([]byte(s.Text), s.UTF8)}
	if ss.probes == nil {
		ss.probes = Probes
	}
	ss.c = lsptest.Start(t, o.Serve)
	caps := map[string]any{"textDocument": map[string]any{
		"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": !s.Flat},
	}}
	if s.FoldingLimit > 0 {
		caps["textDocument"].(map[string]any)["foldingRange"] = map[string]any{"rangeLimit": s.FoldingLimit}
	}
	if s.UTF8 {
		caps["general"] = map[string]any{"positionEncodings": []string{"utf-8"}}
	}
	params := lsptest.DefaultInitializeParams()
	params["capabilities"] = caps
	ss.settings = Settings{DisabledCodes: []string{}, OutlineMax: 2000}
	params["initializationOptions"] = ss.settingsJSON()
	ss.c.Initialize(params)
	ss.version = 1
	ss.c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"rlog","version":1,"text":%s}}}`,
		editedURI, lsptest.RawString(s.Text)))
	ss.counts.Runs = 1
	return ss
}

func (ss *session) settingsJSON() map[string]any {
	return map[string]any{
		"disabledCodes": ss.settings.DisabledCodes,
		"outline":       map[string]any{"maxItems": ss.settings.OutlineMax},
		"diagnostics":   map[string]any{"maxPerDocument": ss.settings.DiagnosticsMax, "debounceMs": 0},
	}
}

// stop ends the server and drops what the client kept.
func (ss *session) stop() {
	ss.c.ForgetFrames()
	ss.c.CloseInput()
	ss.c.ExitCode()
}

// Run runs script s on a new server and returns what it did and the first
// divergence, if any.
func Run(t testing.TB, o Options, s *Script) (Counts, *Divergence) {
	ss := start(t, o, s)
	defer ss.stop()
	for i, st := range s.Steps {
		if d := ss.do(i, st); d != nil {
			return ss.counts, d
		}
	}
	return ss.counts, nil
}

// do runs one step.
func (ss *session) do(i int, st Step) *Divergence {
	ss.step = i
	switch {
	case st.Change != nil:
		return ss.change(st.Change)
	case st.Settings != nil:
		ss.settings = *st.Settings
		if ss.settings.DisabledCodes == nil {
			ss.settings.DisabledCodes = []string{}
		}
		ss.c.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"rlog": ss.settingsJSON()}})
		// A version after the change: its diagnostics have the new settings.
		return ss.change([][]Edit{{{Start: 0, End: 0}}})
	case st.Compare != nil:
		return ss.compare(st.Compare)
	case st.Noise != nil:
		ss.noise(st.Noise)
	}
	return nil
}

// change sends one didChange per version, the edits of each in order, and
// waits for the last version's diagnostics.
func (ss *session) change(versions [][]Edit) *Divergence {
	for _, edits := range versions {
		ss.version++
		var b strings.Builder
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[`, editedURI, ss.version)
		for k, e := range edits {
			if k > 0 {
				b.WriteByte(',')
			}
			if e.Whole {
				fmt.Fprintf(&b, `{"text":%s}`, lsptest.RawString(e.Text))
				ss.text = NewText([]byte(e.Text), ss.script.UTF8)
				continue
			}
			start := ss.text.Snap(e.Start)
			end := max(start, ss.text.Snap(e.End))
			r, _ := json.Marshal(ss.text.Range(start, end))
			fmt.Fprintf(&b, `{"range":%s,"text":%s}`, r, lsptest.RawString(e.Text))
			ss.text.Replace(start, end, []byte(e.Text))
		}
		b.WriteString("]}}")
		ss.c.SendRaw(b.String())
		ss.counts.Versions++
		ss.counts.Edits += len(edits)
	}
	if _, ok := ss.editedPublished(); !ok {
		return ss.diverged("diagnostics", fmt.Sprintf("no diagnostics for version %d after %v", ss.version, lsptest.WaitLimit))
	}
	return nil
}

// editedPublished is the edited document's diagnostics for its current
// version, kept once they came (the client forgets the frames it has
// read after each comparison).
func (ss *session) editedPublished() (lsptest.Published, bool) {
	if p := ss.lastPublished; p.Version != nil && *p.Version == ss.version {
		return p, true
	}
	p, ok := ss.waitPublished(editedURI, ss.version)
	if ok {
		ss.lastPublished = p
	}
	return p, ok
}

// waitPublished waits for the diagnostics of uri at version, and returns
// the last publish for it; false if none came within lsptest.WaitLimit (a
// hang, which the harness reports rather than dies of).
func (ss *session) waitPublished(uri protocol.DocumentURI, version int32) (lsptest.Published, bool) {
	deadline := time.Now().Add(lsptest.WaitLimit)
	for pause := 50 * time.Microsecond; ; pause = min(2*pause, 20*time.Millisecond) {
		var last lsptest.Published
		found := false
		for _, p := range ss.c.Diagnostics(uri) {
			if p.Version != nil && *p.Version == version {
				last, found = p, true
			}
		}
		if found {
			return last, true
		}
		if time.Now().After(deadline) {
			return lsptest.Published{}, false
		}
		time.Sleep(pause)
	}
}

// noise sends requests and cancels each at once.
func (ss *session) noise(reqs []Noise) {
	for _, n := range reqs {
		p, ok := ss.probe(n.Probe)
		if !ok {
			continue
		}
		site := ss.site(0, n.Site, nil)
		params := p.Params(site)
		if params == nil {
			continue
		}
		ss.noiseID++
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("noise-%d", ss.noiseID), "method": p.Method, "params": params})
		ss.c.SendRaw(string(body))
		ss.c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"noise-%d"}}`, ss.noiseID))
		ss.counts.Requests++
		ss.counts.Cancelled++
	}
}

func (ss *session) probe(name string) (Probe, bool) {
	for _, p := range ss.probes {
		if p.Name == name {
			return p, true
		}
	}
	return Probe{}, false
}

// site makes a Site of spec in the current text.
func (ss *session) site(i int, spec SiteSpec, diags []protocol.Diagnostic) *Site {
	t := ss.text
	at := t.Snap(spec.At)
	start := t.Snap(spec.Start)
	end := max(start, t.Snap(spec.End))
	s := &Site{URI: editedURI, Text: t, Index: i, At: at, Pos: t.Position(at), Start: start, End: end, Range: t.Range(start, end)}
	for _, d := range diags {
		ds, de, err := t.Span(d.Range)
		if err == nil && ds <= end && de >= start {
			s.Diagnostics = append(s.Diagnostics, d)
		}
	}
	return s
}

// compare opens a fresh copy of the text and compares everything.
func (ss *session) compare(cmp *Compare) *Divergence {
	defer ss.c.ForgetFrames()
	ss.fresh++
	fresh := protocol.DocumentURI(fmt.Sprintf(freshURI, ss.fresh))
	ss.c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"rlog","version":1,"text":%s}}}`,
		fresh, lsptest.RawString(ss.text.Bytes())))
	defer ss.c.Notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": fresh}})
	wanted := func(name string) bool {
		return len(cmp.Probes) == 0 || contains1(cmp.Probes, name)
	}

	edited, ok := ss.editedPublished()
	if !ok {
		return ss.diverged("diagnostics", fmt.Sprintf("no diagnostics for version %d after %v", ss.version, lsptest.WaitLimit))
	}
	if wanted("diagnostics") || wanted("check") {
		freshDiags, ok := ss.waitPublished(fresh, 1)
		if !ok {
			return ss.diverged("diagnostics", fmt.Sprintf("no diagnostics for a fresh open after %v", lsptest.WaitLimit))
		}
		ss.counts.Comparisons++
		if d := sameJSON(rawField(edited.Raw, "diagnostics"), rawField(freshDiags.Raw, "diagnostics"), fresh); d != "" {
			return ss.diverged("diagnostics", d)
		}
		if err := checkPositions(ss.text, rawField(edited.Raw, "diagnostics")); err != nil {
			return ss.diverged("diagnostics", err.Error())
		}
	}
	if ss.o.Check != nil && wanted("check") {
		ss.counts.Comparisons++
		if d := ss.compareWithCheck(edited.Diagnostics); d != "" {
			return ss.diverged("check", d)
		}
	}

	var fixes [][]protocol.TextEdit
	for _, p := range ss.probes {
		if !wanted(p.Name) {
			continue
		}
		for i, spec := range cmp.Sites {
			if p.PerDocument && i > 0 {
				break
			}
			site := ss.site(i, spec, edited.Diagnostics)
			params := p.Params(site)
			if params == nil {
				continue
			}
			a, err := ss.call(p.Method, params, editedURI, editedURI)
			if err != nil {
				return ss.diverged(p.Name, fmt.Sprintf("at %v: the edited document's request failed: %v", spec, err))
			}
			b, err := ss.call(p.Method, params, editedURI, fresh)
			if err != nil {
				return ss.diverged(p.Name, fmt.Sprintf("at %v: the fresh document's request failed: %v", spec, err))
			}
			ss.counts.Comparisons++
			if d := sameJSON(a, b, fresh); d != "" {
				return ss.diverged(p.Name, fmt.Sprintf("at %v (%v, range %v), params %s:\n%s", spec, site.Pos, site.Range, mustJSON(params), d))
			}
			if err := checkPositions(ss.text, a); err != nil {
				return ss.diverged(p.Name, fmt.Sprintf("at %v: %v in %s", spec, err, short(a)))
			}
			if p.Check != nil {
				if err := p.Check(site, a); err != nil {
					return ss.diverged(p.Name, fmt.Sprintf("at %v: %v in %s", spec, err, short(a)))
				}
			}
			if p.Edits != nil {
				fixes = append(fixes, p.Edits(site, a)...)
			}
		}
	}
	if cmp.Fix >= 0 && cmp.Fix < len(fixes) {
		return ss.applyFix(fixes[cmp.Fix])
	}
	return nil
}

// applyFix applies text edits from an answer as an editor does: as one
// didChange whose changes run from the end of the document backwards.
func (ss *session) applyFix(edits []protocol.TextEdit) *Divergence {
	type span struct {
		start, end int
		text       string
	}
	var spans []span
	for _, e := range edits {
		s, end, err := ss.text.Span(e.Range)
		if err != nil {
			return ss.diverged("codeAction", fmt.Sprintf("a quick fix's edit: %v", err))
		}
		spans = append(spans, span{s, end, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	var change []Edit
	for i, s := range spans {
		if i > 0 && s.end > spans[i-1].start {
			return ss.diverged("codeAction", fmt.Sprintf("a quick fix's edits overlap: %v", edits))
		}
		change = append(change, Edit{Start: s.start, End: s.end, Text: Raw(s.text)})
	}
	ss.applied = append(ss.applied, fmt.Sprintf("step %d: %d edits", ss.step, len(change)))
	return ss.change([][]Edit{change})
}

// call sends a request whose params name the document as uri, asked
// about the document target instead, and returns the answer as sent.
func (ss *session) call(method string, params any, uri, target protocol.DocumentURI) (json.RawMessage, error) {
	p := json.RawMessage(mustJSON(params))
	if target != uri {
		p = bytes.ReplaceAll(p, []byte(mustJSON(string(uri))), []byte(mustJSON(string(target))))
	}
	ss.counts.Requests++
	var res json.RawMessage
	if err := ss.c.Call(method, p, &res); err != nil {
		// An error the server means (not renamable here, invalid params)
		// is an answer, compared like the others; an internal error, or
		// none in time, is a failure.
		var werr *jsonrpc2.Error
		if errors.As(err, &werr) && werr.Code != jsonrpc2.InternalError {
			return mustJSON(map[string]any{"error": map[string]any{"code": werr.Code, "message": werr.Message}}), nil
		}
		return nil, err
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	return res, nil
}

func (ss *session) diverged(probe, detail string) *Divergence {
	return &Divergence{Step: ss.step, Probe: probe, Detail: detail}
}

func contains1(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sameJSON compares two answers as JSON values, with the fresh document's
// URI in b read as the edited one's; it returns "" or what differs.
func sameJSON(a, b json.RawMessage, fresh protocol.DocumentURI) string {
	b = bytes.ReplaceAll(b, []byte(mustJSON(string(fresh))), []byte(mustJSON(string(editedURI))))
	if bytes.Equal(a, b) {
		return ""
	}
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return fmt.Sprintf("the edited document's answer is not JSON: %v", err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return fmt.Sprintf("the fresh document's answer is not JSON: %v", err)
	}
	if reflect.DeepEqual(va, vb) {
		return ""
	}
	return firstDifference("", va, vb)
}

// firstDifference describes where two JSON values first differ.
func firstDifference(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if !reflect.DeepEqual(av[k], bv[k]) {
				return firstDifference(path+"."+k, av[k], bv[k])
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(av), len(bv)) {
			if !reflect.DeepEqual(av[i], bv[i]) {
				return firstDifference(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i])
			}
		}
		if len(av) != len(bv) {
			return fmt.Sprintf("%s: %d items edited, %d fresh", path, len(av), len(bv))
		}
	}
	return fmt.Sprintf("%s:\n  edited %s\n  fresh  %s", path, short(mustJSON(a)), short(mustJSON(b)))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func short(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return string(b)
}

// rawField is the raw value of key in a JSON object.
func rawField(obj json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(obj, &m)
	return m[key]
}

// checkPositions checks every position object ({"line", "character"}) in
// an answer against the text, and that every range ({"start", "end"})
// ends after it starts.
func checkPositions(t *Text, answer json.RawMessage) error {
	var v any
	if err := json.Unmarshal(answer, &v); err != nil {
		return err
	}
	var walk func(v any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			if p, ok := asPosition(v); ok {
				if _, err := t.Offset(p); err != nil {
					return err
				}
				return nil
			}
			if s, ok := v["start"].(map[string]any); ok {
				if e, ok := v["end"].(map[string]any); ok {
					sp, ok1 := asPosition(s)
					ep, ok2 := asPosition(e)
					if ok1 && ok2 && (ep.Line < sp.Line || ep.Line == sp.Line && ep.Character < sp.Character) {
						return fmt.Errorf("range %v–%v ends before it starts", sp, ep)
					}
				}
			}
			for _, x := range v {
				if err := walk(x); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v)
}

func asPosition(m map[string]any) (protocol.Position, bool) {
	if len(m) != 2 {
		return protocol.Position{}, false
	}
	l, ok1 := m["line"].(float64)
	c, ok2 := m["character"].(float64)
	if !ok1 || !ok2 || l < 0 || c < 0 || l != float64(uint32(l)) || c != float64(uint32(c)) {
		return protocol.Position{}, false
	}
	return protocol.Position{Line: uint32(l), Character: uint32(c)}, true
}
