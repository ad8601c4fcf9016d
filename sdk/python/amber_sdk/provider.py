"""Providers (wit/provider.wit): a wire dialect for an LLM API. The plugin
shapes each request and decodes each stream; amber owns HTTP, SSE
framing, retries, the base URL and the key, which never enters the plugin.

::

    import json
    from amber_sdk import Manifest
    from amber_sdk.provider import Decoder, Flavor, HttpRequest, ProviderPlugin, stop, text

    class ChatDecoder(Decoder):
        def event(self, name, data):
            if data == "[DONE]":
                return []
            choice = json.loads(data)["choices"][0]
            out = [text(choice["delta"].get("content") or "")]
            if choice.get("finish_reason"):
                out.append(stop("end-turn"))
            return out

    class MyChat(ProviderPlugin):
        manifest = Manifest(id="my-chat")
        flavors = [Flavor("my-chat", auth="bearer")]
        decoder = ChatDecoder

        def build_request(self, req):
            messages = [{"role": m.role, "content": m.text} for m in req.messages]
            return HttpRequest("POST", "/chat/completions",
                               body={"model": req.model, "messages": messages, "stream": True})

    Plugin, Provider = MyChat.export()

``build_request`` gets a ``ChatRequest`` of plain records (roles are
strings, parts are ``Text``, ``Reasoning``, ``ToolCall`` and ``ToolResult``,
a tool's schema a dict) and returns an ``HttpRequest``; raising refuses the
request with the exception's message. A ``Decoder`` is made per stream and
sees its events one at a time (``event(name, data)``, ``name`` None for an
unnamed event), returning the chunks each yields; the chunk functions
(``text``, ``stop``, ``usage``, ``tool_call_start`` …) build them. An
exception in ``event`` (or in making the decoder), or something returned
that is not a chunk, becomes an ``error`` chunk naming it: amber ends the
reply with that reason instead of the plugin trapping.
``classify_error`` says whether an HTTP failure is worth retrying: 429,
5xx and "overloaded" are, by default.
"""

import json
import sys
import types
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Union

from componentize_py_types import Err
from wit_world.exports import provider as _provider
from wit_world.imports import types as _types

from . import PluginBase

_AUTH = {
    "bearer": _types.AuthScheme.BEARER,
    "x-api-key": _types.AuthScheme.X_API_KEY,
    "none": _types.AuthScheme.NONE,
}

_STOP = {
    "end-turn": _provider.StopReason.END_TURN,
    "tool-use": _provider.StopReason.TOOL_USE,
    "max-tokens": _provider.StopReason.MAX_TOKENS,
    "content-filter": _provider.StopReason.CONTENT_FILTER,
    "refusal": _provider.StopReason.REFUSAL,
    "other": _provider.StopReason.OTHER,
}


@dataclass
class Flavor:
    """A wire dialect this plugin serves, named in the user's config
    (``[providers.NAME] flavor = "…"``), and how amber authenticates it:
    ``bearer``, ``x-api-key`` or ``none``."""

    name: str
    auth: str = "bearer"


# The request, as plain records.


@dataclass
class Text:
    text: str


@dataclass
class Reasoning:
    """Reasoning the vendor wants back on the next turn (Anthropic
    thinking with its signature, Responses items with encrypted content)."""

    text: str
    id: Optional[str] = None
    signature: Optional[str] = None
    encrypted: Optional[str] = None


@dataclass
class ToolCall:
    id: str
    name: str
    #: JSON text of the arguments.
    arguments: str


@dataclass
class ToolResult:
    call_id: str
    content: str
    is_error: bool = False


Part = Union[Text, Reasoning, ToolCall, ToolResult]


@dataclass
class Message:
    #: system, user, assistant or tool.
    role: str
    parts: List[Part] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The message's text parts, joined."""
        return "".join(p.text for p in self.parts if isinstance(p, Text))


@dataclass
class ToolDecl:
    name: str
    description: str
    #: The arguments' JSON Schema.
    schema: dict


@dataclass
class ChatRequest:
    flavor: str
    model: str
    messages: List[Message]
    tools: List[ToolDecl]
    max_tokens: Optional[int] = None
    temperature: Optional[float] = None
    #: The index of the last message of a prefix another request shares;
    #: a vendor that caches only marked prefixes wants a mark there.
    cache_breakpoint: Optional[int] = None


@dataclass
class HttpRequest:
    """``path`` is relative to the base URL; amber adds the base URL and
    the auth header. A dict or list ``body`` is sent as compact JSON."""

    method: str
    path: str
    headers: dict = field(default_factory=dict)
    body: Union[str, dict, list] = ""


@dataclass
class ErrorClass:
    retryable: bool
    #: What the user is told, e.g. what the vendor said.
    message: str


# The chunks a decoder yields.


