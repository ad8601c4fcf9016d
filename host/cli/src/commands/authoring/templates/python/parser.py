"""{{id}}: an amber parser in Python: outlines INI files, a `section`
per `[name]` and a `key` per `name = value` under it."""

from amber_sdk import Manifest
from amber_sdk.parser import Language, ParserPlugin, Symbol


class {{Camel}}(ParserPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Outlines INI files.")
    languages = [Language("ini", ["ini"])]

    def outline(self, language, source):
        symbols, section, offset = [], None, 0
        data = source.encode()
        for number, text in enumerate(data.splitlines(keepends=True), start=1):
            line = text.decode().strip()
            end = offset + len(text)
            if line.startswith("[") and line.endswith("]"):
                section = len(symbols)
                symbols.append(Symbol("section", line[1:-1].strip(), None, offset, end, number, number, end))
            elif "=" in line:
                key = line.split("=", 1)[0].strip()
                symbols.append(Symbol("key", key, section, offset, end, number, number, end))
                if section is not None:
                    # A section runs to its last key.
                    symbols[section].line_end = number
                    symbols[section].byte_end = end
            offset = end
        return symbols


# componentize-py looks for these two classes in this module.
Plugin, Parser = {{Camel}}.export()
