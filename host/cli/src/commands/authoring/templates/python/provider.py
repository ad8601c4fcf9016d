"""{{id}}: an amber provider plugin in Python: a wire dialect for an
OpenAI-style chat API, text only (no tools, no reasoning). amber owns HTTP,
the base URL and the key; this shapes the request and decodes the stream."""

import json

from amber_sdk import Manifest
from amber_sdk.provider import Decoder, Flavor, HttpRequest, ProviderPlugin, error, stop, text

_FINISH = {"stop": "end-turn", "length": "max-tokens"}


class Chat(Decoder):
    """Decodes `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}`."""

    def event(self, name, data):
        if data == "[DONE]":
            return []
        try:
            event = json.loads(data)
        except ValueError:
            return [error("decode", f"not JSON: {data}")]
        # A usage-only event has no choices.
        choice = (event.get("choices") or [{}])[0]
        out = [text((choice.get("delta") or {}).get("content") or "")]
        finish = choice.get("finish_reason")
        if finish:
            out.append(stop(_FINISH.get(finish, "other")))
        return out


class {{Camel}}(ProviderPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="An OpenAI-style chat dialect.")
    flavors = [Flavor("{{id}}", auth="bearer")]
    decoder = Chat

    def build_request(self, req):
        messages = [{"content": m.text, "role": m.role} for m in req.messages]
        return HttpRequest(
            "POST",
            "/chat/completions",
            headers={"content-type": "application/json"},
            body={"messages": messages, "model": req.model, "stream": True},
        )


# componentize-py looks for these two classes in this module.
Plugin, Provider = {{Camel}}.export()
