import { Injectable, OnModuleInit } from '@nestjs/common';
import { Principal } from '../../http/auth/principal';
import { JsonApi } from '../../http/json-api/json-api.service';
import {
  FilterValue,
  filterParsers,
  ListQuery,
} from '../../http/json-api/list-query';
import {
  Page,
  parseIntegerId,
  ResourceType,
} from '../../http/json-api/resource';
import { CREATED_UPDATED_SORTS } from './billing-list';
import { SUBSCRIPTION_INVOICE_RENDERER } from './billing.renderers';
import { InvoiceView } from './billing-views';
import { SubscriptionInvoiceService } from './subscription-invoice.service';

@Injectable()
export class SubscriptionInvoiceSerializer
  implements ResourceType<InvoiceView>, OnModuleInit
{
  readonly type = SUBSCRIPTION_INVOICE_RENDERER.type;
  readonly relationships = SUBSCRIPTION_INVOICE_RENDERER.relationships;
  readonly list = {
    filters: {
      store_id: filterParsers.id,
      status: filterParsers.oneOf(
        'pending',
        'paid',
        'void',
        'refunded',
        'partial_refund',
      ),
      refunded: filterParsers.boolean,
      subscription_id: filterParsers.id,
      customer_id: filterParsers.id,
    },
    sorts: CREATED_UPDATED_SORTS,
    defaultSort: '-createdAt',
  };

  constructor(
    private readonly invoices: SubscriptionInvoiceService,
    private readonly jsonApi: JsonApi,
  ) {}

  onModuleInit() {
    this.jsonApi.register(this);
  }

  id(record: InvoiceView) {
    return SUBSCRIPTION_INVOICE_RENDERER.id(record);
  }

  attributes(record: InvoiceView) {
    return SUBSCRIPTION_INVOICE_RENDERER.attributes(record);
  }

  async findOne(principal: Principal, id: string) {
    const invoiceId = parseIntegerId(id);
    if (invoiceId === null) return null;
    const [invoice] = await this.invoices.findMany(principal, [invoiceId]);
    return invoice ?? null;
  }

  findMany(principal: Principal, ids: string[]) {
    return this.invoices.findMany(
      principal,
      ids.map(parseIntegerId).filter((id) => id !== null),
    );
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<InvoiceView>> {
    return this.invoices.findPage(principal, query);
  }

  findByFilter(principal: Principal, filter: string, values: FilterValue[]) {
    return this.invoices.findByFilter(principal, filter, values);
  }
}
