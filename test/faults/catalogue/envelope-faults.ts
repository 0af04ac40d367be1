/**
 * Faults in the JSON-RPC envelope: a response id of the other type (`"7"` for `7`, `7` for `"7"`), or an id that
 * belongs to no request. (JSON-RPC 2.0 § Response object: the id MUST be the request's)
 *
 * @module
 */
import type { Fault } from './fault.js';
import { jsonReply } from './wire-reply.js';

function rewriteId(name: string, change: (id: unknown) => unknown): Fault {
  return {
    name,
    async reply(_request, next) {
      const honest = await next();
      if (
        honest.kind !== 'json' ||
        honest.body === null ||
        typeof honest.body !== 'object' ||
        !('id' in honest.body)
      )
        return honest;
      const body = honest.body as { id: unknown };
      return jsonReply({ ...body, id: change(body.id) }, honest.status, honest.headers);
    },
  };
}

/** Echoes a number id as a string and a numeric-looking string id as a number. */
export function idTypeSwapped(): Fault {
  return rewriteId('id of the other JSON type', (id) =>
    typeof id === 'number' ? String(id) : typeof id === 'string' && /^-?\d+$/.test(id) ? Number(id) : id,
  );
}

/** Answers with an id that matches no request (`id + 1000`, or `"<id>-other"` for string ids). */
export function mismatchedId(): Fault {
  return rewriteId('response id does not match', (id) =>
    typeof id === 'number' ? id + 1000 : `${String(id)}-other`,
  );
}
