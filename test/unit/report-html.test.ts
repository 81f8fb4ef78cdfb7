/** The report page's escaping of stored text (issue 19.10): markup inert, hidden characters visible. */
import { describe, expect, it } from 'vitest';
import { escapeHtml, wrappable } from '../../lambda/report/html.ts';

describe('escapeHtml', () => {
  it.each([
    { text: '<b>"x" & \'y\'</b>', want: '&#60;b&#62;&#34;x&#34; &#38; &#39;y&#39;&#60;/b&#62;' },
    { text: 'mitig\u202Eating', want: 'mitig&#60;U+202E&#62;ating' },
    {
      text: 'a\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061Cb',
      want: 'a&#60;U+202A&#62;&#60;U+202B&#62;&#60;U+202C&#62;&#60;U+202D&#62;&#60;U+2066&#62;&#60;U+2067&#62;&#60;U+2068&#62;&#60;U+2069&#62;&#60;U+200E&#62;&#60;U+200F&#62;&#60;U+061C&#62;b',
    },
    { text: 'x\u0085\u2028\u001by', want: 'x&#60;U+0085&#62;&#60;U+2028&#62;&#60;U+001B&#62;y' },
    { text: 'caf\u00e9 \u6771\u4eac', want: 'caf\u00e9 \u6771\u4eac' },
  ])('escapeHtml($text)', ({ text, want }) => {
    expect(escapeHtml(text)).toBe(want);
    expect(escapeHtml(text)).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u0085\u2028]/);
  });
});

describe('wrappable: long names may wrap only between their parts (issue 26.1)', () => {
  it.each([
    { text: 'edge-1', want: '<span class="nw">edge-1</span>' },
    {
      text: 'incident flood/edge-1/2026-11-24T05:26:36.956Z; a=b',
      want: 'incident flood/<wbr><span class="nw">edge-1/</span><wbr><span class="nw">2026-11-24T05:26:36.956Z;</span> a=<wbr>b',
    },
    { text: '"a" -> <b>', want: '&#34;a&#34; <span class="nw">-&#62;</span> &#60;b&#62;' },
    { text: 'filter.status_changed', want: 'filter.status_changed' },
  ])('wrappable($text)', ({ text, want }) => {
    expect(wrappable(text)).toBe(want);
  });
});
