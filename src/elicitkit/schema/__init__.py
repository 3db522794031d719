"""The form-mode schema subset of MCP 2025-11-25 (REQUIREMENTS S-10..S-13, C-11, C-12).

Both sides use the same four functions:

- `build(tp)`: a Python type (pydantic model, dataclass, TypedDict) to a spec-valid
  `requestedSchema`;
- `lint(schema)`: every way a schema leaves the subset or breaks the spec's rules;
- `validate(schema, content)`: strict check of an accepted answer;
- `defaults(schema)`: the pre-filled answer from `default` values.
"""

from elicitkit.schema._build import SchemaBuildError, build
from elicitkit.schema._defaults import defaults
from elicitkit.schema._lint import LintFinding, Severity, lint
from elicitkit.schema._validate import ValidationProblem, validate

__all__ = [
    "LintFinding",
    "SchemaBuildError",
    "Severity",
    "ValidationProblem",
    "build",
    "defaults",
    "lint",
    "validate",
]
