// The SDK as the tests load it. Its one import, amber's host interface,
// exists only inside a component, so a copy of the SDK is loaded with
// that import pointed at a module that logs nothing.
import { after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export async function loadSdk() {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = readFileSync(join(here, "..", "amber-sdk.js"), "utf8");
  // At whatever version the SDK targets: the import names it.
  const host = source.match(/amber:plugin\/host@\d+\.\d+\.\d+/)?.[0];
  assert.ok(host, "the SDK imports amber's host interface");
  const scratch = mkdtempSync(join(tmpdir(), "amber-sdk-test-"));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  writeFileSync(join(scratch, "host.mjs"), "export function log() {}\nexport function setting() { return undefined; }\n");
  writeFileSync(join(scratch, "amber-sdk.mjs"), source.replace(`"${host}"`, '"./host.mjs"'));
  return import(pathToFileURL(join(scratch, "amber-sdk.mjs")));
}
