"""The form-mode schema subset of MCP 2025-11-25 (REQUIREMENTS S-10..S-13, C-11, C-12).

Both sides use the same four functions:

- `build(tp)`: a Python type (pydantic model, dataclass, TypedDict) to a spec-valid
  `requestedSchema`;
- `lint(schema)`: every way a schema leaves the subset or breaks the spec's rules;
- `validate(schema, content)`: strict check of an accepted answer;
- `defaults(schema)`: the pre-filled answer from `default` values.

Every `pattern` is run by RE2 (`pattern_matches`), in time linear in the text.

`Titled` and `TitledEnum` give choices display titles (see `build`). The stable lint codes
are listed in `elicitkit.schema._lint`, the validation problem codes in
`elicitkit.schema._validate`.
"""

from elicitkit.schema._build import SchemaBuildError, Titled, TitledEnum, build
from elicitkit.schema._defaults import defaults
from elicitkit.schema._lint import LintFinding, Severity, lint
from elicitkit.schema._patterns import PatternError, pattern_matches
from elicitkit.schema._validate import ValidationProblem, validate

__all__ = [
    "LintFinding",
    "PatternError",
    "SchemaBuildError",
    "Severity",
    "Titled",
    "TitledEnum",
    "ValidationProblem",
    "build",
    "defaults",
    "lint",
    "pattern_matches",
    "validate",
]