# Each builder makes its values the WIT's types here, so a wrong one
# fails in the decoder's `event` (an error chunk) rather than as the chunk
# crosses back to amber (a trap).


def _optional(value) -> Optional[str]:
    return None if value is None else str(value)


def text(delta: Optional[str]):
    """A piece of the reply; None (as JSON's null) is no text."""
    return _provider.StreamChunk_TextDelta("" if delta is None else str(delta))


def reasoning(delta: str, id: Optional[str] = None, signature: Optional[str] = None,
              encrypted: Optional[str] = None):
    return _provider.StreamChunk_ReasoningDelta(_provider.Reasoning(
        _optional(id), "" if delta is None else str(delta), _optional(signature),
        _optional(encrypted),
    ))


def tool_call_start(index: int, id: str, name: str):
    return _provider.StreamChunk_ToolCallStart(
        _provider.ToolCallStart(int(index), str(id), str(name))
    )


def tool_call_args(index: int, arguments: str):
    """A piece of a call's JSON arguments; amber joins the pieces."""
    return _provider.StreamChunk_ToolCallDelta(
        _provider.ToolCallDelta(int(index), str(arguments))
    )


def tool_call_end(index: int):
    return _provider.StreamChunk_ToolCallEnd(int(index))


def usage(input_tokens: int, output_tokens: int, cached_input_tokens: int = 0,
          cache_write_tokens: int = 0, reasoning_tokens: int = 0):
    return _provider.StreamChunk_Usage(_provider.Usage(
        int(input_tokens), int(output_tokens), int(cached_input_tokens),
        int(cache_write_tokens), int(reasoning_tokens),
    ))


def stop(reason: str):
    """``reason``: end-turn, tool-use, max-tokens, content-filter, refusal
    or other."""
    if reason not in _STOP:
        raise ValueError(f"unknown stop reason {reason!r}: use one of {sorted(_STOP)}")
    return _provider.StreamChunk_Stop(_STOP[reason])


def error(kind: str, message: str, retryable: bool = False):
    return _provider.StreamChunk_Error(_provider.StreamError(str(kind), str(message), bool(retryable)))


_CHUNKS = (
    _provider.StreamChunk_TextDelta, _provider.StreamChunk_ReasoningDelta,
    _provider.StreamChunk_ToolCallStart, _provider.StreamChunk_ToolCallDelta,
    _provider.StreamChunk_ToolCallEnd, _provider.StreamChunk_Usage,
    _provider.StreamChunk_Stop, _provider.StreamChunk_Error,
)


class Decoder:
    """Decoding state for one stream: amber makes one per response."""

    def __init__(self, flavor: str):
        self.flavor = flavor

    def event(self, name: Optional[str], data: str) -> Iterable:
        """The chunks one event yields; none by default."""
        return []

    def finish(self) -> Iterable:
        """The stream ended: the chunks still buffered; none by default."""
        return []


class ProviderPlugin(PluginBase):
    """Set ``flavors`` and ``decoder`` (a ``Decoder`` subclass), and
    override ``build_request``."""

    flavors: List[Flavor] = []
    decoder = None

    def build_request(self, req: ChatRequest) -> HttpRequest:
        raise NotImplementedError(f"{type(self).__name__} does not implement build_request()")

    def new_decoder(self, flavor: str) -> Decoder:
        """The decoder of one stream; ``decoder(flavor)`` by default."""
        if self.decoder is None:
            raise NotImplementedError(f"{type(self).__name__} sets no decoder")
        return self.decoder(flavor)

    def classify_error(self, flavor: str, status: int, body: str) -> ErrorClass:
        return ErrorClass(status == 429 or status >= 500 or "overloaded" in body, body[:500])

    def capabilities(self) -> list:
        out = []
        for f in self.flavors:
            if f.auth not in _AUTH:
                raise ValueError(
                    f"flavor {f.name!r}: unknown auth {f.auth!r}: use one of {sorted(_AUTH)}"
                )
            out.append(_types.Capability_Provider(_types.FlavorSpec(f.name, _AUTH[f.auth])))
        return out

    @classmethod
    def export(cls):
        """``Plugin, Provider = MyProvider.export()`` at the end of the app
        module."""
        owner = cls

        class Provider:
            def build_request(self, req):
                try:
                    out = owner.instance().build_request(_request(req))
                    return _http_request(out)
                except Exception as e:
                    raise Err(f"{type(e).__name__}: {e}")

            def classify_error(self, flavor: str, status: int, body: str):
                try:
                    c = owner.instance().classify_error(flavor, status, body)
                    return _provider.ErrorClass(bool(c.retryable), str(c.message))
                except Exception as e:
                    return _provider.ErrorClass(False, f"{type(e).__name__}: {e}")

        class Decoder:
            def __init__(self, flavor: str):
                # The WIT constructor cannot fail: a decoder that cannot be
                # made says why in the first chunk it is asked for.
                self.inner, self.failed = None, None
                try:
                    self.inner = owner.instance().new_decoder(flavor)
                except Exception as e:
                    self.failed = error("decode", f"{type(e).__name__}: {e}")

            def decode(self, batch):
                if self.failed:
                    return [self.failed]
                out = []
                for name, data in _events(batch):
                    _collect(out, lambda: self.inner.event(name, data))
                return out

            def finish(self):
                if self.failed:
                    return [self.failed]
                out = []
                _collect(out, self.inner.finish)
                return out

        # componentize-py finds an exported resource's class in the module
        # named after its interface (`provider.Decoder`); there is no such
        # file, so the SDK registers one. (A plugin's own module must not
        # be named `provider`.)
        module = types.ModuleType("provider")
        module.Decoder = Decoder
        sys.modules["provider"] = module
        return cls.plugin_export(), Provider


