import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { scoped } from '../../database/tenancy';
import { InvoiceBillTo } from './invoice-bill-to.entity';
import { InvoiceFields } from './invoice-view';

/** The store and mode a row belongs to: the invoiced record's. */
export interface BillToOwner {
  storeId: number;
  testMode: boolean;
}

/**
 * TypeORM's QueryFailedError carries the statement's parameters: here, a
 * buyer's name and address. The error log redacts them (src/app/logging.ts);
 * this keeps them from anything else that handles the error. The
 * PostgreSQL code and message hold no value and stay.
 */
function withoutParameters(error: unknown): unknown {
  if (!(error instanceof QueryFailedError)) return error;
  const code = (error.driverError as { code?: unknown } | undefined)?.code;
  return new Error(
    `Could not store invoice bill-to details (${typeof code === 'string' ? code : 'no code'}): ${error.message}`,
  );
}

/** Every query for stored bill-to details. */
@Injectable()
export class InvoiceBillToRepository {
  constructor(
    @InjectRepository(InvoiceBillTo)
    private readonly rows: Repository<InvoiceBillTo>,
  ) {}

  findByToken(token: string): Promise<InvoiceBillTo | null> {
    return this.rows.findOneBy({ token });
  }

  /**
   * The token of the owner's row with `digest`, inserting one (with
   * `newToken`) when there is none. Concurrent identical calls meet at the
   * unique constraint: one insert wins and the others read its row.
   */
  async findOrCreate(
    owner: BillToOwner,
    digest: string,
    fields: InvoiceFields,
    newToken: string,
  ): Promise<string> {
    const existing = await this.findToken(owner, digest);
    if (existing) return existing;
    let inserted: { token: string }[];
    try {
      inserted = await this.rows.query(
        `INSERT INTO invoice_bill_to
           (token, store_id, test_mode, digest,
            name, address, city, state, zip_code, country, notes, locale)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT ON CONSTRAINT invoice_bill_to_details_key DO NOTHING
         RETURNING token`,
        [
          newToken,
          owner.storeId,
          owner.testMode,
          digest,
          fields.name ?? null,
          fields.address ?? null,
          fields.city ?? null,
          fields.state ?? null,
          fields.zip_code ?? null,
          fields.country ?? null,
          fields.notes ?? null,
          fields.locale ?? null,
        ],
      );
    } catch (error) {
      throw withoutParameters(error);
    }
    if (inserted.length > 0) return inserted[0].token;
    // Another request inserted the same details first; its row has committed.
    const winner = await this.findToken(owner, digest);
    if (!winner) throw new Error('Invoice bill-to details vanished');
    return winner;
  }

  private async findToken(
    owner: BillToOwner,
    digest: string,
  ): Promise<string | null> {
    const row = await scoped(
      this.rows.createQueryBuilder('bill_to').select('bill_to.token', 'token'),
      'bill_to',
      owner,
    )
      .andWhere('bill_to.digest = :digest', { digest })
      .getRawOne<{ token: string }>();
    return row?.token ?? null;
  }
}
