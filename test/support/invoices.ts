import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The text of a PDF as a customer's viewer would extract it (`pdftotext -layout`). */
export function pdfToText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'zest-invoice-'));
  try {
    const file = join(dir, 'invoice.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], {
      encoding: 'utf8',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** GETs an invoice link until it serves the PDF; returns every status seen and the PDF. */
export async function pollInvoice(
  link: string,
): Promise<{ statuses: number[]; pdf: Buffer }> {
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await fetch(link);
    const body = Buffer.from(await response.arrayBuffer());
    statuses.push(response.status);
    if (response.status === 200) {
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      return { statuses, pdf: body };
    }
    expect(response.status).toBe(202);
    expect(response.headers.get('retry-after')).toBe('2');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the PDF never became ready: ${statuses.join(',')}`);
}
