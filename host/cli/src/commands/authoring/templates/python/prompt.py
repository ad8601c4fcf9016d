"""{{id}}: an amber prompt block in Python."""

from amber_sdk import Manifest
from amber_sdk.prompt import Block, PromptPlugin


class {{Camel}}(PromptPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Asks for short answers.")
    blocks = [Block("{{snake}}", position="head", priority=50)]

    def render(self, block, request, model, workspace):
        if not request:
            return ""  # an empty block is left out
        return f"Keep answers short: the user asked {len(request.split())} words."


# componentize-py looks for these two classes in this module.
Plugin, Prompt = {{Camel}}.export()
