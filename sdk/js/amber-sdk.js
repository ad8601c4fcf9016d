// amber-sdk.js: amber's JavaScript SDK (docs/sdk-js.md). `amber plugin new`
// copies this file into a plugin folder and `amber plugin build` keeps the
// copy current: edit your plugin, not this file.
//
// One define function per capability kind. Each takes the plugin as a
// plain object (its manifest, what it declares, its handlers; every
// handler has a default) and returns the exports componentize-js needs:
//
//   export const { plugin, tool } = defineTool({ ... });
//
// WIT records are objects with camelCase fields, variants are
// { tag, val }, and a `result` error is thrown: InvalidArgs and Failed
// (or any other exception) become the interface's error.

import { log as hostLog, setting as hostSetting } from "amber:plugin/host@0.3.0";

/** The `amber:plugin` package version this SDK speaks. */
export const API_VERSION = "0.3.0";

/** A tool's arguments were wrong: the model should retry differently. */
export class InvalidArgs extends Error {}

/** The tool ran and failed. */
export class Failed extends Error {}

/** Writes to the plugin's own log (`amber plugin logs ID`). */
export function log(level, message) {
  hostLog(level, String(message));
}

/** A plugin-scoped setting from the user's config; never a secret. */
export function setting(key) {
  return hostSetting(key);
}

function message(e) {
  if (e instanceof Error) return e.message || e.name;
  return String(e);
}

/**
 * `shape(handler())`, or a thrown `error(e)`. A handler may be async (an
 * `await fetch(...)` in a plugin whose amber-plugin.toml says `http =
 * true`): its promise is returned shaped the same way, and componentize-js
 * runs the component's event loop until it settles, so the export stays
 * synchronous for the host.
 */
function settled(handler, shape, error) {
  // A result that cannot be shaped (images that are not a list) is the
  // handler's failure too, not a trap.
  const shaped = (out) => {
    try {
      return shape(out);
    } catch (e) {
      throw error(e);
    }
  };
  let out;
  try {
    out = handler();
  } catch (e) {
    throw error(e);
  }
  if (out && typeof out.then === "function") {
    return out.then(shaped, (e) => {
      throw error(e);
    });
  }
  return shaped(out);
}

function manifestOf(def) {
  const m = def.manifest;
  if (!m || !m.id) throw new Error("the plugin sets no manifest with an id");
  return {
    id: m.id,
    name: m.name || m.id,
    version: m.version || "0.1.0",
    description: m.description || "",
    apiVersion: API_VERSION,
    // `http` (since 0.3.0) takes { reason, hosts: ["api.example.com"] }.
    permissions: Object.entries(m.permissions || {}).map(([permission, asked]) => ({
      permission,
      reason: typeof asked === "object" && asked !== null ? String(asked.reason || "") : String(asked),
      hosts: typeof asked === "object" && asked !== null ? (asked.hosts || []).map(String) : [],
    })),
  };
}

function pluginExport(def, capabilities) {
  return {
    manifest() {
      return manifestOf(def);
    },
    initialize(ctx) {
      def.context = ctx;
      if (def.initialize) {
        try {
          def.initialize(ctx);
        } catch (e) {
          throw { payload: message(e) };
        }
      }
    },
    capabilities,
    shutdown() {
      if (def.shutdown) def.shutdown();
    },
  };
}

/**
 * A tool plugin: `tools` is a list of { name, description, schema,
 * readOnly }; `call(name, args)` returns the text the model reads, or
 * { content, meta }.
 */
export function defineTool(def) {
  const capabilities = () =>
    (def.tools || []).map((t) => ({
      tag: "tool",
      val: {
        name: t.name,
        description: t.description || "",
        inputSchema: JSON.stringify(t.schema || { type: "object" }),
        readOnly: Boolean(t.readOnly),
      },
    }));
  const toolError = (e) => {
    const tag = e instanceof InvalidArgs ? "invalid-args" : "failed";
    return { payload: { tag, val: message(e) } };
  };
  const toolOutput = (out) => {
    if (out && typeof out === "object" && "content" in out) {
      const meta = out.meta === undefined || out.meta === null ? undefined : JSON.stringify(out.meta);
      // Since 0.3.0: images as { mediaType, data: Uint8Array }.
      const images = (out.images || []).map((i) => ({ mediaType: String(i.mediaType), data: i.data }));
      return { content: String(out.content), meta, images };
    }
    return { content: String(out), meta: undefined, images: [] };
  };
  const tool = {
    call(name, argsJson) {
      let args;
      try {
        args = argsJson ? JSON.parse(argsJson) : {};
      } catch (e) {
        throw { payload: { tag: "invalid-args", val: `the arguments are not JSON: ${message(e)}` } };
      }
      return settled(() => def.call(name, args), toolOutput, toolError);
    },
  };
  return { plugin: pluginExport(def, capabilities), tool };
}

