package report

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"
)

// The page is assets/report.html with the style sheet, the script and the
// data put in its placeholders. They are real files so that they can be
// checked on their own (the script is type-checked, the page is opened in
// Chromium by the tests).
//
//go:embed assets/report.html assets/report.css assets/report.js
var assets embed.FS

// The placeholders of assets/report.html, each written exactly once.
const (
	phNonce  = "{{nonce}}"
	phTitle  = "{{title}}"
	phStyle  = "{{style}}"
	phScript = "{{script}}"
	phData   = "{{data}}"
)

// pageParts is the template cut at its placeholders: text, placeholder,
// text, placeholder, ... text.
var pageParts = mustSplit()

func mustSplit() []string {
	tmpl := mustRead("assets/report.html")
	var parts []string
	for {
		i := strings.Index(tmpl, "{{")
		if i < 0 {
			return append(parts, tmpl)
		}
		j := strings.Index(tmpl[i:], "}}")
		if j < 0 {
			panic("report.html: unclosed placeholder")
		}
		parts = append(parts, tmpl[:i], tmpl[i:i+j+2])
		tmpl = tmpl[i+j+2:]
	}
}

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var (
	style  = mustRead("assets/report.css")
	script = mustRead("assets/report.js")
)

// NewNonce returns a fresh Content-Security-Policy nonce.
func NewNonce() string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// WriteHTML writes the session view of d: one page with everything inline
// (no request leaves it, so it works from file:// and offline), under a
// Content-Security-Policy that lets only its own nonce-marked style and
// script run. nonce must be fresh for each page that a browser might
// show beside another; NewNonce makes one.
func WriteHTML(w io.Writer, d *Data, nonce string) error {
	if nonce == "" || strings.ContainsAny(nonce, "\"'<>& ;") {
		return fmt.Errorf("report: unusable nonce %q", nonce)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	title := "Session " + d.File
	if d.File == "" {
		title = "Session " + d.ID
	}
	for _, part := range pageParts {
		var err error
		switch part {
		case phNonce:
			_, err = bw.WriteString(nonce)
		case phTitle:
			_, err = bw.WriteString(html.EscapeString(title))
		case phStyle:
			_, err = bw.WriteString(style)
		case phScript:
			_, err = bw.WriteString(script)
		case phData:
			// Inside <script type="application/json">: the strings are
			// written with <, > and & (and U+2028/9) escaped, so nothing in
			// a log can end the element or be read as markup.
			if err = writeJSON(bw, d); err == nil {
				err = bw.WriteByte('\n')
			}
		default:
			if strings.HasPrefix(part, "{{") {
				return fmt.Errorf("report.html: unknown placeholder %s", part)
			}
			_, err = bw.WriteString(part)
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

// HTML returns WriteHTML's page as bytes.
func HTML(d *Data, nonce string) ([]byte, error) {
	var b bytes.Buffer
	err := WriteHTML(&b, d, nonce)
	return b.Bytes(), err
}
