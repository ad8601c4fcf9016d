"""The provider layer of the Python SDK, run by plain CPython against the
bindings componentize-py generates from wit/ (`cargo xtask test` makes
them and runs these): the glue a provider plugin leans on, tried on the
cases a scaffold's examples do not reach."""

import sys
import unittest

from wit_world.exports import provider as wit
from wit_world.imports import types as wit_types
from componentize_py_types import Err

from amber_sdk import Manifest
from amber_sdk import provider as sdk


def batch(*events):
    """An sse-batch as the host packs it: (name, data) pairs, spans as
    UTF-8 byte ranges."""
    text, spans = b"", []
    for name, data in events:
        name_bytes = (name or "").encode()
        data_bytes = data.encode()
        spans += [len(text), len(name_bytes), len(text) + len(name_bytes), len(data_bytes)]
        text += name_bytes + data_bytes
    return wit.SseBatch(text.decode(), spans)


class Echo(sdk.Decoder):
    """Each event as text (`name:data`), but for a few that try the glue:
    `boom` raises, `stop` stops, `args` gives two pieces of one call's
    arguments and one of another's, and `one`, `str` and `none-in` return
    what is not a list of chunks."""

    def event(self, name, data):
        if data == "boom":
            raise KeyError("choices")
        if data == "stop":
            return [sdk.stop("tool-use")]
        if data == "args":
            return [sdk.tool_call_args(0, '{"a"'), sdk.tool_call_args(0, ":1}"),
                    sdk.tool_call_args(1, "{}")]
        if data == "one":
            return sdk.text("x")
        if data == "str":
            return "hi"
        if data == "none-in":
            return [sdk.text("x"), None]
        if data == "null":
            return [sdk.text(None)]
        return [sdk.text(f"{name}:" if name else ""), sdk.text(data)]

    def finish(self):
        return [sdk.usage(3, 4)]


class Chat(sdk.ProviderPlugin):
    manifest = Manifest(id="chat")
    flavors = [sdk.Flavor("chat"), sdk.Flavor("chat-keyed", auth="x-api-key")]
    decoder = Echo

    def build_request(self, req):
        if req.model == "refuse":
            raise ValueError("no such model")
        if req.model == "wrong":
            return {"path": "/x"}
        return sdk.HttpRequest(
            "POST",
            "/v1/chat",
            headers=[("x-one", "1")] if req.model == "pairs" else {"x-one": 1},
            body={"model": req.model, "text": [m.text for m in req.messages],
                  "roles": [m.role for m in req.messages],
                  "tools": [t.schema for t in req.tools]},
        )


Plugin, Provider = Chat.export()
import provider as registered  # noqa: E402  (the module export() registers)


def request(model, parts=None):
    parts = parts or [wit.Part_Text("Grüße "), wit.Part_ToolCall(wit.ToolCall("c1", "read", "{}")),
                      wit.Part_Text("✓")]
    return wit.ChatRequest(
        "chat", model, [wit.Message(wit.Role.USER, parts)],
        [wit.ToolDecl("read", "Reads.", '{"type":"object"}'), wit.ToolDecl("bad", "", "not json")],
        None, None, None,
    )


