"""A project's defaults for the command line: ``cooptest.toml``, or the ``[tool.cooptest]``
table of ``pyproject.toml``.

    # cooptest.toml                      # or in pyproject.toml
    cflags = "-std=gnu89 -Iinclude"      [tool.cooptest]
    [generate]                           cflags = "-std=gnu89 -Iinclude"
    budget = 120                         [tool.cooptest.generate]
    strategy = "concolic"                budget = 120

A key is an option's long name without its dashes (``data-model``, ``no-reduce``;
``includes`` and ``defines`` for ``-I`` and ``-D``), its value what the option takes: a
list for an option given several times or taking several values, true for a flag. A key
at the top applies to every command that has the option, a command's table to that
command. The values are checked by the options' own types, so a bad one is refused in
one line naming the file and the key's line, as an unknown key is; the command line
wins over the file. The file is the one in the current folder or the nearest folder
above it that has one, as ruff and black find theirs; ``generate`` records the values it
applied in report.json (``configuration.config_file``), ``bench`` in results.json.
"""
from __future__ import annotations

import argparse
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any, Mapping

from cooptest.errors import UserError

OWN, PYPROJECT = "cooptest.toml", "pyproject.toml"


@dataclass
class ConfigFile:
    """The defaults one file gives, by command: ``values[command][key]`` as the file
    spells the value (what report.json records), ``actions`` the options they set."""

    path: str
    text: str
    table: dict[str, Any]  # the file's cooptest table: keys and command tables
    set: dict[str, dict[str, tuple[argparse.Action, Any]]] = field(default_factory=dict)

    def line_of(self, command: str | None, key: str) -> int | None:
        """The line of ``key`` in ``command``'s table (the top table if None); None where
        the file does not set it on a line of its own (an inline table)."""
        own = self.path.endswith(OWN)
        current: str | None = "" if own else None  # the table the lines are in, by command
        for number, line in enumerate(self.text.splitlines(), 1):
            header = re.match(r"\s*\[([^\]]*)\]", line)
            if header:
                name: str | None = re.sub(r"\s", "", header.group(1))
                if not own and name is not None:
                    name = name[len("tool.cooptest"):].lstrip(".") \
                        if name == "tool.cooptest" or name.startswith("tool.cooptest.") else None
                if command is None and name == key:  # a table where a value belongs
                    return number
                current = name
            elif current == (command or "") and re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
                return number
        return None

    def error(self, command: str | None, key: str, message: str) -> UserError:
        where = f"[{command}] " if command else ""
        return UserError(f"{where}{key}: {message}", self.path, self.line_of(command, key))

    def applied(self, command: str, args: argparse.Namespace) -> dict[str, Any]:
        """The file's values for ``command`` that the parsed command line kept (a value the
        command line gave instead is not the file's), as the file spells them."""
        kept = {}
        for key, (action, value) in self.set.get(command, {}).items():
            final = getattr(args, action.dest, None)
            converted = action.default
            if final == converted or (isinstance(converted, list) and isinstance(final, list)
                                      and final[:len(converted)] == converted):
                kept[key] = value
        return kept


def find(folder: str) -> ConfigFile | None:
    """The configuration of ``folder``: its ``cooptest.toml``, else a ``pyproject.toml``
    with a ``[tool.cooptest]`` table, else the nearest folder's above it."""
    folder = os.path.abspath(folder)
    while True:
        for name in (OWN, PYPROJECT):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                found = _read(path)
                if found is not None:
                    return found
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _read(path: str) -> ConfigFile | None:
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        line = re.search(r"at line (\d+)", str(e))
        raise UserError(re.sub(r" \(at line \d+, column \d+\)", "", str(e)), path,
                        int(line.group(1)) if line else None) from None
    except OSError as e:
        raise UserError(f"cannot read: {e.strerror}", path) from None
    if path.endswith(OWN):
        return ConfigFile(path, text, doc)
    table = doc.get("tool", {}).get("cooptest") if isinstance(doc.get("tool"), dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise UserError("tool.cooptest must be a table", path)
    return ConfigFile(path, text, table)


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """A command's options by their key in the file: the long name without dashes, the
    destination for an option with a short name only (``-I``: ``includes``)."""
    keys = {}
    for action in parser._actions:  # argparse offers no public list of a parser's options
        if not action.option_strings or isinstance(action, argparse._HelpAction):
            continue
        longs = [o[2:] for o in action.option_strings if o.startswith("--")]
        keys[longs[0] if longs else action.dest] = action
    return keys


def apply(config: ConfigFile, commands: Mapping[str, argparse.ArgumentParser]) -> None:
    """Make the file's values the defaults of the commands' options; a UserError for a
    key no command (or not that command) has, or a value its option refuses."""
    options = {name: options_of(p) for name, p in commands.items()}
    for key, value in config.table.items():
        if key in commands:
            if not isinstance(value, dict):
                raise config.error(None, key, f"a command's table, [{key}], not a value")
            for option, v in value.items():
                if option not in options[key]:
                    raise config.error(key, option, f"{key} has no option --{option} "
                                       f"(known: {', '.join(sorted(options[key]))})")
                _set(config, key, key, option, options[key][option], v)
        elif isinstance(value, dict):
            raise config.error(None, key, f"no command {key} (tables: {', '.join(commands)})")
        else:
            having = [name for name in commands if key in options[name]]
            if not having:
                raise config.error(None, key, "no command has this option (a command's "
                                   f"own options go in its table: {', '.join(commands)})")
            for name in having:
                if key not in config.table.get(name, {}):  # the command's table wins
                    _set(config, None, name, key, options[name][key], value)


def _set(config: ConfigFile, table: str | None, command: str, key: str, action: argparse.Action,
         value: Any) -> None:
    """``value`` (of ``key`` in ``table``, the top one if None) the default of
    ``command``'s option ``action``."""
    action.default = _convert(config, table, key, action, value)
    action.required = False  # the file gives it
    config.set.setdefault(command, {})[key] = (action, value)


def _convert(config: ConfigFile, table: str | None, key: str, action: argparse.Action, value: Any) -> Any:
    """``value`` as the option would hold it had the command line given it."""
    if action.nargs == 0:  # a flag
        if not isinstance(value, bool):
            raise config.error(table, key, "takes true or false")
        return action.const if value else action.default
    many = isinstance(action, argparse._AppendAction) or isinstance(action.nargs, int)
    if many != isinstance(value, list):
        raise config.error(table, key, "takes a list of values" if many else "takes one value")
    items = value if many else [value]
    if isinstance(action.nargs, int) and not isinstance(action, argparse._AppendAction) \
            and len(items) != action.nargs:
        raise config.error(table, key, f"takes {action.nargs} values")
    converted = []
    for item in items:
        if isinstance(item, (bool, dict, list)):
            raise config.error(table, key, f"not a value the option takes: {item!r}")
        convert = action.type if callable(action.type) else str
        try:
            one = convert(str(item))
        except (argparse.ArgumentTypeError, ValueError, TypeError) as e:
            raise config.error(table, key, str(e)) from None
        if action.choices is not None and one not in action.choices:
            raise config.error(table, key, f"{item!r} is none of {', '.join(map(str, action.choices))}")
        converted.append(one)
    return converted if many else converted[0]
