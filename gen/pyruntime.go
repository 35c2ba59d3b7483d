package gen

// pyRuntime is the part of every Python binding that does not depend on the
// manifest: the reply conversion, the call protocol (as the Go binding's),
// the errors and the redis-py adapters, typed structurally so the module
// does not import redis.
const pyRuntime = `
class ErrorReply:
    """An error reply: message is the full text, code included ("ERR ...")."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return "ErrorReply(%r)" % self.message


@dataclasses.dataclass(frozen=True)
class Command:
    """One command a binding sends: name script numkeys *keys *args."""

    name: str
    script: str
    keys: List[str]
    args: List[str]
    read_only: bool

    def strings(self) -> List[str]:
        return [self.name, self.script, str(len(self.keys))] + self.keys + self.args


class Conn(Protocol):
    """Sends one command; returns an error reply as ErrorReply, raises on anything else."""

    def send(self, cmd: Command) -> object: ...


class AsyncConn(Protocol):
    """The asyncio Conn."""

    async def send(self, cmd: Command) -> object: ...


class DeclaredError:
    """An error reply a script's contract declares: err.declared is ErrX."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __repr__(self) -> str:
        return "DeclaredError(%r)" % self.prefix


class ScriptError(Exception):
    """An error reply of a script."""

    def __init__(self, script: str, reply: str, declared: Optional[DeclaredError]) -> None:
        super().__init__(script + ": " + reply)
        self.script = script
        self.reply = reply
        self.declared = declared


class ContractError(Exception):
    """A reply that does not fit the script's reply contract."""

    def __init__(self, script: str, path: str, want: str, reply: object) -> None:
        super().__init__("%s: the reply breaks its contract: reply%s: want %s (the reply: %r)" % (script, path, want, reply))
        self.script = script
        self.path = path
        self.want = want
        self.reply = reply


class CrossSlotError(Exception):
    """A call whose keys do not hash to one cluster slot, refused before sending."""

    def __init__(self, script: str, keys: List[str]) -> None:
        super().__init__("%s: keys %r do not hash to one cluster slot: give them a common hash tag such as {id}" % (script, keys))
        self.script = script
        self.keys = keys


class PlaceholderError(ValueError):
    """A value a caller's key builder refuses: one its declared placeholders
    (non_empty, pattern) exclude, or one that would break a key's hash tag."""

    def __init__(self, caller: str, placeholder: str, value: str, reason: str) -> None:
        super().__init__("caller %s: placeholder <%s> = %r %s" % (caller, placeholder, value, reason))
        self.caller = caller
        self.placeholder = placeholder
        self.value = value
        self.reason = reason


class _Mismatch(Exception):
    def __init__(self, path: str, want: str) -> None:
        super().__init__(path, want)
        self.path = path
        self.want = want


@dataclasses.dataclass(frozen=True)
class _Script:
    name: str
    sha: str
    fn: str
    read_only: bool
    idempotent: bool
    any_slot: bool
    body: str


def _decode_integer(v: object, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Mismatch(path, "integer")
    return v


def _decode_string(v: object, path: str) -> str:
    if not isinstance(v, str):
        raise _Mismatch(path, "string")
    return v


def _decode_boolean(v: object, path: str) -> bool:
    if isinstance(v, bool):
        return v
    if v == 1:
        return True
    if v is None:
        return False
    raise _Mismatch(path, "boolean")


def _decode_double(v: object, path: str) -> float:
    if isinstance(v, float):
        return v
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            pass
    raise _Mismatch(path, "double")


def _decode_any(v: object, path: str) -> object:
    return v


def _expect(v: object, path: str, want: object) -> None:
    if v != want or isinstance(v, bool) != isinstance(want, bool) or type(v) is not type(want):
        raise _Mismatch(path, repr(want))


def _array(v: object, path: str, n: int, want: str) -> List[object]:
    if not isinstance(v, list) or (n >= 0 and len(v) != n):
        raise _Mismatch(path, want)
    return v


def _key_slot(key: str) -> int:
    b = key.encode("utf-8", "surrogateescape")
    i = b.find(b"{")
    if i >= 0:
        j = b.find(b"}", i + 1)
        if j > i + 1:
            b = b[i + 1 : j]
    crc = 0
    for c in b:
        crc ^= c << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc % 16384


def _check_slot(s: _Script, keys: List[str]) -> None:
    if not s.any_slot and len(keys) > 1 and len({_key_slot(k) for k in keys}) > 1:
        raise CrossSlotError(s.name, keys)


def _commands(s: _Script, mode: str, keys: List[str], args: List[str]) -> Tuple[Command, Optional[Command]]:
    ro = "_RO" if s.read_only else ""
    if mode == "functions":
        return Command("FCALL" + ro, s.fn, keys, args, s.read_only), None
    return Command("EVALSHA" + ro, s.sha, keys, args, s.read_only), Command("EVAL" + ro, s.body, keys, args, s.read_only)


def _is_noscript(v: object) -> bool:
    return isinstance(v, ErrorReply) and (v.message == "NOSCRIPT" or v.message.startswith("NOSCRIPT "))


def _is_timeout(e: BaseException) -> bool:
    return any("Timeout" in c.__name__ for c in type(e).__mro__)


def _result(s: _Script, v: object, errs: List[DeclaredError]) -> object:
    if isinstance(v, ErrorReply):
        best: Optional[DeclaredError] = None
        for d in errs:
            if v.message.startswith(d.prefix) and (best is None or len(d.prefix) > len(best.prefix)):
                best = d
        raise ScriptError(s.name, v.message, best)
    return v


T = TypeVar("T")


def _decode(s: _Script, v: object, d: Callable[[object, str], T]) -> T:
    try:
        return d(v, "")
    except _Mismatch as m:
        raise ContractError(s.name, m.path, m.want, v) from None


class _Core:
    def __init__(self, conn: Conn, mode: str) -> None:
        self.conn = conn
        self.mode = mode

    def _send(self, s: _Script, cmd: Command) -> object:
        try:
            return self.conn.send(cmd)
        except Exception as e:
            if s.idempotent and _is_timeout(e):
                return self.conn.send(cmd)
            raise

    def call(self, s: _Script, keys: List[str], args: List[str], errs: List[DeclaredError]) -> object:
        _check_slot(s, keys)
        first, fallback = _commands(s, self.mode, keys, args)
        v = self._send(s, first)
        if fallback is not None and _is_noscript(v):
            v = self._send(s, fallback)
        return _result(s, v, errs)


class _AsyncCore:
    def __init__(self, conn: AsyncConn, mode: str) -> None:
        self.conn = conn
        self.mode = mode

    async def _send(self, s: _Script, cmd: Command) -> object:
        try:
            return await self.conn.send(cmd)
        except Exception as e:
            if s.idempotent and _is_timeout(e):
                return await self.conn.send(cmd)
            raise

    async def call(self, s: _Script, keys: List[str], args: List[str], errs: List[DeclaredError]) -> object:
        _check_slot(s, keys)
        first, fallback = _commands(s, self.mode, keys, args)
        v = await self._send(s, first)
        if fallback is not None and _is_noscript(v):
            v = await self._send(s, fallback)
        return _result(s, v, errs)


# redis-py parses an error reply's code into an exception class and drops
# the code of the ones it knows; _ERROR_CODES puts it back.
_ERROR_CODES = {
    "NoScriptError": "NOSCRIPT",
    "ReadOnlyError": "READONLY",
    "BusyLoadingError": "LOADING",
    "ExecAbortError": "EXECABORT",
    "NoPermissionError": "NOPERM",
}


def _error_text(e: BaseException) -> str:
    msg = str(e)
    code = _ERROR_CODES.get(type(e).__name__)
    if code is not None:
        return code + " " + msg
    first = msg.split(" ", 1)[0]
    if len(first) > 1 and first.upper() == first and first.replace("_", "").replace("-", "").isalnum() and not first.isdigit():
        return msg  # a code redis-py does not know, kept (WRONGTYPE ...)
    return "ERR " + msg


def _is_response_error(e: BaseException) -> bool:
    return any(c.__name__ == "ResponseError" for c in type(e).__mro__)


def _from_py(v: object) -> object:
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, list):
        return [_from_py(e) for e in v]
    if isinstance(v, BaseException):
        return ErrorReply(_error_text(v))
    return v


class _Executes(Protocol):
    def execute_command(self, *args: Any, **options: Any) -> Any: ...


class _AsyncExecutes(Protocol):
    async def execute_command(self, *args: Any, **options: Any) -> Any: ...


def _replica_for(client: object, cmd: Command) -> object:
    """The replica a _RO command goes to on a redis-py cluster client built
    with read_from_replicas=True, None otherwise (the client routes it).
    redis-py 4 does not count EVALSHA_RO, EVAL_RO and FCALL_RO among its
    read commands, so it would send them to the primary: the adapter names
    the first replica of the first key's slot (get_node_from_key)."""
    if not cmd.read_only or not cmd.keys or not getattr(client, "read_from_replicas", False):
        return None
    node_from_key = getattr(client, "get_node_from_key", None)
    if node_from_key is None:
        return None
    node: object = node_from_key(cmd.keys[0], replica=True)
    return node


class RedisPyConn:
    """Adapts a redis-py client (redis.Redis, redis.cluster.RedisCluster;
    with read_from_replicas=True, _RO commands go to a replica)."""

    def __init__(self, client: _Executes) -> None:
        self._c = client

    def send(self, cmd: Command) -> object:
        try:
            # numkeys as an int: redis-py's cluster routing reads it so.
            args = (cmd.name, cmd.script, len(cmd.keys), *cmd.keys, *cmd.args)
            node = _replica_for(self._c, cmd)
            if node is not None:
                return _from_py(self._c.execute_command(*args, target_nodes=node))
            return _from_py(self._c.execute_command(*args))
        except Exception as e:
            if _is_response_error(e):
                return ErrorReply(_error_text(e))
            raise


class AsyncRedisPyConn:
    """Adapts a redis-py asyncio client (redis.asyncio.Redis,
    redis.asyncio.cluster.RedisCluster; with read_from_replicas=True, _RO
    commands go to a replica)."""

    def __init__(self, client: _AsyncExecutes) -> None:
        self._c = client

    async def send(self, cmd: Command) -> object:
        try:
            args = (cmd.name, cmd.script, len(cmd.keys), *cmd.keys, *cmd.args)
            if cmd.read_only and getattr(self._c, "read_from_replicas", False):
                # An asyncio cluster client learns its slots on first use.
                initialize = getattr(self._c, "initialize", None)
                if initialize is not None:
                    await initialize()
            node = _replica_for(self._c, cmd)
            if node is not None:
                return _from_py(await self._c.execute_command(*args, target_nodes=node))
            return _from_py(await self._c.execute_command(*args))
        except Exception as e:
            if _is_response_error(e):
                return ErrorReply(_error_text(e))
            raise
`
