import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  createServer,
  IncomingMessage,
  Server,
  ServerResponse,
} from 'node:http';
import { join } from 'node:path';
import { parse } from 'qs';
import Stripe from 'stripe';
import { cardOfNumber, TestCard, testCardOf } from './cards';
import { invalid, missing, noSuch, StripeError } from './errors';
import { StripeTaxDouble } from './stripe-tax-double';
import type { Component } from './stripe-tax-rates';

type StripeObject = Record<string, unknown> & { id: string; object: string };
type Params = Record<string, unknown>;

const FIXTURES = (
  JSON.parse(
    readFileSync(
      join(process.cwd(), 'test/support/stripe-double/fixtures.json'),
      'utf8',
    ),
  ) as { resources: Record<string, StripeObject> }
).resources;

/** Top-level parameters each endpoint accepts (what the `stripe` package's types allow, for the parts the double serves). */
const PARAMS: Record<string, string[]> = {
  'POST /v1/customers': [
    'email',
    'name',
    'description',
    'metadata',
    'payment_method',
    'invoice_settings',
    'expand',
  ],
  'POST /v1/customers/:id': [
    'email',
    'name',
    'description',
    'metadata',
    'invoice_settings',
    'expand',
  ],
  'POST /v1/payment_methods': ['type', 'card', 'billing_details', 'metadata'],
  'POST /v1/payment_methods/:id/attach': ['customer', 'expand'],
  'POST /v1/payment_intents': [
    'amount',
    'currency',
    'customer',
    'payment_method',
    'allowed_payment_method_types',
    'automatic_payment_methods',
    'confirm',
    'off_session',
    'setup_future_usage',
    'description',
    'metadata',
    'receipt_email',
    'return_url',
    'statement_descriptor_suffix',
    'capture_method',
    'error_on_requires_action',
    'expand',
  ],
  'POST /v1/payment_intents/:id': [
    'amount',
    'currency',
    'customer',
    'payment_method',
    'description',
    'metadata',
    'setup_future_usage',
    'expand',
  ],
  'POST /v1/payment_intents/:id/confirm': [
    'payment_method',
    'payment_method_data',
    'client_secret',
    'key',
    'off_session',
    'return_url',
    'setup_future_usage',
    'error_on_requires_action',
    'expand',
  ],
  'POST /v1/payment_intents/:id/cancel': ['cancellation_reason', 'expand'],
  'POST /v1/setup_intents/:id/cancel': ['cancellation_reason', 'expand'],
  'POST /v1/payment_intents/:id/three_d_secure': [
    'key',
    'client_secret',
    'result',
  ],
  'POST /v1/setup_intents/:id/three_d_secure': [
    'key',
    'client_secret',
    'result',
  ],
  'POST /v1/setup_intents': [
    'customer',
    'payment_method',
    'allowed_payment_method_types',
    'automatic_payment_methods',
    'confirm',
    'usage',
    'description',
    'metadata',
    'return_url',
    'expand',
  ],
  'POST /v1/setup_intents/:id/confirm': [
    'payment_method',
    'payment_method_data',
    'client_secret',
    'key',
    'return_url',
    'expand',
  ],
  'GET /v1/refunds': [
    'payment_intent',
    'charge',
    'limit',
    'starting_after',
    'ending_before',
    'created',
    'expand',
  ],
  'POST /v1/refunds': [
    'payment_intent',
    'charge',
    'amount',
    'reason',
    'metadata',
    'expand',
  ],
};

export interface WebhookDelivery {
  eventId: string;
  type: string;
  status: number | null;
  error: string | null;
}

interface Account {
  livemode: boolean;
  objects: Map<string, StripeObject>;
  idempotency: Map<
    string,
    { fingerprint: string; status: number; body: string }
  >;
  webhook: {
    url: string;
    secret: string;
    /** Milliseconds before each event is sent. */
    delayMs: number;
    /** How many times each event is sent. */
    copies: number;
  } | null;
  /** The PaymentMethods' test card behaviour, by id. */
  cards: Map<string, TestCard>;
  /** Idempotency keys of POSTs still being processed (see `slowRequests`). */
  inFlight: Set<string>;
}

