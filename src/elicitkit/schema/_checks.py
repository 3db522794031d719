"""The small checks pydantic-core calls for `validate`: numbers, formats, multi-selects.

Each only says yes or no: a refusal is a bare "elicitkit" error (cheap to raise), and
`validate` asks the field's `Said` what is wrong with the value, only for a failing answer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from pydantic_core import CoreSchema, PydanticCustomError
from pydantic_core import core_schema as cs

from elicitkit.i18n import noop
from elicitkit.schema import _formats
from elicitkit.schema._sentences import NOT_A, Sentence, cut, json_type

Said = Callable[[Any], Sentence | None]
"""What is wrong with a value one of these checks refused."""

_REFUSED = "refused by elicitkit's check of this field"


def _refused() -> PydanticCustomError:
    return PydanticCustomError("elicitkit", _REFUSED)


_TOO_SMALL = noop("%(name)s must be at least %(low)s, not %(got)s.")
_TOO_LARGE = noop("%(name)s must be at most %(high)s, not %(got)s.")
_DUPLICATE = noop("%(name)s names %(repeated)s more than once; pick each choice once.")


def number(integer: bool, low: float | None, high: float | None) -> CoreSchema:
    """A number field: pydantic-core's own checks first, our Python check for what they refuse.

    The native choices accept only values the Python check accepts too (an int in the bounds;
    for a number field, a finite float in bounds that a float compares with exactly), so the
    verdict is always the Python check's; it is called only for the rest (a whole float in an
    integer field, a huge bound, and every value that is refused). Either way a refusal is our
    bare "elicitkit" error, explained by `number_problem`."""
    fast: list[CoreSchema] = [
        cs.int_schema(strict=True, ge=_whole(low, math.ceil), le=_whole(high, math.floor))
    ]
    if not integer and _exact_float(low) and _exact_float(high):
        floats = cs.float_schema(
            strict=True,
            allow_inf_nan=False,
            ge=None if low is None else float(low),
            le=None if high is None else float(high),
        )
        fast.append(cs.chain_schema([cs.is_instance_schema(float), floats]))
    check = cs.no_info_plain_validator_function(number_check(integer, low, high))
    return cs.union_schema(
        [*fast, check], mode="left_to_right", custom_error_type="elicitkit", custom_error_message=_REFUSED
    )


def _whole(bound: float | None, rounded: Callable[[float], int]) -> int | None:
    """The bound an int meets exactly when it meets `bound` (ceil for a minimum, floor for a maximum)."""
    return bound if bound is None or type(bound) is int else rounded(bound)


def _exact_float(bound: float | None) -> bool:
    """Whether a float comparison with `bound` is exact (an int past 2**53 may not be)."""
    try:
        return bound is None or float(bound) == bound
    except OverflowError:
        return False


def number_problem(integer: bool, low: float | None, high: float | None) -> Said:
    wanted = noop("an integer") if integer else noop("a number")

    def problem(value: Any) -> Sentence | None:
        if isinstance(value, float):
            if not math.isfinite(value) or (integer and not value.is_integer()):
                return "wrong-type", NOT_A, {"wanted": wanted, "got": cut(value)}, ("wanted",)
        elif not isinstance(value, int) or isinstance(value, bool):
            return "wrong-type", NOT_A, {"wanted": wanted, "got": json_type(value)}, ("wanted", "got")
        if low is not None and value < low:
            return "too-small", _TOO_SMALL, {"low": low, "got": cut(value)}, ()
        if high is not None and value > high:
            return "too-large", _TOO_LARGE, {"high": high, "got": cut(value)}, ()
        return None

    return problem


def number_check(integer: bool, low: float | None, high: float | None) -> Callable[[Any], Any]:
    """`number_problem`'s verdict as the plain validator pydantic-core calls. It runs only for
    what the native checks of `number` refused, so it asks `number_problem` itself."""
    problem = number_problem(integer, low, high)

    def check(value: Any) -> Any:
        if problem(value) is None:
            return value
        raise _refused()

    return check


def in_format(fmt: str) -> Callable[[str], str]:
    """The after-validator of a `format`: the value, when the row of `FORMATS` accepts it."""
    accepts = _formats.FORMATS[fmt].accepts

    def accept(value: str) -> str:
        if not accepts(value):
            raise _refused()
        return value

    return accept


def not_in_format(fmt: str) -> Said:
    described = _formats.FORMATS[fmt].described

    def problem(value: Any) -> Sentence:
        return "format", NOT_A, {"wanted": described, "got": cut(value)}, ("wanted",)

    return problem


def no_duplicates(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise _refused()
    return values


def repeated(values: list[str]) -> Sentence:
    repeated = sorted({v for v in values if values.count(v) > 1})
    return "duplicate", _DUPLICATE, {"repeated": ", ".join(map(repr, repeated))}, ()
