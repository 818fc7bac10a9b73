"""Whether an expression may overflow a signed type, judged from its types and constants
alone: the cheap half of deciding where gcc's folds may change what a program computes
(``frontend.folding`` is the other half, gcc's word on where it folded).

gcc's folds keep the value of every run in which no signed arithmetic overflows. An
expression whose every signed operation stays within its type for all operand values the
operands' types allow (``(int)c + 1`` for a ``char c``) computes the same in gcc's build
as in the CFA, however gcc folded it. The ranges are intervals over the operands' types,
narrowed by casts from smaller types, bit-fields' widths and constants; anything else
is its type's range.
"""
from __future__ import annotations

from cooptest.cfa.ctype import IntType
from cooptest.cfa.ir import Binary, Cast, Const, Expr, Member, Unary

Interval = tuple[int, int]
OVERFLOWING = ("+", "-", "*", "/", "%", "<<")
"""The binary operators whose result may not fit their (signed) type."""


def may_overflow(e: Expr) -> bool:
    """Whether some signed operation within ``e`` may leave its type's range."""
    return any(overflowing(x) for x in e.walk())


def overflowing(e: Expr) -> bool:
    """Whether ``e`` itself is a signed operation that may leave its type's range."""
    t = e.type
    if not isinstance(t, IntType) or not t.signed:
        return False
    if not (isinstance(e, Binary) and e.op in OVERFLOWING or isinstance(e, Unary) and e.op == "-"):
        return False
    exact = _exact(e)
    return exact is None or exact[0] < t.min or exact[1] > t.max


def _range(e: Expr) -> Interval | None:
    """An interval holding every value of the integer expression ``e`` (None: not an
    integer)."""
    t = e.type
    if not isinstance(t, IntType):
        return None
    whole = (t.min, t.max)
    if isinstance(e, Const) and isinstance(e.value, int):
        return (e.value, e.value)
    if isinstance(e, Member) and (width := e.member.bit_width) is not None:
        return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if t.signed else (0, (1 << width) - 1)
    if isinstance(e, Cast):
        inner = _range(e.operand)
        return inner if inner is not None and whole[0] <= inner[0] and inner[1] <= whole[1] else whole
    if isinstance(e, Binary) and e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||") \
            or isinstance(e, Unary) and e.op == "!":
        return (0, 1)
    if isinstance(e, (Binary, Unary)):
        exact = _exact(e)
        return exact if exact is not None and whole[0] <= exact[0] and exact[1] <= whole[1] else whole
    return whole


def _exact(e: Binary | Unary) -> Interval | None:
    """The interval of the mathematical result of ``e`` on its operands' intervals
    (None where it is not computed here: any result then)."""
    if isinstance(e, Unary):
        inner = _range(e.operand) if e.op == "-" else None
        return (-inner[1], -inner[0]) if inner is not None else None
    left, right = _range(e.left), _range(e.right)
    if left is None or right is None:
        return None
    if e.op == "+":
        return (left[0] + right[0], left[1] + right[1])
    if e.op == "-":
        return (left[0] - right[1], left[1] - right[0])
    if e.op == "*":
        products = [a * b for a in left for b in right]
        return (min(products), max(products))
    if e.op in ("/", "%"):
        # the result's magnitude is at most the dividend's; only a divisor of -1 makes
        # it the dividend's negation (INT_MIN / -1 overflows)
        bound = max(abs(left[0]), abs(left[1]))
        if right[0] <= -1 <= right[1]:
            return (-bound, bound)
        return (min(left[0], -(bound // 2)), max(left[1], bound // 2))  # x / 1 is x, else |q| <= |x| / 2
    if e.op == "<<" and right[0] == right[1] and 0 <= right[0] < 64:
        return (left[0] << right[0], left[1] << right[0])
    if e.op == "&" and (left[0] >= 0 or right[0] >= 0):
        return (0, max(left[1] if left[0] >= 0 else 0, right[1] if right[0] >= 0 else 0))
    if e.op in (">>", "&", "|", "^"):  # within the type: never an overflow
        t = e.type
        assert isinstance(t, IntType)
        return (t.min, t.max)
    return None
