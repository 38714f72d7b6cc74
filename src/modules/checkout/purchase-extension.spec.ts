import {
  PURCHASE_EXTENSION_ORDER,
  PurchaseContext,
  PurchaseExtensionName,
  PurchaseExtensions,
} from './purchase-extension';

function recording(calls: string[], name: PurchaseExtensionName) {
  return {
    name,
    onPurchase: () => Promise.resolve(void calls.push(name)),
  };
}

describe('PurchaseExtensions', () => {
  it('states the order: license keys, then the subscription, then the Stripe Tax record, then the receipt', () => {
    expect(PURCHASE_EXTENSION_ORDER).toEqual([
      'licensing',
      'billing',
      'tax',
      'mail',
    ]);
  });

  it('runs extensions in the declared order, whatever the registration order', async () => {
    for (const registration of [
      ['licensing', 'billing'],
      ['billing', 'licensing'],
    ] as PurchaseExtensionName[][]) {
      const registry = new PurchaseExtensions();
      const calls: string[] = [];
      for (const name of registration)
        registry.register(recording(calls, name));
      await registry.run({} as PurchaseContext);
      expect(calls).toEqual(['licensing', 'billing']);
    }
  });

  it('refuses duplicates and names outside the declared order', () => {
    const registry = new PurchaseExtensions();
    registry.register(recording([], 'billing'));
    expect(() => registry.register(recording([], 'billing'))).toThrow(/twice/);
    expect(() =>
      registry.register(
        recording([], 'shipping' as unknown as PurchaseExtensionName),
      ),
    ).toThrow(/not in PURCHASE_EXTENSION_ORDER/);
  });

  it('stops at the first failing extension, so the purchase rolls back', async () => {
    const registry = new PurchaseExtensions();
    const calls: string[] = [];
    registry.register({
      name: 'licensing',
      onPurchase: () => Promise.reject(new Error('no keys')),
    });
    registry.register(recording(calls, 'billing'));
    await expect(registry.run({} as PurchaseContext)).rejects.toThrow(
      'no keys',
    );
    expect(calls).toEqual([]);
  });
});
