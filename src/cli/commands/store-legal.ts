import { Command, integer, UsageError } from '../command';
import { application, storeOwner } from './shared';

/** The store's seller identity on receipts and invoices. */
export const STORE_LEGAL_COMMANDS: Record<string, Command> = {
  'stores:legal': {
    description:
      "Show or set the seller identity a store's receipts and invoices print: legal name, postal address and VAT/GST numbers by country.",
    options: {
      store: {
        type: 'string',
        value: '<id>',
        integer: true,
        required: true,
        description: 'The store id.',
      },
      name: {
        type: 'string',
        value: '<legal name>',
        description: 'Legal name, e.g. "Boutique SAS"; empty: the store name.',
      },
      street: {
        type: 'string',
        value: '<lines>',
        description:
          'Street lines of the address, separated by "|" (up to 3). Address parts not given keep their value.',
      },
      city: { type: 'string', value: '<city>', description: 'City.' },
      state: {
        type: 'string',
        value: '<state>',
        description: 'State, province or prefecture (CA, ON, NSW).',
      },
      postcode: { type: 'string', value: '<code>', description: 'Postcode.' },
      country: {
        type: 'string',
        value: '<code>',
        description: "The address's ISO 3166-1 alpha-2 country.",
      },
      'no-address': {
        type: 'boolean',
        description: 'Remove the address.',
      },
      'tax-numbers': {
        type: 'string',
        value: '<country:number,…>',
        description:
          'VAT/GST numbers by country, e.g. FR:FR40303265045,GB:GB980780684 (EU and UK numbers are checked); empty: none.',
      },
    },
    example:
      'stores:legal --store 1 --name "Boutique SAS" --street "5 rue de Rivoli" --postcode 75001 --city Paris --country FR --tax-numbers FR:FR40303265045',
    async run(values, { app, query }) {
      const id = integer(values, 'store');
      const owner = await storeOwner(query, id);
      const parts = ['street', 'city', 'state', 'postcode', 'country'].filter(
        (name) => values[name] !== undefined,
      );
      if (values['no-address'] === true && parts.length > 0)
        throw new UsageError('--no-address takes no address parts');
      let legalAddress: unknown;
      if (values['no-address'] === true) legalAddress = null;
      else if (parts.length > 0) {
        const text = (name: string) => values[name] as string | undefined;
        const [current] = await query<{
          legal_address: Record<string, unknown> | null;
        }>(`SELECT legal_address FROM stores WHERE id = $1`, [id]);
        legalAddress = {
          ...current.legal_address,
          ...(text('street') !== undefined
            ? { lines: text('street')!.split('|') }
            : {}),
          ...Object.fromEntries(
            ['city', 'state', 'postcode', 'country']
              .filter((name) => text(name) !== undefined)
              .map((name) => [name, text(name) || null]),
          ),
        };
      }
      const numbers = values['tax-numbers'] as string | undefined;
      let taxNumbers: unknown;
      if (numbers !== undefined) {
        const pairs = numbers
          .split(',')
          .map((pair) => pair.trim())
          .filter(Boolean)
          .map((pair) => {
            const at = pair.indexOf(':');
            if (at < 1)
              throw new UsageError(
                '--tax-numbers takes country:number pairs, e.g. FR:FR40303265045',
              );
            return [pair.slice(0, at), pair.slice(at + 1)];
          });
        taxNumbers = pairs.length > 0 ? Object.fromEntries(pairs) : null;
      }
      const name = values.name as string | undefined;
      if (
        name !== undefined ||
        legalAddress !== undefined ||
        taxNumbers !== undefined
      ) {
        const { StoreService } = await application();
        await (await app()).get(StoreService).update(owner, id, {
          legalName: name === undefined ? undefined : name || null,
          legalAddress,
          taxNumbers,
        });
      }
      const [store] = await query<Record<string, unknown>>(
        `SELECT legal_name, legal_address, tax_numbers FROM stores WHERE id = $1`,
        [id],
      );
      return { store_id: id, ...store };
    },
  },
};
