// The provider layer of the JavaScript SDK, run by node (`cargo xtask
// test` runs `node --test sdk/js/tests`): the glue a provider plugin leans
// on, tried on the cases a scaffold's examples do not reach.
import { test } from "node:test";
import assert from "node:assert/strict";

import { loadSdk } from "./load-sdk.mjs";

const { defineProvider, chunk } = await loadSdk();

/** An sse-batch as the host packs it: [name, data] pairs, spans as UTF-8
 * byte ranges in a Uint32Array, as componentize-js hands it over. */
function batch(...events) {
  const encoder = new TextEncoder();
  let text = "";
  let at = 0;
  const spans = [];
  for (const [name, data] of events) {
    const n = encoder.encode(name || "").length;
    const d = encoder.encode(data).length;
    spans.push(at, n, at + n, d);
    text += (name || "") + data;
    at += n + d;
  }
  return { text, spans: Uint32Array.from(spans) };
}

class Echo {
  constructor(flavor) {
    this.flavor = flavor;
  }
  event(name, data) {
    if (data === "boom") throw new TypeError("choices is undefined");
    if (data === "stop") return [chunk.stop("tool-use")];
    if (data === "flavor") return [chunk.text(this.flavor)];
    if (data === "args") return [chunk.toolCallArgs(0, '{"a"'), chunk.toolCallArgs(0, ":1}"), chunk.toolCallArgs(1, "{}")];
    if (data === "one") return chunk.text("x");
    if (data === "str") return "hi";
    if (data === "null-in") return [chunk.text("x"), null];
    if (data === "null") return [chunk.text(null), chunk.text(undefined)];
    if (data === "done") return [chunk.stop("done")];
    if (data === "generator") {
      return (function* () {
        yield chunk.text("x");
        throw new Error("halfway");
      })();
    }
    return [chunk.text(name ? `${name}:` : ""), chunk.text(data)];
  }
  finish() {
    return [chunk.usage({ inputTokens: 3, outputTokens: 4 })];
  }
}

const { plugin, provider } = defineProvider({
  manifest: { id: "chat" },
  flavors: [{ name: "chat" }, { name: "chat-keyed", auth: "x-api-key" }],
  decoder: Echo,
  buildRequest(req) {
    if (req.model === "refuse") throw new Error("no such model");
    if (req.model === "wrong") return "POST /x";
    return {
      path: "/v1/chat",
      headers: req.model === "pairs" ? [["x-one", 1]] : { "x-one": 1 },
      body: {
        model: req.model,
        text: req.messages.map((m) => m.text),
        roles: req.messages.map((m) => m.role),
        tools: req.tools.map((t) => t.schema),
      },
    };
  },
});

const request = (model) => ({
  flavor: "chat",
  model,
  messages: [
    {
      role: "user",
      parts: [
        { tag: "text", val: "Grüße " },
        { tag: "tool-call", val: { id: "c1", name: "read", arguments: "{}" } },
        { tag: "text", val: "✓" },
      ],
    },
  ],
  tools: [
    { name: "read", description: "Reads.", inputSchema: '{"type":"object"}' },
    { name: "bad", description: "", inputSchema: "not json" },
  ],
  maxTokens: undefined,
  temperature: undefined,
  cacheBreakpoint: undefined,
});

test("events are cut by byte spans in text that is not ASCII", () => {
  const out = new provider.Decoder("chat").decode(batch(["delta", "Grüße"], [undefined, " ✓ ok"]));
  assert.deepEqual(out, [{ tag: "text-delta", val: "delta:Grüße ✓ ok" }]);
});

test("the decoder class gets the flavor", () => {
  assert.deepEqual(new provider.Decoder("chat-keyed").decode(batch([undefined, "flavor"])), [
    { tag: "text-delta", val: "chat-keyed" },
  ]);
});

test("adjacent text is joined and empty text dropped", () => {
  const out = new provider.Decoder("chat").decode(
    batch([undefined, "a"], [undefined, ""], [undefined, "stop"], [undefined, "b"]),
  );
  assert.deepEqual(out, [
    { tag: "text-delta", val: "a" },
    { tag: "stop", val: "tool-use" },
    { tag: "text-delta", val: "b" },
  ]);
});

test("an exception in event becomes an error chunk and decoding goes on", () => {
  const out = new provider.Decoder("chat").decode(batch([undefined, "boom"], [undefined, "after"]));
  assert.deepEqual(out, [
    { tag: "error", val: { kind: "decode", message: "choices is undefined", retryable: false } },
    { tag: "text-delta", val: "after" },
  ]);
});

