"""Language parsers (wit/parser.wit): outlines with spans, and the calls
of a name, for `amber outline`, `show`, `callers` and read coverage.

::

    from amber_sdk import Manifest
    from amber_sdk.parser import Language, ParserPlugin, Symbol

    class Ini(ParserPlugin):
        manifest = Manifest(id="ini")
        languages = [Language("ini", ["ini"])]

        def outline(self, language, source):
            return [Symbol("section", "server", None, 0, 8, 1, 1, 8)]

    Plugin, Parser = Ini.export()

``outline`` returns the symbols in pre-order, each ``parent`` the index of
its parent in the same list. ``references`` returns the spans of the
calls of ``name`` (none by default). Raising fails the call with the
exception's message.
"""

from dataclasses import dataclass, field
from typing import List, Optional

from componentize_py_types import Err
from wit_world.exports import parser as _parser
from wit_world.imports import types as _types

from . import PluginBase


@dataclass
class Language:
    name: str
    #: File extensions without the dot.
    extensions: List[str] = field(default_factory=list)


@dataclass
class Symbol:
    kind: str
    name: str
    parent: Optional[int]
    byte_start: int
    byte_end: int
    #: 1-based, inclusive.
    line_start: int
    line_end: int
    #: Where the signature ends (the body starts), as a byte offset.
    signature_end: int


@dataclass
class Span:
    byte_start: int
    byte_end: int
    line: int


class ParserPlugin(PluginBase):
    languages: List[Language] = []

    def outline(self, language: str, source: str) -> List[Symbol]:
        return []

    def references(self, language: str, source: str, name: str) -> List[Span]:
        return []

    def capabilities(self) -> list:
        return [
            _types.Capability_Parser(_types.LanguageSpec(l.name, list(l.extensions)))
            for l in self.languages
        ]

    @classmethod
    def export(cls):
        owner = cls

        class Parser:
            def outline(self, language: str, source: str):
                try:
                    symbols = owner.instance().outline(language, source)
                except Exception as e:
                    raise Err(f"{type(e).__name__}: {e}")
                return [
                    _parser.Symbol(
                        s.kind, s.name, s.parent, s.byte_start, s.byte_end,
                        s.line_start, s.line_end, s.signature_end,
                    )
                    for s in symbols
                ]

            def references(self, language: str, source: str, name: str):
                try:
                    spans = owner.instance().references(language, source, name)
                except Exception as e:
                    raise Err(f"{type(e).__name__}: {e}")
                return _parser.Calls(
                    [_parser.Span(s.byte_start, s.byte_end, s.line) for s in spans], None
                )

        return cls.plugin_export(), Parser
