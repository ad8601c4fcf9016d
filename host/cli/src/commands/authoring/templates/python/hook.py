"""{{id}}: an amber hook in Python: refuses `rm -rf` in shell calls."""

import json

from amber_sdk import Manifest
from amber_sdk.hook import HookPlugin, On, allow_tool, deny


class {{Camel}}(HookPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Refuses rm -rf.")
    hooks = [On("pre-tool", matcher="shell")]

    def pre_tool(self, ctx, call):
        command = json.loads(call.args_json).get("command", "")
        if "rm -rf" in command:
            return deny("{{id}} refuses rm -rf")
        return allow_tool()


# componentize-py looks for these two classes in this module.
Plugin, Hook = {{Camel}}.export()
