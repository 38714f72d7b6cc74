import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerModule } from '../customer/customer.module';
import { PaymentModule } from '../payment/payment.module';
import { StoreModule } from '../store/store.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { OrderItemController } from './order-item.controller';
import { OrderItem } from './order-item.entity';
import { OrderItemSerializer } from './order-item.serializer';
import { registerResources } from '../../http/json-api/resource';
import { OrderSales } from './order-sales';
import { OrderController } from './order.controller';
import { Order } from './order.entity';
import { OrderDisputes } from './order-disputes';
import { OrderReceipts } from './order-receipts';
import { ReceiptExtras } from './receipt-extras';
import { OrderItemReader, OrderReader } from './order.reader';
import { OrderItemRepository } from './order-item.repository';
import { OrderRevenueRepository } from './order-revenue.repository';
import { OrderRepository } from './order.repository';
import { OrderSerializer } from './order.serializer';
import { OrderService } from './order.service';

/**
 * Orders, order items and refunds. Global: the checkout module's purchase
 * uses OrderService without importing this module.
 */
@Global()
@Module({
  imports: [
    TypeOrmModule.forFeature([Order, OrderItem]),
    CustomerModule,
    PaymentModule,
    StoreModule,
    WebhooksModule,
  ],
  controllers: [OrderController, OrderItemController],
  providers: [
    OrderRepository,
    OrderItemRepository,
    OrderRevenueRepository,
    OrderReceipts,
    ReceiptExtras,
    OrderService,
    OrderDisputes,
    OrderReader,
    OrderItemReader,
    OrderSerializer,
    OrderItemSerializer,
    OrderSales,
    registerResources(
      { type: 'orders', serializer: OrderSerializer, reader: OrderReader },
      {
        type: 'order-items',
        serializer: OrderItemSerializer,
        reader: OrderItemReader,
      },
    ),
  ],
  exports: [
    OrderService,
    OrderDisputes,
    OrderReader,
    OrderItemReader,
    OrderSerializer,
    ReceiptExtras,
  ],
})
export class OrderModule {}
