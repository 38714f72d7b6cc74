import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerActivity } from './customer-activity';
import { Customer } from './customer.entity';
import { CustomerRepository } from './customer.repository';
import { CustomerService } from './customer.service';

/** Customers; the order, billing and licensing modules register activity sources here. */
@Module({
  imports: [TypeOrmModule.forFeature([Customer])],
  providers: [CustomerRepository, CustomerService, CustomerActivity],
  exports: [CustomerService, CustomerActivity],
})
export class CustomerModule {}
