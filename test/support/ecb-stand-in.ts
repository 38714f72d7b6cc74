import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** What the ECB stand-in answers. */
export type EcbBehaviour =
  { kind: 'down' } | { kind: 'hang' } | { kind: 'document'; body: string };

/**
 * The ECB's eurofxref-daily.xml around `cubes` (its `<Cube currency rate/>`
 * lines as given, malformed ones included): the real document's shape,
 * single-quoted attributes and the gesmes envelope.
 */
export function ecbEnvelope(time: string, cubes: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${time}'>
${cubes}
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>
`;
}

/** The stand-in's document: test figures in the real document's shape. */
export function ecbDocument(
  time: string,
  quotes: Record<string, string>,
): string {
  return ecbEnvelope(
    time,
    Object.entries(quotes)
      .map(
        ([currency, rate]) =>
          `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`,
      )
      .join('\n'),
  );
}

export async function startEcbStandIn() {
  const state: { behaviour: EcbBehaviour; requests: number } = {
    behaviour: { kind: 'down' },
    requests: 0,
  };
  const server: Server = createServer((req, res) => {
    state.requests++;
    const { behaviour } = state;
    if (behaviour.kind === 'hang') return;
    if (behaviour.kind === 'down') {
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<html><body>Service Unavailable</body></html>');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/xml' });
    res.end(behaviour.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    state,
    url: `http://127.0.0.1:${port}/stats/eurofxref/eurofxref-daily.xml`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type EcbStandIn = Awaited<ReturnType<typeof startEcbStandIn>>;
