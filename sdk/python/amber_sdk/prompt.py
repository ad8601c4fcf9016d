"""Prompt blocks (wit/prompt.wit): text amber puts in the prompt copy.

::

    from amber_sdk import Manifest
    from amber_sdk.prompt import PromptPlugin, Block

    class Style(PromptPlugin):
        manifest = Manifest(id="style")
        blocks = [Block("style", position="head", priority=10)]

        def render(self, block, request, model, workspace):
            return "Answer in British English."

    Plugin, Prompt = Style.export()

An empty string leaves the block out; raising logs the error and leaves
it out.
"""

from dataclasses import dataclass
from typing import List, Optional

from componentize_py_types import Err
from wit_world.imports import types as _types

from . import PluginBase


@dataclass
class Block:
    name: str
    #: "head" (after the system prompt) or "tail" (after the conversation).
    position: str = "head"
    #: Lower comes first; ties keep declaration order.
    priority: int = 0


class PromptPlugin(PluginBase):
    blocks: List[Block] = []

    def render(self, block: str, request: str, model: str, workspace: Optional[str]) -> str:
        return ""

    def capabilities(self) -> list:
        return [
            _types.Capability_Prompt(
                _types.BlockSpec(b.name, _types.BlockPosition[b.position.upper()], b.priority)
            )
            for b in self.blocks
        ]

    @classmethod
    def export(cls):
        owner = cls

        class Prompt:
            def render(self, block: str, ctx) -> str:
                try:
                    return str(owner.instance().render(block, ctx.request, ctx.model, ctx.workspace))
                except Exception as e:
                    raise Err(f"{type(e).__name__}: {e}")

        return cls.plugin_export(), Prompt
