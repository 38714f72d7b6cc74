import { Global, Module } from '@nestjs/common';
import { JsonApi } from './json-api.service';
import { PlainErrorRoutes } from './plain-error-routes';

/** The document builder every domain module registers its resource types with. */
@Global()
@Module({
  providers: [JsonApi, PlainErrorRoutes],
  exports: [JsonApi, PlainErrorRoutes],
})
export class JsonApiModule {}
