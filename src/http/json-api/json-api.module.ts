import { Global, Module } from '@nestjs/common';
import { JsonApi } from './json-api.service';

/** The document builder every domain module registers its resource types with. */
@Global()
@Module({
  providers: [JsonApi],
  exports: [JsonApi],
})
export class JsonApiModule {}
