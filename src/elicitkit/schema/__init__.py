"""The form-mode schema subset of MCP 2025-11-25 (REQUIREMENTS S-10..S-13, C-11, C-12).

Both sides use the same four functions:

- `build(tp)`: a Python type (pydantic model, dataclass, TypedDict) to a spec-valid
  `requestedSchema`;
- `lint(schema)`: every way a schema leaves the subset or breaks the spec's rules;
- `validate(schema, content)`: strict check of an accepted answer;
- `defaults(schema)`: the pre-filled answer from `default` values.

`fields(schema)` reads a `requestedSchema` once into `Field`s (kind, title, limits, choices):
the one model of a form field that the client's UIs, `elicitkit check` and the client's size
limits all use. `FORMATS` is the table of string formats a form can check (a `Format` each);
`lint`, `validate` and every UI read it, so a new format is one row there plus, if a UI wants
a special widget for it, that UI's drawing.

Every `pattern` runs in time linear in the text (`pattern_matches`: the Rust `regex` crate
inside pydantic-core).

`Titled` and `TitledEnum` give choices display titles (see `build`). The stable lint codes
are listed in `elicitkit.schema._lint`, the validation problem codes in
`elicitkit.schema._validate`.
"""

from collections.abc import Mapping
from types import MappingProxyType

from elicitkit.schema._build import SchemaBuildError, Titled, TitledEnum, build
from elicitkit.schema._defaults import defaults
from elicitkit.schema._fields import Field, FieldKind, Option, fields
from elicitkit.schema._formats import FORMATS as _FORMATS
from elicitkit.schema._formats import Format
from elicitkit.schema._lint import LintFinding, Severity, lint
from elicitkit.schema._patterns import PatternError, pattern_matches
from elicitkit.schema._validate import ValidationProblem, validate

#: The string formats a form can check, by name (read-only: see `elicitkit.schema.Format`).
FORMATS: Mapping[str, Format] = MappingProxyType(_FORMATS)

__all__ = [
    "FORMATS",
    "Field",
    "FieldKind",
    "Format",
    "LintFinding",
    "Option",
    "PatternError",
    "SchemaBuildError",
    "Severity",
    "Titled",
    "TitledEnum",
    "ValidationProblem",
    "build",
    "defaults",
    "fields",
    "lint",
    "pattern_matches",
    "validate",
]
