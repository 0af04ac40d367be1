/**
 * Key names of the Redis task store. One prefix per fleet; a task's id in Redis is a hash of the server identity
 * and `taskId`, so hostile ids never shape key names.
 *
 * @module
 * @internal
 */
import { createHash } from 'node:crypto';

/** The id of a task's record: 32 hex characters of SHA-256 over server identity and `taskId`. */
export function recordId(server: string, taskId: string): string {
  return createHash('sha256').update(`${server}\n${taskId}`).digest('hex').slice(0, 32);
}

/** Every key of one fleet. */
export class FleetKeys {
  constructor(readonly prefix: string) {}
  task(id: string): string {
    return `${this.prefix}:task:${id}`;
  }
  questions(id: string): string {
    return `${this.prefix}:q:${id}`;
  }
  answers(id: string): string {
    return `${this.prefix}:a:${id}`;
  }
  idempotency(server: string, key: string): string {
    return `${this.prefix}:idem:${createHash('sha256').update(`${server}\n${key}`).digest('hex').slice(0, 32)}`;
  }
  get due(): string {
    return `${this.prefix}:due`;
  }
  get tasks(): string {
    return `${this.prefix}:tasks`;
  }
  get fence(): string {
    return `${this.prefix}:fence`;
  }
  get workers(): string {
    return `${this.prefix}:workers`;
  }
  get events(): string {
    return `${this.prefix}:events`;
  }
}
