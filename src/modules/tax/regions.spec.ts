import { buyerRegion } from './regions';

describe('buyerRegion', () => {
  it.each([
    ['US', null, '94103', 'CA'], // San Francisco
    ['US', null, '78701', 'TX'], // Austin
    ['US', null, '73301', 'TX'], // Austin IRS prefix 733
    ['US', null, '10001-1234', 'NY'],
    ['US', null, '98101', 'WA'],
    ['US', null, '20001', 'DC'],
    ['US', null, '00901', null], // Puerto Rico: not a state
    ['US', 'tx', '94103', 'TX'], // the given state wins
    ['US', 'XX', '94103', 'CA'], // an unknown state is ignored
    ['US', null, 'abc', null],
    ['CA', null, 'M5V 3L9', 'ON'], // Toronto
    ['CA', null, 'H2X 1Y4', 'QC'], // Montréal
    ['CA', null, 'V6B 1A1', 'BC'], // Vancouver
    ['CA', null, 'X0A 0H0', 'NU'], // Iqaluit
    ['CA', null, 'X1A 2P7', 'NT'], // Yellowknife
    ['CA', 'ab', 'M5V 3L9', 'AB'],
    ['CA', null, '12345', null],
    ['DE', 'BY', '80331', null], // regions matter only in the US and Canada
  ])('%s %s %s → %s', (country, state, postcode, expected) => {
    expect(buyerRegion(country, state, postcode)).toBe(expected);
  });
});
