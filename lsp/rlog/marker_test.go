package rlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/rlog-ls/rlog-ls/internal/difftest"
	"github.com/rlog-ls/rlog-ls/internal/golden"
	"github.com/rlog-ls/rlog-ls/lsp"
	"github.com/rlog-ls/rlog-ls/lsp/lsptest"
)

// TestMarkers runs the marker tests of testdata/markers: each archive is
// a workspace (logs, their companions, files they link to) whose logs
// hold requests and the answers expected, in comments. The format is in
// testdata/markers/README.md; `go test -run TestMarkers -update` writes
// the answers, to be read before they are committed.
func TestMarkers(t *testing.T) {
	golden.Run(t, "testdata/markers/*.txtar", func(t *testing.T, a *golden.Archive) {
		ws := parseWorkspace(t, a)
		var first []string
		for i, enc := range []string{"utf-16", "utf-8"} {
			got := ws.run(t, enc)
			if i == 0 {
				first = got
				continue
			}
			// Positions are shown in characters: the answers do not
			// depend on the encoding, or a conversion is wrong.
			for j, m := range ws.markers {
				if got[j] != first[j] {
					t.Errorf("%s: the answer in %s differs from the one in utf-16\n--- utf-16\n%s\n--- %s\n%s", m.where(), enc, first[j], enc, got[j])
				}
			}
		}
		if t.Failed() {
			return
		}
		for j, m := range ws.markers {
			if first[j] != m.want && !golden.Updating() {
				t.Errorf("%s: %s\n--- want\n%s\n--- got\n%s\n(run with -update to accept the new answer)", m.where(), m.line, m.want, first[j])
			}
		}
		if golden.Updating() {
			for _, d := range ws.docs {
				a.Check(t, d.name, d.withAnswers(ws.markers, first))
			}
		}
	})
}

// A marker is a request (or a look at what the server sent) at a place in
// a log, and the answer expected: "#@ METHOD [in FILE] ["PATTERN"] [JSON]"
// on the line below the one it is about, its answer on the "#=" lines
// that follow.
type marker struct {
	doc  *markerDoc
	line string // the marker line, for messages
	at   int    // its index among the archive's lines of the log
	// answerEnd is the index of the first line after its answer.
	answerEnd int
	method    string
	file      string // in FILE: the request is about this file
	pattern   string
	// hasPattern: a pattern was given (it may be empty).
	hasPattern bool
	extra      map[string]any
	// lineStart and lineEnd are the bytes of the log line the marker is
	// about, in the log as sent.
	lineStart, lineEnd int
	want               string
}

func (m *marker) where() string { return fmt.Sprintf("%s:%d", m.doc.name, m.at+1) }

// markerDoc is a log of the archive: its lines as written there and the
// text sent to the server, without the marker and answer lines.
type markerDoc struct {
	name  string
	lines []string // with their line ends
	text  []byte
}

// withAnswers is the log as written in the archive, with the answers
// given in place of the ones there.
func (d *markerDoc) withAnswers(ms []*marker, answers []string) []byte {
	var b bytes.Buffer
	i := 0
	for j, m := range ms {
		if m.doc != d {
			continue
		}
		for ; i <= m.at; i++ {
			b.WriteString(d.lines[i])
		}
		for _, l := range strings.Split(answers[j], "\n") {
			b.WriteString(strings.TrimRight("#= "+l, " ") + "\n")
		}
		i = m.answerEnd
	}
	for ; i < len(d.lines); i++ {
		b.WriteString(d.lines[i])
	}
	return b.Bytes()
}

// markerWorkspace is an archive to run: its logs, in order, with their
// markers, and every file as it is written to the workspace folder.
type markerWorkspace struct {
	docs     []*markerDoc
	markers  []*marker
	files    []golden.File // every file of the workspace, logs as sent
	settings map[string]any
	caps     map[string]any
}

