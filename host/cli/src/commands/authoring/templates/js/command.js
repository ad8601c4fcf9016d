// {{id}}: an amber slash command in JavaScript: `/{{id}} count TEXT`.
import { defineCommand } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `command`.
export const { plugin, command } = defineCommand({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Counts words." },
  root: "{{id}}",
  help: "Count things.",
  nodes: [{ name: "count", help: "Count the words after the command." }],
  run(path, arg) {
    if (path.join(" ") === "count") {
      return `${arg.split(/\s+/).filter(Boolean).length} words`;
    }
    throw new Error(`no command ${path.join(" ")}`);
  },
});
