import { quickstartBanner, tryCommands } from './quickstart';

const quickstart = {
  baseUrl: 'http://localhost:3000',
  storeId: 1,
  apiKey: 'zest_test_abc-DEF_123',
  docsUrl: 'http://localhost:3000/docs',
  mailboxUrl: 'http://localhost:3000/dev/mailbox',
  dataDir: './.data',
};

describe('quickstart banner', () => {
  it('prints curl commands that a shell runs as printed', () => {
    expect(tryCommands(quickstart)).toEqual([
      "curl -H 'Authorization: Bearer zest_test_abc-DEF_123' -H 'Accept: application/vnd.api+json' http://localhost:3000/v1/stores",
      "curl -H 'Authorization: Bearer zest_test_abc-DEF_123' -H 'Accept: application/vnd.api+json' http://localhost:3000/v1/products",
      'curl http://localhost:3000/health/ready',
    ]);
  });

  it('is plain text naming the base URL, the key and the docs', () => {
    const banner = quickstartBanner(quickstart);
    expect(banner).not.toMatch(/[{}"\\]/);
    expect(banner).toContain('Zest is running at http://localhost:3000');
    expect(banner).toContain('zest_test_abc-DEF_123');
    expect(banner).toContain('http://localhost:3000/docs');
    expect(banner).toContain('http://localhost:3000/dev/mailbox');
  });
});
