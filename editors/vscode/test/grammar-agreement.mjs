// Tokenizes files with the rlog TextMate grammar (grammar/rlog.tmLanguage.json,
// through vscode-textmate and vscode-oniguruma, the libraries VS Code uses) and
// compares each line's kind with the kind the Go parser gave it.
//
// Usage: node grammar-agreement.mjs KINDS.json
//
// KINDS.json is written by the Go test grammar/tmtest: {"files": [{"path": ...,
// "lines": [{"text": ..., "kind": ...}]}]} with the parser's kind names
// (tool_start, header_delimiter, ...) and the tokens of grammar.Tokenize.
// Prints {"lines": N, "tokens": N, "mismatches": [...], "tokenMismatches":
// [...]} on stdout; exits 0 whether or not there are mismatches (the Go test decides
// which are expected), 2 on a usage or load error.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

export const grammarPath = join(here, '..', '..', '..', 'grammar', 'rlog.tmLanguage.json');

export async function loadGrammar(path = grammarPath) {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== 'source.rlog') return null;
      return vsctm.parseRawGrammar(readFileSync(path, 'utf8'), path);
    },
  });
  return registry.loadGrammar('source.rlog');
}

const lineScope = /^meta\.line\.([a-z-]+)\.rlog$/;

// kindOf returns the line kind the grammar gave a tokenized line: the
// meta.line.<kind>.rlog scope of its first token, or for a blank line with
// no such scope, the region it is in.
export function kindOf(tokens, text) {
  for (const tok of tokens.slice(0, 1)) {
    for (const s of tok.scopes) {
      const m = lineScope.exec(s);
      if (m) return m[1].replaceAll('-', '_').replace(/^header$/, 'header');
    }
    if (text.trim() === '') {
      if (tok.scopes.includes('meta.header.rlog')) return 'header';
      if (tok.scopes.includes('meta.preamble.rlog')) return 'preamble';
      return 'empty';
    }
  }
  return '(none)';
}

// tokenizeLines tokenizes lines in order, carrying the state across lines as
// an editor does, and returns the tokens of each line.
export function tokenizeLines(grammar, lines) {
  let state = vsctm.INITIAL;
  const out = [];
  for (const text of lines) {
    const r = grammar.tokenizeLine(text, state);
    out.push(r.tokens);
    state = r.ruleStack;
  }
  return out;
}

// The scopes a grammar.Tokenize token kind must have in the grammar (one of
// them, as a prefix), for the token kinds whose colour matters most.
export const tokenScopes = {
  prefix: ['keyword.', 'punctuation.definition.comment.', 'punctuation.definition.keyword.', 'punctuation.definition.list.'],
  name: ['entity.name.', 'keyword.control.lifecycle.', 'constant.language.mode.'],
  key: ['variable.parameter.key.', 'entity.name.tag.header-key.'],
  header_key: ['entity.name.tag.header-key.'],
  arrow: ['keyword.operator.arrow.', 'invalid.deprecated.ascii-arrow.'],
  status: ['markup.inserted.status.', 'markup.deleted.status.', 'markup.changed.status.', 'constant.language.status.'],
  marker: ['markup.underline.link.blob.', 'constant.language.redacted.'],
  flag: ['markup.deleted.interrupted.'],
  delimiter: ['punctuation.definition.header.'],
  comment: ['comment.'],
};

// checkTokens compares the Go tokens of a line with the grammar's tokens:
// the grammar token under the first character of each Go token must carry
// one of the scopes its kind calls for.
export function checkTokens(line, tmTokens) {
  const bad = [];
  let checked = 0;
  for (const [kind, start, end] of line.tokens || []) {
    const want = tokenScopes[kind];
    if (!want) continue;
    const text = line.text.slice(start, end);
    // Keys inside comments are read by the parser but shown as comment text;
    // an ASCII "->" is an arrow only where a result may follow.
    if (kind === 'key' && line.kind === 'comment') continue;
    if (kind === 'arrow' && text !== '→') continue;
    checked++;
    const tok = tmTokens.find((t) => t.startIndex <= start && start < t.endIndex);
    const scopes = tok ? tok.scopes : [];
    if (!scopes.some((s) => want.some((w) => s.startsWith(w)))) bad.push({ token: text, kind, scopes });
  }
  return { checked, bad };
}

async function main() {
  if (process.argv.length !== 3) {
    console.error('usage: node grammar-agreement.mjs KINDS.json');
    process.exit(2);
  }
  const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  const grammar = await loadGrammar();
  let n = 0;
  let ntok = 0;
  const mismatches = [];
  const tokenMismatches = [];
  for (const file of input.files) {
    const texts = file.lines.map((l) => l.text);
    const tokens = tokenizeLines(grammar, texts);
    file.lines.forEach((l, i) => {
      n++;
      const tm = kindOf(tokens[i], l.text);
      if (tm !== l.kind) {
        mismatches.push({ path: file.path, line: i + 1, text: l.text, go: l.kind, tm });
        return; // the tokens of a line of the wrong kind differ anyway
      }
      const { checked, bad } = checkTokens(l, tokens[i]);
      ntok += checked;
      for (const b of bad) tokenMismatches.push({ path: file.path, line: i + 1, ...b });
    });
  }
  process.stdout.write(JSON.stringify({ lines: n, tokens: ntok, mismatches, tokenMismatches }) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e && e.stack ? e.stack : String(e));
    process.exit(2);
  });
}
