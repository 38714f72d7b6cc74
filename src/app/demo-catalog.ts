import { INestApplicationContext } from '@nestjs/common';
import { CatalogScope } from '../modules/catalog/catalog-scope';
import { PriceInput } from '../modules/catalog/price-rules';
import { FileReader } from '../modules/catalog/file.reader';
import { FileService } from '../modules/catalog/file.service';
import { PriceService } from '../modules/catalog/price.service';
import { ProductService } from '../modules/catalog/product.service';
import {
  VariantAttributes,
  VariantUpdateAttributes,
} from '../modules/catalog/catalog.dto';
import { VariantService } from '../modules/catalog/variant.service';

interface DemoVariant {
  /** null: the product's default variant. */
  attributes: VariantAttributes | null;
  price: PriceInput;
  /** License-key settings, applied to the variant once. */
  license?: VariantUpdateAttributes;
  file?: { name: string; version: string; content: string };
}

interface DemoProduct {
  slug: string;
  name: string;
  description: string;
  variants: DemoVariant[];
}

/** One product of each kind the API sells: one-time with license keys, subscription, usage-based. */
const DEMO_PRODUCTS: DemoProduct[] = [
  {
    slug: 'desktop-app',
    name: 'Zest Desktop App',
    description:
      '<p>A one-time purchase with a license key for up to three devices.</p>',
    variants: [
      {
        attributes: null,
        price: { category: 'one_time', unit_price: 4900 },
        license: {
          has_license_keys: true,
          license_activation_limit: 3,
          is_license_length_unlimited: true,
        },
        file: {
          name: 'zest-desktop-1.0.0.zip',
          version: '1.0.0',
          content: 'Zest Desktop App 1.0.0 (demo download)\n',
        },
      },
    ],
  },
  {
    slug: 'cloud',
    name: 'Zest Cloud',
    description: '<p>A subscription, billed monthly or yearly.</p>',
    variants: [
      {
        attributes: { name: 'Monthly', status: 'published', sort: 1 },
        price: {
          category: 'subscription',
          unit_price: 1200,
          renewal_interval_unit: 'month',
          renewal_interval_quantity: 1,
          trial_interval_unit: 'day',
          trial_interval_quantity: 14,
          tax_code: 'saas',
        },
      },
      {
        attributes: { name: 'Yearly', status: 'published', sort: 2 },
        price: {
          category: 'subscription',
          unit_price: 12000,
          renewal_interval_unit: 'year',
          renewal_interval_quantity: 1,
          tax_code: 'saas',
        },
      },
    ],
  },
  {
    slug: 'api-usage',
    name: 'Zest API',
    description: '<p>Usage-based: billed monthly for the requests made.</p>',
    variants: [
      {
        attributes: null,
        price: {
          category: 'subscription',
          scheme: 'standard',
          unit_price: 2,
          renewal_interval_unit: 'month',
          renewal_interval_quantity: 1,
          usage_aggregation: 'sum',
          tax_code: 'saas',
        },
      },
    ],
  },
];

/**
 * The demo store's catalog, made through the same services as the API. Each
 * step looks for what an earlier run made first, so a second run (or a run
 * after an interrupted one) creates only what is missing.
 */
export async function seedDemoCatalog(
  app: INestApplicationContext,
  userId: number,
  storeId: number,
): Promise<{ productIds: number[]; created: number }> {
  const scope: CatalogScope & { userId: number } = { userId, testMode: true };
  const products = app.get(ProductService);
  const variants = app.get(VariantService);
  const prices = app.get(PriceService);
  const files = app.get(FileService);
  let created = 0;
  const productIds: number[] = [];
  for (const demo of DEMO_PRODUCTS) {
    let product = await products.findBySlug(scope, storeId, demo.slug);
    if (!product) {
      product = await products.create(scope, storeId, {
        name: demo.name,
        slug: demo.slug,
        description: demo.description,
        status: 'published',
      });
      created++;
    }
    productIds.push(product.id);
    const existing = await variants.findByFilter(scope, 'product_id', [
      product.id,
    ]);
    for (const item of demo.variants) {
      let variant = item.attributes
        ? existing.find((v) => v.name === item.attributes!.name)
        : existing.find((v) => v.status === 'pending');
      if (!variant) {
        variant = await variants.create(scope, product.id, item.attributes!);
        created++;
      }
      if (item.license && !variant.hasLicenseKeys) {
        variant = await variants.update(scope, variant.id, item.license);
      }
      if (variant.currentPriceId === null) {
        await prices.create(scope, variant.id, item.price);
        created++;
      }
      if (
        item.file &&
        (
          await app
            .get(FileReader)
            .findByFilter(scope, 'variant_id', [variant.id])
        ).length === 0
      ) {
        await files.attach(scope, variant.id, {
          name: item.file.name,
          version: item.file.version,
          contentType: 'application/zip',
          content: Buffer.from(item.file.content),
        });
        created++;
      }
    }
  }
  return { productIds, created };
}
