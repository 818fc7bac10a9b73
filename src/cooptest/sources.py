"""The program a command is given: C files, a directory, a task ``.yml``, or a
compilation database, with the flags each file is compiled with.

``compile_commands.json`` is read as CMake, Bear and Meson write it (an array of
``{"directory", "file", "command" | "arguments"}``). Of each command only the flags that
decide what the preprocessor and the compiler make of the source are kept (include
paths, macros, forced includes, the dialect, the signedness of ``char``); optimisation,
warnings, outputs and dependency files are the build's business, not the program's.
Relative paths are made absolute against the entry's ``directory``, as the compiler,
run there, reads them.
"""
from __future__ import annotations

import json
import os
import shlex
from collections.abc import Sequence

from cooptest.cfa.ctype import DataModel
from cooptest.errors import UserError
from cooptest.task import BRANCHES, Source, Task, load_task

C_SUFFIXES = (".c", ".i")
TASK_SUFFIXES = (".yml", ".yaml")
# flags kept, with their value in the next argument or attached (``-I dir``, ``-Idir``)
PATH_FLAGS = ("-I", "-include", "-isystem", "-iquote", "-idirafter", "-imacros")
VALUE_FLAGS = ("-D", "-U")
# flags kept as they are
PLAIN_FLAGS = ("-std=", "-ansi", "-fsigned-char", "-funsigned-char", "-fno-signed-char",
               "-fno-unsigned-char", "-fsigned-bitfields", "-fno-builtin", "-ffreestanding", "-fwrapv",
               "-fno-strict-aliasing", "-fcommon", "-fno-common", "-pthread", "-m32", "-m64")
# flags that change the program's meaning in ways cooptest does not model (enum and
# wchar_t sizes, struct layout, bit-field signedness, inline linkage): refused
UNMODELLED_FLAGS = ("-fshort-enums", "-fshort-wchar", "-fpack-struct", "-funsigned-bitfields",
                    "-fgnu89-inline")
DATA_MODEL_FLAGS = {"-m32": DataModel.ILP32, "-m64": DataModel.LP64}


def kept_flags(args: Sequence[str], directory: str, where: str) -> tuple[str, ...]:
    """The flags of ``args`` (a compiler's arguments) that cooptest passes on, with
    relative paths made absolute against ``directory``; an unknown option is dropped,
    one that needs a value it lacks is a UserError naming ``where``."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        flag = next((f for f in PATH_FLAGS + VALUE_FLAGS if a == f or a.startswith(f)
                     and f in ("-I", "-D", "-U")), None)
        if flag is not None:
            value = a[len(flag):]
            if not value:
                i += 1
                if i >= len(args):
                    raise UserError(f"option {flag} without a value", where)
                value = args[i]
            if flag in PATH_FLAGS:
                value = os.path.normpath(os.path.join(directory, value))
            out += [flag, value] if flag != "-D" and flag != "-U" else [f"{flag}{value}"]
        elif a.startswith(UNMODELLED_FLAGS):
            raise UserError(f"{a} changes what the program means in a way cooptest does not model", where)
        elif a.startswith(PLAIN_FLAGS) or a in PLAIN_FLAGS:
            out.append(a)
        i += 1
    return tuple(out)


def common_flags(includes: Sequence[str], defines: Sequence[str], cflags: str | None) -> tuple[str, ...]:
    """``-I``/``-D``/``--cflags`` of the command line, paths against the working folder."""
    args = [f"-I{d}" for d in includes] + [f"-D{d}" for d in defines]
    if cflags:
        try:
            args += shlex.split(cflags)
        except ValueError as e:
            raise UserError(f"--cflags: {e}") from None
    for d in includes:
        if not os.path.isdir(d):
            raise UserError("no such include folder (-I)", d)
    return kept_flags(args, os.getcwd(), "--cflags")


def read_compile_commands(path: str) -> list[Source]:
    """The translation units of a compilation database, in its order (a file compiled
    twice, e.g. for two targets, is taken once: its first entry)."""
    try:
        with open(path, encoding="utf-8") as f:
            entries = json.load(f)
    except FileNotFoundError:
        raise UserError("no such compilation database", path) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        line = getattr(e, "lineno", None)
        raise UserError(f"not a compilation database: {e.args[0] if e.args else e}", path, line) from None
    if not isinstance(entries, list) or not entries:
        raise UserError("not a compilation database: expected a non-empty JSON array", path)
    units: dict[str, Source] = {}
    for n, entry in enumerate(entries, 1):
        where = f"entry {n}"
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str) \
                or not isinstance(entry.get("directory"), str):
            raise UserError(f"not a compilation database: entry {n} lacks file or directory", path)
        directory = os.path.join(os.path.dirname(os.path.abspath(path)), entry["directory"])
        args = entry.get("arguments")
        if args is None:
            command = entry.get("command")
            if not isinstance(command, str):
                raise UserError(f"not a compilation database: entry {n} has no command", path)
            args = shlex.split(command)
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise UserError(f"not a compilation database: entry {n} has bad arguments", path)
        file = os.path.normpath(os.path.join(directory, entry["file"]))
        if not file.endswith(C_SUFFIXES):
            continue  # C++, assembly: not part of a C program cooptest analyses
        if not os.path.isfile(file):
            raise UserError(f"entry {n} names {entry['file']}, which does not exist", path)
        units.setdefault(file, Source(file, kept_flags(args[1:], directory, f"{path}: {where}")))
    if not units:
        raise UserError("the compilation database names no C file", path)
    return list(units.values())


def c_files_in(directory: str) -> list[str]:
    """The ``.c`` files under ``directory``, in a stable order (hidden folders skipped)."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".c")]
    if not found:
        raise UserError("no .c file in this folder", directory)
    return found


