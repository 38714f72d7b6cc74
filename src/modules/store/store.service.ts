import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { Clock } from '../../common/clock';
import { Principal } from '../../http/auth/principal';
import { ListQuery } from '../../http/json-api/list-query';
import { Page } from '../../http/json-api/resource';
import { Store } from './store.entity';
import { StoreRepository } from './store.repository';
import {
  NO_SALES,
  STORE_SALES_SOURCE,
  StoreSales,
  StoreSalesSource,
  StoreView,
} from './store-sales';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const REGIONS = new Intl.DisplayNames(['en'], {
  type: 'region',
  fallback: 'none',
});

export interface NewStore {
  userId: number;
  name: string;
  slug?: string;
  domain?: string | null;
  currency?: string;
  country?: string;
}

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
}

export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && REGIONS.of(code) !== undefined;
}

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'store';
}

@Injectable()
export class StoreService {
  constructor(
    private readonly stores: StoreRepository,
    private readonly clock: Clock,
    // The order module supplies sales figures; without it no order can exist.
    @Optional()
    @Inject(STORE_SALES_SOURCE)
    private readonly sales: StoreSalesSource | null,
  ) {}

  async create(input: NewStore): Promise<Store> {
    const name = input.name.trim();
    if (!name) throw AppError.attribute('name', 'The name is required.');
    const currency = input.currency ?? 'USD';
    if (!isCurrencyCode(currency)) {
      throw AppError.attribute(
        'currency',
        'The currency must be an ISO 4217 code such as USD.',
      );
    }
    const country = input.country ?? 'US';
    if (!isCountryCode(country)) {
      throw AppError.attribute(
        'country',
        'The country must be an ISO 3166-1 alpha-2 code such as US.',
      );
    }
    let slug: string;
    if (input.slug !== undefined) {
      slug = input.slug;
      if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) || slug.length > 60) {
        throw AppError.attribute(
          'slug',
          'The slug may contain lowercase letters, digits and single dashes.',
        );
      }
      if (await this.stores.slugExists(slug))
        throw AppError.attribute('slug', 'The slug is already taken.');
    } else {
      slug = await this.freeSlug(slugify(name));
    }
    return this.stores.save(
      this.stores.create({
        userId: input.userId,
        name,
        slug,
        domain: input.domain ?? null,
        avatarUrl: null,
        plan: 'fresh',
        country,
        currency,
      }),
    );
  }

  async findOne(principal: Principal, id: number): Promise<StoreView | null> {
    const [store] = await this.findMany(principal, [id]);
    return store ?? null;
  }

  async findMany(principal: Principal, ids: number[]): Promise<StoreView[]> {
    return this.withSales(
      principal,
      await this.stores.findOwned(principal.userId, ids),
    );
  }

  async findPage(
    principal: Principal,
    query: ListQuery,
  ): Promise<Page<StoreView>> {
    const page = await this.stores.findPage(principal.userId, query);
    return {
      records: await this.withSales(principal, page.records),
      total: page.total,
    };
  }

  /** Stores of the user, for CLI and seeding. */
  findAllOwned(userId: number): Promise<Store[]> {
    return this.stores.findAllOwned(userId);
  }

  private async withSales(
    principal: Principal,
    stores: Store[],
  ): Promise<StoreView[]> {
    const figures: Map<number, StoreSales> = this.sales
      ? await this.sales.salesByStore(
          stores.map((s) => s.id),
          principal.testMode,
          this.clock.now(),
        )
      : new Map();
    // A plain view object is what the serializer reads; no entity methods are needed.
    return stores.map((store) => ({
      // oxlint-disable-next-line typescript/no-misused-spread
      ...store,
      sales: figures.get(store.id) ?? NO_SALES,
    }));
  }

  private async freeSlug(base: string): Promise<string> {
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!(await this.stores.slugExists(candidate))) return candidate;
    }
  }
}
