import { catalogResourceController } from './catalog-resource.controller';
import { VARIANT_CREATE, VARIANT_UPDATE } from './catalog.dto';
import { VariantSerializer } from './variant.serializer';
import { VariantService } from './variant.service';

/** /v1/variants: list, read, create under a product, update. */
export class VariantController extends catalogResourceController({
  path: 'v1/variants',
  serializer: VariantSerializer,
  service: VariantService,
  parent: 'product',
  create: VARIANT_CREATE,
  update: VARIANT_UPDATE,
}) {}
