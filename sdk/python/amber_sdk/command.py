"""Slash-command subtrees (wit/command.wit): ``/ROOT SUB ... ARG``.

::

    from amber_sdk import Manifest
    from amber_sdk.command import CommandPlugin, Node

    class Notes(CommandPlugin):
        manifest = Manifest(id="notes")
        root = "notes"
        help = "Keep notes."
        nodes = [Node("add", "Add a note."), Node("count", "Count the notes.")]

        def run(self, path, arg):
            return f"{path} {arg}"

    Plugin, Command = Notes.export()

``run`` gets the path below the root (``["add"]``) and the rest of the line,
and returns the text to show; raising shows the exception's message as
the command's error.
"""

from dataclasses import dataclass, field
from typing import List, Optional

from componentize_py_types import Err
from wit_world.exports import command as _command
from wit_world.imports import types as _types

from . import PluginBase


@dataclass
class Node:
    """A command under the root (or under another node, by ``parent``'s
    name). ``handler=False`` documents without running."""

    name: str
    help: str
    man: Optional[str] = None
    parent: Optional[str] = None
    handler: bool = True


class CommandPlugin(PluginBase):
    root: str = ""
    help: str = ""
    nodes: List[Node] = []

    def run(self, path: List[str], arg: str) -> str:
        raise RuntimeError(f"no handler for /{self.root} {' '.join(path)}")

    def capabilities(self) -> list:
        return [_types.Capability_Command(_types.CommandRoot(self.root, self.help))]

    def flat_nodes(self) -> list:
        """The root, then the nodes in pre-order, each parent by index."""
        flat = [_command.CommandNode(self.root, self.help, None, None, False)]
        index = {}
        for node in self.nodes:
            parent = index.get(node.parent, 0) if node.parent else 0
            index[node.name] = len(flat)
            flat.append(_command.CommandNode(node.name, node.help, node.man, parent, node.handler))
        return flat

    @classmethod
    def export(cls):
        owner = cls

        class Command:
            def spec(self, root: str):
                return owner.instance().flat_nodes()

            def run(self, path, arg: str) -> str:
                plugin = owner.instance()
                below = list(path)
                # The host names the node from the root; the plugin gets
                # the path below it.
                if below and below[0] == plugin.root:
                    below = below[1:]
                try:
                    return str(plugin.run(below, arg))
                except Exception as e:
                    raise Err(str(e) or type(e).__name__)

        return cls.plugin_export(), Command