class Decoding(unittest.TestCase):
    def decoder(self):
        return registered.Decoder("chat")

    def test_events_are_cut_by_byte_spans_in_text_that_is_not_ascii(self):
        out = self.decoder().decode(batch(("delta", "Grüße"), (None, " ✓ ok")))
        self.assertEqual(out, [wit.StreamChunk_TextDelta("delta:Grüße ✓ ok")])

    def test_adjacent_text_is_joined_and_empty_text_dropped(self):
        out = self.decoder().decode(batch((None, "a"), (None, ""), (None, "stop"), (None, "b")))
        self.assertEqual(out, [wit.StreamChunk_TextDelta("a"),
                               wit.StreamChunk_Stop(wit.StopReason.TOOL_USE),
                               wit.StreamChunk_TextDelta("b")])

    def test_an_exception_in_event_becomes_an_error_chunk_and_decoding_goes_on(self):
        out = self.decoder().decode(batch((None, "boom"), (None, "after")))
        self.assertEqual(out[0], wit.StreamChunk_Error(wit.StreamError("decode", "KeyError: 'choices'", False)))
        self.assertEqual(out[1], wit.StreamChunk_TextDelta("after"))

    def test_a_span_out_of_range_cutting_a_character_or_short_is_skipped(self):
        good = batch((None, "ok"), (None, "é"))
        # Byte 3 is inside the two bytes of "é".
        bad = wit.SseBatch(good.text, good.spans[:4] + [0, 0, 1, 99] + [0, 0, 3, 1] + [0, 0])
        self.assertEqual(self.decoder().decode(bad), [wit.StreamChunk_TextDelta("ok")])

    def test_argument_pieces_of_one_call_are_joined(self):
        self.assertEqual(self.decoder().decode(batch((None, "args"))), [
            wit.StreamChunk_ToolCallDelta(wit.ToolCallDelta(0, '{"a":1}')),
            wit.StreamChunk_ToolCallDelta(wit.ToolCallDelta(1, "{}")),
        ])

    def test_what_is_not_a_list_of_chunks_is_an_error_chunk(self):
        out = self.decoder().decode(batch((None, "one"), (None, "str"), (None, "none-in")))
        self.assertEqual([c.value.message for c in out], [
            "TypeError: returned StreamChunk_TextDelta, not a list of chunks",
            "TypeError: returned str, not a list of chunks",
            "TypeError: returned NoneType among its chunks",
        ])

    def test_null_text_is_no_text(self):
        self.assertEqual(self.decoder().decode(batch((None, "null"), (None, "a"))),
                         [wit.StreamChunk_TextDelta("a")])

    def test_a_decoder_that_cannot_be_made_says_why_instead_of_trapping(self):
        class Broken(sdk.Decoder):
            def __init__(self, flavor):
                raise RuntimeError("no state")

        class Undecided(sdk.ProviderPlugin):
            manifest = Manifest(id="undecided")

        for plugin, reason in [(Chat, "RuntimeError: no state"),
                               (Undecided, "NotImplementedError: Undecided sets no decoder")]:
            saved = plugin.decoder
            try:
                if plugin is Chat:
                    Chat.decoder = Broken
                plugin.export()
                decoder = sys.modules["provider"].Decoder("chat")
            finally:
                plugin.decoder = saved
                Chat.export()
            failed = wit.StreamChunk_Error(wit.StreamError("decode", reason, False))
            self.assertEqual(decoder.decode(batch((None, "a"))), [failed])
            self.assertEqual(decoder.finish(), [failed])

    def test_finish_flushes_what_the_decoder_holds(self):
        self.assertEqual(self.decoder().finish(),
                         [wit.StreamChunk_Usage(wit.Usage(3, 4, 0, 0, 0))])

    def test_an_unknown_stop_reason_is_named(self):
        with self.assertRaisesRegex(ValueError, "unknown stop reason 'done'"):
            sdk.stop("done")


class Requests(unittest.TestCase):
    def test_the_request_reaches_the_plugin_as_plain_records(self):
        out = Provider().build_request(request("m1"))
        self.assertEqual(out.method, "POST")
        self.assertEqual(out.path, "/v1/chat")
        self.assertEqual(out.headers, [("x-one", "1")])
        # Compact JSON, UTF-8 as it is; a schema that is not JSON is an
        # open object.
        self.assertEqual(
            out.body,
            '{"model":"m1","text":["Grüße ✓"],"roles":["user"],'
            '"tools":[{"type":"object"},{"type":"object"}]}',
        )

    def test_headers_may_be_pairs(self):
        self.assertEqual(Provider().build_request(request("pairs")).headers, [("x-one", "1")])

    def test_a_refusal_and_a_wrong_return_become_the_error(self):
        with self.assertRaises(Err) as refused:
            Provider().build_request(request("refuse"))
        self.assertEqual(refused.exception.value, "ValueError: no such model")
        with self.assertRaises(Err) as wrong:
            Provider().build_request(request("wrong"))
        self.assertEqual(wrong.exception.value, "TypeError: build_request returned dict, not HttpRequest")

    def test_errors_are_classified_retryable_for_429_5xx_and_overloaded(self):
        classify = Provider().classify_error
        self.assertTrue(classify("chat", 429, "slow down").retryable)
        self.assertTrue(classify("chat", 503, "").retryable)
        self.assertTrue(classify("chat", 400, '{"type":"overloaded"}').retryable)
        refused = classify("chat", 401, "x" * 900)
        self.assertEqual((refused.retryable, len(refused.message)), (False, 500))


class Capabilities(unittest.TestCase):
    def test_each_flavor_is_a_provider_capability_with_its_auth(self):
        self.assertEqual(Plugin().capabilities(), [
            wit_types.Capability_Provider(wit_types.FlavorSpec("chat", wit_types.AuthScheme.BEARER)),
            wit_types.Capability_Provider(wit_types.FlavorSpec("chat-keyed", wit_types.AuthScheme.X_API_KEY)),
        ])

    def test_an_unknown_auth_is_named(self):
        class Odd(sdk.ProviderPlugin):
            manifest = Manifest(id="odd")
            flavors = [sdk.Flavor("odd", auth="basic")]

        with self.assertRaisesRegex(ValueError, "flavor 'odd': unknown auth 'basic'"):
            Odd().capabilities()


if __name__ == "__main__":
    unittest.main()
