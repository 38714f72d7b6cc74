import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Clock } from '../../common/clock';
import { Principal } from '../../common/principal';
import type { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from './api-key-format';
import { ApiKey, ApiKeyMode } from './api-key.entity';
import { ApiKeyUsageProducer } from './api-key-usage.queue';
import { User } from './user.entity';
import { AccountErrors } from './account.errors';

const DAY_MS = 24 * 60 * 60 * 1000;
const KEY_LIFETIME_MS = 365 * DAY_MS;
const CACHE_LIMIT = 10_000;

interface CachedKey {
  principal: Principal;
  expiresAt: number;
  cachedUntil: number;
}

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The plain key: shown once, never stored. */
  key: string;
}

@Injectable()
export class ApiKeyService {
  /**
   * Verified keys by hash, kept briefly so hot paths skip the lookup. A
   * revoked key is refused everywhere within API_KEY_CACHE_TTL_MS.
   */
  private readonly cache = new Map<string, CachedKey>();

  constructor(
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(User) private readonly users: Repository<User>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly usage: ApiKeyUsageProducer,
  ) {}

  async create(
    userId: number,
    mode: ApiKeyMode,
    name?: string,
    lifetimeDays?: number,
  ): Promise<CreatedApiKey> {
    if (!(await this.users.existsBy({ id: userId }))) {
      throw AccountErrors.userNotFound(userId);
    }
    const key = generateApiKey(mode);
    const apiKey = await this.keys.save(
      this.keys.create({
        userId,
        mode,
        name: name ?? `${mode} key`,
        prefix: displayPrefix(key),
        keyHash: hashApiKey(key, this.config.appKey),
        expiresAt: new Date(
          this.clock.now().getTime() +
            (lifetimeDays === undefined
              ? KEY_LIFETIME_MS
              : lifetimeDays * DAY_MS),
        ),
      }),
    );
    return { apiKey, key };
  }

  async revoke(id: number): Promise<ApiKey> {
    const apiKey = await this.keys.findOneBy({ id });
    if (!apiKey) throw AccountErrors.apiKeyNotFound(id);
    if (!apiKey.revokedAt) {
      apiKey.revokedAt = this.clock.now();
      await this.keys.save(apiKey);
    }
    this.cache.delete(apiKey.keyHash);
    return apiKey;
  }

  /** The principal for a bearer key, or a 401 that says what is wrong. */
  async authenticate(key: string): Promise<Principal> {
    if (!isWellFormedApiKey(key)) throw AccountErrors.apiKeyMalformed();
    const hash = hashApiKey(key, this.config.appKey);
    const now = this.clock.now();
    const cached = this.cache.get(hash);
    if (
      cached &&
      cached.cachedUntil > now.getTime() &&
      cached.expiresAt > now.getTime()
    ) {
      this.usage.recordUseInBackground(cached.principal.apiKeyId, now);
      return cached.principal;
    }
    const apiKey = await this.keys.findOneBy({ keyHash: hash });
    if (!apiKey) throw AccountErrors.apiKeyInvalid();
    if (apiKey.revokedAt) throw AccountErrors.apiKeyRevoked();
    if (apiKey.expiresAt <= now) throw AccountErrors.apiKeyExpired();
    const principal: Principal = {
      userId: apiKey.userId,
      apiKeyId: apiKey.id,
      testMode: apiKey.mode === 'test',
    };
    if (this.config.apiKeyCacheTtlMs > 0) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(hash, {
        principal,
        expiresAt: apiKey.expiresAt.getTime(),
        cachedUntil: now.getTime() + this.config.apiKeyCacheTtlMs,
      });
    }
    this.usage.recordUseInBackground(apiKey.id, now);
    return principal;
  }

  /** Idempotent: a late or repeated job never moves `last_used_at` backwards. */
  async markUsed(apiKeyId: number, usedAt: Date): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update()
      .set({
        lastUsedAt: () => 'GREATEST(COALESCE(last_used_at, :usedAt), :usedAt)',
      })
      .setParameters({ usedAt })
      .where('id = :apiKeyId', { apiKeyId })
      .execute();
  }
}
