"""HTTP for a plugin granted ``http`` (docs/permissions.md): a small
blocking client over the standard ``wasi:http/outgoing-handler``, the
same as the Rust SDK's ``amber_sdk::http``. Python's own ``urllib`` has no
sockets inside a component.

The plugin's ``amber-plugin.toml`` says ``http = true`` so that
``amber plugin build`` gives the component the wasi:http bindings this
module imports. The host does the rest: it checks every request and
redirect against the grant, follows redirects (five at most), adds the
secret headers config binds to a host, caps the time and the size, and
logs each request in the plugin's log::

    from amber_sdk import http

    page = http.get("https://api.example.com/v1/items")
    if not page.ok:
        raise Failed(f"the API answered HTTP {page.status}")
    items = page.json()
"""

import json
from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple

from componentize_py_types import Err

try:
    from wit_world.imports import http_types as _http
    from wit_world.imports import outgoing_handler as _handler
    from wit_world.imports import streams as _streams
except ImportError:
    # Built without wasi:http: say the one line that fixes it, at build
    # time (componentize-py runs the app's imports while it builds).
    raise ImportError(
        "amber_sdk.http needs `http = true` under [plugin] in amber-plugin.toml: "
        "the build then gives the component wasi:http (docs/sdk-python.md)"
    ) from None

#: The body read at most unless a request says otherwise (the host caps
#: it too, at ``[limits] http_response_mib``).
DEFAULT_MAX_BYTES = 8 * 1024 * 1024

_CHUNK = 64 * 1024


