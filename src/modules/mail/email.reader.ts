import { Injectable } from '@nestjs/common';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import { Reader } from '../../common/reader';
import { MailMessage } from './mail-message.entity';
import { MailMessageRepository } from './mail-message.repository';

/** How `emails` are found (registered in MailModule): the mail outbox, read only. */
@Injectable()
export class EmailReader implements Reader<MailMessage> {
  constructor(private readonly messages: MailMessageRepository) {}

  findMany(principal: Principal, ids: number[]): Promise<MailMessage[]> {
    return this.messages.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<MailMessage>> {
    return this.messages.findPage(principal, query);
  }

  findByFilter(
    principal: Principal,
    filter: string,
    values: FilterValue[],
  ): Promise<MailMessage[]> {
    if (filter !== 'store_id' && filter !== 'customer_id')
      throw new Error(`emails cannot be listed by ${filter}`);
    return this.messages.findVisibleBy(principal, filter, values);
  }
}
