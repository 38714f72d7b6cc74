import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'zest:public';

/** A route that needs no API key (health, license API, hosted checkout). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
