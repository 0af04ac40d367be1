/**
 * The one guard around caller code: a listener's throw or rejecting thenable goes to a sink, never to the emitter's
 * caller; an outer emit's sink (or one given to withListenerSink) wins over the inner emitter's own; registration
 * helpers see the caller's function.
 */
import { describe, expect, it } from 'vitest';
import { callGuarded, SafeEmitter, withListenerSink } from '../../src/internal/safe-emitter.js';

type Events = { a: [n: number]; b: [] };

class Recording extends SafeEmitter<Events> {
  readonly failures: Array<[unknown, string]> = [];
  protected override listenerFailed(error: unknown, event: string): void {
    this.failures.push([error, event]);
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('SafeEmitter and callGuarded', () => {
  it('a throwing listener goes to the sink; later listeners still run; emit returns normally', () => {
    const e = new Recording();
    const boom = new Error('boom');
    const seen: number[] = [];
    e.on('a', () => {
      throw boom;
    });
    e.on('a', (n) => seen.push(n));
    expect(e.emit('a', 1)).toBe(true);
    expect(seen).toEqual([1]);
    expect(e.failures).toEqual([[boom, 'a']]);
  });

  it('a rejecting promise and a thenable whose then getter throws go to the sink', async () => {
    const e = new Recording();
    const rejected = new Error('rejected');
    const getter = new Error('getter');
    e.on('a', async () => {
      throw rejected;
    });
    e.on('b', () => ({
      get then() {
        throw getter;
      },
    }));
    e.emit('a', 1);
    e.emit('b');
    await tick();
    expect(e.failures).toEqual([
      [getter, 'b'],
      [rejected, 'a'],
    ]);
  });

  it('a listener of an inner emitter called during an outer emit reports to the outer sink', () => {
    const outer = new Recording();
    const inner = new Recording();
    const boom = new Error('inner listener');
    inner.on('b', () => {
      throw boom;
    });
    outer.on('a', () => inner.emit('b'));
    outer.emit('a', 1);
    expect(outer.failures).toEqual([[boom, 'b']]);
    expect(inner.failures).toEqual([]);
    inner.emit('b'); // on its own: its own sink
    expect(inner.failures).toEqual([[boom, 'b']]);
  });

  it('withListenerSink names the sink for what it runs; callGuarded with its own sink ignores the active one', () => {
    const e = new Recording();
    const got: string[] = [];
    e.on('b', () => {
      throw new Error('x');
    });
    withListenerSink(
      (_error, event) => got.push(`explicit ${event}`),
      () => e.emit('b'),
    );
    withListenerSink(
      () => got.push('active'),
      () =>
        callGuarded(
          () => {
            throw new Error('y');
          },
          undefined,
          [],
          'onTask',
          (_error, event) => got.push(`own ${event}`),
        ),
    );
    expect(got).toEqual(['explicit b', 'own onTask']);
    expect(e.failures).toEqual([]);
  });

  it("off/once/listeners/listenerCount with the caller's function; one function on two events", () => {
    const e = new Recording();
    let calls = 0;
    const fn = (): void => {
      calls++;
    };
    e.on('a', fn);
    e.on('b', fn);
    expect(e.listeners('a')).toEqual([fn]);
    e.off('a', fn);
    expect(e.listenerCount('a')).toBe(0);
    expect(e.listenerCount('b')).toBe(1);
    e.removeListener('b', fn);
    expect(e.listenerCount('b')).toBe(0);
    e.once('a', fn);
    e.emit('a', 1);
    e.emit('a', 2);
    expect(calls).toBe(1);
    expect(() => e.on('a', 'nope' as never)).toThrow(TypeError);
  });

  it('a sink that throws is dropped (nowhere left to report)', () => {
    const e = new SafeEmitter<Events>();
    e.on('b', () => {
      throw new Error('x');
    });
    expect(() =>
      withListenerSink(
        () => {
          throw new Error('sink');
        },
        () => e.emit('b'),
      ),
    ).not.toThrow();
    expect(() => e.emit('b')).not.toThrow(); // the default sink drops
  });
});