const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) =>
  `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
const clone = (kind: string): StripeObject => structuredClone(FIXTURES[kind]);

/**
 * An object as an event carries it: a copy, without the lists Stripe no
 * longer includes unless expanded (a charge's `refunds`, since API version
 * 2022-11-15).
 */
function snapshot(object: StripeObject): StripeObject {
  const copy = structuredClone(object);
  if (copy.object === 'charge') delete copy.refunds;
  return copy;
}

/**
 * A local stand-in for Stripe's API, for tests: the official `stripe`
 * package talks to it through its `host`, `port` and `protocol` options.
 * It speaks Stripe's protocol (form-encoded bodies, Bearer secret keys,
 * `Idempotency-Key` replay and mismatch, Stripe's error shapes, unknown
 * parameters refused), answers with Stripe's published fixture objects
 * (fixtures.json) filled in, and keeps state per account (secret key) for
 * customers, payment methods, payment intents, setup intents, charges,
 * refunds and disputes. Stripe's test cards decide outcomes: declines,
 * 3-D Secure (`requires_action` on session, `authentication_required` off
 * session). Events go to the account's webhook endpoint signed with
 * Stripe's scheme (`generateTestHeaderString`), optionally delayed and
 * duplicated (`sendWebhooks`), and sent again on demand (`resend`, as
 * Stripe's retries); a charge in an event carries no `refunds` list, as
 * Stripe's API versions since 2022-11-15 (`GET /v1/refunds` lists them).
 * Dashboard refunds and disputes are played with `refundFromDashboard`,
 * `openDispute`, `closeDispute`; an outage with `failRequests`.
 */
export class StripeDouble {
  private server: Server | null = null;
  private readonly accounts = new Map<string, Account>();
  private readonly pending = new Set<Promise<void>>();
  private readonly signer = new Stripe('sk_test_signer');
  readonly deliveries: WebhookDelivery[] = [];
  /** Every request, in order: method, path, parsed params (for assertions). */
  readonly requests: {
    method: string;
    path: string;
    params: Params;
    idempotencyKey: string | null;
  }[] = [];
  port = 0;
  /** How many of the next API requests answer Stripe's 500 `api_error`. */
  private failures = 0;
  /** How many of the next API requests never answer (a client timeout). */
  private hangs = 0;
  /** Processing time of the next requests to a path (see `slowRequests`). */
  private readonly slow: { path: string; count: number; ms: number }[] = [];
  private readonly hung = new Set<ServerResponse>();
  /** Stripe Tax: calculations, transactions, reversals. */
  private readonly tax = new StripeTaxDouble();

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) =>
      this.server!.listen(0, '127.0.0.1', resolve),
    );
    const address = this.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    this.port = address.port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.hung.clear();
    await this.flush();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** The options that point the official client at the double. */
  clientOptions(): Stripe.StripeConfig {
    return {
      host: '127.0.0.1',
      port: this.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    };
  }

  /** Where an account's events go, signed with `secret`. */
  sendWebhooks(
    secretKey: string,
    url: string,
    secret: string,
    options: { delayMs?: number; copies?: number } = {},
  ) {
    this.account(secretKey).webhook = {
      url,
      secret,
      delayMs: options.delayMs ?? 0,
      copies: options.copies ?? 1,
    };
  }

  /**
   * Stripe has an outage: the next `count` API requests answer 500
   * (`api_error`). The official client retries up to its
   * `maxNetworkRetries`, so a call fails after that many + 1.
   */
  failRequests(count: number) {
    this.failures = count;
  }

  /**
   * The next `count` POSTs to `path` take `ms` to process. Meanwhile their
   * Idempotency-Key is in use: another request with it answers Stripe's 409
   * `idempotency_key_in_use` (Stripe's client retries a 409 up to its
   * `maxNetworkRetries`); once processed, it replays the stored answer.
   */
  slowRequests(path: string, ms: number, count = 1) {
    this.slow.push({ path, count, ms });
  }

  /** The next `count` API requests get no answer at all: the client times out. */
  hangRequests(count: number) {
    this.hangs = count;
  }

  /**
   * Stripe Tax settings of an account: its head office country (reverse
   * charge applies to other countries) and where it is registered
   * (countries, `US-TX`-style states, `EU`; null: everywhere).
   */
  taxSettings(
    secretKey: string,
    headOffice: string,
    registrations: string[] | null = null,
  ) {
    this.tax.configure(this.account(secretKey), headOffice, registrations);
  }

  /** Stripe Tax's rates change for the account: `{ DE: [{ type: 'vat', percent: '16.0', state: null }] }`. */
  changeTaxRates(secretKey: string, rates: Record<string, Component[]>) {
    this.tax.changeRates(this.account(secretKey), rates);
  }

  /**
   * Sends a stored event to the account's endpoint again (Stripe's retries
   * and the dashboard's "Resend"), `copies` times at once after `delayMs`.
   */
  resend(
    secretKey: string,
    eventId: string,
    options: { delayMs?: number; copies?: number } = {},
  ) {
    const account = this.account(secretKey);
    const event = this.get(account, eventId, 'event');
    if (!account.webhook) throw new Error('No webhook endpoint configured');
    this.deliver(
      account.webhook,
      event,
      options.copies ?? 1,
      options.delayMs ?? 0,
    );
  }

  /** The account's events of a type, oldest first. */
  events(secretKey: string, type: string): StripeObject[] {
    return this.list(secretKey, 'event').filter((event) => event.type === type);
  }

  /** Waits for every webhook delivery under way. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  find(secretKey: string, id: string): StripeObject | undefined {
    return this.account(secretKey).objects.get(id);
  }

  /** The account's objects of one kind (`payment_intent`, `refund` …), oldest first. */
  list(secretKey: string, kind: string): StripeObject[] {
    return [...this.account(secretKey).objects.values()].filter(
      (object) => object.object === kind,
    );
  }

  /** A refund made in Stripe's dashboard: no API request, a `charge.refunded` event. */
  refundFromDashboard(secretKey: string, chargeId: string, amount?: number) {
    return this.refund(this.account(secretKey), { charge: chargeId, amount });
  }

  /**
   * A refund fails after Stripe accepted it (the card was closed) or is
   * canceled: the charge has the amount again, `charge.refund.updated`.
   */
  failRefund(
    secretKey: string,
    refundId: string,
    status: 'failed' | 'canceled' = 'failed',
  ): StripeObject {
    const account = this.account(secretKey);
    const refund = this.get(account, refundId, 'refund');
    if (refund.status !== 'succeeded' && refund.status !== 'pending')
      throw new Error(`${refundId} is ${String(refund.status)}`);
    refund.status = status;
    refund.failure_reason =
      status === 'failed' ? 'expired_or_canceled_card' : null;
    const charge = this.get(account, refund.charge as string, 'charge');
    charge.amount_refunded =
      Number(charge.amount_refunded) - Number(refund.amount);
    charge.refunded = false;
    this.emit(account, 'charge.refund.updated', refund);
    return refund;
  }

  /** The cardholder disputes a charge: `charge.dispute.created`. */
  openDispute(
    secretKey: string,
    chargeId: string,
    reason = 'fraudulent',
  ): StripeObject {
    const account = this.account(secretKey);
    const charge = this.get(account, chargeId, 'charge');
    const dispute = this.store(account, {
      ...clone('dispute'),
      id: newId('dp'),
      amount: charge.amount,
      currency: charge.currency,
      charge: charge.id,
      payment_intent: charge.payment_intent,
      reason,
      status: 'needs_response',
      created: now(),
      livemode: account.livemode,
      metadata: {},
      balance_transactions: [],
    });
    charge.disputed = true;
    this.emit(account, 'charge.dispute.created', dispute);
    return dispute;
  }

  /** The dispute is decided: `charge.dispute.closed`. */
  closeDispute(secretKey: string, disputeId: string, status: 'won' | 'lost') {
    const account = this.account(secretKey);
    const dispute = this.get(account, disputeId, 'dispute');
    dispute.status = status;
    this.emit(account, 'charge.dispute.closed', dispute);
    return dispute;
  }

  /** The buyer completes (or abandons) a 3-D Secure challenge in the browser. */
  authenticate(secretKey: string, intentId: string, completed: boolean) {
    const account = this.account(secretKey);
    const intent = this.get(account, intentId, 'payment_intent/setup_intent');
    if (intent.status !== 'requires_action')
      throw new Error(`${intentId} is ${String(intent.status)}`);
    intent.next_action = null;
    if (completed) return this.settle(account, intent);
    const error = {
      type: 'card_error',
      code: 'payment_intent_authentication_failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
    };
    return this.fail(account, intent, error);
  }

  private account(secretKey: string): Account {
    let account = this.accounts.get(secretKey);
    if (!account) {
      account = {
        livemode: secretKey.includes('_live_'),
        objects: new Map(),
        idempotency: new Map(),
        inFlight: new Set(),
        webhook: null,
        cards: new Map(),
      };
      this.accounts.set(secretKey, account);
    }
    return account;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://double');
    const method = req.method ?? 'GET';
    const send = (status: number, body: string, replayed = false) => {
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Access-Control-Allow-Origin': '*',
        'Request-Id': newId('req'),
        ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}),
      });
      res.end(body);
    };
    const params = (
      method === 'GET'
        ? parse(url.search.slice(1))
        : parse(raw, { depth: 10, arrayLimit: 100 })
    ) as Params;
    const auth = /^Bearer ((?:sk|rk)_(?:test|live)_\w+)$/.exec(
      req.headers.authorization ?? '',
    );
    // Stripe.js sends the publishable key as the `key` parameter (a simple
    // cross-origin request, no preflight); its calls name an intent by its
    // client secret. The double pairs `pk_<mode>_X` with `sk_<mode>_X`.
    const publishable =
      !auth && typeof params.key === 'string'
        ? /^pk_((?:test|live)_\w+)$/.exec(params.key)
        : null;
    if (!auth && !publishable) {
      send(
        401,
        JSON.stringify({
          error: {
            type: 'invalid_request_error',
            message: 'Invalid API Key provided.',
          },
        }),
      );
      return;
    }
    if (publishable) {
      const account = this.account(`sk_${publishable[1]}`);
      this.requests.push({
        method,
        path: url.pathname,
        params,
        idempotencyKey: null,
      });
      let status = 200;
      let body: string;
      try {
        body = JSON.stringify(
          this.browserRoute(account, method, url.pathname, params),
        );
      } catch (error) {
        if (!(error instanceof StripeError)) throw error;
        status = error.status;
        body = JSON.stringify({ error: error.body });
      }
      send(status, body);
      return;
    }
    const account = this.account(auth![1]);
    if (this.hangs > 0) {
      this.hangs--;
      this.hung.add(res);
      return;
    }
    if (this.failures > 0) {
      this.failures--;
      send(
        500,
        JSON.stringify({
          error: {
            type: 'api_error',
            message: 'An unknown error occurred',
          },
        }),
      );
      return;
    }
    const key = req.headers['idempotency-key'];
    const idempotencyKey = typeof key === 'string' ? key : null;
    this.requests.push({ method, path: url.pathname, params, idempotencyKey });
    const fingerprint = createHash('sha256')
      .update(`${method} ${url.pathname} ${raw}`)
      .digest('hex');
    if (method === 'POST' && idempotencyKey) {
      const seen = account.idempotency.get(idempotencyKey);
      if (seen && seen.fingerprint !== fingerprint) {
        send(
          400,
          JSON.stringify({
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          }),
        );
        return;
      }
      if (seen) {
        send(seen.status, seen.body, true);
        return;
      }
      if (account.inFlight.has(idempotencyKey)) {
        send(
          409,
          JSON.stringify({
            error: {
              type: 'invalid_request_error',
              code: 'idempotency_key_in_use',
              message:
                'There is currently another in-progress request using this Idempotent Key (probably because of a timeout). Please retry this request later.',
            },
          }),
        );
        return;
      }
    }
    const slow = this.slow.find(
      (s) => s.count > 0 && method === 'POST' && s.path === url.pathname,
    );
    if (slow) {
      slow.count--;
      if (idempotencyKey) account.inFlight.add(idempotencyKey);
      await new Promise((resolve) => setTimeout(resolve, slow.ms));
      if (idempotencyKey) account.inFlight.delete(idempotencyKey);
    }
    let status = 200;
    let body: string;
    try {
      body = JSON.stringify(this.route(account, method, url.pathname, params));
    } catch (error) {
      if (!(error instanceof StripeError)) throw error;
      status = error.status;
      body = JSON.stringify({ error: error.body });
    }
    // Stripe stores the outcome of an idempotent request, errors included
    // (a 4xx other than a conflict), and replays it.
    if (method === 'POST' && idempotencyKey)
      account.idempotency.set(idempotencyKey, { fingerprint, status, body });
    send(status, body);
  }

  private route(
    account: Account,
    method: string,
    path: string,
    params: Params,
  ): StripeObject {
    if (path.startsWith('/v1/tax/')) {
      const answer = this.tax.route(account, method, path, params);
      if (answer) return answer;
    }
    const [, , resource, id, action] = path.split('/');
    const pattern = [
      method,
      `/v1/${resource}${id ? '/:id' : ''}${action ? `/${action}` : ''}`,
    ].join(' ');
    const allowed = PARAMS[pattern];
    if (allowed) {
      const unknown = Object.keys(params).find((p) => !allowed.includes(p));
      if (unknown)
        throw invalid(`Received unknown parameter: ${unknown}`, {
          code: 'parameter_unknown',
          param: unknown,
        });
    }
    switch (pattern) {
      case 'POST /v1/customers':
        return this.createCustomer(account, params);
      case 'GET /v1/customers/:id':
        return this.get(account, id, 'customer');
      case 'POST /v1/customers/:id':
        return this.updateCustomer(account, id, params);
      case 'POST /v1/payment_methods':
        return this.createPaymentMethod(account, params);
      case 'GET /v1/payment_methods/:id':
        return this.get(account, id, 'payment_method');
      case 'POST /v1/payment_methods/:id/attach':
        return this.attach(
          account,
          this.paymentMethod(account, id),
          this.text(params, 'customer'),
        );
      case 'POST /v1/payment_intents':
        return this.createPaymentIntent(account, params);
      case 'GET /v1/payment_intents/:id':
        return this.expanded(
          account,
          this.get(account, id, 'payment_intent'),
          params,
        );
      case 'POST /v1/payment_intents/:id':
        return this.updateIntent(account, id, params);
      case 'POST /v1/payment_intents/:id/confirm':
        return this.confirm(
          account,
          this.get(account, id, 'payment_intent'),
          params,
        );
      case 'POST /v1/payment_intents/:id/cancel': {
        const intent = this.get(account, id, 'payment_intent');
        if (intent.status === 'succeeded' || intent.status === 'canceled')
          throw invalid(
            `You cannot cancel this PaymentIntent because it has a status of ${String(intent.status)}.`,
            { code: 'payment_intent_unexpected_state' },
          );
        intent.status = 'canceled';
        intent.canceled_at = now();
        return intent;
      }
      case 'POST /v1/setup_intents':
        return this.createSetupIntent(account, params);
      case 'GET /v1/setup_intents/:id':
        return this.expanded(
          account,
          this.get(account, id, 'setup_intent'),
          params,
        );
      case 'POST /v1/setup_intents/:id/cancel': {
        const intent = this.get(account, id, 'setup_intent');
        if (intent.status === 'succeeded' || intent.status === 'canceled')
          throw invalid(
            `You cannot cancel this SetupIntent because it has a status of ${String(intent.status)}.`,
            { code: 'setup_intent_unexpected_state' },
          );
        intent.status = 'canceled';
        intent.cancellation_reason =
          (params.cancellation_reason as string | undefined) ?? null;
        return intent;
      }
      case 'POST /v1/setup_intents/:id/confirm':
        return this.confirm(
          account,
          this.get(account, id, 'setup_intent'),
          params,
        );
      case 'POST /v1/refunds':
        return this.refund(account, {
          charge: params.charge as string | undefined,
          paymentIntent: params.payment_intent as string | undefined,
          amount:
            params.amount === undefined
              ? undefined
              : this.integer(params, 'amount'),
          metadata: params.metadata as Params | undefined,
          reason: params.reason as string | undefined,
        });
      case 'GET /v1/refunds':
        return this.listRefunds(account, params);
      case 'GET /v1/refunds/:id':
        return this.get(account, id, 'refund');
      case 'GET /v1/charges/:id':
        return this.get(account, id, 'charge');
      case 'GET /v1/disputes/:id':
        return this.get(account, id, 'dispute');
      default:
        throw new StripeError(404, {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path}).`,
        });
    }
  }

  /**
   * What Stripe.js does with a publishable key: read an intent, confirm it
   * with the card typed into the Payment Element, and (the double's
   * stand-in for the 3-D Secure challenge frame) complete or abandon its
   * challenge. Each call names the intent's client secret.
   */
  private browserRoute(
    account: Account,
    method: string,
    path: string,
    params: Params,
  ): StripeObject {
    const [, , resource, id, action] = path.split('/');
    const kind =
      resource === 'payment_intents'
        ? 'payment_intent'
        : resource === 'setup_intents'
          ? 'setup_intent'
          : null;
    const pattern = `${method} /v1/${resource}/:id${action ? `/${action}` : ''}`;
    if (!kind || !id || (method === 'POST' && !PARAMS[pattern]))
      throw new StripeError(401, {
        type: 'invalid_request_error',
        message:
          'This API call cannot be made with a publishable API key. Please use a secret API key.',
      });
    const allowed = PARAMS[pattern] ?? ['key', 'client_secret', 'expand'];
    const unknown = Object.keys(params).find((p) => !allowed.includes(p));
    if (unknown)
      throw invalid(`Received unknown parameter: ${unknown}`, {
        code: 'parameter_unknown',
        param: unknown,
      });
    const intent = account.objects.get(id);
    if (
      !intent ||
      intent.object !== kind ||
      params.client_secret !== intent.client_secret
    )
      throw noSuch(kind, id);
    if (method === 'GET' && !action) return this.expanded(account, intent, {});
    if (method === 'POST' && action === 'confirm') {
      const data = params.payment_method_data as Params | undefined;
      const number = (data?.card as Params | undefined)?.number;
      const card =
        typeof number === 'string'
          ? cardOfNumber(number.replace(/\s/g, ''))
          : null;
      if (!card)
        throw new StripeError(402, {
          type: 'card_error',
          code: 'incorrect_number',
          message: 'Your card number is incorrect.',
          param: 'number',
        });
      const {
        client_secret: _secret,
        key: _key,
        payment_method_data: _data,
        ...rest
      } = params;
      return this.confirm(account, intent, {
        ...rest,
        payment_method: this.newPaymentMethod(account, card).id,
      });
    }
    if (method === 'POST' && action === 'three_d_secure') {
      if (intent.status !== 'requires_action')
        throw invalid(
          `This intent is ${String(intent.status)}: there is no challenge to answer.`,
          { code: `${kind}_unexpected_state` },
        );
      return this.authenticate(
        this.keyOf(account),
        id,
        params.result === 'complete',
      );
    }
    throw noSuch(kind, id);
  }

  private keyOf(account: Account): string {
    for (const [key, value] of this.accounts) if (value === account) return key;
    throw new Error('unknown account');
  }

  /** `expand[]=payment_method`: the intent with its payment method object. */
  private expanded(
    account: Account,
    intent: StripeObject,
    params: Params,
  ): StripeObject {
    const expand = ([] as unknown[]).concat(params.expand ?? []);
    if (!expand.includes('payment_method') || !intent.payment_method)
      return intent;
    return {
      ...intent,
      payment_method: this.get(
        account,
        intent.payment_method as string,
        'payment_method',
      ),
    };
  }

  /** `GET /v1/refunds`: newest first, filtered by charge or PaymentIntent, paged by `limit` and `starting_after`. */
  private listRefunds(account: Account, params: Params): StripeObject {
    const limit =
      params.limit === undefined ? 10 : this.integer(params, 'limit');
    if (limit < 1 || limit > 100)
      throw invalid('This value must be between 1 and 100.', {
        param: 'limit',
      });
    let refunds = [...account.objects.values()]
      .filter((object) => object.object === 'refund')
      .filter(
        (refund) =>
          (params.charge === undefined || refund.charge === params.charge) &&
          (params.payment_intent === undefined ||
            refund.payment_intent === params.payment_intent),
      )
      .reverse();
    if (typeof params.starting_after === 'string') {
      const at = refunds.findIndex((r) => r.id === params.starting_after);
      refunds = at === -1 ? [] : refunds.slice(at + 1);
    }
    return {
      id: '',
      object: 'list',
      data: refunds.slice(0, limit),
      has_more: refunds.length > limit,
      url: '/v1/refunds',
    };
  }

  private store(account: Account, object: StripeObject): StripeObject {
    account.objects.set(object.id, object);
    return object;
  }

  private get(account: Account, id: string, kind: string): StripeObject {
    const object = account.objects.get(id);
    if (!object || !kind.split('/').includes(object.object))
      throw noSuch(kind, id);
    return object;
  }

  private text(params: Params, name: string, required = true): string {
    const value = params[name];
    if (value === undefined || value === '') {
      if (required) throw missing(name);
      return '';
    }
    if (typeof value !== 'string')
      throw invalid(`Invalid string: ${JSON.stringify(value)}`, {
        code: 'parameter_invalid_string',
        param: name,
      });
    return value;
  }

  private integer(params: Params, name: string): number {
    const value = this.text(params, name);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
      throw invalid(`Invalid integer: ${value}`, {
        code: 'parameter_invalid_integer',
        param: name,
      });
    return Number(value);
  }

  private createCustomer(account: Account, params: Params): StripeObject {
    const customer = this.store(account, {
      ...clone('customer'),
      id: newId('cus'),
      created: now(),
      livemode: account.livemode,
      email: (params.email as string | undefined) ?? null,
      name: (params.name as string | undefined) ?? null,
      description: (params.description as string | undefined) ?? null,
      metadata: (params.metadata as Params | undefined) ?? {},
      discount: null,
      currency: null,
      invoice_settings: {
        custom_fields: null,
        default_payment_method: null,
        footer: null,
        rendering_options: null,
      },
    });
    if (params.payment_method)
      this.attach(
        account,
        this.paymentMethod(account, this.text(params, 'payment_method')),
        customer.id,
      );
    if (params.invoice_settings)
      this.updateCustomer(account, customer.id, params);
    return customer;
  }

  private updateCustomer(
    account: Account,
    id: string,
    params: Params,
  ): StripeObject {
    const customer = this.get(account, id, 'customer');
    for (const field of ['email', 'name', 'description'])
      if (params[field] !== undefined) customer[field] = params[field];
    if (params.metadata)
      customer.metadata = {
        ...(customer.metadata as Params),
        ...(params.metadata as Params),
      };
    const settings = params.invoice_settings as Params | undefined;
    if (settings?.default_payment_method !== undefined) {
      const method = this.paymentMethod(
        account,
        this.text(settings, 'default_payment_method'),
      );
      if (method.customer !== customer.id)
        throw invalid(
          `The customer does not have a payment method with the ID ${method.id}. The payment method must be attached to the customer.`,
          { param: 'invoice_settings[default_payment_method]' },
        );
      (customer.invoice_settings as Params).default_payment_method = method.id;
    }
    return customer;
  }

  private createPaymentMethod(account: Account, params: Params): StripeObject {
    if (this.text(params, 'type') !== 'card')
      throw invalid('The double only serves card payment methods.', {
        param: 'type',
      });
    const token = (params.card as Params | undefined)?.token;
    const card = typeof token === 'string' ? testCardOf(token) : null;
    if (!card)
      throw invalid(
        'Sending card numbers directly to the Stripe API is generally unsafe. Use a test token (tok_visa) or Stripe.js.',
        { param: 'card' },
      );
    return this.newPaymentMethod(account, card, params.metadata as Params);
  }

  private newPaymentMethod(
    account: Account,
    card: TestCard,
    metadata: Params = {},
  ): StripeObject {
    const fixture = clone('payment_method');
    const method = this.store(account, {
      ...fixture,
      id: newId('pm'),
      created: now(),
      livemode: account.livemode,
      customer: null,
      metadata,
      card: {
        ...(fixture.card as Params),
        brand: card.brand,
        display_brand: card.brand,
        last4: card.last4,
        country: card.country,
        funding: card.funding,
        fingerprint: createHash('sha256')
          .update(card.last4 + card.brand)
          .digest('hex')
          .slice(0, 16),
      },
    });
    account.cards.set(method.id, card);
    return method;
  }

  /** A payment method by id, or a new one for a magic `pm_card_…` id (as Stripe does). */
  private paymentMethod(account: Account, id: string): StripeObject {
    const card = testCardOf(id);
    if (card) return this.newPaymentMethod(account, card);
    return this.get(account, id, 'payment_method');
  }

  private attach(
    account: Account,
    method: StripeObject,
    customerId: string,
  ): StripeObject {
    this.get(account, customerId, 'customer');
    if (method.customer && method.customer !== customerId)
      throw invalid(
        'The payment method you provided has already been attached to a customer.',
        { code: 'payment_method_unexpected_state' },
      );
    method.customer = customerId;
    return method;
  }

  private createPaymentIntent(account: Account, params: Params): StripeObject {
    const amount = this.integer(params, 'amount');
    const currency = this.text(params, 'currency').toLowerCase();
    if (!/^[a-z]{3}$/.test(currency))
      throw invalid(`Invalid currency: ${currency}.`, { param: 'currency' });
    const customer = this.text(params, 'customer', false) || null;
    if (customer) this.get(account, customer, 'customer');
    const id = newId('pi');
    const intent = this.store(account, {
      ...clone('payment_intent'),
      id,
      amount,
      currency,
      customer,
      client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
      created: now(),
      livemode: account.livemode,
      status: 'requires_payment_method',
      canceled_at: null,
      last_payment_error: null,
      latest_charge: null,
      next_action: null,
      payment_method: null,
      amount_received: 0,
      description: (params.description as string | undefined) ?? null,
      metadata: (params.metadata as Params | undefined) ?? {},
      setup_future_usage:
        (params.setup_future_usage as string | undefined) ?? null,
      receipt_email: (params.receipt_email as string | undefined) ?? null,
      payment_method_types: (params.allowed_payment_method_types as
        string[] | undefined) ?? ['card'],
    });
    if (params.payment_method) {
      intent.payment_method = this.paymentMethod(
        account,
        this.text(params, 'payment_method'),
      ).id;
      intent.status = 'requires_confirmation';
    }
    if (params.confirm === 'true') return this.confirm(account, intent, params);
    return intent;
  }

  private updateIntent(account: Account, id: string, params: Params) {
    const intent = this.get(account, id, 'payment_intent');
    if (intent.status === 'succeeded' || intent.status === 'canceled')
      throw invalid(
        `This PaymentIntent's amount could not be updated because it has a status of ${String(intent.status)}.`,
        { code: 'payment_intent_unexpected_state' },
      );
    if (params.amount !== undefined)
      intent.amount = this.integer(params, 'amount');
    for (const field of ['description', 'setup_future_usage', 'customer'])
      if (params[field] !== undefined) intent[field] = params[field];
    if (params.metadata)
      intent.metadata = {
        ...(intent.metadata as Params),
        ...(params.metadata as Params),
      };
    if (params.payment_method) {
      intent.payment_method = this.paymentMethod(
        account,
        this.text(params, 'payment_method'),
      ).id;
      intent.status = 'requires_confirmation';
    }
    return intent;
  }

  private createSetupIntent(account: Account, params: Params): StripeObject {
    const customer = this.text(params, 'customer', false) || null;
    if (customer) this.get(account, customer, 'customer');
    const id = newId('seti');
    const intent = this.store(account, {
      ...clone('setup_intent'),
      id,
      customer,
      client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
      created: now(),
      livemode: account.livemode,
      status: 'requires_payment_method',
      last_setup_error: null,
      latest_attempt: null,
      next_action: null,
      payment_method: null,
      usage: (params.usage as string | undefined) ?? 'off_session',
      description: (params.description as string | undefined) ?? null,
      metadata: (params.metadata as Params | undefined) ?? {},
      payment_method_types: (params.allowed_payment_method_types as
        string[] | undefined) ?? ['card'],
    });
    if (params.payment_method) {
      intent.payment_method = this.paymentMethod(
        account,
        this.text(params, 'payment_method'),
      ).id;
      intent.status = 'requires_confirmation';
    }
    if (params.confirm === 'true') return this.confirm(account, intent, params);
    return intent;
  }

  /** Confirms a payment or setup intent with its card: succeeded, declined or 3-D Secure. */
  private confirm(
    account: Account,
    intent: StripeObject,
    params: Params,
  ): StripeObject {
    if (params.payment_method)
      intent.payment_method = this.paymentMethod(
        account,
        this.text(params, 'payment_method'),
      ).id;
    if (
      !['requires_payment_method', 'requires_confirmation'].includes(
        String(intent.status),
      ) ||
      !intent.payment_method
    ) {
      throw invalid(
        intent.payment_method
          ? `You cannot confirm this ${intent.object === 'payment_intent' ? 'PaymentIntent' : 'SetupIntent'} because it has a status of ${String(intent.status)}.`
          : "You cannot confirm this PaymentIntent because it's missing a payment method.",
        { code: `${String(intent.object)}_unexpected_state` },
      );
    }
    const card = account.cards.get(intent.payment_method as string)!;
    const offSession = params.off_session === 'true';
    if (card.behaviour === 'authenticateOnSession' && offSession)
      return this.settle(account, intent);
    if (
      card.behaviour === 'authenticate' ||
      card.behaviour === 'authenticateOnSession'
    ) {
      if (offSession) {
        return this.fail(account, intent, {
          type: 'card_error',
          code: 'authentication_required',
          decline_code: 'authentication_required',
          message:
            'Your card was declined. This transaction requires authentication.',
        });
      }
      intent.status = 'requires_action';
      intent.next_action = {
        type: 'use_stripe_sdk',
        use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: '' },
      };
      return intent;
    }
    const saving = intent.object === 'setup_intent';
    if (
      card.behaviour !== 'succeed' &&
      !(saving && card.behaviour.onlyPayments)
    ) {
      return this.fail(account, intent, {
        type: 'card_error',
        code: 'card_declined',
        decline_code: card.behaviour.decline,
        message: card.behaviour.message,
      });
    }
    return this.settle(account, intent);
  }

  /** The intent's payment (or setup) went through. */
  private settle(account: Account, intent: StripeObject): StripeObject {
    const method = this.get(
      account,
      intent.payment_method as string,
      'payment_method',
    );
    intent.status = 'succeeded';
    intent.last_payment_error = null;
    intent.next_action = null;
    const saves =
      intent.object === 'setup_intent' || intent.setup_future_usage !== null;
    if (saves && intent.customer && !method.customer)
      this.attach(account, method, intent.customer as string);
    if (intent.object === 'setup_intent') {
      this.emit(account, 'setup_intent.succeeded', intent);
      return intent;
    }
    const fixture = clone('charge');
    const charge = this.store(account, {
      ...fixture,
      id: newId('ch'),
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      captured: true,
      paid: true,
      refunded: false,
      disputed: false,
      status: 'succeeded',
      currency: intent.currency,
      customer: intent.customer,
      description: intent.description,
      metadata: intent.metadata,
      payment_intent: intent.id,
      payment_method: method.id,
      created: now(),
      livemode: account.livemode,
      failure_code: null,
      failure_message: null,
      payment_method_details: {
        type: 'card',
        card: {
          ...((fixture.payment_method_details as Params | null)
            ?.card as Params),
          brand: (method.card as Params).brand,
          last4: (method.card as Params).last4,
        },
      },
      refunds: { object: 'list', data: [], has_more: false, url: '' },
    });
    intent.latest_charge = charge.id;
    intent.amount_received = intent.amount;
    this.emit(account, 'charge.succeeded', charge);
    this.emit(account, 'payment_intent.succeeded', intent);
    return intent;
  }

  /** A refusal: the intent records it and goes back to requires_payment_method; the answer is a 402. */
  private fail(account: Account, intent: StripeObject, error: Params): never {
    const payment = intent.object === 'payment_intent';
    const recorded = {
      ...error,
      payment_method: account.objects.get(intent.payment_method as string),
    };
    intent.status = 'requires_payment_method';
    intent.next_action = null;
    if (payment) intent.last_payment_error = recorded;
    else intent.last_setup_error = recorded;
    this.emit(
      account,
      payment ? 'payment_intent.payment_failed' : 'setup_intent.setup_failed',
      intent,
    );
    throw new StripeError(402, {
      ...error,
      [payment ? 'payment_intent' : 'setup_intent']: intent,
    });
  }

  private refund(
    account: Account,
    request: {
      charge?: string;
      paymentIntent?: string;
      amount?: number;
      metadata?: Params;
      reason?: string;
    },
  ): StripeObject {
    let chargeId = request.charge;
    if (!chargeId && request.paymentIntent) {
      const intent = this.get(account, request.paymentIntent, 'payment_intent');
      if (!intent.latest_charge)
        throw invalid(
          `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
          { param: 'payment_intent' },
        );
      chargeId = intent.latest_charge as string;
    }
    if (!chargeId)
      throw invalid(
        'One of the following params should be provided for this request: payment_intent or charge.',
      );
    const charge = this.get(account, chargeId, 'charge');
    const left = Number(charge.amount) - Number(charge.amount_refunded);
    if (left <= 0)
      throw invalid(`Charge ${charge.id} has already been refunded.`, {
        code: 'charge_already_refunded',
      });
    const amount = request.amount ?? left;
    if (amount > left)
      throw invalid(
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
        { code: 'amount_too_large', param: 'amount' },
      );
    const refund = this.store(account, {
      ...clone('refund'),
      id: newId('re'),
      amount,
      charge: charge.id,
      currency: charge.currency,
      payment_intent: charge.payment_intent,
      payment_method: charge.payment_method,
      customer: charge.customer,
      created: now(),
      metadata: request.metadata ?? {},
      reason: request.reason ?? null,
      status: 'succeeded',
    });
    charge.amount_refunded = Number(charge.amount_refunded) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    const refunds = charge.refunds as { data: StripeObject[] };
    refunds.data.unshift(refund);
    this.emit(account, 'charge.refunded', charge);
    return refund;
  }

  /** Records an event and sends it to the account's endpoint (delayed, copied as configured). */
  private emit(account: Account, type: string, object: StripeObject) {
    const event = this.store(account, {
      ...clone('event'),
      id: newId('evt'),
      type,
      created: now(),
      livemode: account.livemode,
      api_version: Stripe.API_VERSION,
      pending_webhooks: account.webhook ? 1 : 0,
      request: { id: null, idempotency_key: null },
      data: { object: snapshot(object) },
    });
    const webhook = account.webhook;
    if (!webhook) return;
    this.deliver(webhook, event, webhook.copies, webhook.delayMs);
  }

  /** Sends an event `copies` times, each after `delayMs`, signed with the endpoint's secret. */
  private deliver(
    webhook: NonNullable<Account['webhook']>,
    event: StripeObject,
    copies: number,
    delayMs: number,
  ) {
    const type = String(event.type);
    const payload = JSON.stringify(event);
    for (let copy = 0; copy < copies; copy++) {
      const delivery: WebhookDelivery = {
        eventId: event.id,
        type,
        status: null,
        error: null,
      };
      this.deliveries.push(delivery);
      const sending = (async () => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        try {
          const response = await fetch(webhook.url, {
            method: 'POST',
            headers: {
              'Content-Type': 'application/json; charset=utf-8',
              'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
              'Stripe-Signature': this.signer.webhooks.generateTestHeaderString(
                { payload, secret: webhook.secret },
              ),
            },
            body: payload,
          });
          delivery.status = response.status;
          await response.arrayBuffer();
        } catch (error) {
          delivery.error = (error as Error).message;
        }
      })();
      this.pending.add(sending);
      void sending.finally(() => this.pending.delete(sending));
    }
  }
}
