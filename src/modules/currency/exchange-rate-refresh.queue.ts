/** The exchange-rate refresh's queue; a job scheduler adds one job per interval. */
export const EXCHANGE_RATE_REFRESH_QUEUE = 'exchange-rates';
export const EXCHANGE_RATE_REFRESH_SCHEDULER = 'exchange-rate-refresh';
