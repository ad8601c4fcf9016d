// {{id}}: an amber tool plugin in JavaScript that calls a web API through
// the `http` permission (docs/sdk-js.md, docs/permissions.md).
//
// amber-plugin.toml says `http = true`, so the build keeps `fetch`, and
// `call` may be async. The host checks each request against the hosts
// granted, adds any secret header config binds to the host, and logs the
// request; `amber plugin test` answers it from the [[http]] entries of
// tests.toml, so the tests need no network.
import { defineTool, Failed, InvalidArgs } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `tool`.
export const { plugin, tool } = defineTool({
  manifest: {
    id: "{{id}}",
    version: "0.1.0",
    description: "Reads a GitHub repository's star count.",
    permissions: {
      http: { reason: "to read a repository's star count", hosts: ["api.github.com"] },
    },
  },
  // Not read-only: a request's arguments can carry what the model read,
  // so read mode refuses it and write mode asks (docs/web.md).
  tools: [
    {
      name: "{{snake}}",
      description: "How many stars a GitHub repository has.",
      schema: {
        type: "object",
        properties: { repo: { type: "string", description: "A GitHub repository, `owner/name`." } },
        required: ["repo"],
        additionalProperties: false,
      },
    },
  ],
  async call(name, args) {
    const repo = args.repo;
    if (typeof repo !== "string" || repo.split("/").length !== 2 || /[?# ]/.test(repo)) {
      throw new InvalidArgs(`\`${repo}\` is not owner/name`);
    }
    let response;
    try {
      response = await fetch(`https://api.github.com/repos/${repo}`, {
        headers: { accept: "application/vnd.github+json" },
      });
    } catch (e) {
      throw new Failed(`the request to api.github.com failed: ${e.message || e}`);
    }
    if (!response.ok) {
      throw new Failed(`GitHub answered HTTP ${response.status}`);
    }
    const body = await response.json();
    return `${repo} has ${body.stargazers_count || 0} stars`;
  },
});
