import { minorDigits } from '../../common/money';
/**
 * Text helpers for PDFs drawn with the standard fonts, whose encoding is
 * WinAnsi (Windows-1252): Western European text only. Anything else is
 * transliterated where Unicode decomposition allows (ő → o, Ș → S) and
 * shown as "?" otherwise. An embedded Unicode font (INVOICE_FONT) avoids
 * this entirely.
 */

const WIN_ANSI_EXTRA = new Set(
  '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ'.split('').map((c) => c.codePointAt(0)),
);

const SUBSTITUTES: Record<string, string> = {
  '\u202f': '\u00a0',
  '\u2009': ' ',
  '\u2212': '-',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ħ: 'h',
  Ħ: 'H',
  ı: 'i',
  ŀ: 'l',
  Ŀ: 'L',
  ŋ: 'n',
  Ŋ: 'N',
  ſ: 's',
  ŧ: 't',
  Ŧ: 'T',
};

function isWinAnsi(codePoint: number): boolean {
  return (
    codePoint === 0x0a ||
    (codePoint >= 0x20 && codePoint <= 0x7e) ||
    (codePoint >= 0xa0 && codePoint <= 0xff) ||
    WIN_ANSI_EXTRA.has(codePoint)
  );
}

export function isWinAnsiText(text: string): boolean {
  for (const char of text) {
    if (!isWinAnsi(char.codePointAt(0)!)) return false;
  }
  return true;
}

export function toWinAnsi(text: string): string {
  let out = '';
  for (const char of text.normalize('NFC')) {
    if (isWinAnsi(char.codePointAt(0)!)) {
      out += char;
      continue;
    }
    if (SUBSTITUTES[char] !== undefined) {
      out += SUBSTITUTES[char];
      continue;
    }
    const base = char.normalize('NFKD').replace(/\p{M}/gu, '');
    out += base !== '' && isWinAnsiText(base) ? base : '?';
  }
  return out;
}

/**
 * Formats integer minor units. With `winAnsiOnly`, a symbol the standard
 * fonts cannot draw (₹, ₩, ₺…) gives way to the ISO code ("INR 1,200.00").
 */
export function formatMoney(
  minor: number,
  currency: string,
  locale: string,
  winAnsiOnly: boolean,
): string {
  const amount = minor / 10 ** minorDigits(currency);
  const symbol = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
  }).format(amount);
  if (!winAnsiOnly || isWinAnsiText(toWinAnsiSpaces(symbol))) return symbol;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    currencyDisplay: 'code',
  }).format(amount);
}

function toWinAnsiSpaces(text: string): string {
  return text.replace(/[\u202f\u2009]/g, ' ').replace(/\u2212/g, '-');
}
