"""Tools the model can call (wit/tool.wit).

::

    from amber_sdk import Manifest
    from amber_sdk.tool import ToolPlugin, ToolSpec, InvalidArgs

    class WordCount(ToolPlugin):
        manifest = Manifest(id="word-count", description="Counts words.")
        tools = [ToolSpec("word_count", "Count the words of a text.",
                          {"type": "object",
                           "properties": {"text": {"type": "string"}},
                           "required": ["text"]},
                          read_only=True)]

        def call(self, name, args):
            return str(len(args["text"].split()))

    Plugin, Tool = WordCount.export()

``call`` returns the text the model reads (or a ``ToolOutput`` with JSON
``meta`` for front ends). ``InvalidArgs`` tells the model to retry
differently; ``Failed``, or any other exception, is the tool failing.
"""

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from componentize_py_types import Err
from wit_world.exports import tool as _tool
from wit_world.imports import types as _types

from . import PluginBase


class InvalidArgs(Exception):
    """The arguments were wrong; the model should retry differently."""


class Failed(Exception):
    """The tool ran and failed."""


@dataclass
class ToolSpec:
    """A tool the model sees: its name, what it does, a JSON Schema for its
    arguments, and whether it never changes anything (read mode allows
    only those)."""

    name: str
    description: str
    schema: dict = field(default_factory=lambda: {"type": "object"})
    read_only: bool = False


@dataclass
class ToolOutput:
    content: str
    meta: Optional[Any] = None
    #: Since 0.3.0: ``(media_type, bytes)`` pairs the model sees with the text.
    images: list = field(default_factory=list)


class ToolPlugin(PluginBase):
    """Override ``tools`` (a list, or a method returning one) and ``call``."""

    tools: list = []

    def call(self, name: str, args: dict):
        raise Failed(f"{type(self).__name__} does not implement call() for `{name}`")

    def tool_specs(self) -> list:
        specs = self.tools() if callable(self.tools) else self.tools
        return list(specs)

    def capabilities(self) -> list:
        return [
            _types.Capability_Tool(
                _types.ToolSpec(s.name, s.description, json.dumps(s.schema), s.read_only)
            )
            for s in self.tool_specs()
        ]

    @classmethod
    def export(cls):
        """``Plugin, Tool = MyTool.export()`` at the end of the app module."""
        owner = cls

        class Tool:
            def call(self, name: str, args_json: str):
                try:
                    args = json.loads(args_json) if args_json else {}
                except ValueError as e:
                    raise Err(_tool.ToolError_InvalidArgs(f"the arguments are not JSON: {e}"))
                try:
                    out = owner.instance().call(name, args)
                except InvalidArgs as e:
                    raise Err(_tool.ToolError_InvalidArgs(str(e)))
                except Failed as e:
                    raise Err(_tool.ToolError_Failed(str(e)))
                except Exception as e:
                    raise Err(_tool.ToolError_Failed(f"{type(e).__name__}: {e}"))
                if isinstance(out, ToolOutput):
                    meta = None if out.meta is None else json.dumps(out.meta)
                    images = [_types.Image(kind, bytes(data)) for kind, data in out.images]
                    return _tool.ToolOutput(out.content, meta, images)
                return _tool.ToolOutput(str(out), None, [])

        return cls.plugin_export(), Tool