def _events(batch):
    """(name, data) for each event of a batch: spans are byte ranges into
    the UTF-8 text, four numbers an event, a name of length 0 none. A
    short span, one out of range or one that cuts a character is skipped,
    as the Rust SDK does (amber never sends one)."""
    raw = batch.text if batch.text.isascii() else batch.text.encode()
    ascii_text = isinstance(raw, str)
    spans = batch.spans

    def piece(start, length):
        s = raw[start:start + length]
        return s if ascii_text else s.decode()

    for at in range(0, len(spans) - 3, 4):
        ns, nl, ds, dl = spans[at:at + 4]
        if ns + nl > len(raw) or ds + dl > len(raw):
            continue
        try:
            name, data = (piece(ns, nl) if nl else None), piece(ds, dl)
        except UnicodeDecodeError:
            continue
        yield name, data


def _collect(out: list, produce) -> None:
    """Appends what ``produce`` returns, joining adjacent text deltas and
    adjacent argument pieces of one call, as the Rust SDK does (fewer
    chunks cross back). An exception, or anything that is not a chunk,
    becomes an error chunk."""
    try:
        chunks = produce()
        if chunks is None:
            chunks = []
        elif isinstance(chunks, _CHUNKS) or isinstance(chunks, (str, bytes)):
            raise TypeError(f"returned {type(chunks).__name__}, not a list of chunks")
        chunks = list(chunks)
        for chunk in chunks:
            if not isinstance(chunk, _CHUNKS):
                raise TypeError(f"returned {type(chunk).__name__} among its chunks")
    except Exception as e:
        chunks = [error("decode", f"{type(e).__name__}: {e}")]
    for chunk in chunks:
        last = out[-1] if out else None
        if isinstance(chunk, _provider.StreamChunk_TextDelta):
            if not chunk.value:
                continue
            if isinstance(last, _provider.StreamChunk_TextDelta):
                out[-1] = _provider.StreamChunk_TextDelta(last.value + chunk.value)
                continue
        if (isinstance(chunk, _provider.StreamChunk_ToolCallDelta)
                and isinstance(last, _provider.StreamChunk_ToolCallDelta)
                and last.value.index == chunk.value.index):
            out[-1] = tool_call_args(last.value.index, last.value.arguments + chunk.value.arguments)
            continue
        out.append(chunk)


def _part(p):
    if isinstance(p, _provider.Part_Text):
        return Text(p.value)
    if isinstance(p, _provider.Part_Reasoning):
        r = p.value
        return Reasoning(r.text, r.id, r.signature, r.encrypted)
    if isinstance(p, _provider.Part_ToolCall):
        return ToolCall(p.value.id, p.value.name, p.value.arguments)
    r = p.value
    return ToolResult(r.call_id, r.content, r.is_error)


def _schema(text: str) -> dict:
    try:
        return json.loads(text)
    except ValueError:
        return {"type": "object"}


def _request(req) -> ChatRequest:
    return ChatRequest(
        flavor=req.flavor,
        model=req.model,
        messages=[Message(m.role.name.lower(), [_part(p) for p in m.parts]) for m in req.messages],
        tools=[ToolDecl(t.name, t.description, _schema(t.input_schema)) for t in req.tools],
        max_tokens=req.max_tokens,
        temperature=req.temperature,
        cache_breakpoint=req.cache_breakpoint,
    )


def _http_request(r: HttpRequest):
    if not isinstance(r, HttpRequest):
        raise TypeError(f"build_request returned {type(r).__name__}, not HttpRequest")
    body = r.body if isinstance(r.body, str) else json.dumps(r.body, separators=(",", ":"), ensure_ascii=False)
    headers = r.headers.items() if isinstance(r.headers, dict) else r.headers
    return _provider.HttpRequest(
        str(r.method), str(r.path), [(str(k), str(v)) for k, v in headers], str(body)
    )