/**
 * A slash-command subtree: `root`, `help`, `nodes` ({ name, help, man,
 * parent, handler }); `run(path, arg)` returns the text to show.
 */
export function defineCommand(def) {
  const capabilities = () => [{ tag: "command", val: { root: def.root, help: def.help || "" } }];
  const command = {
    spec(root) {
      const flat = [{ name: def.root, help: def.help || "", man: undefined, parent: undefined, handler: false }];
      const index = {};
      for (const node of def.nodes || []) {
        index[node.name] = flat.length;
        flat.push({
          name: node.name,
          help: node.help || "",
          man: node.man,
          parent: node.parent ? index[node.parent] : 0,
          handler: node.handler !== false,
        });
      }
      return flat;
    },
    run(path, arg) {
      // The host names the node from the root; the plugin gets the path
      // below it.
      const below = path.length && path[0] === def.root ? path.slice(1) : path;
      return settled(() => def.run(below, arg), String, (e) => ({ payload: message(e) }));
    },
  };
  return { plugin: pluginExport(def, capabilities), command };
}

/**
 * Prompt blocks: `blocks` ({ name, position: "head"|"tail", priority });
 * `render(block, ctx)` returns the text ("" leaves the block out).
 */
export function definePrompt(def) {
  const capabilities = () =>
    (def.blocks || []).map((b) => ({
      tag: "prompt",
      val: { name: b.name, position: b.position || "head", priority: b.priority || 0 },
    }));
  const prompt = {
    render(block, ctx) {
      try {
        return String(def.render ? def.render(block, ctx) : "");
      } catch (e) {
        throw { payload: message(e) };
      }
    },
  };
  return { plugin: pluginExport(def, capabilities), prompt };
}

/**
 * A language parser: `languages` ({ name, extensions }); `outline(language,
 * source)` returns symbols in pre-order ({ kind, name, parent, byteStart,
 * byteEnd, lineStart, lineEnd, signatureEnd }, `parent` an index into the
 * same list); `references(language, source, name)` returns spans
 * ({ byteStart, byteEnd, line }), none by default.
 */
export function defineParser(def) {
  const capabilities = () =>
    (def.languages || []).map((l) => ({
      tag: "parser",
      val: { name: l.name, extensions: l.extensions || [] },
    }));
  const parser = {
    outline(language, source) {
      try {
        return def.outline ? def.outline(language, source) : [];
      } catch (e) {
        throw { payload: message(e) };
      }
    },
    references(language, source, name) {
      try {
        const spans = def.references ? def.references(language, source, name) : [];
        return { spans, incomplete: undefined };
      } catch (e) {
        throw { payload: message(e) };
      }
    },
  };
  return { plugin: pluginExport(def, capabilities), parser };
}

const HOOK_DEFAULTS = {
  sessionStart: () => undefined,
  userPromptSubmit: () => ({ tag: "allow", val: undefined }),
  preTool: () => ({ tag: "allow" }),
  postTool: () => ({ context: undefined, flag: undefined }),
  permissionRequest: () => ({ tag: "abstain" }),
  preCompact: (ctx, request) => ({ tag: "proceed", val: request.focus }),
  postCompact: () => undefined,
  stop: () => ({ tag: "stop" }),
  subagentStop: () => undefined,
  sessionEnd: () => undefined,
  notification: () => undefined,
};

/**
 * Hooks: `hooks` ({ event: "pre-tool", matcher }); handlers named after
 * the events in camelCase (`preTool(ctx, call)`), each with a default
 * that changes nothing.
 */
export function defineHook(def) {
  const capabilities = () =>
    (def.hooks || []).map((h) => ({ tag: "hook", val: { event: h.event, matcher: h.matcher } }));
  const hook = {};
  for (const [name, fallback] of Object.entries(HOOK_DEFAULTS)) {
    hook[name] = (...args) => {
      try {
        return (def[name] || fallback)(...args);
      } catch (e) {
        throw { payload: message(e) };
      }
    };
  }
  return { plugin: pluginExport(def, capabilities), hook };
}

