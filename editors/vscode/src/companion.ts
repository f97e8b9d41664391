// Which JSON and JSONL files are companions: the full record of an rlog log
// beside them (see docs/companions.md). The server gets these documents too,
// for navigation back to the log; other JSON files are not sent to it. Kept
// free of the vscode module so that it can be unit-tested with plain Node.
import * as fs from 'fs';
import * as path from 'path';

/** The scheme of the read-only documents that show a record in full. */
export const recordScheme = 'rlog-record';

/**
 * logOf returns the log whose companion (or subagent file) the file at
 * file is, when that log exists: NAME.rlog (or NAME.converted.rlog, the
 * name rlog-ls convert gives a conversion) for NAME.jsonl, NAME.json and
 * NAME.sub-ID.jsonl; for a Claude Code subagent transcript
 * (NAME/subagents/agent-ID.jsonl) NAME.rlog, or for DIR/subagents/agent-ID.jsonl
 * a log in DIR.
 */
export function logOf(file: string, exists: (p: string) => boolean = fs.existsSync,
  list: (dir: string) => string[] = (d) => fs.readdirSync(d)): string | undefined {
  const ext = path.extname(file).toLowerCase();
  if (ext !== '.jsonl' && ext !== '.json') return undefined;
  const dir = path.dirname(file);
  const stem = path.basename(file).slice(0, -ext.length);
  const logNamed = (base: string) => [base + '.rlog', base + '.converted.rlog'].find(exists);
  if (stem.startsWith('agent-') && path.basename(dir) === 'subagents') {
    const parent = path.dirname(dir);
    const log = logNamed(parent);
    if (log) return log;
    try {
      const logs = list(parent).filter((f) => f.endsWith('.rlog')).sort();
      if (logs.length > 0) return path.join(parent, logs[0]);
    } catch {
      return undefined;
    }
    return undefined;
  }
  const sub = stem.lastIndexOf('.sub-');
  if (sub > 0 && ext === '.jsonl') {
    const log = path.join(dir, stem.slice(0, sub) + '.rlog');
    if (exists(log)) return log;
  }
  return logNamed(path.join(dir, stem));
}

/** A record as the server's rlog/companionRecord request gives it. */
export interface CompanionRecord {
  title: string;
  text: string;
  language: string;
  line: number;
  failed?: boolean;
  location: { uri: string; range: { start: { line: number; character: number } } };
}

/**
 * recordUri is the URI of the read-only document that shows a record: its
 * path names the log's line and what the record is, so that tabs say it.
 */
export function recordUri(log: string, rec: CompanionRecord): string {
  const name = path.basename(log).replace(/\.rlog$/, '');
  const what = rec.title.replace(/[^\w .-]+/g, '_');
  const ext = rec.language === 'json' ? 'json' : 'txt';
  return `${recordScheme}:/${encodeURIComponent(name)}/line ${rec.line + 1} - ${encodeURIComponent(what)}.${ext}`;
}
