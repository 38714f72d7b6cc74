import { AccountsAndStores1763700000000 } from './1763700000000-accounts-and-stores';
import { IdempotencyKeys1763750000000 } from './1763750000000-idempotency-keys';
import { Catalog1763800000000 } from './1763800000000-catalog';
import { Customers1763810000000 } from './1763810000000-customers';
import { OrdersAndCheckouts1763850000000 } from './1763850000000-orders-and-checkouts';
import { Webhooks1763900000000 } from './1763900000000-webhooks';
import { Licensing1763950000000 } from './1763950000000-licensing';
import { Billing1763960000000 } from './1763960000000-billing';
import { SubscriptionInvoiceLines1763970000000 } from './1763970000000-subscription-invoice-lines';
import { OrderNumbering1763980000000 } from './1763980000000-order-numbering';
import { WebhookDueIndex1763990000000 } from './1763990000000-webhook-due-index';
import { ExchangeRates1764000000000 } from './1764000000000-exchange-rates';
import { EmailFilterIndexes1764050000000 } from './1764050000000-email-filter-indexes';
import { RefundStatus1764100000000 } from './1764100000000-refund-status';
import { SubscriptionInvoiceCustomerIndex1764110000000 } from './1764110000000-subscription-invoice-customer-index';
import { InvoiceBillTo1764150000000 } from './1764150000000-invoice-bill-to';
import { PaymentAttempts1795632993398 } from './1795632993398-payment-attempts';
import { Mail1795633103041 } from './1795633103041-mail';
import { FileStorage1795633475731 } from './1795633475731-file-storage';
import { StripeCredentials1795634084914 } from './1795634084914-stripe-credentials';
import { StripeEvents1795637000000 } from './1795637000000-stripe-events';
import { InvoiceDunning1795640000000 } from './1795640000000-invoice-dunning';
import { TaxEvidence1795640050000 } from './1795640050000-tax-evidence';
import { CustomerEmailIndex1795640100000 } from './1795640100000-customer-email-index';
import { UsageRecordClientIds1795640200000 } from './1795640200000-usage-record-client-ids';
import { StripeCheckout1795650000000 } from './1795650000000-stripe-checkout';
import { StripeTax1795660000000 } from './1795660000000-stripe-tax';
import { TaxReportIndexes1795671000000 } from './1795671000000-tax-report-indexes';
import { VariantQuantityLimits1795672000000 } from './1795672000000-variant-quantity-limits';
import { CustomerBillingAddress1795672100000 } from './1795672100000-customer-billing-address';
import { SellerInvoices1795680000000 } from './1795680000000-seller-invoices';
import { SubscriptionCustomPrice1795684100000 } from './1795684100000-subscription-custom-price';
import { StripeTaxInvoices1795690000000 } from './1795690000000-stripe-tax-invoices';

/** Every migration, oldest first. A new migration is one more line here. */
export const migrations = [
  AccountsAndStores1763700000000,
  IdempotencyKeys1763750000000,
  Catalog1763800000000,
  Customers1763810000000,
  OrdersAndCheckouts1763850000000,
  Webhooks1763900000000,
  Licensing1763950000000,
  Billing1763960000000,
  SubscriptionInvoiceLines1763970000000,
  OrderNumbering1763980000000,
  WebhookDueIndex1763990000000,
  ExchangeRates1764000000000,
  EmailFilterIndexes1764050000000,
  RefundStatus1764100000000,
  SubscriptionInvoiceCustomerIndex1764110000000,
  InvoiceBillTo1764150000000,
  PaymentAttempts1795632993398,
  Mail1795633103041,
  FileStorage1795633475731,
  StripeCredentials1795634084914,
  StripeEvents1795637000000,
  InvoiceDunning1795640000000,
  TaxEvidence1795640050000,
  CustomerEmailIndex1795640100000,
  UsageRecordClientIds1795640200000,
  StripeCheckout1795650000000,
  StripeTax1795660000000,
  TaxReportIndexes1795671000000,
  VariantQuantityLimits1795672000000,
  CustomerBillingAddress1795672100000,
  SellerInvoices1795680000000,
  SubscriptionCustomPrice1795684100000,
  StripeTaxInvoices1795690000000,
];
