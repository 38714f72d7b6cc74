import { Injectable, Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { AppError } from '../../common/app-error';
import { PaymentGateways } from '../payment/payment-gateways';
import type { StripePaymentGateway } from '../payment/stripe-payment-gateway';
import { calculationParams, fromCalculation } from './stripe-tax.mapping';
import type { CalculatedTax, TaxSale } from './tax-provider';
import { TaxErrors } from './tax.errors';

/**
 * How long a checkout waits for Stripe Tax before it answers 503 (the buyer
 * may retry): one attempt, no client retries, so a purchase never hangs.
 */
export const STRIPE_TAX_CHECKOUT_TIMEOUT_MS = 8_000;

/**
 * Stripe Tax through the store's own Stripe account (the payment module's
 * client): the calculation that prices a sale, and the tax transactions
 * and reversals that record it in Stripe's tax reports. Network calls:
 * never inside a database transaction.
 */
@Injectable()
export class StripeTaxService {
  private readonly logger = new Logger(StripeTaxService.name);

  constructor(private readonly gateways: PaymentGateways) {}

  /** The store's Stripe account of the mode; 422 when it has none. */
  async accountOf(
    storeId: number,
    testMode: boolean,
  ): Promise<StripePaymentGateway> {
    const gateway = await this.gateways.stripeOf(storeId, testMode);
    if (!gateway) throw TaxErrors.stripeTaxNeedsStripe(testMode);
    return gateway;
  }

  /**
   * Stripe Tax's calculation of a sale. An unreachable Stripe, a timeout,
   * Stripe's 5xx or a refused request is a 503 (`tax_service_unavailable`):
   * no tax is guessed. An address Stripe cannot place is a 422.
   */
  async calculate(sale: TaxSale): Promise<CalculatedTax> {
    const account = await this.accountOf(sale.storeId, sale.testMode);
    const params = calculationParams(sale);
    try {
      const calculation = await account.tax.calculations.create(params, {
        timeout: STRIPE_TAX_CHECKOUT_TIMEOUT_MS,
        maxNetworkRetries: 0,
      });
      return fromCalculation(sale, calculation);
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (
        error instanceof Stripe.errors.StripeInvalidRequestError &&
        error.code === 'customer_tax_location_invalid'
      )
        throw TaxErrors.taxLocationInvalid();
      this.logger.warn(
        `Stripe Tax calculation failed for store ${sale.storeId}: ${describe(error)}`,
      );
      throw TaxErrors.taxServiceUnavailable();
    }
  }

  /** Records a priced sale in Stripe Tax; `reference` is unique and the idempotency key. */
  async recordSale(
    storeId: number,
    testMode: boolean,
    calculationId: string,
    reference: string,
  ): Promise<string> {
    const account = await this.accountOf(storeId, testMode);
    const transaction = await account.tax.transactions.createFromCalculation(
      { calculation: calculationId, reference },
      { idempotencyKey: `zest-tax-${reference}` },
    );
    return transaction.id;
  }

  /**
   * Reverses a recorded sale: in full, or `amount` (with tax, in Stripe's
   * units of the currency, as a negative flat amount) for a partial refund.
   */
  async recordReversal(
    storeId: number,
    testMode: boolean,
    originalTransaction: string,
    reference: string,
    amount: number | null,
  ): Promise<string> {
    const account = await this.accountOf(storeId, testMode);
    const params: Stripe.Tax.TransactionCreateReversalParams =
      amount === null
        ? { mode: 'full', original_transaction: originalTransaction, reference }
        : {
            mode: 'partial',
            original_transaction: originalTransaction,
            reference,
            flat_amount: -amount,
          };
    const reversal = await account.tax.transactions.createReversal(params, {
      idempotencyKey: `zest-tax-${reference}`,
    });
    return reversal.id;
  }
}

/** An error's kind and message, without request data. */
export function describe(error: unknown): string {
  if (error instanceof Stripe.errors.StripeError)
    return `${error.type}${error.code ? ` (${error.code})` : ''}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
