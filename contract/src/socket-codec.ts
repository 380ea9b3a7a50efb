// The one codec of both sockets (/ws/trading/, /ws/prices/, docs/api.md#sockets): a message is a JSON
// object with a `type`, its payload's fields beside it. Each socket hands its `type → payload
// schema` map (and the wording its clients already see for a bad message) to `socketCodec`.
import type { z } from 'zod';

/** A socket's messages in one direction: `type → payload schema` (object schemas: the fields sit beside `type`). */
export type PayloadSchemas = Record<string, z.ZodType<object, object>>;

/** `type → payload` as received (after the schema's defaults). */
export type PayloadMap<S extends PayloadSchemas> = { [K in keyof S]: z.output<S[K]> };

/** `type → payload` as sent (before the schema's defaults: optional fields may be left out). */
export type PayloadInputMap<S extends PayloadSchemas> = { [K in keyof S]: z.input<S[K]> };

/** A message on the wire, `{type, ...payload}`: the union over `K` (every type by default). */
export type SocketMessage<M, K extends keyof M = keyof M> = { [T in K]: { type: T } & M[T] }[K];

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

/** What a codec answers for each kind of bad message. */
export interface SocketCodecWording {
  /** A text frame that is not JSON. */
  notJson: string;
  /** JSON that is not an object (an array, a number, a string). */
  notObject: string;
  /** An object whose `type` is missing or not a string. */
  missingType: (type: unknown) => string;
  /** A `type` the map does not hold. */
  unknownType: (type: string) => string;
  /** A payload its schema refuses; `issue` is the schema's first complaint. */
  invalidPayload: (type: string, issue: z.core.$ZodIssue | undefined) => string;
}

export interface SocketCodec<S extends PayloadSchemas> {
  readonly schemas: S;
  /** A JSON-decoded value to a typed message, or what is wrong with it. Never throws. */
  parse(value: unknown): ParseResult<SocketMessage<PayloadMap<S>>>;
  /** A text frame to a typed message: JSON first, then `parse`. Never throws. */
  decode(text: string): ParseResult<SocketMessage<PayloadMap<S>>>;
  /** The text frame of a typed message (the sender's `send<K>`). */
  encode<K extends keyof S & string>(type: K, payload: PayloadInputMap<S>[K]): string;
}

/** A message object, `{type, ...payload}` (the typed builders of each map call it). */
export function socketMessage<K extends string, P extends object>(type: K, payload: P): { type: K } & P {
  return { type, ...payload };
}

/** The codec of one message map. */
export function socketCodec<S extends PayloadSchemas>(schemas: S, wording: SocketCodecWording): SocketCodec<S> {
  type Message = SocketMessage<PayloadMap<S>>;

  function parse(value: unknown): ParseResult<Message> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: wording.notObject };
    const { type, ...payload } = value as Record<string, unknown>;
    if (typeof type !== 'string') return { ok: false, error: wording.missingType(type) };
    // Own keys only: `toString` is not a message type.
    if (!Object.hasOwn(schemas, type)) return { ok: false, error: wording.unknownType(type) };
    const parsed = (schemas[type] as z.ZodType).safeParse(payload);
    if (!parsed.success) return { ok: false, error: wording.invalidPayload(type, parsed.error.issues[0]) };
    return { ok: true, message: { type, ...(parsed.data as object) } as Message };
  }

  function decode(text: string): ParseResult<Message> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, error: wording.notJson };
    }
    return parse(value);
  }

  return {
    schemas,
    parse,
    decode,
    encode: (type, payload) => JSON.stringify(socketMessage(type, payload)),
  };
}
