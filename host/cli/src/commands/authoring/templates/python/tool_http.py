"""{{id}}: an amber tool plugin in Python that calls a web API through the
``http`` permission (docs/sdk-python.md, docs/permissions.md).

amber-plugin.toml says ``http = true``, so the build gives the component
the wasi:http bindings ``amber_sdk.http`` uses. The host checks each
request against the hosts granted, adds any secret header config binds to
the host, and logs the request; ``amber plugin test`` answers it from the
``[[http]]`` entries of tests.toml, so the tests need no network.
"""

from amber_sdk import HTTP, Manifest, http
from amber_sdk.tool import Failed, InvalidArgs, ToolPlugin, ToolSpec


class {{Camel}}(ToolPlugin):
    manifest = Manifest(
        id="{{id}}",
        version="0.1.0",
        description="Reads a GitHub repository's star count.",
        permissions={HTTP: ("to read a repository's star count", ["api.github.com"])},
    )
    # Not read-only: a request's arguments can carry what the model read,
    # so read mode refuses it and write mode asks (docs/web.md).
    tools = [
        ToolSpec(
            "{{snake}}",
            "How many stars a GitHub repository has.",
            {
                "type": "object",
                "properties": {"repo": {"type": "string", "description": "A GitHub repository, `owner/name`."}},
                "required": ["repo"],
                "additionalProperties": False,
            },
        )
    ]

    def call(self, name, args):
        repo = args.get("repo")
        if not isinstance(repo, str) or repo.count("/") != 1 or any(c in repo for c in "?# "):
            raise InvalidArgs(f"`{repo}` is not owner/name")
        try:
            response = http.get(
                f"https://api.github.com/repos/{repo}",
                headers=[("accept", "application/vnd.github+json")],
            )
        except http.HttpError as e:
            raise Failed(str(e)) from None
        if not response.ok:
            raise Failed(f"GitHub answered HTTP {response.status}")
        stars = response.json().get("stargazers_count", 0)
        return f"{repo} has {stars} stars"


# componentize-py looks for these two classes in this module.
Plugin, Tool = {{Camel}}.export()
