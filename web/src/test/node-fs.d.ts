// Tests read source files (tokens.css) from disk; the web program has no Node types, so
// declare just what they use instead of letting Node's globals into browser code.
declare module 'node:fs' {
  export function readFileSync(path: string, encoding: 'utf8'): string;
}
