// Finding the rlog-ls binary. Kept free of the vscode module so that it can be
// unit-tested with plain Node.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const installCommand = 'go install github.com/rlog-ls/rlog-ls/cmd/rlog-ls@latest';

export interface Found {
  path: string;
  /** Where it was found: "rlog.server.path", "PATH" or "$GOPATH/bin". */
  source: string;
}

export interface NotFound {
  /** The places looked in, in order, for the message. */
  tried: string[];
  /** A setting that names a file that is not there, if any. */
  badSetting?: string;
}

export interface Env {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  isExecutable(p: string): boolean;
}

export function realEnv(): Env {
  return {
    platform: process.platform,
    env: process.env,
    home: os.homedir(),
    isExecutable(p: string): boolean {
      try {
        const st = fs.statSync(p);
        if (!st.isFile()) return false;
        if (process.platform === 'win32') return true;
        fs.accessSync(p, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  };
}

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(home, p.slice(2));
  return p;
}

/**
 * findServer looks for the server: the rlog.server.path setting when it is
 * set (a path, or a bare command name looked up on PATH), then rlog-ls on
 * PATH, then in $GOPATH/bin (each GOPATH entry, or ~/go/bin), which is where
 * `go install` puts it.
 */
export function findServer(setting: string | undefined, e: Env = realEnv()): Found | NotFound {
  const exe = e.platform === 'win32' ? 'rlog-ls.exe' : 'rlog-ls';
  const sep = e.platform === 'win32' ? ';' : ':';
  const pathDirs = (e.env.PATH ?? e.env.Path ?? '').split(sep).filter((d) => d !== '');
  const tried: string[] = [];
  const configured = (setting ?? '').trim();
  if (configured !== '') {
    const p = expandHome(configured, e.home);
    if (p.includes('/') || p.includes('\\')) {
      if (e.isExecutable(p)) return { path: p, source: 'rlog.server.path' };
      return { tried: [`rlog.server.path (${p})`], badSetting: p };
    }
    for (const d of pathDirs) {
      const c = path.join(d, p);
      if (e.isExecutable(c)) return { path: c, source: 'rlog.server.path' };
    }
    return { tried: [`rlog.server.path (${p}, on PATH)`], badSetting: p };
  }
  tried.push('rlog.server.path (not set)');
  for (const d of pathDirs) {
    const c = path.join(d, exe);
    if (e.isExecutable(c)) return { path: c, source: 'PATH' };
  }
  tried.push('PATH');
  const gopath = (e.env.GOPATH ?? '').split(sep).filter((d) => d !== '');
  const bins = e.env.GOBIN ? [e.env.GOBIN] : [];
  bins.push(...(gopath.length > 0 ? gopath : [path.join(e.home, 'go')]).map((d) => path.join(d, 'bin')));
  for (const d of bins) {
    const c = path.join(d, exe);
    if (e.isExecutable(c)) return { path: c, source: '$GOPATH/bin' };
  }
  tried.push(...bins);
  return { tried };
}

/** notFoundMessage is what the user reads when there is no server. */
export function notFoundMessage(nf: NotFound): string {
  if (nf.badSetting !== undefined) {
    return `rlog: the language server set in rlog.server.path was not found or is not executable: ${nf.badSetting}. ` +
      `Fix the setting, or clear it to use rlog-ls from PATH. Syntax colouring works without the server.`;
  }
  return `rlog: the rlog-ls language server was not found (looked in ${nf.tried.join(', ')}). ` +
    `Install it with \`${installCommand}\` (Go 1.26), or set rlog.server.path to the binary. ` +
    `Syntax colouring works without it; diagnostics, hover and the outline need it.`;
}