test("a span out of range, cutting a character, or short is skipped", () => {
  const good = batch([undefined, "ok"], [undefined, "é"]);
  // Byte 3 is inside the two bytes of "é".
  const spans = [...good.spans.slice(0, 4), 0, 0, 1, 99, 0, 0, 3, 1, 0, 0];
  const bad = { text: good.text, spans: Uint32Array.from(spans) };
  assert.deepEqual(new provider.Decoder("chat").decode(bad), [{ tag: "text-delta", val: "ok" }]);
});

test("argument pieces of one call are joined", () => {
  assert.deepEqual(new provider.Decoder("chat").decode(batch([undefined, "args"])), [
    { tag: "tool-call-delta", val: { index: 0, arguments: '{"a":1}' } },
    { tag: "tool-call-delta", val: { index: 1, arguments: "{}" } },
  ]);
});

test("what is not a list of chunks, or a stop reason the WIT lacks, is an error chunk", () => {
  const out = new provider.Decoder("chat").decode(
    batch([undefined, "one"], [undefined, "str"], [undefined, "null-in"], [undefined, "done"], [undefined, "generator"]),
  );
  assert.deepEqual(
    out.map((c) => c.val.message),
    [
      "returned one chunk, not a list of chunks",
      "returned string, not a list of chunks",
      "returned null among its chunks",
      'unknown stop reason "done": use one of end-turn, tool-use, max-tokens, content-filter, refusal, other',
      "halfway",
    ],
  );
});

test("null text is no text", () => {
  assert.deepEqual(new provider.Decoder("chat").decode(batch([undefined, "null"], [undefined, "a"])), [
    { tag: "text-delta", val: "a" },
  ]);
});

test("a decoder that cannot be made says why instead of trapping", () => {
  class Broken {
    constructor() {
      throw new Error("no state");
    }
  }
  for (const [decoder, reason] of [
    [Broken, "no state"],
    [undefined, "the provider defines no decoder"],
  ]) {
    const { provider: p } = defineProvider({ manifest: { id: "x" }, decoder });
    const d = new p.Decoder("x");
    const failed = { tag: "error", val: { kind: "decode", message: reason, retryable: false } };
    assert.deepEqual(d.decode(batch([undefined, "a"])), [failed]);
    assert.deepEqual(d.finish(), [failed]);
  }
});

test("finish flushes what the decoder holds, token counts as u64", () => {
  assert.deepEqual(new provider.Decoder("chat").finish(), [
    {
      tag: "usage",
      val: { inputTokens: 3n, outputTokens: 4n, cachedInputTokens: 0n, cacheWriteTokens: 0n, reasoningTokens: 0n },
    },
  ]);
});

test("the request reaches the plugin with each message's text and each tool's schema", () => {
  const out = provider.buildRequest(request("m1"));
  assert.deepEqual(out, {
    method: "POST",
    path: "/v1/chat",
    headers: [["x-one", "1"]],
    body: '{"model":"m1","text":["Grüße ✓"],"roles":["user"],"tools":[{"type":"object"},{"type":"object"}]}',
  });
  assert.deepEqual(provider.buildRequest(request("pairs")).headers, [["x-one", "1"]]);
});

test("a refusal and a wrong return are thrown as the WIT error", () => {
  assert.throws(() => provider.buildRequest(request("refuse")), { payload: "no such model" });
  assert.throws(() => provider.buildRequest(request("wrong")), {
    payload: "buildRequest must return { method, path, headers, body }",
  });
});

test("errors are classified retryable for 429, 5xx and overloaded", () => {
  assert.equal(provider.classifyError("chat", 429, "slow down").retryable, true);
  assert.equal(provider.classifyError("chat", 503, "").retryable, true);
  assert.equal(provider.classifyError("chat", 400, '{"type":"overloaded"}').retryable, true);
  const refused = provider.classifyError("chat", 401, "✓".repeat(900));
  assert.equal(refused.retryable, false);
  assert.equal([...refused.message].length, 500);
});

test("each flavor is a provider capability with its auth", () => {
  assert.deepEqual(plugin.capabilities(), [
    { tag: "provider", val: { name: "chat", auth: "bearer" } },
    { tag: "provider", val: { name: "chat-keyed", auth: "x-api-key" } },
  ]);
});
