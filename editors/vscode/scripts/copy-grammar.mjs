// The grammar's one source is grammar/rlog.tmLanguage.json at the root of the
// repository; the extension ships a copy, made here at build time.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, '..', '..', '..', 'grammar', 'rlog.tmLanguage.json');
const dst = join(here, '..', 'syntaxes', 'rlog.tmLanguage.json');
JSON.parse(readFileSync(src, 'utf8')); // fail the build on a broken grammar
mkdirSync(dirname(dst), { recursive: true });
copyFileSync(src, dst);
