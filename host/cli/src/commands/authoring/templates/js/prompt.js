// {{id}}: an amber prompt block in JavaScript.
import { definePrompt } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `prompt`.
export const { plugin, prompt } = definePrompt({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Asks for short answers." },
  blocks: [{ name: "{{snake}}", position: "head", priority: 50 }],
  render(block, ctx) {
    if (!ctx.request) return ""; // an empty block is left out
    const words = ctx.request.split(/\s+/).filter(Boolean).length;
    return `Keep answers short: the user asked ${words} words.`;
  },
});
