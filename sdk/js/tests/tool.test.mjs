// A tool's and a command's handlers, sync and async (`fetch` in a plugin
// with `http = true`), shaped the same: what componentize-js hands back
// to the host once the promise settles.
import { test } from "node:test";
import assert from "node:assert/strict";

import { loadSdk } from "./load-sdk.mjs";

const { defineTool, defineCommand, Failed, InvalidArgs } = await loadSdk();

const manifest = { id: "t" };

test("a sync and an async call give the same output", async () => {
  const sync = defineTool({ manifest, call: (name, args) => `${name}: ${args.n}` }).tool;
  const later = defineTool({ manifest, call: async (name, args) => `${name}: ${args.n}` }).tool;
  const want = { content: "count: 3", meta: undefined, images: [] };
  assert.deepEqual(sync.call("count", '{"n":3}'), want);
  const pending = later.call("count", '{"n":3}');
  assert.equal(typeof pending.then, "function");
  assert.deepEqual(await pending, want);
});

test("an async call's content, meta and images are shaped as a sync one's", async () => {
  const data = Uint8Array.of(1, 2, 3);
  const { tool } = defineTool({
    manifest,
    call: async () => ({ content: "shot", meta: { w: 1 }, images: [{ mediaType: "image/png", data }] }),
  });
  assert.deepEqual(await tool.call("x", "{}"), {
    content: "shot",
    meta: '{"w":1}',
    images: [{ mediaType: "image/png", data }],
  });
});

test("an async throw is the interface's error, its kind kept", async () => {
  const { tool } = defineTool({
    manifest,
    call: async (name) => {
      if (name === "bad") throw new InvalidArgs("`repo` is not owner/name");
      throw new Failed("GitHub answered HTTP 404");
    },
  });
  await assert.rejects(tool.call("bad", "{}"), {
    payload: { tag: "invalid-args", val: "`repo` is not owner/name" },
  });
  await assert.rejects(tool.call("other", "{}"), {
    payload: { tag: "failed", val: "GitHub answered HTTP 404" },
  });
  // Arguments that are not JSON fail before the handler, at once.
  assert.throws(() => tool.call("x", "{"), (e) => e.payload.tag === "invalid-args");
});

test("a command's run may be async too", async () => {
  const { command } = defineCommand({ manifest, root: "stars", run: async (path, arg) => `${path.join(" ")} ${arg}` });
  assert.equal(await command.run(["stars", "show"], "rust"), "show rust");
  const failing = defineCommand({ manifest, root: "stars", run: async () => { throw new Error("no"); } }).command;
  await assert.rejects(failing.run(["stars"], ""), { payload: "no" });
});
