// The masked views of Compare With… (compare.ts): their URIs and the
// server's request. Kept free of the vscode module so that it can be
// unit-tested with plain Node.

/** The scheme of masked views: rlog-masked:, the session file's path with ".rlog" after it, and the side. */
export const maskedScheme = 'rlog-masked';

/** The server's request for a session's masked rlog view (docs/editors.md). */
export const maskedViewRequest = 'rlog/maskedView';

/** What rlog/maskedView answers. */
export interface MaskedView {
  name: string;
  text: string;
}

/**
 * maskedUri is the URI of a side of a comparison: the session's path with
 * ".rlog" after it (so the rlog grammar colours it), and the side as the
 * query (the same session may be on both sides).
 */
export function maskedUri(filePath: string, side: 'a' | 'b'): string {
  const p = filePath.startsWith('/') ? filePath : `/${filePath}`;
  return `${maskedScheme}://${p.split('/').map(encodeURIComponent).join('/')}.rlog?${side}`;
}

/** pickTitle is the title of the question Compare With… asks. */
export function pickTitle(first: string): string {
  return `Compare ${first} with…`;
}
