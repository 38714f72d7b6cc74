import { Command, required } from '../command';
import {
  application,
  ownerOf,
  storeOwner,
  readDocument,
  rendered,
  MODE_OPTION,
  mode,
} from './shared';

/** Products and variants. */
export const CATALOG_COMMANDS: Record<string, Command> = {
  'products:create': {
    description:
      'Create a product from a JSON:API document file (the body of POST /v1/products), with the same checks.',
    options: {
      file: {
        type: 'string',
        value: '<path>',
        required: true,
        description:
          'A JSON file: {"data": {"type": "products", "attributes": {…}, "relationships": {"store": {"data": {"type": "stores", "id": "1"}}}}}.',
      },
      mode: MODE_OPTION,
    },
    example: 'products:create --file catalog/ebook.json',
    async run(values, { app, query, progress }) {
      const { parseWriteDocument, PRODUCT_CREATE, ProductService } =
        await application();
      const testMode = mode(values);
      const document = parseWriteDocument(
        readDocument(required(values, 'file')),
        PRODUCT_CREATE,
      );
      const storeId = document.relationships.store as string;
      const principal = {
        ...(await storeOwner(query, Number(storeId))),
        testMode,
      };
      const context = await app();
      progress('Creating the product…');
      const product = await context
        .get(ProductService)
        .create(principal, Number(storeId), document.attributes);
      return rendered(context, 'products', product);
    },
  },
  'variants:create': {
    description:
      "Create a variant of a product from a JSON:API document file (the body of POST /v1/variants), in the product's mode.",
    options: {
      file: {
        type: 'string',
        value: '<path>',
        required: true,
        description:
          'A JSON file: {"data": {"type": "variants", "attributes": {…}, "relationships": {"product": {"data": {"type": "products", "id": "1"}}}}}.',
      },
    },
    example: 'variants:create --file catalog/ebook-deluxe.json',
    async run(values, { app, query, progress }) {
      const { parseWriteDocument, VARIANT_CREATE, VariantService } =
        await application();
      const document = parseWriteDocument(
        readDocument(required(values, 'file')),
        VARIANT_CREATE,
      );
      const productId = document.relationships.product as string;
      const principal = await ownerOf(
        query,
        'product',
        `SELECT s.user_id, p.test_mode FROM products p
           JOIN stores s ON s.id = p.store_id WHERE p.id = $1`,
        productId,
      );
      const context = await app();
      progress('Creating the variant…');
      const variant = await context
        .get(VariantService)
        .create(principal, Number(productId), document.attributes);
      return rendered(context, 'variants', variant);
    },
  },
};
