/** What the seed made, written to a JSON file that the other bench processes read. */
export interface BenchState {
  userId: number;
  storeId: number;
  /** Test-mode key for every throughput row (its limit raised through config). */
  apiKey: string;
  /** A second key for the row with the real rate limit. */
  limitedApiKey: string;
  productIds: number[];
  variantUuids: string[];
  licenseVariantUuid: string;
  usageVariantUuid: string;
  /** The usage-based subscription items the usage-record row posts to. */
  subscriptionItemIds: number[];
  licenseKeys: string[];
  /** A random sample of the store's orders, for the single-order growth row. */
  orderIds: number[];
}

/** The test gateway's succeeding card. */
export const GOOD_CARD = '4242424242424242';
