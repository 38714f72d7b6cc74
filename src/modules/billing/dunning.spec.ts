import { parseDurationList } from '../../common/durations';
import { DEFAULT_DUNNING_SCHEDULE } from '../../config/environment';
import { nextRetryAt, renewalChargeKey } from './dunning';

describe('dunning schedule', () => {
  const start = new Date('2027-03-10T12:00:00Z');
  const schedule = parseDurationList(DEFAULT_DUNNING_SCHEDULE);

  it('retries 3 times over 7 days by default, from the renewal date', () => {
    expect(schedule).toEqual([86_400_000, 3 * 86_400_000, 7 * 86_400_000]);
    expect(nextRetryAt(start, 1, schedule)?.toISOString()).toBe(
      '2027-03-11T12:00:00.000Z',
    );
    expect(nextRetryAt(start, 2, schedule)?.toISOString()).toBe(
      '2027-03-13T12:00:00.000Z',
    );
    expect(nextRetryAt(start, 3, schedule)?.toISOString()).toBe(
      '2027-03-17T12:00:00.000Z',
    );
    expect(nextRetryAt(start, 4, schedule)).toBeNull();
  });

  it('has no retry with an empty schedule', () => {
    expect(nextRetryAt(start, 1, [])).toBeNull();
  });

  it('keys each charge of a renewal apart, and a replay alike', () => {
    expect(renewalChargeKey(7, start, 0)).toBe(renewalChargeKey(7, start, 0));
    expect(renewalChargeKey(7, start, 1)).not.toBe(
      renewalChargeKey(7, start, 0),
    );
  });
});
