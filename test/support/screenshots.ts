import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Where the hosted pages' screenshots are kept for review (jest runs from the repository root). */
const SCREENSHOTS = join('docs', 'screenshots');

const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

/** The checked-in screenshots change only when asked, so a test run leaves the tree clean. */
export const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';

/**
 * The page at a phone's and a laptop's width: nothing may overflow the
 * phone's width (scrolling tables aside), each screenshot is a PNG of the
 * width asked for, and with UPDATE_SCREENSHOTS=1 it is written to
 * `docs/screenshots/<name>-<width>.png`.
 */
export async function shoot(page: Page, name: string): Promise<void> {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    if (width === 375) {
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth,
      );
      expect(overflow).toBeLessThanOrEqual(375);
    }
    const png = await page.screenshot({ fullPage: true });
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    // IHDR: the width, and at least the viewport's height (full page).
    expect(png.readUInt32BE(16)).toBe(width);
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(800);
    if (UPDATE_SCREENSHOTS)
      writeFileSync(join(SCREENSHOTS, `${name}-${width}.png`), png);
  }
}
