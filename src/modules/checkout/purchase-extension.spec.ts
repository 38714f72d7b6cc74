import { PurchaseContext, PurchaseExtensions } from './purchase-extension';

describe('PurchaseExtensions', () => {
  it('runs extensions in registration order and refuses duplicates', async () => {
    const registry = new PurchaseExtensions();
    const calls: string[] = [];
    registry.register({
      name: 'billing',
      onPurchase: () => Promise.resolve(void calls.push('billing')),
    });
    registry.register({
      name: 'licensing',
      onPurchase: () => Promise.resolve(void calls.push('licensing')),
    });
    expect(() =>
      registry.register({
        name: 'billing',
        onPurchase: () => Promise.resolve(),
      }),
    ).toThrow(/twice/);
    await registry.run({} as PurchaseContext);
    expect(calls).toEqual(['billing', 'licensing']);
  });
});