def load_program_task(targets: Sequence[str], data_model: DataModel | None = None,
                      flags: tuple[str, ...] = (), compile_commands: str | None = None) -> Task:
    """The task of a command's program arguments: one task ``.yml``, or C files and
    folders (each ``.c`` file a translation unit), or a compilation database; ``flags``
    are added to every unit."""
    if compile_commands is not None:
        if targets:
            raise UserError("give either program files or --compile-commands, not both")
        units = read_compile_commands(compile_commands)
    elif len(targets) == 1 and targets[0].endswith(TASK_SUFFIXES):
        task = load_task(targets[0], data_model)
        if not flags:
            return task
        return Task(task.program, task.data_model, task.properties, task.task_file,
                    tuple(Source(u.path, u.flags + flags) for u in task.units))
    else:
        if not targets:
            raise UserError("no program given (C files, a folder, a task .yml or --compile-commands)")
        paths: list[str] = []
        for t in targets:
            if t.endswith(TASK_SUFFIXES):
                raise UserError("a task .yml is the whole program: give it alone", t)
            if os.path.isdir(t):
                paths += c_files_in(t)
            elif os.path.isfile(t) and not t.endswith(C_SUFFIXES):
                raise UserError("not a C file or task (expected .c, .i or .yml)", t)
            else:
                load_task(t)  # exists, is a regular file, is text
                paths.append(t)
        units = []
        for p in dict.fromkeys(os.path.abspath(p) for p in paths):
            units.append(Source(p))
    units = [Source(u.path, u.flags + flags) for u in units]
    chosen = [DATA_MODEL_FLAGS[f] for u in units for f in u.flags if f in DATA_MODEL_FLAGS]
    units = [Source(u.path, tuple(f for f in u.flags if f not in DATA_MODEL_FLAGS)) for u in units]
    if len(units) == 1 and not units[0].flags:
        return load_task(units[0].path, data_model or (chosen[-1] if chosen else None))
    model = data_model or (chosen[-1] if chosen else DataModel.LP64)
    return Task(units[0].path, model, (BRANCHES,), None, tuple(units))
