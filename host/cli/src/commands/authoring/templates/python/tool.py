"""{{id}}: an amber tool plugin in Python (docs/sdk-python.md)."""

from amber_sdk import Manifest
from amber_sdk.tool import InvalidArgs, ToolPlugin, ToolSpec


class {{Camel}}(ToolPlugin):
    manifest = Manifest(
        id="{{id}}",
        version="0.1.0",
        description="Counts the words of a text.",
    )
    tools = [
        ToolSpec(
            "{{snake}}",
            "Count the words of a text.",
            {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to count."}},
                "required": ["text"],
            },
            read_only=True,
        )
    ]

    def call(self, name, args):
        text = args.get("text")
        if not isinstance(text, str):
            raise InvalidArgs("`text` must be a string")
        return f"{len(text.split())} words"


# componentize-py looks for these two classes in this module.
Plugin, Tool = {{Camel}}.export()
