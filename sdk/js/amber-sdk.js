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

import { log as hostLog, setting as hostSetting } from "amber:plugin/host@0.1.0";

/** The `amber:plugin` package version this SDK speaks. */
export const API_VERSION = "0.1.0";

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

function manifestOf(def) {
  const m = def.manifest;
  if (!m || !m.id) throw new Error("the plugin sets no manifest with an id");
  return {
    id: m.id,
    name: m.name || m.id,
    version: m.version || "0.1.0",
    description: m.description || "",
    apiVersion: API_VERSION,
    permissions: Object.entries(m.permissions || {}).map(([permission, reason]) => ({
      permission,
      reason,
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
  const tool = {
    call(name, argsJson) {
      let args;
      try {
        args = argsJson ? JSON.parse(argsJson) : {};
      } catch (e) {
        throw { payload: { tag: "invalid-args", val: `the arguments are not JSON: ${message(e)}` } };
      }
      let out;
      try {
        out = def.call(name, args);
      } catch (e) {
        const tag = e instanceof InvalidArgs ? "invalid-args" : "failed";
        throw { payload: { tag, val: message(e) } };
      }
      if (out && typeof out === "object" && "content" in out) {
        const meta = out.meta === undefined || out.meta === null ? undefined : JSON.stringify(out.meta);
        return { content: String(out.content), meta };
      }
      return { content: String(out), meta: undefined };
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
      try {
        return String(def.run(below, arg));
      } catch (e) {
        throw { payload: message(e) };
      }
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
