"""amber's Python SDK: write an amber plugin in Python (docs/sdk-python.md).

One base class per capability kind, in its own module (``amber_sdk.tool``,
``amber_sdk.command``, ``amber_sdk.prompt``, ``amber_sdk.hook``), each with
a default for every method. A plugin subclasses one, sets its
``manifest``, and ends its module with the kind's export line, e.g.::

    Plugin, Tool = WordCount.export()

componentize-py looks up the classes named after the exported interfaces
(``Plugin``, ``Tool``) in the app module; ``export()`` makes them, each
delegating to one instance of the plugin class.

This module holds what every kind shares: the manifest, permissions, the
host's imports (``log``, ``setting``), and the plugin-interface adapter.
Kind modules import the bindings of their own interface only, so a tool
plugin never needs the hook bindings that its world does not have.
"""

from dataclasses import dataclass, field
from typing import List, Optional

from componentize_py_types import Err
from wit_world.imports import types as _types

#: The `amber:plugin` package version this SDK speaks.
API_VERSION = "0.3.0"

#: The permissions a plugin may request (wit/types.wit).
WORKSPACE_READ = "workspace-read"
WORKSPACE_WRITE = "workspace-write"
EXEC = "exec"
#: Since 0.3.0: ``{HTTP: ("why", ["api.example.com", "*.example.org"])}``.
HTTP = "http"

_PERMISSIONS = {
    WORKSPACE_READ: _types.Permission.WORKSPACE_READ,
    WORKSPACE_WRITE: _types.Permission.WORKSPACE_WRITE,
    EXEC: _types.Permission.EXEC,
    HTTP: _types.Permission.HTTP,
}


@dataclass
class Manifest:
    """Who the plugin is. ``id`` is 1-64 of ``[a-z0-9-_]``, unique per
    installation; ``permissions`` maps a permission to the reason shown
    to the user when amber asks for it (for ``http``, a pair: the reason
    and the hosts it needs)."""

    id: str
    name: str = ""
    version: str = "0.1.0"
    description: str = ""
    permissions: dict = field(default_factory=dict)

    def to_wit(self) -> "_types.PluginManifest":
        requests = []
        for permission, reason in self.permissions.items():
            if permission not in _PERMISSIONS:
                raise ValueError(
                    f"unknown permission {permission!r}: use one of {sorted(_PERMISSIONS)}"
                )
            hosts = []
            if isinstance(reason, tuple):
                reason, hosts = reason
            requests.append(
                _types.PermissionRequest(_PERMISSIONS[permission], reason, list(hosts))
            )
        return _types.PluginManifest(
            id=self.id,
            name=self.name or self.id,
            version=self.version,
            description=self.description,
            api_version=API_VERSION,
            permissions=requests,
        )


@dataclass
class Context:
    """What ``initialize`` was told: the host's version, the workspace's
    sandbox path (when granted), and the permissions granted."""

    host_version: str
    workspace: Optional[str]
    granted: List[str]


def log(level: str, message: str) -> None:
    """Writes to the plugin's own log (`amber plugin logs ID`). ``level``
    is trace, debug, info, warn or error."""
    from wit_world.imports import host

    host.log(_types.LogLevel[level.upper()], message)


def setting(key: str) -> Optional[str]:
    """A plugin-scoped setting from the user's config; never a secret."""
    from wit_world.imports import host

    return host.setting(key)


class PluginBase:
    """What every kind shares: the manifest, ``initialize`` and
    ``shutdown`` (no-ops by default), and the context once initialized."""

    manifest: Manifest = None
    context: Optional[Context] = None

    def initialize(self, context: Context) -> None:
        """Called once per instance before any capability is used; raise
        to fail the plugin with the exception's message."""

    def shutdown(self) -> None:
        """Called on disable."""

    def capabilities(self) -> list:
        """The kind's capabilities, as wit records; each kind fills it in."""
        return []

    @classmethod
    def instance(cls):
        """The one instance every exported class delegates to."""
        if "_amber_instance" not in cls.__dict__:
            cls._amber_instance = cls()
        return cls._amber_instance

    @classmethod
    def plugin_export(cls):
        """The class componentize-py calls for the `plugin` interface."""
        owner = cls

        class Plugin:
            def manifest(self):
                if owner.manifest is None:
                    raise RuntimeError(f"{owner.__name__} sets no manifest")
                return owner.manifest.to_wit()

            def initialize(self, ctx):
                plugin = owner.instance()
                granted = [p.name.lower().replace("_", "-") for p in ctx.granted]
                plugin.context = Context(ctx.host_version, ctx.workspace, granted)
                try:
                    plugin.initialize(plugin.context)
                except Exception as e:  # the host shows the reason
                    raise Err(f"{type(e).__name__}: {e}")

            def capabilities(self):
                return owner.instance().capabilities()

            def shutdown(self):
                owner.instance().shutdown()

        return Plugin
