// Currencies the platform knows: names, common nicknames and the country of their flag.
// Used by the web app (flags, names) and by the news module to recognise pairs in text.

export interface CurrencyInfo {
  /** ISO 4217 code. */
  code: string;
  name: string;
  /** Lower-case words traders and newswires use for the currency (matched as whole words). */
  nicknames: readonly string[];
  /** ISO 3166 alpha-2 code of the flag (EU for the euro). */
  country: string;
}

const c = (code: string, name: string, country: string, nicknames: string[] = []): CurrencyInfo => ({
  code,
  name,
  country,
  nicknames,
});

/** The eight currencies with a flag in the app come first; the rest serve pair recognition. */
export const CURRENCIES: readonly CurrencyInfo[] = [
  c('USD', 'US Dollar', 'US', ['dollar', 'us dollar', 'greenback', 'buck']),
  c('EUR', 'Euro', 'EU', ['euro', 'single currency']),
  c('GBP', 'British Pound', 'GB', ['pound', 'sterling', 'pound sterling', 'british pound', 'quid']),
  c('JPY', 'Japanese Yen', 'JP', ['yen', 'japanese yen']),
  c('CHF', 'Swiss Franc', 'CH', ['swiss franc', 'franc', 'swissie', 'swissy']),
  c('AUD', 'Australian Dollar', 'AU', ['australian dollar', 'aussie', 'aussie dollar']),
  c('CAD', 'Canadian Dollar', 'CA', ['canadian dollar', 'loonie', 'canadian']),
  c('NZD', 'New Zealand Dollar', 'NZ', ['new zealand dollar', 'kiwi', 'kiwi dollar']),
  c('CNY', 'Chinese Yuan', 'CN', ['yuan', 'renminbi', 'redback']),
  c('CNH', 'Chinese Yuan (Offshore)', 'CN', ['offshore yuan']),
  c('HKD', 'Hong Kong Dollar', 'HK', ['hong kong dollar']),
  c('SGD', 'Singapore Dollar', 'SG', ['singapore dollar', 'sing dollar']),
  c('SEK', 'Swedish Krona', 'SE', ['swedish krona', 'krona', 'stockie']),
  c('NOK', 'Norwegian Krone', 'NO', ['norwegian krone', 'nokkie']),
  c('DKK', 'Danish Krone', 'DK', ['danish krone']),
  c('PLN', 'Polish Zloty', 'PL', ['zloty']),
  c('CZK', 'Czech Koruna', 'CZ', ['koruna']),
  c('HUF', 'Hungarian Forint', 'HU', ['forint']),
  c('TRY', 'Turkish Lira', 'TR', ['turkish lira', 'lira']),
  c('ZAR', 'South African Rand', 'ZA', ['rand', 'south african rand']),
  c('MXN', 'Mexican Peso', 'MX', ['mexican peso', 'peso']),
  c('BRL', 'Brazilian Real', 'BR', ['brazilian real', 'real']),
  c('INR', 'Indian Rupee', 'IN', ['indian rupee', 'rupee']),
  c('KRW', 'South Korean Won', 'KR', ['won', 'korean won']),
  c('RUB', 'Russian Ruble', 'RU', ['ruble', 'rouble']),
  c('ILS', 'Israeli Shekel', 'IL', ['shekel']),
  c('THB', 'Thai Baht', 'TH', ['baht']),
  c('IDR', 'Indonesian Rupiah', 'ID', ['rupiah']),
  c('MYR', 'Malaysian Ringgit', 'MY', ['ringgit']),
  c('PHP', 'Philippine Peso', 'PH', ['philippine peso']),
  c('TWD', 'Taiwan Dollar', 'TW', ['taiwan dollar']),
  c('SAR', 'Saudi Riyal', 'SA', ['riyal']),
  c('AED', 'UAE Dirham', 'AE', ['dirham']),
  c('CLP', 'Chilean Peso', 'CL', ['chilean peso']),
  c('COP', 'Colombian Peso', 'CO', ['colombian peso']),
  c('ISK', 'Icelandic Krona', 'IS', ['icelandic krona']),
  c('RON', 'Romanian Leu', 'RO', ['leu']),
  c('XAU', 'Gold (troy ounce)', '', ['gold']),
  c('XAG', 'Silver (troy ounce)', '', ['silver']),
];

/** Currencies with a flag in the app (docs/screens.md#formatting). */
export const FLAG_CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'AUD', 'CAD', 'NZD'] as const;

/** Market nicknames of whole pairs (lower case): "cable" is GBP/USD, never the pound against anything else. */
export const PAIR_NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  EURUSD: ['fiber', 'fibre'],
  GBPUSD: ['cable'],
  USDJPY: ['gopher', 'ninja'],
  USDCHF: ['swissie', 'swissy'],
  AUDUSD: ['aussie'],
  USDCAD: ['loonie'],
  NZDUSD: ['kiwi'],
  EURGBP: ['chunnel'],
  EURJPY: ['yuppy'],
  GBPJPY: ['guppy', 'geppy'],
  EURCHF: ['swissy euro'],
  AUDJPY: ['aussie yen'],
};

const byCode = new Map(CURRENCIES.map((cur) => [cur.code, cur]));

/** The currency of an ISO code (case-insensitive), or undefined. */
export function currencyInfo(code: string): CurrencyInfo | undefined {
  return byCode.get(code.toUpperCase());
}

/** "Euro / US Dollar" for EURUSD; the symbol itself when a leg is unknown. */
export function pairName(symbol: string): string {
  const base = currencyInfo(symbol.slice(0, 3));
  const quote = currencyInfo(symbol.slice(3, 6));
  return base && quote ? `${base.name} / ${quote.name}` : symbol.toUpperCase();
}

/** The flag emoji of a currency (🇪🇺 for EUR), or an empty string when it has none. */
export function currencyFlag(code: string): string {
  const country = currencyInfo(code)?.country;
  if (country?.length !== 2) return '';
  return String.fromCodePoint(...[...country].map((ch) => 0x1f1e6 + ch.charCodeAt(0) - 65));
}
