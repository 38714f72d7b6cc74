import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';

/** PATCH /v1/subscriptions/:id (reference section 6). */
export class SubscriptionUpdateAttributes {
  @IsOptional()
  @IsInt()
  @Min(1)
  variant_id?: number;

  /** `{mode, resumes_at?}` pauses; null unpauses. Checked in depth by the service. */
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  @IsObject()
  pause?: Record<string, unknown> | null;

  @IsOptional()
  @IsBoolean()
  cancelled?: boolean;

  /** An ISO 8601 date-time; checked by the service. */
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  trial_ends_at?: unknown;

  /** 1–31, or 0/null to reset the anchor to today (ending any trial). */
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(31)
  billing_anchor?: number | null;

  @IsOptional()
  @IsBoolean()
  invoice_immediately?: boolean;

  @IsOptional()
  @IsBoolean()
  disable_prorations?: boolean;
}

/** PATCH /v1/subscription-items/:id (spec 4.7). */
export class SubscriptionItemUpdateAttributes {
  @IsInt()
  @Min(1)
  quantity: number;

  @IsOptional()
  @IsBoolean()
  invoice_immediately?: boolean;

  @IsOptional()
  @IsBoolean()
  disable_prorations?: boolean;
}

/** POST /v1/usage-records (spec 4.8). */
export class UsageRecordAttributes {
  @IsInt()
  @Min(1)
  @Max(2147483647)
  quantity: number;

  @IsOptional()
  @IsIn(['increment', 'set'])
  action?: 'increment' | 'set';
}

/** POST /v1/subscription-invoices/:id/refund: `amount` in cents, the full remainder when omitted. */
export class InvoiceRefundAttributes {
  @IsOptional()
  @IsInt({ message: 'amount must be a positive integer (cents).' })
  @Min(1, { message: 'amount must be a positive integer (cents).' })
  amount?: number;
}
