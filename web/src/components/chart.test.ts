import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chartOptions, mountThemedChart, themeChartColors, translucent } from './chart';

// jsdom has no canvas: lightweight-charts is replaced at its module boundary, and the tests read
// the options the app handed to the chart.
const lwc = vi.hoisted(() => {
  const chart = { applyOptions: vi.fn(), remove: vi.fn() };
  return { chart, createChart: vi.fn(() => chart) };
});
vi.mock('lightweight-charts', () => ({
  createChart: lwc.createChart,
  ColorType: { Solid: 'solid' },
  CrosshairMode: { Normal: 0 },
}));

const root = document.documentElement;
const accentColors = () => themeChartColors((token) => ({ accent: token('--accent', '#4c8dff') }));

/** Sets the theme's tokens as tokens.css would for `data-theme`, then switches the attribute. */
function switchTheme(theme: string, tokens: Record<string, string>) {
  for (const [name, value] of Object.entries(tokens)) root.style.setProperty(name, value);
  root.setAttribute('data-theme', theme);
}

/** The MutationObserver reports after the current task's microtasks. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  vi.clearAllMocks();
  root.removeAttribute('style');
  root.removeAttribute('data-theme');
});

afterEach(() => {
  root.removeAttribute('style');
  root.removeAttribute('data-theme');
});

describe('the charts’ theme (components/chart.ts)', () => {
  it('reads the theme tokens, with the dark theme’s colours where a token is missing', () => {
    root.style.setProperty('--surface', '#ffffff');
    root.style.setProperty('--accent', '#0055cc');
    expect(accentColors()).toEqual({
      background: '#ffffff',
      text: '#93a1b3',
      grid: '#243041',
      border: '#34445b',
      accent: '#0055cc',
    });
  });

  it('makes a #rrggbb colour see-through and leaves any other colour alone', () => {
    expect(translucent('#35c47c', 0.45)).toBe('rgba(53, 196, 124, 0.45)');
    expect(translucent('rgb(1, 2, 3)', 0.5)).toBe('rgb(1, 2, 3)');
  });

  it('adds the look only where a chart asks for it', () => {
    const colors = accentColors();
    const plain = chartOptions(colors);
    expect(plain).not.toHaveProperty('localization');
    expect(plain.rightPriceScale).toEqual({ borderColor: colors.border });
    const formatter = (price: number) => `$${price}`;
    const looked = chartOptions(colors, { priceFormatter: formatter, scaleMargins: { top: 0.1, bottom: 0.2 } });
    expect(looked.localization).toEqual({ priceFormatter: formatter });
    expect(looked.rightPriceScale).toEqual({ borderColor: colors.border, scaleMargins: { top: 0.1, bottom: 0.2 } });
  });

  it('creates an autosized chart, recolours it when the theme switches, and stops following once removed', async () => {
    const container = document.createElement('div');
    const recolor = vi.fn();
    const mounted = mountThemedChart(container, {
      colors: accentColors,
      draw: (_chart, colors) => ({ first: colors.accent }),
      recolor,
    });
    expect(lwc.createChart).toHaveBeenCalledWith(
      container,
      expect.objectContaining({
        autoSize: true,
        layout: expect.objectContaining({ background: { type: 'solid', color: '#121821' } }),
      }),
    );
    expect(mounted.drawn).toEqual({ first: '#4c8dff' });

    switchTheme('light', { '--surface': '#fafafa', '--accent': '#0055cc' });
    await vi.waitFor(() => expect(recolor).toHaveBeenCalledTimes(1));
    expect(recolor).toHaveBeenCalledWith(
      { first: '#4c8dff' },
      expect.objectContaining({ background: '#fafafa', accent: '#0055cc' }),
    );
    expect(lwc.chart.applyOptions).toHaveBeenCalledWith(
      expect.objectContaining({ layout: expect.objectContaining({ background: { type: 'solid', color: '#fafafa' } }) }),
    );

    mounted.remove();
    expect(lwc.chart.remove).toHaveBeenCalledTimes(1);
    switchTheme('dark', { '--surface': '#121821' });
    await settled();
    expect(recolor).toHaveBeenCalledTimes(1);
  });
});
