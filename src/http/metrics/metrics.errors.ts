import { AppError } from '../../common/app-error';

/** METRICS_TOKEN is unset: the route does not exist. */
export function metricsDisabled() {
  return new AppError(404, {
    code: 'metrics_disabled',
    detail: 'Metrics are off; set METRICS_TOKEN to serve them.',
  });
}

export function metricsUnauthorized() {
  return new AppError(
    401,
    {
      code: 'metrics_token_invalid',
      detail: 'Send Authorization: Bearer <METRICS_TOKEN>.',
    },
    { 'WWW-Authenticate': 'Bearer realm="metrics"' },
  );
}