func parseWorkspace(t *testing.T, a *golden.Archive) *markerWorkspace {
	t.Helper()
	ws := &markerWorkspace{settings: map[string]any{}, caps: map[string]any{}}
	for _, f := range a.Files {
		switch f.Name {
		case "settings.json", "capabilities.json":
			target := map[string]any{}
			if err := json.Unmarshal(f.Data, &target); err != nil {
				t.Fatalf("%s: %s: %v", a.Path, f.Name, err)
			}
			if f.Name == "settings.json" {
				ws.settings = target
			} else {
				ws.caps = target
			}
			continue
		}
		if !strings.HasSuffix(f.Name, ".rlog") && !strings.HasPrefix(f.Name, "untitled:") {
			ws.files = append(ws.files, f)
			continue
		}
		d := &markerDoc{name: f.Name, lines: strings.SplitAfter(string(f.Data), "\n")}
		if d.lines[len(d.lines)-1] == "" {
			d.lines = d.lines[:len(d.lines)-1]
		}
		var text bytes.Buffer
		var last *marker
		lineStart, lineEnd := -1, -1
		for i, l := range d.lines {
			switch {
			case strings.HasPrefix(l, "#@"):
				m := parseMarker(t, d, i, l)
				m.lineStart, m.lineEnd = lineStart, lineEnd
				m.answerEnd = i + 1
				ws.markers = append(ws.markers, m)
				last = m
			case strings.HasPrefix(l, "#="):
				if last == nil || last.answerEnd != i {
					t.Fatalf("%s:%d: an answer line that follows no marker", d.name, i+1)
				}
				if last.answerEnd > last.at+1 {
					last.want += "\n"
				}
				last.want += strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(l, "\n"), "#="), " ")
				last.answerEnd = i + 1
			default:
				last = nil
				lineStart = text.Len()
				text.WriteString(l)
				lineEnd = lineStart + len(strings.TrimRight(l, "\r\n"))
			}
		}
		d.text = text.Bytes()
		ws.docs = append(ws.docs, d)
		ws.files = append(ws.files, golden.File{Name: f.Name, Data: d.text})
	}
	if len(ws.docs) == 0 {
		t.Fatalf("%s holds no log", a.Path)
	}
	if len(strings.TrimSpace(string(a.Comment))) == 0 {
		t.Errorf("%s: say in the archive's comment what it shows", a.Path)
	}
	return ws
}

func parseMarker(t *testing.T, d *markerDoc, i int, l string) *marker {
	t.Helper()
	m := &marker{doc: d, at: i, line: strings.TrimRight(l, "\r\n")}
	rest := strings.TrimSpace(strings.TrimPrefix(m.line, "#@"))
	fail := func(why string) { t.Fatalf("%s: %s: %s", m.where(), m.line, why) }
	m.method, rest, _ = strings.Cut(rest, " ")
	rest = strings.TrimSpace(rest)
	if m.method == "" {
		fail("no method")
	}
	if r, ok := strings.CutPrefix(rest, "in "); ok {
		m.file, rest, _ = strings.Cut(strings.TrimSpace(r), " ")
		rest = strings.TrimSpace(rest)
	}
	if strings.HasPrefix(rest, `"`) || strings.HasPrefix(rest, "`") {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			fail("the pattern is not a Go string: " + err.Error())
		}
		m.pattern, _ = strconv.Unquote(q)
		m.hasPattern = true
		rest = strings.TrimSpace(rest[len(q):])
	}
	if rest != "" {
		if err := json.Unmarshal([]byte(rest), &m.extra); err != nil {
			fail("what follows is not a JSON object of parameters: " + err.Error())
		}
	}
	return m
}

// run opens the workspace in a server that counts columns in enc and
// returns each marker's answer.
func (ws *markerWorkspace) run(t *testing.T, enc string) []string {
	t.Helper()
	dir := t.TempDir()
	texts := map[protocol.DocumentURI]*difftest.Text{}
	uriOf := map[string]protocol.DocumentURI{}
	for _, f := range ws.files {
		uri := protocol.DocumentURI(f.Name)
		if !strings.HasPrefix(f.Name, "untitled:") {
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			uri = fileURI(p)
		}
		uriOf[f.Name] = uri
		texts[uri] = difftest.NewText(f.Data, enc == "utf-8")
	}
	c := lsptest.Start(t, func(ctx context.Context, rwc io.ReadWriteCloser) int {
		return lsp.Serve(ctx, rwc, lsp.Options[Doc]{Features: Features(), Name: "rlog-ls", Version: "test"})
	})
	params := lsptest.DefaultInitializeParams()
	root := fileURI(dir)
	params["rootUri"] = root
	params["workspaceFolders"] = []map[string]any{{"uri": root, "name": "workspace"}}
	caps := mergeJSON(map[string]any{}, ws.caps)
	if enc == "utf-8" {
		caps = mergeJSON(caps, map[string]any{"general": map[string]any{"positionEncodings": []any{"utf-8"}}})
	}
	params["capabilities"] = caps
	params["initializationOptions"] = mergeJSON(map[string]any{"diagnostics": map[string]any{"debounceMs": 0}}, ws.settings)
	r := &markerRun{t: t, c: c, texts: texts, uriOf: uriOf, root: root, dir: dir, open: map[protocol.DocumentURI]bool{}}
	r.initialized = c.Initialize(params)
	for _, d := range ws.docs {
		r.openDoc(d.name)
		c.WaitDiagnostics(uriOf[d.name], lsptest.AtVersion(1))
	}
	out := make([]string, len(ws.markers))
	for i, m := range ws.markers {
		out[i] = r.answer(m)
	}
	return out
}

