// The extension ships copies of files whose one source is at the root of the
// repository, made here at build time: the grammar
// (grammar/rlog.tmLanguage.json), the LICENSE and the CHANGELOG.md (vsce puts
// both in the package and shows them on the extension's page).
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(ext, '..', '..');

const grammar = join(root, 'grammar', 'rlog.tmLanguage.json');
JSON.parse(readFileSync(grammar, 'utf8')); // fail the build on a broken grammar
mkdirSync(join(ext, 'syntaxes'), { recursive: true });
copyFileSync(grammar, join(ext, 'syntaxes', 'rlog.tmLanguage.json'));
for (const f of ['LICENSE', 'CHANGELOG.md']) copyFileSync(join(root, f), join(ext, f));
