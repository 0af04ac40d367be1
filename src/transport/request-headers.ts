/**
 * The headers of one POST as a plain object with lower-case names: the caller's static headers are checked and
 * normalised once, when the transport is built, so a poll only copies them and sets the protocol headers
 * (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`, `Accept`, `Content-Type`). Protocol headers always win, and
 * `Mcp-Session-Id` is never sent. (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports#streamable-http)
 *
 * @module
 * @internal
 */
import { HEADERS, META_KEYS } from '../protocol/constants.js';
import type { JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.js';
import { encodeHeaderValue } from './header-encoding.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A header value holds tabs, visible ASCII and Latin-1; never CR, LF, NUL or code points above U+00FF.
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const ACCEPT = 'application/json, text/event-stream';
const SESSION_ID = HEADERS.sessionId.toLowerCase();
const PROTOCOL_VERSION = HEADERS.protocolVersion.toLowerCase();
const METHOD = HEADERS.method.toLowerCase();
const NAME = HEADERS.name.toLowerCase();
// The literal names of protocolOnly() below are these three (PROTOCOL_VERSION, METHOD, NAME), spelled out so that V8
// builds its objects from a boilerplate.

/** A header dictionary without a prototype, so a `__proto__` header name is just a name. */
function dict(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/**
 * Adds `headers` to `into`, lower-casing names and trimming values as `Headers` does.
 *
 * @throws TypeError naming the header when a name is not an HTTP token or a value holds CR, LF, NUL or non-Latin-1.
 */
function addChecked(into: Record<string, string>, headers: Record<string, string> | undefined): void {
  if (!headers) return;
  for (const name of Object.keys(headers)) {
    const value = String(headers[name]);
    if (!TOKEN.test(name)) throw new TypeError(`Invalid header name: ${JSON.stringify(name)}`);
    if (BAD_VALUE.test(value)) throw new TypeError(`Invalid value for header ${JSON.stringify(name)}`);
    into[name.toLowerCase()] = value.trim();
  }
}

/**
 * The caller's static headers, checked and lower-cased once.
 *
 * @throws TypeError on an invalid header name or value.
 */
export function staticHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out = dict();
  addChecked(out, headers);
  return out;
}

/** Protocol header values for one message. `undefined` leaves the header as the caller set it. */
export interface ProtocolHeaderValues {
  method: string;
  protocolVersion: string | undefined;
  /** Already encoded for a header (`=?base64?…?=` when needed). */
  name: string | undefined;
}

/** Methods whose `Mcp-Name` header is taken from a param. */
const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The protocol header values of `message`: its method, the version in its `_meta`, its encoded `Mcp-Name`. */
export function protocolHeaderValues(message: JsonRpcRequest | JsonRpcNotification): ProtocolHeaderValues {
  const params = (message.params ?? {}) as Record<string, unknown>;
  const meta = params._meta as Record<string, unknown> | undefined;
  const version = meta?.[META_KEYS.protocolVersion];
  const nameParam = NAME_PARAM[message.method];
  const name = nameParam ? params[nameParam] : undefined;
  return {
    method: message.method,
    protocolVersion: typeof version === 'string' ? version : undefined,
    name: typeof name === 'string' ? encodeHeaderValue(name) : undefined,
  };
}

function isEmpty(headers: Record<string, string> | undefined): boolean {
  for (const _ in headers) return false;
  return true;
}

/**
 * What {@link buildHeaders} gives when there are no other headers (every request of a client without `headers`,
 * `getHeaders` or param headers): the same names, values and order, as one object literal rather than names added
 * one by one to a prototype-less dictionary (which V8 keeps in slow mode). Only fixed names, so no `__proto__`.
 */
function protocolOnly(protocol: ProtocolHeaderValues): Record<string, string> {
  const version = protocol.protocolVersion;
  const name = protocol.name;
  if (version !== undefined) {
    return name !== undefined
      ? {
          'content-type': 'application/json',
          accept: ACCEPT,
          'mcp-protocol-version': version,
          'mcp-method': protocol.method,
          'mcp-name': name,
        }
      : {
          'content-type': 'application/json',
          accept: ACCEPT,
          'mcp-protocol-version': version,
          'mcp-method': protocol.method,
        };
  }
  return name !== undefined
    ? { 'content-type': 'application/json', accept: ACCEPT, 'mcp-method': protocol.method, 'mcp-name': name }
    : { 'content-type': 'application/json', accept: ACCEPT, 'mcp-method': protocol.method };
}

/**
 * The headers of one POST: static, then `dynamic` (from `getHeaders`), then per-request `extra`, then the protocol
 * headers; never `Mcp-Session-Id`.
 *
 * @throws TypeError on an invalid dynamic or extra header name or value.
 */
export function buildHeaders(
  base: Record<string, string>,
  dynamic: Record<string, string> | undefined,
  extra: Record<string, string> | undefined,
  protocol: ProtocolHeaderValues,
): Record<string, string> {
  if (isEmpty(base) && isEmpty(dynamic) && isEmpty(extra)) return protocolOnly(protocol);
  const out = dict();
  for (const name in base) out[name] = base[name] as string;
  addChecked(out, dynamic);
  addChecked(out, extra);
  out['content-type'] = 'application/json';
  out.accept = ACCEPT;
  if (protocol.protocolVersion !== undefined) out[PROTOCOL_VERSION] = protocol.protocolVersion;
  out[METHOD] = protocol.method;
  if (protocol.name !== undefined) out[NAME] = protocol.name;
  delete out[SESSION_ID];
  return out;
}
