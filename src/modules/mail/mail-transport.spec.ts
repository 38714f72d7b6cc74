import { outcomeOfError } from './mail-transport';

describe('outcomeOfError', () => {
  it('fails a 5xx reply for good, keeping the reply on one line', () => {
    expect(
      outcomeOfError({
        code: 'EENVELOPE',
        responseCode: 550,
        response: '550 5.1.1 <x@example.com>:\r\n Recipient address rejected',
      }),
    ).toEqual({
      status: 'failed',
      reply: '550 5.1.1 <x@example.com>: Recipient address rejected',
    });
    expect(
      outcomeOfError({ responseCode: 554, response: '554 no' }).status,
    ).toBe('failed');
  });

  it('retries 4xx replies, connection failures and authentication failures', () => {
    expect(
      outcomeOfError({ responseCode: 451, response: '451 try later' }).status,
    ).toBe('retry');
    expect(
      outcomeOfError({ code: 'ECONNECTION', message: 'connect ECONNREFUSED' }),
    ).toEqual({ status: 'retry', reply: 'connect ECONNREFUSED' });
    expect(
      outcomeOfError({ code: 'EAUTH', responseCode: 535, response: '535 bad' })
        .status,
    ).toBe('retry');
  });
});
