// Package difftest is a differential harness for the language server: it
// talks LSP to a server as an editor does, edits a document incrementally
// at random, and after each batch of edits compares every feature's answer
// about the edited document with the answer about a fresh open of the same
// text, and the published diagnostics with `rlog-ls check`'s findings.
//
// A run is a Script: the session's setup (UTF-16 or UTF-8 positions, the
// client's capabilities), the text opened, and steps (didChange batches,
// settings changes, cancelled requests, comparisons), with every edit and
// every place asked about in byte offsets. Random draws a script from a
// seed and runs it as it goes; Run replays one exactly; Shrink makes a
// failing one small. The client keeps its own copy of the text and counts
// lines and columns with its own reading of the specification (Text), so
// a position the server gets wrong shows as a difference or as a position
// that names no place.
//
// # Adding a feature
//
// A request about a document joins the harness with one entry in Probes
// (probes.go):
//
//   - Name, and Method, the LSP method;
//   - Params: the request's params built from a Site (s.URI, and the point
//     s.Pos, the range s.Range, the diagnostics there s.Diagnostics, the
//     text s.Text); nil skips the site. PerDocument asks once per
//     comparison, for whole-document requests (code lenses, links);
//   - Check, optionally: what one answer must satisfy on its own (positions
//     are checked for every probe already);
//   - Edits, optionally: for answers that carry edits (a code action, a
//     rename), the edits of each, one of which the harness may apply.
//
// If the feature needs a client capability, add it where start builds the
// initialize params (run.go); if it has a setting, add it to Settings,
// settingsJSON and generator.settings; if it reacts to particular text
// (completion after "t!:"), add that text to snippets and interesting
// (gen.go) so that edits make it and sites land on it.
package difftest
