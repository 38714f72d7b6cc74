import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { FilterValue, ListQuery, Page } from '../../common/list-query';
import { Transactions } from '../../database/transactions';
import { VariantAttributes, VariantUpdateAttributes } from './catalog.dto';
import { CatalogScope } from './catalog-scope';
import { Price } from './price.entity';
import { ProductRepository } from './product.repository';
import { Variant } from './variant.entity';
import { VariantRepository } from './variant.repository';
import { CatalogErrors } from './catalog.errors';
import {
  checkQuantityLimits,
  DEFAULT_MAX_QUANTITY,
  DEFAULT_MIN_QUANTITY,
  quantityLimitsOf,
} from './quantity-limits';

/** A variant with its current price, which its deprecated price attributes come from. */
export type VariantView = Variant & { price: Price | null };

const NOT_NULL = [
  'name',
  'description',
  'status',
  'sort',
  'has_license_keys',
  'license_activation_limit',
  'is_license_limit_unlimited',
  'license_length_value',
  'license_length_unit',
  'is_license_length_unlimited',
  'links',
  'min_quantity',
  'max_quantity',
] as const;

@Injectable()
export class VariantService {
  constructor(
    private readonly variants: VariantRepository,
    private readonly products: ProductRepository,
    private readonly transactions: Transactions,
  ) {}

  /**
   * POST /v1/variants. The product's row lock serializes variant changes of
   * one product, so concurrent creates get distinct default sort positions.
   * A product's pending default variant stays pending: once the product has
   * other variants it is hidden at checkout (spec 2.4).
   */
  async create(
    scope: CatalogScope,
    productId: number | null,
    attributes: VariantAttributes,
  ): Promise<VariantView> {
    const input = checkNulls(attributes);
    if (!input.name?.trim()) throw CatalogErrors.attributeRequired('name');
    const variant = await this.transactions.run(async (manager) => {
      const product =
        productId === null
          ? null
          : await this.products.lockInScope(manager, scope, productId);
      if (!product) throw CatalogErrors.productNotFound();
      const siblings = await this.variants.ofProduct(manager, product.id);
      const uuid = randomUUID();
      const variant = this.variants.create({
        uuid,
        storeId: product.storeId,
        productId: product.id,
        testMode: product.testMode,
        slug: uuid,
        description: '',
        links: [],
        hasLicenseKeys: false,
        licenseActivationLimit: 5,
        isLicenseLimitUnlimited: false,
        licenseLengthValue: 1,
        licenseLengthUnit: 'years',
        isLicenseLengthUnlimited: true,
        sort: Math.max(-1, ...siblings.map((v) => v.sort)) + 1,
        status: 'published',
        currentPriceId: null,
        downloadLimit: null,
        minQuantity: DEFAULT_MIN_QUANTITY,
        maxQuantity: DEFAULT_MAX_QUANTITY,
      });
      apply(variant, input);
      checkQuantityLimits(quantityLimitsOf(variant));
      return this.variants.save(manager, variant);
    });
    return (await this.views([variant]))[0];
  }

  async update(
    scope: CatalogScope,
    id: number,
    changes: VariantUpdateAttributes,
  ): Promise<VariantView> {
    const input = checkNulls(changes);
    if (input.name !== undefined && !input.name.trim())
      throw CatalogErrors.attributeRequired(
        'name',
        'The name cannot be empty.',
      );
    const variant = await this.transactions.run(async (manager) => {
      const [found] = await this.variants.findInScope(scope, [id], manager);
      if (!found) throw AppError.notFound();
      await this.products.lockInScope(manager, scope, found.productId);
      const siblings = await this.variants.ofProduct(manager, found.productId);
      const variant = siblings.find((v) => v.id === id)!;
      if (
        input.status !== undefined &&
        input.status !== variant.status &&
        siblings.length === 1
      ) {
        throw CatalogErrors.defaultVariantStaysPending();
      }
      apply(variant, input);
      checkQuantityLimits(quantityLimitsOf(variant));
      return this.variants.save(manager, variant);
    });
    return (await this.views([variant]))[0];
  }

  async findOne(scope: CatalogScope, id: number): Promise<VariantView | null> {
    return (await this.findMany(scope, [id]))[0] ?? null;
  }

  async findMany(scope: CatalogScope, ids: number[]): Promise<VariantView[]> {
    return this.views(await this.variants.findInScope(scope, ids));
  }

  async findPage(
    scope: CatalogScope,
    query: ListQuery,
  ): Promise<Page<VariantView>> {
    const page = await this.variants.findPage(scope, query);
    return { records: await this.views(page.records), total: page.total };
  }

  async findByFilter(
    scope: CatalogScope,
    filter: string,
    values: FilterValue[],
  ): Promise<VariantView[]> {
    if (filter !== 'product_id' && filter !== 'status')
      throw new Error(`variants cannot be listed by ${filter}`);
    return this.views(await this.variants.findByFilter(scope, filter, values));
  }

  async views(variants: Variant[]): Promise<VariantView[]> {
    const prices = await this.variants.prices(
      variants
        .map((v) => v.currentPriceId)
        .filter((id): id is number => id !== null),
    );
    return variants.map((variant) => ({
      // oxlint-disable-next-line typescript/no-misused-spread
      ...variant,
      price:
        variant.currentPriceId === null
          ? null
          : (prices.get(variant.currentPriceId) ?? null),
    }));
  }
}

/** PATCH semantics: an attribute sent as null is refused, not stored. */
function checkNulls<T extends VariantUpdateAttributes>(input: T): T {
  for (const name of NOT_NULL) {
    if (input[name] === null) throw CatalogErrors.attributeNotNullable(name);
  }
  return input;
}

function apply(variant: Variant, input: VariantUpdateAttributes) {
  if (input.name !== undefined) variant.name = input.name.trim();
  if (input.description !== undefined) variant.description = input.description;
  if (input.status !== undefined) variant.status = input.status;
  if (input.sort !== undefined) variant.sort = input.sort;
  if (input.has_license_keys !== undefined)
    variant.hasLicenseKeys = input.has_license_keys;
  if (input.license_activation_limit !== undefined)
    variant.licenseActivationLimit = input.license_activation_limit;
  if (input.is_license_limit_unlimited !== undefined)
    variant.isLicenseLimitUnlimited = input.is_license_limit_unlimited;
  if (input.license_length_value !== undefined)
    variant.licenseLengthValue = input.license_length_value;
  if (input.license_length_unit !== undefined)
    variant.licenseLengthUnit = input.license_length_unit;
  if (input.is_license_length_unlimited !== undefined)
    variant.isLicenseLengthUnlimited = input.is_license_length_unlimited;
  if (input.download_limit !== undefined)
    variant.downloadLimit = input.download_limit;
  if (input.min_quantity !== undefined)
    variant.minQuantity = input.min_quantity;
  if (input.max_quantity !== undefined)
    variant.maxQuantity = input.max_quantity;
  if (input.links !== undefined)
    variant.links = input.links.map(({ title, url }) => ({ title, url }));
}