// markerRun is one run of a workspace: the editor, and its copy of every
// file with the columns counted in the run's encoding.
type markerRun struct {
	t           *testing.T
	c           *lsptest.Client
	texts       map[protocol.DocumentURI]*difftest.Text
	uriOf       map[string]protocol.DocumentURI
	root        protocol.DocumentURI
	dir         string
	open        map[protocol.DocumentURI]bool
	initialized json.RawMessage
	ids         int
}

// openDoc sends didOpen for a file of the workspace, its text as bytes
// (not made valid UTF-8 on the way), once.
func (r *markerRun) openDoc(name string) protocol.DocumentURI {
	uri, ok := r.uriOf[name]
	if !ok {
		r.t.Fatalf("the workspace has no file %s", name)
	}
	if r.open[uri] {
		return uri
	}
	r.open[uri] = true
	lang := "plaintext"
	switch filepath.Ext(name) {
	case ".rlog":
		lang = "rlog"
	case ".json", ".jsonl":
		lang = "json"
	}
	r.c.SendRaw(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":%q,"version":1,"text":%s}}}`,
		uri, lang, lsptest.RawString(r.texts[uri].Bytes())))
	return uri
}

// The requests a marker makes at a position or over a range; any other is
// about the whole document.
var (
	positionMethods = map[string]bool{"hover": true, "definition": true, "references": true, "documentHighlight": true,
		"completion": true, "prepareRename": true, "rename": true, "prepareCallHierarchy": true, MethodCompanionRecord: true}
	rangeMethods = map[string]bool{"codeAction": true, "inlayHint": true, "semanticTokens/range": true}
)

// answer makes the marker's request and renders the answer.
func (r *markerRun) answer(m *marker) string {
	t := r.t
	t.Helper()
	name := m.doc.name
	if m.file != "" {
		name = m.file
	}
	uri := r.openDoc(name)
	text := r.texts[uri]
	switch m.method {
	case "initialize":
		// Without the position encoding, which is the run's.
		v, err := decodeOrdered(r.initialized)
		if err != nil {
			t.Fatal(err)
		}
		init := v.(object)
		for i, m := range init {
			if caps, ok := m.value.(object); ok && m.key == "capabilities" {
				init[i].value = slices.DeleteFunc(caps, func(c member) bool { return c.key == "positionEncoding" })
			}
		}
		var b strings.Builder
		r.write(&b, init, uri, "")
		return trimLines(b.String())
	case "diagnostics":
		p := r.c.WaitDiagnostics(uri, lsptest.AtVersion(1))
		return r.render(p.Raw, uri, "")
	}
	params := map[string]any{"textDocument": map[string]any{"uri": uri}}
	start, end, cursor := r.place(m, text)
	method := "textDocument/" + m.method
	if strings.Contains(m.method, "/") && !strings.HasPrefix(m.method, "semanticTokens/") && m.method != "codeLens/resolve" {
		method = m.method
	}
	switch {
	case positionMethods[m.method]:
		params["position"] = text.Position(cursor)
		switch m.method {
		case "references":
			params["context"] = map[string]any{"includeDeclaration": true}
		case "completion":
			params["context"] = map[string]any{"triggerKind": 1}
		}
	case rangeMethods[m.method]:
		rng := protocol.Range{Start: text.Position(start), End: text.Position(end)}
		if !m.hasPattern {
			rng = protocol.Range{End: text.Position(text.Len())}
		}
		params["range"] = rng
		if m.method == "codeAction" {
			params["context"] = map[string]any{"diagnostics": r.diagnosticsIn(uri, text, rng)}
		}
	default:
		// Any other request is about the whole document (its params the
		// document and the marker's JSON): a new request needs no entry
		// here, and a misspelt one answers "method not found".
	}
	params = mergeJSON(params, m.extra)
	if m.method == "codeLens/resolve" {
		// The lenses, each as codeLens/resolve completes it.
		var lenses []json.RawMessage
		if err := json.Unmarshal(r.request("textDocument/codeLens", params, m).Result, &lenses); err != nil {
			t.Fatalf("%s: codeLens: %v", m.where(), err)
		}
		resolved := make([]json.RawMessage, len(lenses))
		for i, l := range lenses {
			f := r.request("codeLens/resolve", l, m)
			if f.Error != nil {
				t.Fatalf("%s: codeLens/resolve: %s", m.where(), f.Body)
			}
			resolved[i] = f.Result
		}
		all, _ := json.Marshal(resolved)
		return r.render(all, uri, "")
	}
	f := r.request(method, params, m)
	if f.Error != nil {
		return fmt.Sprintf("error %d: %s", f.Error.Code, r.scrub(f.Error.Message))
	}
	return r.render(f.Result, uri, m.method)
}

