"""{{id}}: an amber slash command in Python: `/{{id}} count TEXT`."""

from amber_sdk import Manifest
from amber_sdk.command import CommandPlugin, Node


class {{Camel}}(CommandPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Counts words.")
    root = "{{id}}"
    help = "Count things."
    nodes = [Node("count", "Count the words after the command.")]

    def run(self, path, arg):
        if path == ["count"]:
            return f"{len(arg.split())} words"
        raise ValueError(f"no command {' '.join(path)}")


# componentize-py looks for these two classes in this module.
Plugin, Command = {{Camel}}.export()
