import { parseMailbox } from './mail-address';

describe('parseMailbox', () => {
  it('takes one address, bare or with a display name', () => {
    expect(parseMailbox('shop@example.com')).toEqual({
      name: '',
      address: 'shop@example.com',
    });
    expect(parseMailbox('"Ann\'s Shop, Ltd" <ann@shop.example>')).toEqual({
      name: "Ann's Shop, Ltd",
      address: 'ann@shop.example',
    });
  });

  it('refuses several addresses, groups, header injection and non-addresses', () => {
    for (const value of [
      'a@example.com, b@example.com',
      'Team: a@example.com;',
      'shop@example.com\r\nBcc: x@example.com',
      'no address',
      'Name <not-an-address>',
      '',
    ])
      expect(parseMailbox(value)).toBeNull();
  });
});
