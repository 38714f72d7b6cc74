import { DynamicModule, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { Clock } from '../common/clock';
import { SignedUrls } from '../common/signed-urls.service';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseConnection } from '../database/database-connection';
import { dataSourceOptions } from '../database/data-source-options';
import { usePreparedStatements } from '../database/pool-query';
import { Transactions } from '../database/transactions';
import { HealthModule } from '../http/health/health.module';
import { JsonApiModule } from '../http/json-api/json-api.module';
import { RateLimitModule } from '../http/rate-limit/rate-limit.module';
import { AccountModule } from '../modules/account/account.module';
import { BillingModule } from '../modules/billing/billing.module';
import { CatalogModule } from '../modules/catalog/catalog.module';
import { CheckoutModule } from '../modules/checkout/checkout.module';
import { StripeTaxModule } from '../modules/tax/stripe-tax.module';
import { CurrencyModule } from '../modules/currency/currency.module';
import { CustomerModule } from '../modules/customer/customer.module';
import { DiscountModule } from '../modules/discount/discount.module';
import { DeliveryModule } from '../modules/delivery/delivery.module';
import { InvoiceModule } from '../modules/invoice/invoice.module';
import { OrderModule } from '../modules/order/order.module';
import { StoreModule } from '../modules/store/store.module';
import { StripeEventsModule } from '../modules/stripe-events/stripe-events.module';
import { TaxReportsModule } from '../modules/tax-reports/tax-reports.module';
import { LicensingModule } from '../modules/licensing/licensing.module';
import { MailModule } from '../modules/mail/mail.module';
import { WebhooksModule } from '../modules/webhooks/webhooks.module';
import { MetricsModule } from '../metrics/metrics.module';
import { QueueModule } from '../queue/queue.module';
import { loggerParams } from './logging';

/** The domain modules. A new domain is one more line here. */
const DOMAIN_MODULES = [
  AccountModule,
  CurrencyModule,
  StoreModule,
  CatalogModule,
  CustomerModule,
  WebhooksModule,
  OrderModule,
  DiscountModule,
  CheckoutModule,
  LicensingModule,
  BillingModule,
  InvoiceModule,
  DeliveryModule,
  MailModule,
  StripeEventsModule,
  TaxReportsModule,
  StripeTaxModule,
];

/** Whether hot reads keep their statements prepared (see `poolQuery`). */
const PREPARED_STATEMENTS = Symbol('PREPARED_STATEMENTS');

/** What runs in every process: config, logging, database, queues and the domain modules. */
@Module({})
export class CoreModule {
  static forRoot(
    config: AppConfig,
    database: DatabaseConnection,
  ): DynamicModule {
    return {
      module: CoreModule,
      global: true,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config)),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(database.url, config.database.poolSize),
          autoLoadEntities: true,
        }),
        QueueModule.forRoot(config, database),
        JsonApiModule,
        HealthModule,
        MetricsModule,
        RateLimitModule,
        ...DOMAIN_MODULES,
      ],
      providers: [
        Clock,
        Transactions,
        SignedUrls,
        {
          // Set up once the data source exists, before any request or job.
          provide: PREPARED_STATEMENTS,
          inject: [getDataSourceToken()],
          useFactory: (dataSource: DataSource) => {
            const enabled = config.database.preparedStatements;
            if (enabled) usePreparedStatements(dataSource);
            return enabled;
          },
        },
      ],
      exports: [Clock, Transactions, SignedUrls, HealthModule],
    };
  }
}
