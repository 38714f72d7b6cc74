import { Injectable, OnModuleInit } from '@nestjs/common';
import { filterParsers } from '../../common/list-query';
import { JsonApi } from '../../http/json-api/json-api.service';
import { IntegerIdFinders, ResourceType } from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { SUBSCRIPTION_INVOICE_RENDERER } from './billing.renderers';
import { InvoiceView } from './billing-views';
import { SubscriptionInvoiceService } from './subscription-invoice.service';

@Injectable()
export class SubscriptionInvoiceSerializer
  extends IntegerIdFinders<InvoiceView>
  implements ResourceType<InvoiceView>, OnModuleInit
{
  readonly type = SUBSCRIPTION_INVOICE_RENDERER.type;
  readonly relationships = SUBSCRIPTION_INVOICE_RENDERER.relationships;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      status: filterParsers.oneOf('pending', 'paid', 'void', 'refunded'),
      refunded: filterParsers.boolean,
      subscription_id: filterParsers.id,
      customer_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-createdAt',
  };

  constructor(
    invoices: SubscriptionInvoiceService,
    private readonly jsonApi: JsonApi,
  ) {
    super(invoices);
  }

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: InvoiceView) {
    return SUBSCRIPTION_INVOICE_RENDERER.id(record);
  }

  attributes(record: InvoiceView) {
    return SUBSCRIPTION_INVOICE_RENDERER.attributes(record);
  }
}
