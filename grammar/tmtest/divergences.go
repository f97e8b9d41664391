// Package tmtest checks that the TextMate grammar (grammar/rlog.tmLanguage.json,
// which colours rlog in VS Code and every editor that reads TextMate grammars)
// classifies every line exactly as the Go parser does.
//
// The Go side parses each file and writes every line's kind as JSON; the Node
// side (editors/vscode/test/grammar-agreement.mjs) tokenizes the same lines
// with vscode-textmate and vscode-oniguruma, the libraries VS Code itself
// uses, and reports the lines whose top-level meta.line.<kind>.rlog scope
// differs. The test fails on any difference that is not one of the few
// declared in Divergences (what a line-by-line grammar cannot know), and on a declared
// one that no longer occurs.
//
// It needs node and `npm ci` in editors/vscode. Without them it skips and
// says so, unless RLOG_REQUIRE_TMTEST=1 (set by .ci/run), when it fails.
package tmtest

// Divergence is a line of a fixture in testdata/ on which a highlighter
// that reads one line at a time (the TextMate grammar, Neovim's syntax
// file) is known to differ from the parser, with the kind each gives it.
type Divergence struct {
	File        string // base name of a file in testdata/
	Line        int    // 1-based
	Parser      string
	Highlighter string
}

// Divergences are the lines a line-at-a-time highlighter cannot classify as
// the parser does, because it cannot look ahead. Two cases follow from
// that, each pinned by a fixture:
//   - A file with no "---" at all: the parser reads it as a body without a
//     header (and reports the missing header); the highlighter, which cannot
//     know that no "---" will come, shows it as preamble until one does.
//   - A header whose closing "---" is missing: the parser ends it at the
//     first blank or recognisable line; the highlighter ends it at the first
//     line that cannot be YAML (so a closed header may hold blank lines,
//     comments and "u: x"-like keys), here the @start line.
//
// The editor tests (e2e) and the grammar test here expect exactly these.
var Divergences = []Divergence{
	{"divergent-no-header.rlog", 1, "user", "preamble"},
	{"divergent-no-header.rlog", 2, "agent", "preamble"},
	{"divergent-no-header.rlog", 3, "tool_start", "preamble"},
	{"divergent-no-header.rlog", 4, "empty", "preamble"},
	{"divergent-unclosed-header.rlog", 5, "empty", "header"},
	{"divergent-unclosed-header.rlog", 6, "comment", "header"},
	{"divergent-unclosed-header.rlog", 7, "user", "header"},
}
