"""C literal texts (integer, floating, character, string) to typed IR constants."""
from __future__ import annotations

import re
import struct
from fractions import Fraction

from cooptest.cfa.ctype import ArrayType, DataModel, FloatType, Types
from cooptest.cfa.ir import Const, StringLit

_INT = re.compile(r"^(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8,
            "f": 12, "v": 11, "?": 63, "e": 27}


class UnicodeString(Exception):
    """A wide or Unicode string literal, whose elements the CFA's char arrays cannot
    hold (the caller refuses the program)."""


C90 = frozenset({"-std=c89", "-std=c90", "-std=gnu89", "-std=gnu90", "-std=iso9899:1990",
                 "-std=iso9899:199409"})


def int_literal(types: Types, text: str, c90: bool = False) -> Const | None:
    """An integer constant with the type C11 6.4.4.1 gives it; under ``c90``, C90
    6.1.3.2's (a decimal constant past ``long`` is ``unsigned long`` before gcc's
    ``long long``: under -m32 ``-2147483648`` is ``2147483648ul``, not negative)."""
    m = _INT.match(text)
    if not m:
        return None
    digits, suffix = m.group(1), m.group(2).lower()
    if digits[:2].lower() == "0x":
        value, decimal = int(digits, 16), False
    elif digits[:2].lower() == "0b":
        value, decimal = int(digits[2:], 2), False
    elif digits.startswith("0"):
        value, decimal = int(digits, 8), False
    else:
        value, decimal = int(digits), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    candidates = []
    if longs == 0:
        candidates += [types.uint] if unsigned else ([types.int] if decimal else [types.int, types.uint])
    signed_only = decimal and not c90  # C99 gives a decimal constant signed types alone
    if longs <= 1:
        candidates += [types.ulong] if unsigned else ([types.long] if signed_only else [types.long, types.ulong])
    candidates += [types.ulonglong] if unsigned else (
        [types.longlong] if signed_only else [types.longlong, types.ulonglong])
    for t in candidates:
        if t.min <= value <= t.max:
            return Const(t, value)
    if signed_only and not unsigned:  # gcc warns "so large that it is unsigned", yet gives
        widest = types.int128 if types.model is DataModel.LP64 else types.longlong  # its widest
        return Const(widest, widest.wrap(value))  # signed type: -m32's wraps (2**63 is negative)
    return Const(types.ulonglong, types.ulonglong.wrap(value))


def float_literal(types: Types, text: str) -> Const:
    suffix, t = _float_suffix(text)
    ftype = types.float if suffix == "f" else types.longdouble if suffix == "l" else types.double
    value = float.fromhex(t) if t.startswith("0x") else float(t)
    return Const(ftype, value)


def _float_suffix(text: str) -> tuple[str, str]:
    """A floating constant's suffix (``f``, ``l`` or none) and its text without it."""
    t = text.lower()
    if t.endswith("f") and not t.startswith("0x") or t.startswith("0x") and t.endswith("f") and "p" in t:
        return "f", t[:-1]
    if t.endswith("l"):
        return "l", t[:-1]
    return "", t


def exactly_its_value(text: str, c: Const) -> bool:
    """Whether the floating constant ``text`` denotes exactly ``c``'s value, rounded to
    ``c``'s type (the CFA's: a double for a long double). Only then is the constant one
    number whatever the precision gcc evaluates it in: under FLT_EVAL_METHOD 2 (-m32's
    x87) a strict ISO ``-std=`` makes ``0.1`` a long double, unequal to the double 0.1."""
    t = _float_suffix(text)[1]
    value = float(c.value)
    if value != value or value in (float("inf"), float("-inf")):
        return False
    if isinstance(c.type, FloatType) and c.type.bits == 32 \
            and struct.unpack("f", struct.pack("f", value))[0] != value:
        return False
    return _exact(t) == Fraction(value)


def _exact(text: str) -> Fraction:
    """The rational number a floating constant's text (no suffix) denotes."""
    if not text.startswith("0x"):
        return Fraction(text)
    mantissa, _, exponent = text[2:].partition("p")
    whole, _, fraction = mantissa.partition(".")
    digits = int(whole + fraction or "0", 16)
    return Fraction(digits, 16 ** len(fraction)) * Fraction(2) ** int(exponent or "0")


def unescape(body: str) -> bytes:
    """The bytes of a C string or character literal body (without quotes)."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = body[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8) & 0xFF)
            i = j
        elif n == "x":
            j = i + 2
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 2:j], 16) & 0xFF)
            i = j
        else:
            out.append(_ESCAPES.get(n, ord(n)))
            i += 2
    return bytes(out)


def char_literal(types: Types, text: str) -> Const:
    """``'a'`` has type int in C, with the value of a (signed) char; a multi-character
    constant ``'ab'`` is gcc's int of its bytes, the first most significant (0x6162);
    ``L'x'`` (wchar_t, int on Linux), ``u'x'`` (char16_t) and ``U'x'`` (char32_t) hold
    the character's code."""
    prefix = text[0] if text[0] in "LuU" else ""
    body = text[len(prefix) + 1:-1]
    if prefix:
        t = {"L": types.int, "u": types.ushort, "U": types.uint}[prefix]
        codes = _codes(body)
        return Const(t, t.wrap(codes[0]) if codes else 0)
    data = unescape(body)
    if len(data) > 1:
        return Const(types.int, types.int.wrap(int.from_bytes(data, "big")))
    return Const(types.int, types.char.wrap(data[0]) if data else 0)


def _codes(body: str) -> list[int]:
    """The character codes of a wide literal's body: an escape is one code, however
    many bytes its value needs."""
    out: list[int] = []
    i = 0
    while i < len(body):
        if body[i] != "\\":
            out.append(ord(body[i]))
            i += 1
            continue
        n = body[i + 1]
        j = i + 2
        if n in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8))
        elif n in "xuU":
            while j < len(body) and body[j] in "0123456789abcdefABCDEF" and (n == "x" or j < i + {"u": 6, "U": 10}[n]):
                j += 1
            out.append(int(body[i + 2:j], 16))
        else:
            out.append(_ESCAPES.get(n, ord(n)))
        i = j
    return out


def string_literal(types: Types, text: str) -> StringLit:
    """A string literal's bytes as an array of char; ``u8"..."`` is one too. A wide or
    Unicode string (``L"ab"``: an array of 4-byte wchar_t) is not: UnicodeString."""
    if text.startswith(("L", "u", "U")) and not text.startswith("u8"):
        raise UnicodeString(text)
    if text.startswith("u8"):
        text = text[text.index('"'):]
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', text, re.S)
    data = b"".join(unescape(p) for p in parts) + b"\0"
    return StringLit(ArrayType(types.char, len(data)), data)


def c_string(value: str) -> str:
    """``value`` as a C string literal: printable ASCII as is, every other byte in octal
    (three digits, so that no following digit can extend the escape)."""
    out = []
    for byte in value.encode("utf-8", errors="surrogateescape"):
        ch = chr(byte)
        if ch in '\\"':
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F and ch != "?":  # "?" could start a trigraph
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
