import { AccountsAndStores1763700000000 } from './1763700000000-accounts-and-stores';
import { Licensing1763950000000 } from './1763950000000-licensing';

/** Every migration, oldest first. A new migration is one more line here. */
export const migrations = [
  AccountsAndStores1763700000000,
  Licensing1763950000000,
];
