// {{id}}: an amber hook in JavaScript: refuses `rm -rf` in shell calls.
import { defineHook } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `hook`.
export const { plugin, hook } = defineHook({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Refuses rm -rf." },
  hooks: [{ event: "pre-tool", matcher: "shell" }],
  preTool(ctx, call) {
    const command = JSON.parse(call.argsJson).command || "";
    if (command.includes("rm -rf")) {
      return { tag: "deny", val: "{{id}} refuses rm -rf" };
    }
    return { tag: "allow" };
  },
});