class HttpError(Exception):
    """What a request did not get, in words a model or a person can act
    on. ``kind`` is one of ``bad-url``, ``refused`` (amber refused it before
    sending: not granted, a private address, plain http; the plugin's log
    says which), ``failed`` (sent and failed: DNS, a connection, a
    timeout, a cap) and ``body`` (a body that is not what was asked for)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class Response:
    """A response, its body read whole (up to the request's cap)."""

    url: str
    status: int
    #: Names in lowercase, in the order received.
    headers: List[Tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    #: The body went on past the cap and was cut there.
    truncated: bool = False

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300

    def header(self, name: str) -> Optional[str]:
        """The first header named ``name`` (any case)."""
        name = name.lower()
        return next((v for n, v in self.headers if n == name), None)

    def text(self) -> str:
        """The body as text (bytes that are not UTF-8 shown as U+FFFD)."""
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The body as JSON."""
        try:
            return json.loads(self.body)
        except ValueError as e:
            raise HttpError("body", f"the response from {self.url} is not JSON: {e}") from None


def request(
    method: str,
    url: str,
    headers: Optional[List[Tuple[str, str]]] = None,
    body: Optional[bytes] = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Response:
    """Sends one request and reads its response."""
    scheme, authority, path = split(url)
    fields = _http.Fields()
    for name, value in headers or []:
        try:
            fields.append(name, value.encode())
        except Err as e:
            raise HttpError("refused", f"the request to {url} was refused by amber: the header `{name}` ({e.value})") from None
    outgoing = _http.OutgoingRequest(fields)
    try:
        outgoing.set_method(_method(method))
        outgoing.set_scheme(scheme)
        outgoing.set_authority(authority)
        outgoing.set_path_with_query(path)
        outgoing_body = outgoing.body()
    except Err:
        raise HttpError("bad-url", f"`{url}` is not an http(s) URL") from None
    try:
        pending = _handler.handle(outgoing, None)
    except Err as e:
        raise HttpError(
            "refused",
            f"the request to {url} was refused by amber: {describe(e.value)} "
            "(the plugin's log says why; `amber plugin info` shows the grant)",
        ) from None
    _write_body(url, outgoing_body, body)
    pending.subscribe().block()
    answer = pending.get()
    if answer is None or isinstance(answer, Err) or isinstance(answer.value, Err):
        code = answer.value.value if answer is not None and not isinstance(answer, Err) else None
        why = describe(code) if code is not None else "no response"
        raise HttpError("failed", f"the request to {url} failed: {why}")
    response = answer.value.value
    status = response.status()
    got = [(n.lower(), v.decode("utf-8", errors="replace")) for n, v in response.headers().entries()]
    data, truncated = _read_body(url, response, max_bytes)
    return Response(url=url, status=status, headers=got, body=data, truncated=truncated)


def get(url: str, headers: Optional[List[Tuple[str, str]]] = None, max_bytes: int = DEFAULT_MAX_BYTES) -> Response:
    """``GET url``."""
    return request("GET", url, headers=headers, max_bytes=max_bytes)


def post_json(
    url: str,
    value: Any,
    headers: Optional[List[Tuple[str, str]]] = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Response:
    """``POST url`` with ``value`` as its JSON body."""
    return request(
        "POST",
        url,
        headers=[("content-type", "application/json")] + list(headers or []),
        body=json.dumps(value).encode(),
        max_bytes=max_bytes,
    )


def split(url: str):
    """A URL's scheme (as wasi:http has it), authority and path with
    query; ``HttpError`` for anything but an ``http(s)://`` URL with a
    host and no user info."""
    scheme, sep, rest = url.partition("://")
    schemes = {"http": _http.Scheme_Http(), "https": _http.Scheme_Https()}
    if not sep or scheme.lower() not in schemes:
        raise HttpError("bad-url", f"`{url}` is not an http(s) URL")
    rest = rest.split("#", 1)[0]
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, path = rest[:cut], rest[cut:]
    if not authority or "@" in authority:
        raise HttpError("bad-url", f"`{url}` is not an http(s) URL")
    return schemes[scheme.lower()], authority, path or "/"


def _method(name: str):
    known = {
        "GET": _http.Method_Get,
        "HEAD": _http.Method_Head,
        "POST": _http.Method_Post,
        "PUT": _http.Method_Put,
        "DELETE": _http.Method_Delete,
        "OPTIONS": _http.Method_Options,
        "PATCH": _http.Method_Patch,
    }
    upper = name.upper()
    return known[upper]() if upper in known else _http.Method_Other(name)


def _write_body(url: str, outgoing_body, data: Optional[bytes]) -> None:
    try:
        if data:
            stream = outgoing_body.write()
            try:
                for at in range(0, len(data), 4096):
                    stream.blocking_write_and_flush(data[at : at + 4096])
            finally:
                # The stream goes before the body is finished.
                stream.__exit__(None, None, None)
        _http.OutgoingBody.finish(outgoing_body, None)
    except Err as e:
        why = describe(e.value) if e.value is not None else "no request body stream"
        raise HttpError("failed", f"the request to {url} failed: the body could not be sent ({why})") from None


def _read_body(url: str, response, max_bytes: int):
    try:
        incoming = response.consume()
        stream = incoming.stream()
    except Err:
        raise HttpError("failed", f"the request to {url} failed: no body") from None
    data = bytearray()
    truncated = False
    # The stream is the body's child: it goes first, on every path, or
    # the host traps when the body is dropped.
    try:
        while True:
            try:
                data += stream.blocking_read(_CHUNK)
            except Err as e:
                if isinstance(e.value, _streams.StreamError_Closed):
                    break
                why = e.value.value.to_debug_string()
                raise HttpError("failed", f"the request to {url} failed: {why}") from None
            if len(data) > max_bytes:
                del data[max_bytes:]
                truncated = True
                break
    finally:
        stream.__exit__(None, None, None)
    return bytes(data), truncated


def describe(code) -> str:
    """A wasi:http error code as the words it means."""
    if isinstance(code, _http.ErrorCode_HttpRequestDenied):
        return "the request was denied"
    if isinstance(code, _http.ErrorCode_DnsError):
        return f"the name did not resolve ({code.value.rcode or ''})"
    if isinstance(code, _http.ErrorCode_ConnectionRefused):
        return "the connection was refused"
    if isinstance(code, (_http.ErrorCode_ConnectionTimeout, _http.ErrorCode_ConnectionReadTimeout)):
        return "it timed out"
    if isinstance(code, _http.ErrorCode_HttpResponseBodySize):
        return "the response was over the size cap"
    if isinstance(code, _http.ErrorCode_InternalError) and code.value:
        return code.value
    return type(code).__name__.replace("ErrorCode_", "")
