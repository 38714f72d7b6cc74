import { AppError } from '../../common/app-error';
import {
  canTransition,
  SUBSCRIPTION_STATUSES,
  SubscriptionStatus,
  transition,
} from './subscription.state';

describe('transition', () => {
  it('sets every status the table allows', () => {
    for (const from of SUBSCRIPTION_STATUSES) {
      for (const to of SUBSCRIPTION_STATUSES) {
        if (!canTransition(from, to)) continue;
        const record = { status: from as SubscriptionStatus };
        transition(record, to);
        expect(record.status).toBe(to);
      }
    }
  });

  it('refuses a move the table forbids and leaves the record as it was', () => {
    const record = { status: 'expired' as SubscriptionStatus };
    expect(() => transition(record, 'active')).toThrow(AppError);
    expect(record.status).toBe('expired');
  });

  it('puts a subscription on a trial only through the table', () => {
    expect(() => transition({ status: 'past_due' }, 'on_trial')).toThrow(
      'A subscription cannot go from past_due to on_trial.',
    );
    const active = { status: 'active' as SubscriptionStatus };
    transition(active, 'on_trial');
    expect(active.status).toBe('on_trial');
  });

  it('points the error at the attribute that asked for the move', () => {
    try {
      transition({ status: 'unpaid' }, 'on_trial', 'trial_ends_at');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(422);
      expect((error as AppError).errors).toEqual([
        expect.objectContaining({
          field: 'trial_ends_at',
          code: 'subscription_transition_not_allowed',
        }),
      ]);
    }
  });
});
