/**
 * Poll jitter off in every test of the file that imports this: the client adds a fixed internal jitter (up to 5 % of
 * each poll interval) drawn from `Math.random()`, which is 0 here, so poll times are exact under fake timers.
 */
import { beforeEach, vi } from 'vitest';

beforeEach(() => {
  vi.spyOn(Math, 'random').mockReturnValue(0);
});