const STOP_REASONS = ["end-turn", "tool-use", "max-tokens", "content-filter", "refusal", "other"];
const CHUNK_TAGS = [
  "text-delta",
  "reasoning-delta",
  "tool-call-start",
  "tool-call-delta",
  "tool-call-end",
  "usage",
  "stop",
  "error",
];
const textOrEmpty = (value) => (value === undefined || value === null ? "" : String(value));
const optionalText = (value) => (value === undefined || value === null ? undefined : String(value));

/**
 * The chunks a provider's decoder yields, as the WIT's `stream-chunk`.
 * Each builder makes its values the WIT's types (token counts become the
 * u64s, BigInt, the WIT wants), so a wrong one throws in the decoder's
 * `event` (an error chunk) rather than as the chunk crosses back (a trap).
 */
export const chunk = {
  /** A piece of the reply; undefined or null (JSON's null) is no text. */
  text: (delta) => ({ tag: "text-delta", val: textOrEmpty(delta) }),
  reasoning: (text, { id, signature, encrypted } = {}) => ({
    tag: "reasoning-delta",
    val: { id: optionalText(id), text: textOrEmpty(text), signature: optionalText(signature), encrypted: optionalText(encrypted) },
  }),
  toolCallStart: (index, id, name) => ({
    tag: "tool-call-start",
    val: { index: Number(index), id: String(id), name: String(name) },
  }),
  /** A piece of a call's JSON arguments; amber joins the pieces. */
  toolCallArgs: (index, args) => ({ tag: "tool-call-delta", val: { index: Number(index), arguments: String(args) } }),
  toolCallEnd: (index) => ({ tag: "tool-call-end", val: Number(index) }),
  usage: ({ inputTokens = 0, outputTokens = 0, cachedInputTokens = 0, cacheWriteTokens = 0, reasoningTokens = 0 }) => ({
    tag: "usage",
    val: {
      inputTokens: BigInt(inputTokens),
      outputTokens: BigInt(outputTokens),
      cachedInputTokens: BigInt(cachedInputTokens),
      cacheWriteTokens: BigInt(cacheWriteTokens),
      reasoningTokens: BigInt(reasoningTokens),
    },
  }),
  /** `reason`: end-turn, tool-use, max-tokens, content-filter, refusal or other. */
  stop: (reason) => {
    if (!STOP_REASONS.includes(reason)) {
      throw new Error(`unknown stop reason ${JSON.stringify(reason)}: use one of ${STOP_REASONS.join(", ")}`);
    }
    return { tag: "stop", val: reason };
  },
  error: (kind, message, retryable = false) => ({
    tag: "error",
    val: { kind: String(kind), message: String(message), retryable: Boolean(retryable) },
  }),
};

/**
 * (name, data) of each event of an `sse-batch`: spans are byte ranges
 * into the UTF-8 text, four numbers an event, a name of length 0 none.
 * A short span, one out of range or one that cuts a character is
 * skipped, as the Rust SDK does (amber never sends one).
 */
function* sseEvents(batch) {
  const text = batch.text;
  const spans = batch.spans;
  const bytes = new TextEncoder().encode(text);
  // ASCII text: a byte offset is a string offset, so no decoding.
  const ascii = bytes.length === text.length;
  const decoder = ascii ? undefined : new TextDecoder("utf-8", { fatal: true });
  const piece = (start, length) =>
    ascii ? text.slice(start, start + length) : decoder.decode(bytes.subarray(start, start + length));
  for (let at = 0; at + 3 < spans.length; at += 4) {
    const [ns, nl, ds, dl] = [spans[at], spans[at + 1], spans[at + 2], spans[at + 3]];
    if (ns + nl > bytes.length || ds + dl > bytes.length) continue;
    let event;
    try {
      event = [nl ? piece(ns, nl) : undefined, piece(ds, dl)];
    } catch (e) {
      continue;
    }
    yield event;
  }
}

/**
 * Appends what `produce` returns, joining adjacent text deltas and
 * adjacent argument pieces of one call, as the Rust SDK does (fewer
 * chunks cross back). An exception, or anything that is not a list of
 * chunks, becomes an `error` chunk naming it: amber ends the reply with
 * that reason instead of the plugin trapping.
 */
