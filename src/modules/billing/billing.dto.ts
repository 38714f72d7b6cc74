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
  @IsInt({ message: 'variant_id must be an integer.' })
  @Min(1, { message: 'variant_id must be an integer.' })
  variant_id?: number;

  /** `{mode, resumes_at?}` pauses; null unpauses. Checked in depth by the service. */
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  @IsObject({ message: 'pause must be an object with a mode, or null.' })
  pause?: Record<string, unknown> | null;

  @IsOptional()
  @IsBoolean({ message: 'cancelled must be a boolean.' })
  cancelled?: boolean;

  /** An ISO 8601 date-time; checked by the service. */
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  trial_ends_at?: unknown;

  /** 1–31, or 0/null to reset the anchor to today (ending any trial). */
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  @IsInt({
    message: 'billing_anchor must be an integer from 0 to 31, or null.',
  })
  @Min(0, {
    message: 'billing_anchor must be an integer from 0 to 31, or null.',
  })
  @Max(31, {
    message: 'billing_anchor must be an integer from 0 to 31, or null.',
  })
  billing_anchor?: number | null;

  @IsOptional()
  @IsBoolean({ message: 'invoice_immediately must be a boolean.' })
  invoice_immediately?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'disable_prorations must be a boolean.' })
  disable_prorations?: boolean;
}

/** PATCH /v1/subscription-items/:id (spec 4.7). */
export class SubscriptionItemUpdateAttributes {
  @IsInt({ message: 'quantity must be a positive integer.' })
  @Min(1, { message: 'quantity must be a positive integer.' })
  quantity: number;

  @IsOptional()
  @IsBoolean({ message: 'invoice_immediately must be a boolean.' })
  invoice_immediately?: boolean;

  @IsOptional()
  @IsBoolean({ message: 'disable_prorations must be a boolean.' })
  disable_prorations?: boolean;
}

/** POST /v1/usage-records (spec 4.8). */
export class UsageRecordAttributes {
  @IsInt({ message: 'quantity must be a positive integer.' })
  @Min(1, { message: 'quantity must be a positive integer.' })
  @Max(2147483647, { message: 'quantity is too large.' })
  quantity: number;

  @IsOptional()
  @IsIn(['increment', 'set'], { message: 'action must be increment or set.' })
  action?: 'increment' | 'set';
}

/** POST /v1/subscription-invoices/:id/refund: `amount` in cents, the full remainder when omitted. */
export class InvoiceRefundAttributes {
  @IsOptional()
  @IsInt({ message: 'amount must be a positive integer (cents).' })
  @Min(1, { message: 'amount must be a positive integer (cents).' })
  amount?: number;
}
