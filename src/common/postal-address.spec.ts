import { formatPostalAddress } from './postal-address';

describe('formatPostalAddress', () => {
  it.each([
    [
      'DE',
      { lines: ['Unter den Linden 77'], city: 'Berlin', postcode: '10117' },
      ['Unter den Linden 77', '10117 Berlin', 'Germany'],
    ],
    [
      'FR',
      { lines: ['5 rue de Rivoli'], city: 'Paris', postcode: '75001' },
      ['5 rue de Rivoli', '75001 Paris', 'France'],
    ],
    [
      'GB',
      { lines: ['10 Downing Street'], city: 'London', postcode: 'SW1A 2AA' },
      ['10 Downing Street', 'London', 'SW1A 2AA', 'United Kingdom'],
    ],
    [
      'US',
      {
        lines: ['1355 Market Street', 'Suite 900'],
        city: 'San Francisco',
        state: 'CA',
        postcode: '94103',
      },
      [
        '1355 Market Street',
        'Suite 900',
        'San Francisco, CA 94103',
        'United States',
      ],
    ],
    [
      'CA',
      {
        lines: ['111 Wellington St'],
        city: 'Ottawa',
        state: 'ON',
        postcode: 'K1A 0A9',
      },
      ['111 Wellington St', 'Ottawa, ON K1A 0A9', 'Canada'],
    ],
    [
      'JP',
      {
        lines: ['1-1 Chiyoda'],
        city: 'Chiyoda-ku',
        state: 'Tokyo',
        postcode: '100-8111',
      },
      ['1-1 Chiyoda', 'Chiyoda-ku, Tokyo 100-8111', 'Japan'],
    ],
    [
      'AU',
      {
        lines: ['200 George St'],
        city: 'Sydney',
        state: 'NSW',
        postcode: '2000',
      },
      ['200 George St', 'Sydney NSW 2000', 'Australia'],
    ],
  ])(
    'prints a %s address as the country writes it',
    (country, parts, expected) => {
      expect(formatPostalAddress({ ...parts, country })).toEqual(expected);
    },
  );

  it('leaves out what is missing and the country when asked', () => {
    expect(
      formatPostalAddress({ postcode: '10117', country: 'DE' }, false),
    ).toEqual(['10117']);
    expect(formatPostalAddress({ country: 'de' })).toEqual(['Germany']);
  });
});
