import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { poolQuery } from '../../database/pool-query';

/** A subscription as a notice shows it when it is sent. */
export interface NoticeSubscription {
  id: number;
  customerId: number;
  status: string;
  productName: string;
  variantName: string;
  renewsAt: Date;
}

/** A buyer's customer record in one store and mode. */
export interface SignInCustomer {
  id: number;
  storeId: number;
  testMode: boolean;
  email: string;
}

/** How long before a trial ends its reminder goes out. */
export const TRIAL_REMINDER_DAYS = 3;

/**
 * The records the mail module reads or sweeps across stores: the worker's
 * renderers and trial-ending sweep (acting for every store), and the
 * portal's sign-in (the address the buyer typed is the only key).
 */
@Injectable()
export class MailRecordsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async subscription(id: number): Promise<NoticeSubscription | null> {
    const rows = await poolQuery<NoticeSubscription>(
      this.dataSource,
      `SELECT id, customer_id AS "customerId", status,
              product_name AS "productName", variant_name AS "variantName",
              renews_at AS "renewsAt"
         FROM subscriptions WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Every customer record with this address, in every store and mode. */
  customersByEmail(email: string): Promise<SignInCustomer[]> {
    return poolQuery<SignInCustomer>(
      this.dataSource,
      `SELECT id, store_id AS "storeId", test_mode AS "testMode", email
         FROM customers WHERE lower(email) = lower($1)
        ORDER BY id LIMIT 50`,
      [email],
    );
  }

  /**
   * Writes the "trial ends soon" notice of every subscription on trial
   * whose trial ends within TRIAL_REMINDER_DAYS of `now`, once per
   * subscription and trial end (a moved trial end is a new cause), unless
   * its store switched the kind off. One statement: sweeps that overlap
   * write each notice once (the unique `cause_key`).
   */
  async recordTrialEndings(now: Date): Promise<number> {
    const rows = await poolQuery<{ id: number }>(
      this.dataSource,
      `INSERT INTO mail_messages
         (store_id, customer_id, test_mode, kind, cause_key, record_id, data,
          to_address, next_attempt_at, created_at, updated_at)
       SELECT s.store_id, s.customer_id, s.test_mode, 'subscription_trial_ending',
              'subscription_trial_ending:' || s.id || ':' ||
                (extract(epoch FROM s.trial_ends_at) * 1000)::bigint,
              s.id,
              jsonb_build_object('trialEndsAt', s.trial_ends_at,
                'product', s.product_name, 'variant', s.variant_name),
              s.user_email, now(), now(), now()
         FROM subscriptions s JOIN stores st ON st.id = s.store_id
        WHERE s.status = 'on_trial'
          AND s.trial_ends_at > $1
          AND s.trial_ends_at <= $1 + $2 * interval '1 day'
          AND NOT ('subscription_trial_ending' = ANY (st.mail_disabled_kinds))
       ON CONFLICT (cause_key) DO NOTHING
       RETURNING id`,
      [now, TRIAL_REMINDER_DAYS],
    );
    return rows.length;
  }
}
