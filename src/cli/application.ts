/** The application and the services the commands call (see runtime.ts). */
export { NestFactory } from '@nestjs/core';
export { CoreModule } from '../app/core.module';
export { seedDemo } from '../app/seed-demo';
export { ApiKeyService } from '../modules/account/api-key.service';
export { UserService } from '../modules/account/user.service';
export { RenewalService } from '../modules/billing/renewal.service';
export { PaymentAttempts } from '../modules/payment/payment-attempts';
export { StoreService } from '../modules/store/store.service';
export { JsonApi } from '../http/json-api/json-api.service';
export { parseWriteDocument } from '../http/json-api/write-document';
export { PRODUCT_CREATE, VARIANT_CREATE } from '../modules/catalog/catalog.dto';
export { ProductService } from '../modules/catalog/product.service';
export { VariantService } from '../modules/catalog/variant.service';
export { RefundAttributes } from '../modules/order/order.dto';
export { OrderService } from '../modules/order/order.service';
export { WebhookDeliveryService } from '../modules/webhooks/webhook-delivery.service';
export { Clock } from '../common/clock';
export { APP_CONFIG } from '../config/config.module';
export {
  ECB_DAILY_RATES_URL,
  EcbRateSource,
} from '../modules/currency/ecb-rate-source';
export { ExchangeRateRefresh } from '../modules/currency/exchange-rate-refresh.service';
export { ExchangeRateRepository } from '../modules/currency/exchange-rate.repository';
export { TaxReportService } from '../modules/tax-reports/tax-report.service';
export { TaxReportSerializer } from '../modules/tax-reports/tax-report.serializer';
