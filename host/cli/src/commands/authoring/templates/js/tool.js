// {{id}}: an amber tool plugin in JavaScript (docs/sdk-js.md).
import { defineTool, InvalidArgs } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `tool`.
export const { plugin, tool } = defineTool({
  manifest: {
    id: "{{id}}",
    version: "0.1.0",
    description: "Counts the words of a text.",
  },
  tools: [
    {
      name: "{{snake}}",
      description: "Count the words of a text.",
      schema: {
        type: "object",
        properties: { text: { type: "string", description: "The text to count." } },
        required: ["text"],
      },
      readOnly: true,
    },
  ],
  call(name, args) {
    if (typeof args.text !== "string") {
      throw new InvalidArgs("`text` must be a string");
    }
    const words = args.text.split(/\s+/).filter(Boolean).length;
    return `${words} words`;
  },
});
