// {{id}}: an amber parser in JavaScript: outlines INI files, a `section`
// per `[name]` and a `key` per `name = value` under it.
import { defineParser } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `parser`.
export const { plugin, parser } = defineParser({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Outlines INI files." },
  languages: [{ name: "ini", extensions: ["ini"] }],
  outline(language, source) {
    const symbols = [];
    let section;
    let offset = 0;
    const encoder = new TextEncoder();
    source.split(/(?<=\n)/).forEach((text, i) => {
      if (text === "") return;
      const line = i + 1;
      const end = offset + encoder.encode(text).length;
      const trimmed = text.trim();
      const symbol = (kind, name, parent) => ({
        kind, name, parent, byteStart: offset, byteEnd: end,
        lineStart: line, lineEnd: line, signatureEnd: end,
      });
      if (trimmed.startsWith("[") && trimmed.endsWith("]")) {
        section = symbols.length;
        symbols.push(symbol("section", trimmed.slice(1, -1).trim(), undefined));
      } else if (trimmed.includes("=")) {
        symbols.push(symbol("key", trimmed.split("=")[0].trim(), section));
        if (section !== undefined) {
          // A section runs to its last key.
          symbols[section].lineEnd = line;
          symbols[section].byteEnd = end;
        }
      }
      offset = end;
    });
    return symbols;
  },
});
