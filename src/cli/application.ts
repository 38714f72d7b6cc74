/** The application and the services the commands call (see runtime.ts). */
export { NestFactory } from '@nestjs/core';
export { CoreModule } from '../app/core.module';
export { seedDemo } from '../app/seed-demo';
export { ApiKeyService } from '../modules/account/api-key.service';
export { UserService } from '../modules/account/user.service';
export { RenewalService } from '../modules/billing/renewal.service';
export { PaymentAttempts } from '../modules/payment/payment-attempts';
export { StoreService } from '../modules/store/store.service';