function collect(out, produce) {
  let chunks;
  try {
    const got = produce();
    if (got === undefined || got === null) {
      chunks = [];
    } else if (typeof got === "string" || !(Symbol.iterator in Object(got))) {
      throw new TypeError(`returned ${typeof got === "object" && got.tag ? "one chunk" : typeof got}, not a list of chunks`);
    } else {
      chunks = Array.from(got);
    }
    for (const c of chunks) {
      if (!c || !CHUNK_TAGS.includes(c.tag)) {
        throw new TypeError(`returned ${JSON.stringify(c)} among its chunks`);
      }
    }
  } catch (e) {
    chunks = [chunk.error("decode", message(e))];
  }
  for (const c of chunks) {
    const last = out[out.length - 1];
    if (c.tag === "text-delta") {
      if (!c.val) continue;
      if (last && last.tag === "text-delta") {
        out[out.length - 1] = { tag: "text-delta", val: last.val + c.val };
        continue;
      }
    }
    if (c.tag === "tool-call-delta" && last && last.tag === "tool-call-delta" && last.val.index === c.val.index) {
      out[out.length - 1] = chunk.toolCallArgs(c.val.index, last.val.arguments + c.val.arguments);
      continue;
    }
    out.push(c);
  }
}

function requestOf(req) {
  const textOf = (m) => m.parts.filter((p) => p.tag === "text").map((p) => p.val).join("");
  const schemaOf = (t) => {
    try {
      return JSON.parse(t.inputSchema);
    } catch (e) {
      return { type: "object" };
    }
  };
  return {
    ...req,
    messages: req.messages.map((m) => ({ ...m, text: textOf(m) })),
    tools: req.tools.map((t) => ({ ...t, schema: schemaOf(t) })),
  };
}

function httpRequestOf(r) {
  if (!r || typeof r !== "object" || !r.path) {
    throw new Error("buildRequest must return { method, path, headers, body }");
  }
  const headers = Array.isArray(r.headers) ? r.headers : Object.entries(r.headers || {});
  const body = typeof r.body === "string" ? r.body : r.body === undefined ? "" : JSON.stringify(r.body);
  return {
    method: r.method || "POST",
    path: String(r.path),
    headers: headers.map(([k, v]) => [String(k), String(v)]),
    body,
  };
}

/**
 * A provider: a wire dialect for an LLM API. `flavors` ({ name, auth:
 * "bearer"|"x-api-key"|"none" }); `buildRequest(req)` returns { method,
 * path, headers, body } (an object body is sent as JSON; each message
 * carries its joined `text`, each tool its parsed `schema`); `decoder` is
 * a class made per stream (`new decoder(flavor)`) with `event(name,
 * data)` returning the chunks of one event (see `chunk`) and an optional
 * `finish()`; `classifyError(flavor, status, body)` returns { retryable,
 * message } (429, 5xx and "overloaded" retry by default).
 */
export function defineProvider(def) {
  const capabilities = () =>
    (def.flavors || []).map((f) => ({ tag: "provider", val: { name: f.name, auth: f.auth || "bearer" } }));
  class Decoder {
    // The WIT constructor cannot fail: a decoder that cannot be made says
    // why in the first chunk it is asked for.
    constructor(flavor) {
      try {
        if (!def.decoder) throw new Error("the provider defines no decoder");
        this.inner = new def.decoder(flavor);
      } catch (e) {
        this.failed = chunk.error("decode", message(e));
      }
    }
    decode(batch) {
      if (this.failed) return [this.failed];
      const out = [];
      for (const [name, data] of sseEvents(batch)) {
        collect(out, () => (this.inner.event ? this.inner.event(name, data) : []));
      }
      return out;
    }
    finish() {
      if (this.failed) return [this.failed];
      const out = [];
      collect(out, () => (this.inner.finish ? this.inner.finish() : []));
      return out;
    }
  }
  const provider = {
    buildRequest(req) {
      if (!def.buildRequest) throw { payload: "the provider defines no buildRequest" };
      try {
        return httpRequestOf(def.buildRequest(requestOf(req)));
      } catch (e) {
        throw { payload: message(e) };
      }
    },
    classifyError(flavor, status, body) {
      if (!def.classifyError) {
        return {
          retryable: status === 429 || status >= 500 || body.includes("overloaded"),
          message: [...body].slice(0, 500).join(""),
        };
      }
      try {
        const c = def.classifyError(flavor, status, body);
        return { retryable: Boolean(c.retryable), message: String(c.message) };
      } catch (e) {
        return { retryable: false, message: message(e) };
      }
    },
    Decoder,
  };
  return { plugin: pluginExport(def, capabilities), provider };
}
