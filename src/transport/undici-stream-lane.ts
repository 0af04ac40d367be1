/**
 * The undici sender's lane for long-lived streams (`subscriptions/listen`): a dispatcher of its own, apart from the
 * pooled connections that carry every other request. On a shared pool a stream opened during a burst of requests
 * waits in the pool's queue until a connection frees up, so its acknowledgement arrives after that whole queue; on
 * its own connection it is written at once. The lane has no connection cap: the push channel bounds how many streams
 * it holds open (`DEFAULT_MAX_PUSH_STREAMS`). The `fetch` sender cannot choose connections and has no such lane.
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions)
 *
 * @module
 */
import { Agent, type Dispatcher } from 'undici';

/** A dispatcher built on first use, closed with the sender that owns it. */
export interface StreamLane {
  /** The lane's dispatcher (built on the first call, with `compose` applied). */
  dispatcher(): Dispatcher;
  /** Closes the lane's connections, if it was ever used; open streams on it end. */
  close(): Promise<void>;
}

/** A {@link StreamLane}: one undici `Agent` without a connection cap, `compose` applied to it (the sender's interceptors). */
export function createStreamLane(compose: (agent: Agent) => Dispatcher): StreamLane {
  let agent: Agent | undefined;
  let composed: Dispatcher | undefined;
  return {
    dispatcher() {
      if (!composed) {
        agent = new Agent({ connections: null });
        composed = compose(agent);
      }
      return composed;
    },
    async close() {
      const open = agent;
      agent = undefined;
      composed = undefined;
      await open?.close();
    },
  };
}
