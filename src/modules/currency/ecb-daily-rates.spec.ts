import { ecbEnvelope } from '../../../test/support/ecb-stand-in';
import { parseEcbDailyRates } from './ecb-daily-rates';
import { MalformedRates } from './rate-source';

/** eurofxref-daily.xml around these cubes (the stand-in's envelope), test figures. */
function document(cubes: string, time = '2026-11-20'): string {
  return ecbEnvelope(time, cubes);
}

const quotes = `\t\t\t<Cube currency='USD' rate='1.25'/>
\t\t\t<Cube currency='JPY' rate='200'/>
\t\t\t<Cube currency="GBP" rate="0.8"/>`;

describe('parseEcbDailyRates', () => {
  it('turns euro-based quotes into USD per unit, EUR included', () => {
    expect(parseEcbDailyRates(document(quotes))).toEqual({
      date: '2026-11-20',
      source: 'European Central Bank euro reference rates',
      usdPerUnit: { EUR: 1.25, JPY: 0.00625, GBP: 1.5625 },
    });
  });

  it('rounds to the 10 decimal places an order keeps', () => {
    const day = parseEcbDailyRates(
      document(
        `<Cube currency='USD' rate='1.1'/><Cube currency='HUF' rate='390.3'/>`,
      ),
    );
    expect(day.usdPerUnit.HUF).toBe(0.0028183449);
  });

  it.each([
    ['a truncated document', document(quotes).slice(0, -40)],
    ['no day', document(quotes).replace(" time='2026-11-20'", '')],
    ['an impossible day', document(quotes, '2026-02-30')],
    ['two days', document(`${quotes}</Cube><Cube time='2026-11-19'>`)],
    ['no USD quote', document(`<Cube currency='JPY' rate='200'/>`)],
    ['a zero rate', document(`${quotes}<Cube currency='CHF' rate='0'/>`)],
    ['a negative rate', document(`${quotes}<Cube currency='CHF' rate='-1'/>`)],
    ['a rate in words', document(`${quotes}<Cube currency='CHF' rate='one'/>`)],
    ['an exponent', document(`${quotes}<Cube currency='CHF' rate='1e3'/>`)],
    [
      'a repeated currency',
      document(`${quotes}<Cube currency='JPY' rate='201'/>`),
    ],
    [
      'a quote of the euro itself',
      document(`${quotes}<Cube currency='EUR' rate='1'/>`),
    ],
    ['a bad code', document(`${quotes}<Cube currency='usd2' rate='1'/>`)],
    ['a quote without a currency', document(`${quotes}<Cube rate='1'/>`)],
    ['HTML', '<html><body>Service Unavailable</body></html>'],
    ['an empty body', ''],
  ])('refuses %s', (_, xml) => {
    expect(() => parseEcbDailyRates(xml)).toThrow(MalformedRates);
  });
});
