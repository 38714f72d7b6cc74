import { Global, Module } from '@nestjs/common';
import { RESOURCE_OBJECTS } from '../../common/resource-objects';
import { JsonApi } from './json-api.service';

/**
 * The document builder every domain module registers its resource types
 * with; also the webhook outbox's renderer of payloads (RESOURCE_OBJECTS).
 */
@Global()
@Module({
  providers: [JsonApi, { provide: RESOURCE_OBJECTS, useExisting: JsonApi }],
  exports: [JsonApi, RESOURCE_OBJECTS],
})
export class JsonApiModule {}
