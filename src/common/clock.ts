import { Injectable } from '@nestjs/common';

/**
 * The current time, injectable so billing and expiry rules can be walked
 * through months in a test or run "as of" an instant from the CLI.
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