func (r *markerRun) request(method string, params any, m *marker) lsptest.Frame {
	r.ids++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("marker-%d", r.ids), "method": method, "params": params})
	if err != nil {
		r.t.Fatalf("%s: %v", m.where(), err)
	}
	return r.c.RawRequest(string(body))
}

// place finds the marker's pattern: on the log line it is about, or
// anywhere in the file it names. A "|" in the pattern is the cursor; else
// the cursor is where the pattern starts. Without a pattern, the place is
// the start of the line.
func (r *markerRun) place(m *marker, text *difftest.Text) (start, end, cursor int) {
	from, to := m.lineStart, m.lineEnd
	if m.file != "" {
		from, to = 0, text.Len()
	}
	if !m.hasPattern {
		if from < 0 {
			from = 0
		}
		return from, from, from
	}
	if from < 0 {
		r.t.Fatalf("%s: no log line above the marker to look for %q in", m.where(), m.pattern)
	}
	before, after, hasCursor := strings.Cut(m.pattern, "|")
	find := before + after
	within := text.Bytes()[from:to]
	i := bytes.Index(within, []byte(find))
	if i < 0 || bytes.Count(within, []byte(find)) != 1 {
		r.t.Fatalf("%s: %q must occur once in %q", m.where(), find, within)
	}
	start, end = from+i, from+i+len(find)
	cursor = start
	if hasCursor {
		cursor = start + len(before)
		start, end = cursor, cursor
	}
	return start, end, cursor
}

// diagnosticsIn are the diagnostics published for uri that touch rng, as
// an editor sends them with a code action request.
func (r *markerRun) diagnosticsIn(uri protocol.DocumentURI, text *difftest.Text, rng protocol.Range) []protocol.Diagnostic {
	p := r.c.WaitDiagnostics(uri, lsptest.AtVersion(1))
	from, to, err := text.Span(rng)
	if err != nil {
		r.t.Fatal(err)
	}
	out := []protocol.Diagnostic{}
	for _, d := range p.Diagnostics {
		s, e, err := text.Span(d.Range)
		if err != nil {
			r.t.Fatalf("diagnostic %+v: %v", d, err)
		}
		if s <= to && e >= from {
			out = append(out, d)
		}
	}
	return out
}

