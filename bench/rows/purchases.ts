import type { ChildProcess } from 'node:child_process';
import type { LoadSpec } from '../load';
import { load } from '../harness/measure';
import { DURATION, PORTS } from '../harness/options';
import { addRow } from '../harness/table';
import { GOOD_CARD, type BenchState } from '../state';

/**
 * JSON purchases (the hosted checkout's machine path) rotating over the
 * variants' buy links and 1,000 buyers, 16 connections.
 */
export function purchaseSpec(port: number, uuids: string[]): LoadSpec {
  return {
    url: `http://127.0.0.1:${port}`,
    connections: 16,
    durationSeconds: DURATION,
    request: {
      method: 'POST',
      paths: uuids.map((uuid) => `/checkout/buy/${uuid}`),
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/vnd.api+json',
      },
      bodies: Array.from({ length: 1000 }, (_, i) =>
        JSON.stringify({
          email: `bench-buyer-${i}@bench.test`,
          name: `Bench Buyer ${i}`,
          billing_address: { country: 'US', zip: '10001' },
          card_number: GOOD_CARD,
        }),
      ),
    },
  };
}

export async function purchases(state: BenchState, api: ChildProcess) {
  const result = await load(
    purchaseSpec(PORTS.api, state.variantUuids.slice(0, 500)),
    api,
  );
  addRow({
    name: 'POST /checkout/buy/:uuid (JSON purchase, 16 conn.)',
    zest: result,
    budget: '≥ 150/s, p99 ≤ 400 ms',
    pass: result.okPerSecond >= 150 && result.p99 <= 400 && result.non2xx === 0,
    // What limits the rate: one API process's CPU per purchase (session 16).
    note: `API CPU ${result.cpuMsPerOk?.toFixed(1)} ms per purchase`,
  });
}

export async function licenses(state: BenchState, api: ChildProcess) {
  const result = await load(
    {
      url: `http://127.0.0.1:${PORTS.api}`,
      connections: 32,
      durationSeconds: DURATION,
      request: {
        method: 'POST',
        paths: ['/v1/licenses/validate'],
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        bodies: state.licenseKeys.map((key) =>
          JSON.stringify({ license_key: key }),
        ),
      },
    },
    api,
  );
  addRow({
    name: `POST /v1/licenses/validate (${state.licenseKeys.length} keys, 32 conn.)`,
    zest: result,
    budget: '≥ 2,000/s',
    pass: result.okPerSecond >= 2000 && result.non2xx === 0,
  });
}
