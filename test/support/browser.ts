import { Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); browsers are never downloaded. */
const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium for the hosted pages' browser tests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
    ],
  });
}
