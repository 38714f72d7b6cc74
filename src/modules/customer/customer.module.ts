import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerActivity } from './customer-activity';
import { CustomerPortalController } from './customer-portal.controller';
import { CustomerController } from './customer.controller';
import { Customer } from './customer.entity';
import { CustomerRepository } from './customer.repository';
import { CustomerSerializer } from './customer.serializer';
import { CustomerService } from './customer.service';
import { registerResources } from '../../http/json-api/resource';

/** Customers; the order, billing and licensing modules register activity sources here. */
@Module({
  imports: [TypeOrmModule.forFeature([Customer])],
  controllers: [CustomerController, CustomerPortalController],
  providers: [
    CustomerRepository,
    CustomerService,
    CustomerSerializer,
    CustomerActivity,
    registerResources({
      type: 'customers',
      serializer: CustomerSerializer,
      reader: CustomerService,
    }),
  ],
  exports: [CustomerService, CustomerActivity],
})
export class CustomerModule {}
