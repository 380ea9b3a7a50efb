import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Read from disk: the test runner hands CSS imports to tests as empty strings.
const css = readFileSync(decodeURIComponent(new URL(import.meta.url).pathname).replace(/[^/]*$/, 'tokens.css'), 'utf8');

/** The custom properties of one theme's block of tokens.css (`[data-theme='dark'] { ... }`). */
function themeTokens(theme: string): Record<string, string> {
  const block = css.match(new RegExp(`\\[data-theme=["']${theme}["']\\]\\s*\\{([^}]*)\\}`))?.[1];
  if (!block) throw new Error(`no block for the ${theme} theme`);
  return Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1]!, m[2]!.toLowerCase()]));
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const AA = 4.5;
const surfaces = ['bg', 'surface', 'surface-2', 'surface-hover'];
const texts = ['text', 'text-muted', 'accent', 'red', 'green', 'warning'];
const pairs: Array<[string, string]> = [
  ['red', 'red-soft'],
  ['green', 'green-soft'],
  ['accent', 'accent-soft'],
  ['warning', 'warning-soft'],
  ['text', 'red-soft'],
  ['text', 'green-soft'],
  ['text', 'accent-soft'],
  ['text', 'warning-soft'],
  ['on-accent', 'accent'],
  ['on-accent', 'accent-hover'],
  ['on-buy', 'buy-bg'],
  ['on-buy', 'buy-bg-hover'],
  ['on-sell', 'sell-bg'],
  ['on-sell', 'sell-bg-hover'],
  ['on-danger', 'danger-bg'],
];

describe.each(['dark', 'light'])('%s theme colours', (theme) => {
  const t = themeTokens(theme);

  it('define bid and loss as the red, ask and profit as the green', () => {
    expect(css).toMatch(/--bid:\s*var\(--red\)/);
    expect(css).toMatch(/--loss:\s*var\(--red\)/);
    expect(css).toMatch(/--ask:\s*var\(--green\)/);
    expect(css).toMatch(/--profit:\s*var\(--green\)/);
    const channels = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
    const [rr, rg] = channels(t.red!) as [number, number];
    const [gr, gg] = channels(t.green!) as [number, number];
    expect(rr).toBeGreaterThan(rg * 2);
    expect(gg).toBeGreaterThan(gr * 2);
  });

  it.each(texts.flatMap((text) => surfaces.map((surface) => [text, surface])))('%s on %s meets WCAG AA', (text, surface) => {
    expect(t[text], text).toBeDefined();
    expect(t[surface], surface).toBeDefined();
    expect(contrast(t[text]!, t[surface]!)).toBeGreaterThanOrEqual(AA);
  });

  it.each(pairs)('%s on %s meets WCAG AA', (fg, bg) => {
    expect(contrast(t[fg]!, t[bg]!)).toBeGreaterThanOrEqual(AA);
  });
});
