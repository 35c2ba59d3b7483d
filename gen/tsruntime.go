package gen

// tsRuntime is the part of every TypeScript binding that does not depend on
// the manifest: the reply value, the connection interface, the call
// protocol (as the Go binding's) and the errors, then the adapters for
// ioredis and node-redis, typed structurally so the binding imports
// neither.
const tsRuntime = `
/** One reply as a Conn returns it; an error reply is an ErrorReply. */
export type Reply = null | number | string | boolean | ErrorReply | Reply[];

/** An error reply: message is the full text, code included ("ERR ..."). */
export class ErrorReply {
  constructor(readonly message: string) {}
}

/** One command a binding sends: name script numkeys ...keys ...args. */
export interface Command {
  name: string;
  script: string;
  keys: string[];
  args: string[];
  readOnly: boolean;
}

/** Sends one command; resolves error replies as ErrorReply, rejects on everything else. */
export interface Conn {
  send(cmd: Command): Promise<Reply>;
}

/** How a Client calls the scripts. */
export type Mode = "scripts" | "functions";

/** An error reply a script's contract declares: err.declared === ErrX. */
export class DeclaredError {
  constructor(readonly prefix: string) {}
}

/** An error reply of a script. */
export class ScriptError extends Error {
  constructor(readonly script: string, readonly reply: string, readonly declared: DeclaredError | undefined) {
    super(script + ": " + reply);
    this.name = "ScriptError";
  }
}

/** A reply that does not fit the script's reply contract. */
export class ContractError extends Error {
  constructor(readonly script: string, readonly path: string, readonly want: string, readonly reply: Reply) {
    super(script + ": the reply breaks its contract: reply" + path + ": want " + want);
    this.name = "ContractError";
  }
}

/** A call whose keys do not hash to one cluster slot, refused before sending. */
export class CrossSlotError extends Error {
  constructor(readonly script: string, readonly keys: string[]) {
    super(script + ": keys do not hash to one cluster slot: give them a common hash tag such as {id}");
    this.name = "CrossSlotError";
  }
}

/**
 * A value a caller's key builder refuses: one its declared placeholders
 * (non_empty, pattern) exclude, or one that would break a key's hash tag.
 */
export class PlaceholderError extends Error {
  constructor(readonly caller: string, readonly placeholder: string, readonly value: string, readonly reason: string) {
    super("caller " + caller + ": placeholder <" + placeholder + "> = " + JSON.stringify(value) + " " + reason);
    this.name = "PlaceholderError";
  }
}

class Mismatch extends Error {
  constructor(readonly path: string, readonly want: string) {
    super("reply" + path + ": want " + want);
  }
}

interface Script {
  name: string;
  sha: string;
  body: string;
  fn: string;
  readOnly: boolean;
  idempotent: boolean;
  anySlot: boolean;
}

function decodeInteger(v: Reply, path: string): number {
  if (typeof v !== "number") throw new Mismatch(path, "integer");
  return v;
}

function decodeString(v: Reply, path: string): string {
  if (typeof v !== "string") throw new Mismatch(path, "string");
  return v;
}

function decodeBoolean(v: Reply, path: string): boolean {
  if (typeof v === "boolean") return v;
  if (v === 1) return true;
  if (v === null) return false;
  throw new Mismatch(path, "boolean");
}

function decodeDouble(v: Reply, path: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v))) return Number(v);
  throw new Mismatch(path, "double");
}

function decodeAny(v: Reply, _path: string): Reply {
  return v;
}

function expect(v: Reply, path: string, want: number | string | null): void {
  if (v !== want) throw new Mismatch(path, JSON.stringify(want));
}

function arrayOf(v: Reply, path: string, n: number, want: string): Reply[] {
  if (!Array.isArray(v) || (n >= 0 && v.length !== n)) throw new Mismatch(path, want);
  return v;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && /timed? ?out/i.test(err.message);
}

function keySlot(key: string): number {
  const bytes = new TextEncoder().encode(key);
  let start = 0;
  let end = bytes.length;
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) {
      start = open + 1;
      end = close;
    }
  }
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i] << 8;
    for (let b = 0; b < 8; b++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc % 16384;
}

class Core {
  constructor(readonly conn: Conn, readonly mode: Mode) {}

  async call(s: Script, keys: string[], args: string[], errs: DeclaredError[]): Promise<Reply> {
    if (!s.anySlot && keys.length > 1) {
      const first = keySlot(keys[0]);
      if (keys.some((k) => keySlot(k) !== first)) throw new CrossSlotError(s.name, keys);
    }
    let v: Reply;
    if (this.mode === "functions") {
      v = await this.send(s, { name: s.readOnly ? "FCALL_RO" : "FCALL", script: s.fn, keys, args, readOnly: s.readOnly });
    } else {
      v = await this.send(s, { name: s.readOnly ? "EVALSHA_RO" : "EVALSHA", script: s.sha, keys, args, readOnly: s.readOnly });
      if (v instanceof ErrorReply && (v.message === "NOSCRIPT" || v.message.startsWith("NOSCRIPT "))) {
        v = await this.send(s, { name: s.readOnly ? "EVAL_RO" : "EVAL", script: s.body, keys, args, readOnly: s.readOnly });
      }
    }
    if (v instanceof ErrorReply) {
      let best: DeclaredError | undefined;
      for (const d of errs) {
        if (v.message.startsWith(d.prefix) && (best === undefined || d.prefix.length > best.prefix.length)) best = d;
      }
      throw new ScriptError(s.name, v.message, best);
    }
    return v;
  }

  private async send(s: Script, cmd: Command): Promise<Reply> {
    try {
      return await this.conn.send(cmd);
    } catch (err) {
      if (s.idempotent && isTimeout(err)) return await this.conn.send(cmd);
      throw err;
    }
  }
}

function decode<T>(s: Script, v: Reply, d: (v: Reply, path: string) => T): T {
  try {
    return d(v, "");
  } catch (err) {
    if (err instanceof Mismatch) throw new ContractError(s.name, err.path, err.want, v);
    throw err;
  }
}

function fromJS(v: unknown): Reply {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Error) return new ErrorReply(v.message);
  if (Array.isArray(v)) return v.map(fromJS);
  return String(v);
}

function isReplyError(err: unknown): err is Error {
  return err instanceof Error && (err.name === "ReplyError" || err.constructor.name === "ErrorReply");
}

/** What ioredisConn needs of an ioredis Redis or Cluster. */
export interface IORedisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** Adapts an ioredis client (Redis or Cluster; a Cluster with scaleReads "slave" sends the _RO commands to replicas). */
export function ioredisConn(c: IORedisLike): Conn {
  return {
    async send(cmd: Command): Promise<Reply> {
      try {
        // Lowercase: an ioredis Cluster looks the name up case-sensitively
        // in its command table, and sends only commands it finds flagged
        // readonly (EVALSHA_RO, EVAL_RO, FCALL_RO) to replicas.
        return fromJS(await c.call(cmd.name.toLowerCase(), cmd.script, String(cmd.keys.length), ...cmd.keys, ...cmd.args));
      } catch (err) {
        if (isReplyError(err)) return new ErrorReply(err.message);
        throw err;
      }
    },
  };
}

/** What nodeRedisConn needs of a node-redis client. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
}

/** What nodeRedisClusterConn needs of a node-redis cluster. */
export interface NodeRedisClusterLike {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
}

function commandArgs(cmd: Command): string[] {
  return [cmd.name, cmd.script, String(cmd.keys.length), ...cmd.keys, ...cmd.args];
}

/** Adapts a node-redis client (createClient). */
export function nodeRedisConn(c: NodeRedisLike): Conn {
  return {
    async send(cmd: Command): Promise<Reply> {
      try {
        return fromJS(await c.sendCommand(commandArgs(cmd)));
      } catch (err) {
        if (isReplyError(err)) return new ErrorReply(err.message);
        throw err;
      }
    },
  };
}

/** Adapts a node-redis cluster (createCluster): _RO commands are sent read-only. */
export function nodeRedisClusterConn(c: NodeRedisClusterLike): Conn {
  return {
    async send(cmd: Command): Promise<Reply> {
      try {
        return fromJS(await c.sendCommand(cmd.keys[0], cmd.readOnly, commandArgs(cmd)));
      } catch (err) {
        if (isReplyError(err)) return new ErrorReply(err.message);
        throw err;
      }
    },
  };
}
`
