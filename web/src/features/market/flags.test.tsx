import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CurrencyFlag, hasFlag, PairFlags } from './flags';

describe('flags (docs/screens.md#formatting)', () => {
  it.each(['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'AUD', 'CAD', 'NZD'])('draws %s as an inline SVG, no image request', (code) => {
    expect(hasFlag(code)).toBe(true);
    const { container } = render(<CurrencyFlag code={code.toLowerCase()} />);
    const flag = container.querySelector('.flag');
    expect(flag?.querySelector('svg')).not.toBeNull();
    expect(flag?.querySelector('svg')?.children.length).toBeGreaterThan(0);
    expect(container.querySelector('img')).toBeNull();
    expect(flag).not.toHaveClass('flag--fallback');
    expect(flag).toHaveAttribute('aria-hidden', 'true');
  });

  it('shows a neutral badge with the code for a currency without a flag', () => {
    expect(hasFlag('SEK')).toBe(false);
    const { container } = render(<CurrencyFlag code="sek" />);
    const flag = container.querySelector('.flag');
    expect(flag).toHaveClass('flag--fallback');
    expect(flag).toHaveTextContent('SEK');
    expect(flag?.querySelector('svg')).toBeNull();
  });

  it('names the currency when asked to be announced', () => {
    const { getByRole } = render(
      <>
        <CurrencyFlag code="JPY" labelled />
        <CurrencyFlag code="XYZ" labelled />
      </>,
    );
    expect(getByRole('img', { name: 'Japanese Yen' })).toBeInTheDocument();
    expect(getByRole('img', { name: 'XYZ' })).toBeInTheDocument();
  });

  it('PairFlags shows the base flag then the quote flag', () => {
    const { container } = render(<PairFlags symbol="eurjpy" />);
    expect([...container.querySelectorAll('.flag')].map((f) => f.getAttribute('data-currency'))).toEqual(['EUR', 'JPY']);
  });
});
