// `@Type(() => X)` of nested bodies lives in class-transformer's metadata
// storage, which the package exposes only through this untyped CommonJS path.
declare module 'class-transformer/cjs/storage.js' {
  import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';
  export const defaultMetadataStorage: MetadataStorage;
}
