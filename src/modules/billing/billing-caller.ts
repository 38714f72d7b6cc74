import { Principal } from '../../common/principal';

/**
 * The customer acting on a subscription through its signed portal link (the
 * route has checked the signature, which only this server can produce): no
 * API key, no store scope, and the portal's own limits on what may change.
 */
export const PORTAL_CALLER = { portal: true } as const;
export type PortalCaller = typeof PORTAL_CALLER;

/** Who changes a subscription: an API key's principal or the portal. */
export type BillingCaller = Principal | PortalCaller;

export const isPortalCaller = (caller: BillingCaller): caller is PortalCaller =>
  'portal' in caller;
