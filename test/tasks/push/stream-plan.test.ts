/**
 * The take-over rule at the stream cap: none below the cap, the smallest streams while they are no larger than the
 * ids gathered (doubling), always few enough that the cap holds; over a burst each id is asked for a few times only.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PUSH_STREAMS, planTakeOver } from '../../../src/tasks/push/stream-plan.js';

describe('planTakeOver', () => {
  it('below the cap, no stream is taken over', () => {
    expect(planTakeOver([], 5, 4)).toEqual([]);
    expect(planTakeOver([1, 2, 3], 5, 4)).toEqual([]);
  });

  it('at the cap: the smallest, then each next smallest no larger than the ids gathered', () => {
    expect(planTakeOver([100, 10, 40, 20], 5, 4)).toEqual([1]); // 5 + 10 = 15 < 20
    expect(planTakeOver([100, 10, 50, 20], 10, 4)).toEqual([1, 3]); // 10 + 10 = 20 ≥ 20, + 20 = 40 < 50
    expect(planTakeOver([100, 10, 40, 20], 10, 4)).toEqual([1, 3, 2]); // 40 ≤ 40, then 80 < 100
    expect(planTakeOver([3, 3], 1, 1)).toEqual([0, 1]); // over the cap: enough are taken that one remains
  });

  it('over a burst of new tasks the count stays at the cap and each id is asked for about log2 times', () => {
    let sizes: number[] = [];
    let asked = 0;
    for (let round = 0; round < 50; round++) {
      const taken = planTakeOver(sizes, 20, DEFAULT_MAX_PUSH_STREAMS);
      const size = 20 + taken.reduce((sum, i) => sum + (sizes[i] as number), 0);
      sizes = sizes.filter((_, i) => !taken.includes(i)).concat(size);
      asked += size;
      expect(sizes.length).toBeLessThanOrEqual(DEFAULT_MAX_PUSH_STREAMS);
    }
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(asked).toBe(3_200); // 3.2 asks per id; one stream re-opened with every id would ask 25.5 per id
  });
});
