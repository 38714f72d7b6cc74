import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class RefundAttributes {
  /** Cents; the whole remainder when omitted. */
  @IsOptional()
  @IsInt({ message: 'The amount must be an integer number of cents.' })
  @Min(1, { message: 'The amount must be positive.' })
  @Max(2147483647, { message: 'The amount is too large.' })
  amount?: number;
}