// mergeJSON sets the members of over into base, object by object.
func mergeJSON(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if sub, ok := v.(map[string]any); ok {
			if was, ok := out[k].(map[string]any); ok {
				out[k] = mergeJSON(was, sub)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// render writes an answer for people: JSON as the server ordered it,
// indented, one member or element a line (without commas; a short value
// on one line keeps them), with each position and range as 1-based line:column in
// characters (the same in every encoding) and the text a range covers,
// the workspace folder as $WORK, strings of several lines as blocks, and
// semantic tokens decoded.
func (r *markerRun) render(raw json.RawMessage, uri protocol.DocumentURI, method string) string {
	v, err := decodeOrdered(raw)
	if err != nil {
		r.t.Fatalf("the answer is not JSON: %v: %s", err, raw)
	}
	if method == "semanticTokens/full" || method == "semanticTokens/range" {
		v = r.decodeTokens(v, uri)
	}
	var b strings.Builder
	r.write(&b, v, uri, "")
	return trimLines(b.String())
}

// trimLines drops the spaces at the end of each line, as the archive's
// answer lines have none.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// object is a JSON object with its members in order.
type object []member

type member struct {
	key   string
	value any
}

func (o object) get(key string) (any, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// shown is a value already rendered (a position, a range, a token).
type shown string

func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var value func() (any, error)
	value = func() (any, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch tok {
		case json.Delim('{'):
			o := object{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := value()
				if err != nil {
					return nil, err
				}
				o = append(o, member{k.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case json.Delim('['):
			a := []any{}
			for dec.More() {
				v, err := value()
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return tok, nil
	}
	return value()
}

// write renders v at the given indent: on one line when it is short.
func (r *markerRun) write(b *strings.Builder, v any, uri protocol.DocumentURI, indent string) {
	if s, ok := r.inline(v, uri); ok && len(indent)+len(s) <= 100 {
		b.WriteString(s)
		return
	}
	switch v := v.(type) {
	case object:
		if u := r.uriIn(v); u != "" {
			uri = u
		}
		if s, ok := r.placeOf(v, uri); ok {
			b.WriteString(s)
			return
		}
		b.WriteString("{\n")
		for _, m := range v {
			b.WriteString(indent + "  " + quote(r.scrub(m.key)) + ": ")
			at := uri
			if _, ok := r.texts[protocol.DocumentURI(m.key)]; ok {
				at = protocol.DocumentURI(m.key) // WorkspaceEdit.changes
			}
			r.write(b, m.value, at, indent+"  ")
			b.WriteString("\n")
		}
		b.WriteString(indent + "}")
	case []any:
		b.WriteString("[\n")
		for _, e := range v {
			b.WriteString(indent + "  ")
			r.write(b, e, uri, indent+"  ")
			b.WriteString("\n")
		}
		b.WriteString(indent + "]")
	case string:
		s := r.scrub(v)
		if blockString(s) {
			b.WriteString("|")
			for _, l := range strings.Split(s, "\n") {
				b.WriteString("\n" + indent + "  " + l)
			}
			return
		}
		b.WriteString(quote(s))
	default:
		s, _ := r.inline(v, uri)
		b.WriteString(s)
	}
}

// inline renders v on one line, if it can be: no strings of several
// lines in it.
func (r *markerRun) inline(v any, uri protocol.DocumentURI) (string, bool) {
	switch v := v.(type) {
	case shown:
		return string(v), true
	case object:
		if u := r.uriIn(v); u != "" {
			uri = u
		}
		if s, ok := r.placeOf(v, uri); ok {
			return s, true
		}
		parts := make([]string, len(v))
		for i, m := range v {
			at := uri
			if _, ok := r.texts[protocol.DocumentURI(m.key)]; ok {
				at = protocol.DocumentURI(m.key)
			}
			s, ok := r.inline(m.value, at)
			if !ok {
				return "", false
			}
			parts[i] = quote(r.scrub(m.key)) + ": " + s
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			s, ok := r.inline(e, uri)
			if !ok {
				return "", false
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case string:
		s := r.scrub(v)
		if blockString(s) {
			return "", false
		}
		return quote(s), true
	case json.Number:
		return v.String(), true
	case bool:
		return strconv.FormatBool(v), true
	case nil:
		return "null", true
	}
	return fmt.Sprint(v), true
}

// blockString reports whether s is shown as a block of lines: it has
// several, and no character but the line breaks that a block would hide
// (other control characters, spaces at a line's end).
func blockString(s string) bool {
	if !strings.Contains(strings.TrimSuffix(s, "\n"), "\n") {
		return false
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimRight(l, " \t") != l || strings.ContainsFunc(l, func(c rune) bool { return c < 0x20 && c != '\t' }) {
			return false
		}
	}
	return true
}

// uriIn is the document an object's ranges are in, when it names one
// (a Location, a publish, a TextDocumentEdit).
func (r *markerRun) uriIn(o object) protocol.DocumentURI {
	for _, key := range []string{"uri", "targetUri"} {
		if u, ok := o.get(key); ok {
			if s, ok := u.(string); ok {
				return protocol.DocumentURI(s)
			}
		}
	}
	if td, ok := o.get("textDocument"); ok {
		if td, ok := td.(object); ok {
			return r.uriIn(td)
		}
	}
	return ""
}

// placeOf renders a position or a range of the document uri.
func (r *markerRun) placeOf(o object, uri protocol.DocumentURI) (string, bool) {
	if p, ok := asPos(o); ok {
		return r.pos(uri, p), true
	}
	if len(o) != 2 || o[0].key != "start" || o[1].key != "end" {
		return "", false
	}
	s, ok1 := o[0].value.(object)
	e, ok2 := o[1].value.(object)
	if !ok1 || !ok2 {
		return "", false
	}
	sp, ok1 := asPos(s)
	ep, ok2 := asPos(e)
	if !ok1 || !ok2 {
		return "", false
	}
	text := r.texts[uri]
	if text == nil {
		r.t.Fatalf("a range in %s, which is not a file of the workspace", uri)
	}
	from, to, err := text.Span(protocol.Range{Start: sp, End: ep})
	if err != nil {
		r.t.Fatalf("a range in %s: %v", uri, err)
	}
	out := r.pos(uri, sp) + "-" + r.pos(uri, ep)
	if covered := text.Bytes()[from:to]; len(covered) > 0 && !bytes.ContainsAny(covered, "\r\n") {
		s := string(covered)
		if utf8.RuneCountInString(s) > 40 {
			s = string([]rune(s)[:39]) + "…"
		}
		out += " " + quote(s)
	}
	return out, true
}

func asPos(o object) (protocol.Position, bool) {
	if len(o) != 2 || o[0].key != "line" || o[1].key != "character" {
		return protocol.Position{}, false
	}
	ln, ok1 := o[0].value.(json.Number)
	cn, ok2 := o[1].value.(json.Number)
	if !ok1 || !ok2 {
		return protocol.Position{}, false
	}
	l, err1 := ln.Int64()
	c, err2 := cn.Int64()
	if err1 != nil || err2 != nil || l < 0 || c < 0 {
		return protocol.Position{}, false
	}
	return protocol.Position{Line: uint32(l), Character: uint32(c)}, true
}

// pos renders a position as 1-based line:column, the column in
// characters.
func (r *markerRun) pos(uri protocol.DocumentURI, p protocol.Position) string {
	text := r.texts[uri]
	if text == nil {
		r.t.Fatalf("a position in %s, which is not a file of the workspace", uri)
	}
	off, err := text.Offset(p)
	if err != nil {
		r.t.Fatalf("a position in %s: %v", uri, err)
	}
	start, _, _ := text.Span(protocol.Range{Start: protocol.Position{Line: p.Line}, End: protocol.Position{Line: p.Line}})
	return fmt.Sprintf("%d:%d", p.Line+1, utf8.RuneCount(text.Bytes()[start:off])+1)
}

// scrub writes the workspace folder, which changes from run to run, as
// $WORK.
func (r *markerRun) scrub(s string) string {
	s = strings.ReplaceAll(s, string(r.root), "$WORK")
	return strings.ReplaceAll(s, r.dir, "$WORK")
}

// decodeTokens turns semantic tokens' data into one "line:column text
// type+modifiers" per token, with the legend the server announced.
func (r *markerRun) decodeTokens(v any, uri protocol.DocumentURI) any {
	o, ok := v.(object)
	if !ok {
		return v
	}
	data, ok := o.get("data")
	if !ok {
		return v
	}
	var init struct {
		Capabilities struct {
			SemanticTokensProvider struct {
				Legend protocol.SemanticTokensLegend `json:"legend"`
			} `json:"semanticTokensProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(r.initialized, &init); err != nil {
		r.t.Fatal(err)
	}
	legend := init.Capabilities.SemanticTokensProvider.Legend
	text := r.texts[uri]
	nums := data.([]any)
	tokens := []any{}
	line, char := uint32(0), uint32(0)
	for i := 0; i+5 <= len(nums); i += 5 {
		var f [5]uint32
		for k := range f {
			n, _ := nums[i+k].(json.Number).Int64()
			f[k] = uint32(n)
		}
		if f[0] > 0 {
			char = 0
		}
		line += f[0]
		char += f[1]
		start, end := protocol.Position{Line: line, Character: char}, protocol.Position{Line: line, Character: char + f[2]}
		from, to, err := text.Span(protocol.Range{Start: start, End: end})
		if err != nil {
			r.t.Fatalf("semantic token %v: %v", f, err)
		}
		typ := string(legend.TokenTypes[f[3]])
		for bit, name := range legend.TokenModifiers {
			if f[4]&(1<<bit) != 0 {
				typ += "+" + string(name)
			}
		}
		tokens = append(tokens, shown(fmt.Sprintf("%s %s %s", r.pos(uri, start), quote(string(text.Bytes()[from:to])), typ)))
	}
	out := object{}
	for _, m := range o {
		if m.key == "data" {
			m.value = tokens
		}
		out = append(out, m)
	}
	return out
}

// quote is a JSON string as people read it: non-ASCII characters as they
// are.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
