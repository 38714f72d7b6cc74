import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Principal } from '../../common/principal';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { StoreService } from '../store/store.service';
import {
  CreateWebhookAttributes,
  UpdateWebhookAttributes,
} from './webhook.dto';
import { Webhook } from './webhook.entity';
import { WebhookRepository } from './webhook.repository';
import { SecretBox } from './webhook-secret';
import { checkWebhookUrl, WebhookUrlRefused } from './webhook-url';
import { WebhookErrors } from './webhook.errors';

@Injectable()
export class WebhookService {
  readonly secrets: SecretBox;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly stores: StoreService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.secrets = new SecretBox(config.appKey);
  }

  async create(
    principal: Principal,
    storeId: string,
    attributes: CreateWebhookAttributes,
  ): Promise<Webhook> {
    if (
      attributes.test_mode !== undefined &&
      attributes.test_mode !== principal.testMode
    ) {
      throw WebhookErrors.testModeMismatch(
        `A ${principal.testMode ? 'test' : 'live'}-mode API key creates ${principal.testMode ? 'test' : 'live'}-mode webhooks.`,
      );
    }
    const store = /^\d{1,10}$/.test(storeId)
      ? await this.stores.findOne(principal, Number(storeId))
      : null;
    if (!store) throw WebhookErrors.storeNotFound();
    const url = this.checkUrl(attributes.url, principal.testMode);
    const id = await this.webhooks.insert({
      storeId: store.id,
      url,
      events: attributes.events,
      secretEncrypted: this.secrets.seal(attributes.secret),
      testMode: principal.testMode,
    });
    return this.mustFind(principal, id);
  }

  async update(
    principal: Principal,
    id: number,
    attributes: UpdateWebhookAttributes,
  ): Promise<Webhook> {
    const webhook = await this.findOne(principal, id);
    if (!webhook) throw AppError.notFound();
    const changes: Parameters<WebhookRepository['update']>[1] = {};
    if (attributes.url !== undefined)
      changes.url = this.checkUrl(attributes.url, webhook.testMode);
    if (attributes.events !== undefined) changes.events = attributes.events;
    if (attributes.secret !== undefined)
      changes.secretEncrypted = this.secrets.seal(attributes.secret);
    if (Object.keys(changes).length > 0)
      await this.webhooks.update(id, changes);
    return this.mustFind(principal, id);
  }

  async delete(principal: Principal, id: number): Promise<void> {
    const webhook = await this.findOne(principal, id);
    if (!webhook) throw AppError.notFound();
    // Its deliveries and their attempts go with it (ON DELETE CASCADE).
    await this.webhooks.delete(id);
  }

  async findOne(principal: Principal, id: number): Promise<Webhook | null> {
    const [webhook] = await this.webhooks.findVisible(principal, [id]);
    return webhook ?? null;
  }

  findMany(principal: Principal, ids: number[]): Promise<Webhook[]> {
    return this.webhooks.findVisible(principal, ids);
  }

  findPage(principal: Principal, query: ListQuery): Promise<Page<Webhook>> {
    return this.webhooks.findPage(principal, query);
  }

  findByStores(principal: Principal, storeIds: FilterValue[]) {
    return this.webhooks.findByStores(principal, storeIds);
  }

  /** Syntax, scheme and literal addresses; names are checked again when a delivery connects. */
  private checkUrl(raw: string, testMode: boolean): string {
    try {
      checkWebhookUrl(raw, {
        requireHttps: !testMode,
        allowPrivate: this.config.webhooks.allowPrivate,
      });
      return raw;
    } catch (error) {
      if (error instanceof WebhookUrlRefused)
        throw WebhookErrors.urlRefused(error.message);
      throw error;
    }
  }

  private async mustFind(principal: Principal, id: number): Promise<Webhook> {
    const webhook = await this.findOne(principal, id);
    if (!webhook) throw AppError.notFound();
    return webhook;
  }
}
