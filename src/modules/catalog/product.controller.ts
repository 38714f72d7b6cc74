import { catalogResourceController } from './catalog-resource.controller';
import { PRODUCT_CREATE, PRODUCT_UPDATE } from './catalog.dto';
import { ProductSerializer } from './product.serializer';
import { ProductService } from './product.service';

/** /v1/products: list, read, create in a store, update. */
export class ProductController extends catalogResourceController({
  path: 'v1/products',
  serializer: ProductSerializer,
  service: ProductService,
  parent: 'store',
  create: PRODUCT_CREATE,
  update: PRODUCT_UPDATE,
}) {}
