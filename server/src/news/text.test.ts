import { describe, expect, it } from 'vitest';
import { decodeEntities, firstImageIn, htmlToText, parseFeedDate, safeHttpUrl, truncate, urlKey } from './text.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('feed dates', () => {
  it.each([
    ['Mon, 05 Jan 2026 12:00:00 GMT', '2026-01-05T12:00:00.000Z'],
    ['Mon, 05 Jan 2026 12:00:00 +0000', '2026-01-05T12:00:00.000Z'],
    ['Mon, 05 Jan 2026 13:30:00 +0130', '2026-01-05T12:00:00.000Z'],
    ['Mon, 5 Jan 2026 07:00 EST', '2026-01-05T12:00:00.000Z'],
    ['Mon, 05 Jan 2026 04:00:00 PST', '2026-01-05T12:00:00.000Z'],
    ['05 Jan 2026 14:00:00 CEST', '2026-01-05T12:00:00.000Z'],
    ['5 January 26 12:00:00 UT', '2026-01-05T12:00:00.000Z'],
    ['Monday, 05-Jan-2026 12:00:00 Z', '2026-01-05T12:00:00.000Z'],
    ['Mon, 05 Jan 2026 12:00:00', '2026-01-05T12:00:00.000Z'],
    ['Mon, 05 Jan 2026 12:00:00 XYZ', '2026-01-05T12:00:00.000Z'],
    ['Mon, 05 Jan 2026 12:00:00 -0000 (UTC)', '2026-01-05T12:00:00.000Z'],
    ['Tue, 05 Jan 2026 12:00:00 GMT', '2026-01-05T12:00:00.000Z'], // wrong weekday: the date wins
    ['05 Sept 2026 12:00:00 GMT', '2026-09-05T12:00:00.000Z'],
    ['5 Jan 2026', '2026-01-05T00:00:00.000Z'],
    ['2026-01-05T12:00:00Z', '2026-01-05T12:00:00.000Z'],
    ['2026-01-05T13:00:00+01:00', '2026-01-05T12:00:00.000Z'],
    ['2026-01-05T07:00:00-0500', '2026-01-05T12:00:00.000Z'],
    ['2026-01-05T12:00:00.250Z', '2026-01-05T12:00:00.250Z'],
    ['2026-01-05 12:00:00', '2026-01-05T12:00:00.000Z'],
    ['2026-01-05', '2026-01-05T00:00:00.000Z'],
    ['January 5, 2026 12:00 GMT', '2026-01-05T12:00:00.000Z'],
    ['Jan 5, 2026 7:00 PM EST', '2026-01-06T00:00:00.000Z'],
  ])('reads %s', (raw, expected) => {
    expect(iso(parseFeedDate(raw))).toBe(expected);
  });

  it.each([undefined, '', '   ', 'yesterday', 'Not a date at all', '32 Foo 2026 12:00 GMT', '2026-13-45T99:99:00Z'])(
    'gives up on %s',
    (raw) => {
      expect(parseFeedDate(raw)).toBeUndefined();
    },
  );
});

describe('HTML to plain text', () => {
  it('drops tags, scripts, styles and comments, decodes entities and collapses whitespace', () => {
    expect(
      htmlToText(
        '<p>The <b>euro</b>&nbsp;rose &mdash; &quot;fast&quot; &amp; far.</p><script>alert(1)</script><style>p{}</style><!-- x --><br/>Next&#8230; &#x2014; &eacute;',
      ),
    ).toBe('The euro rose — "fast" & far. Next… — é');
  });

  it('keeps escaped markup visible as text instead of turning it into tags', () => {
    expect(htmlToText('Use &lt;b&gt; for bold')).toBe('Use <b> for bold');
    expect(htmlToText('EUR < 1.10 and > 1.05')).toBe('EUR < 1.10 and > 1.05');
  });

  it('unwraps CDATA and leaves unknown entities alone', () => {
    expect(htmlToText('<![CDATA[<i>Yen</i> &bogus; slides]]>')).toBe('Yen &bogus; slides');
  });

  it('decodes every HTML5 entity name with its case: capitals with accents, symbols, arrows', () => {
    expect(htmlToText('&Aacute;lvaro N&uacute;&ntilde;ez, &Ntilde;u&ntilde;oa &hearts; &rarr; &euro;5')).toBe(
      'Álvaro Núñez, Ñuñoa ♥ → €5',
    );
    expect(decodeEntities('&Aacute; &Ntilde; &hearts; &rarr; &#8364; &#x20AC; &bogus; &amp')).toBe('Á Ñ ♥ → € € &bogus; &amp');
  });

  it('reads a > inside a quoted attribute as part of the tag, not as its end', () => {
    expect(htmlToText('Before <img alt="1 > 0" src="a.png"> after')).toBe('Before after');
    expect(htmlToText('See <a title="x>y" href="/a">the story</a> now')).toBe('See the story now');
    expect(htmlToText("<p data-x='a>b'>One</p><p>Two</p>")).toBe('One Two');
  });

  it('keeps the text after a self-closed embed and drops what scripts and templates hold', () => {
    expect(htmlToText('<iframe src="https://v.example/e" /> Rates <noscript>enable JS</noscript>held')).toBe('Rates held');
    expect(htmlToText('a<!-- gone -->b<template><p>hidden</p></template>')).toBe('a b');
  });

  it('takes the first image source even when an attribute before it holds a >', () => {
    expect(firstImageIn('<p><img alt="EUR > USD" src="https://img.example/a.jpg?w=1&amp;h=2"><img src="b.jpg"></p>')).toBe(
      'https://img.example/a.jpg?w=1&h=2',
    );
    expect(firstImageIn('<!-- <img src="no.jpg"> --><img data-src="lazy.jpg">')).toBeUndefined();
  });

  it('truncates at a word boundary with an ellipsis', () => {
    expect(truncate('The quick brown fox jumps over the lazy dog', 20)).toBe('The quick brown fox…');
    expect(truncate('short', 20)).toBe('short');
  });
});

describe('article URLs', () => {
  it('keeps only absolute http(s) URLs, resolving relative ones against the feed', () => {
    expect(safeHttpUrl('https://a.example/x')).toBe('https://a.example/x');
    expect(safeHttpUrl('/news/1', 'https://feed.example/rss')).toBe('https://feed.example/news/1');
    expect(safeHttpUrl('javascript:alert(1)')).toBeUndefined();
    expect(safeHttpUrl('JavaScript:alert(1)', 'https://feed.example/')).toBeUndefined();
    expect(safeHttpUrl('data:text/html,hi')).toBeUndefined();
    expect(safeHttpUrl('mailto:a@b.c')).toBeUndefined();
    expect(safeHttpUrl('ftp://files.example/x')).toBeUndefined();
    expect(safeHttpUrl('not a url')).toBeUndefined();
    expect(safeHttpUrl('')).toBeUndefined();
  });

  it('treats copies of one story with tracking parameters as the same URL', () => {
    expect(urlKey('https://www.fx.example/a/?utm_source=rss&id=1')).toBe(urlKey('http://fx.example/a?id=1'));
    expect(urlKey('https://fx.example/a?id=1')).not.toBe(urlKey('https://fx.example/a?id=2'));
  });
});
