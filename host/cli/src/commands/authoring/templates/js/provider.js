// {{id}}: an amber provider plugin in JavaScript: a wire dialect for an
// OpenAI-style chat API, text only (no tools, no reasoning). amber owns
// HTTP, the base URL and the key; this shapes the request and decodes the
// stream.
import { defineProvider, chunk } from "./amber-sdk.js";

const FINISH = { stop: "end-turn", length: "max-tokens" };

// Decodes `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}`.
class Chat {
  event(name, data) {
    if (data === "[DONE]") return [];
    let event;
    try {
      event = JSON.parse(data);
    } catch (e) {
      return [chunk.error("decode", `not JSON: ${data}`)];
    }
    // A usage-only event has no choices.
    const choice = (event.choices && event.choices[0]) || {};
    const out = [chunk.text((choice.delta && choice.delta.content) || "")];
    if (choice.finish_reason) out.push(chunk.stop(FINISH[choice.finish_reason] || "other"));
    return out;
  }
}

// componentize-js looks for these two exports: `plugin` and `provider`.
export const { plugin, provider } = defineProvider({
  manifest: { id: "{{id}}", version: "0.1.0", description: "An OpenAI-style chat dialect." },
  flavors: [{ name: "{{id}}", auth: "bearer" }],
  decoder: Chat,
  buildRequest(req) {
    const messages = req.messages.map((m) => ({ content: m.text, role: m.role }));
    return {
      method: "POST",
      path: "/chat/completions",
      headers: { "content-type": "application/json" },
      body: { messages, model: req.model, stream: true },
    };
  },
});
