import type { OpenApiContribution } from '../http/openapi/openapi-contribution';
import { platformOpenApi } from '../http/openapi/platform.openapi';
import { userOpenApi } from '../modules/account/user.openapi';
import { billingOpenApi } from '../modules/billing/billing.openapi';
import { catalogOpenApi } from '../modules/catalog/catalog.openapi';
import { checkoutOpenApi } from '../modules/checkout/checkout.openapi';
import { customerOpenApi } from '../modules/customer/customer.openapi';
import { discountOpenApi } from '../modules/discount/discount.openapi';
import { invoiceOpenApi } from '../modules/invoice/invoice.openapi';
import { licensingOpenApi } from '../modules/licensing/licensing.openapi';
import { mailOpenApi } from '../modules/mail/mail.openapi';
import { orderOpenApi } from '../modules/order/order.openapi';
import { storeOpenApi } from '../modules/store/store.openapi';
import { stripeEventsOpenApi } from '../modules/stripe-events/stripe-events.openapi';
import { taxReportOpenApi } from '../modules/tax-reports/tax-report.openapi';
import { webhooksOpenApi } from '../modules/webhooks/webhooks.openapi';

/**
 * Each module's `*.openapi.ts`: attribute schemas and the operations the
 * JSON:API conventions do not describe. A new module is one more line here;
 * a registered resource type or a route left out fails the document build.
 */
export const OPENAPI_CONTRIBUTIONS: OpenApiContribution[] = [
  platformOpenApi,
  userOpenApi,
  storeOpenApi,
  catalogOpenApi,
  customerOpenApi,
  orderOpenApi,
  discountOpenApi,
  checkoutOpenApi,
  billingOpenApi,
  licensingOpenApi,
  invoiceOpenApi,
  webhooksOpenApi,
  mailOpenApi,
  stripeEventsOpenApi,
  taxReportOpenApi,
];
