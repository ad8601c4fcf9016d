"""Hooks on agent events (wit/hook.wit): allow, deny, rewrite or add
context, as Claude Code's hooks do, but sandboxed.

::

    from amber_sdk import Manifest
    from amber_sdk.hook import HookPlugin, On, deny, allow_tool

    class Guard(HookPlugin):
        manifest = Manifest(id="guard")
        hooks = [On("pre-tool", matcher="shell")]

        def pre_tool(self, ctx, call):
            if "rm -rf" in call.args_json:
                return deny("no rm -rf here")
            return allow_tool()

    Plugin, Hook = Guard.export()

Every method has a default that changes nothing; override the events
``hooks`` names. The records (``ctx``, ``call``, ...) are the bindings'
dataclasses. Raising fails the hook with the exception's message, and
amber goes on as the hook's failure policy says (docs/hooks.md).
"""

import json
from dataclasses import dataclass
from typing import List, Optional

from componentize_py_types import Err
from wit_world.exports import hook as wit
from wit_world.imports import types as _types

from . import PluginBase


@dataclass
class On:
    """One event the plugin handles (``pre-tool``, ``stop``, ...), and for
    the tool events a regular expression over the tool's name."""

    event: str
    matcher: Optional[str] = None


def allow(context: Optional[str] = None):
    """user-prompt-submit: let the prompt through, optionally with context."""
    return wit.PromptDecision_Allow(context)


def block(reason: str):
    """user-prompt-submit: stop the prompt; the reason is shown."""
    return wit.PromptDecision_Block(reason)


def allow_tool():
    return wit.PreToolDecision_Allow()


def deny(reason: str):
    """pre-tool: refuse the call; the model reads the reason."""
    return wit.PreToolDecision_Deny(reason)


def ask(reason: str):
    """pre-tool: ask the user first."""
    return wit.PreToolDecision_Ask(reason)


def rewrite(args: dict):
    """pre-tool: run the call with these arguments instead."""
    return wit.PreToolDecision_Rewrite(json.dumps(args))


def approve():
    return wit.PermissionDecision_Approve()


def abstain():
    return wit.PermissionDecision_Abstain()


def refuse(reason: str):
    """permission-request: deny."""
    return wit.PermissionDecision_Deny(reason)


def stop():
    return wit.StopDecision_Stop()


def continue_with(message: str):
    """stop: send the model back to work with this message."""
    return wit.StopDecision_ContinueWith(message)


class HookPlugin(PluginBase):
    hooks: List[On] = []

    def session_start(self, ctx, source) -> Optional[str]:
        return None

    def user_prompt_submit(self, ctx, prompt: str):
        return allow()

    def pre_tool(self, ctx, call):
        return allow_tool()

    def post_tool(self, ctx, result):
        return wit.PostToolDecision(None, None)

    def permission_request(self, ctx, ask):
        return abstain()

    def pre_compact(self, ctx, request):
        return wit.PreCompactDecision_Proceed(request.focus)

    def post_compact(self, ctx, done) -> Optional[str]:
        return None

    def stop(self, ctx, request):
        return stop()

    def subagent_stop(self, ctx, request) -> None:
        return None

    def session_end(self, ctx, reason: str) -> None:
        return None

    def notification(self, ctx, message: str) -> None:
        return None

    def capabilities(self) -> list:
        out = []
        for on in self.hooks:
            event = _types.HookEvent[on.event.upper().replace("-", "_")]
            out.append(_types.Capability_Hook(_types.HookSpec(event, on.matcher)))
        return out

    @classmethod
    def export(cls):
        owner = cls

        def guarded(method):
            def call(self, *args):
                try:
                    return getattr(owner.instance(), method)(*args)
                except Exception as e:
                    raise Err(f"{type(e).__name__}: {e}")

            return call

        names = [
            "session_start", "user_prompt_submit", "pre_tool", "post_tool",
            "permission_request", "pre_compact", "post_compact", "stop",
            "subagent_stop", "session_end", "notification",
        ]
        Hook = type("Hook", (), {name: guarded(name) for name in names})
        return cls.plugin_export(), Hook
