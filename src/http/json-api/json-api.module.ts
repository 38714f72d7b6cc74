import { Global, Module } from '@nestjs/common';
import { RESOURCE_OBJECTS } from '../../common/resource-objects';
import { JsonApi } from './json-api.service';
import { RelationshipDocuments } from './relationship-documents';

/**
 * The document builder every domain module registers its resource types
 * with; also the webhook outbox's renderer of payloads (RESOURCE_OBJECTS).
 */
@Global()
@Module({
  providers: [
    JsonApi,
    RelationshipDocuments,
    { provide: RESOURCE_OBJECTS, useExisting: JsonApi },
  ],
  exports: [JsonApi, RelationshipDocuments, RESOURCE_OBJECTS],
})
export class JsonApiModule {}
