"""Answers validated per second: `elicitkit.schema.validate` against a cached jsonschema validator.

Both check the same answers against the same 14-field schema (every kind of field, all four
formats) in the same run. The baseline is `Draft202012Validator(schema,
format_checker=Draft202012Validator.FORMAT_CHECKER)`, built once; each answer costs it
`list(iter_errors(answer))`, and costs elicitkit `validate(schema, answer)`: both produce the
full list of problems.

Each scenario runs six adjacent pairs (a quarter second of each side, alternating which goes
first); its ratio is the median of the pairs' ratios.

Scenarios:
- valid / invalid / mixed: a pool of 1,000 different answers (half of them invalid, each in one
  field both validators reject), cycled for a fixed time;
- fresh: every answer is one never checked before (a new email address, URL, date and time);
- equal_schema (a supporting figure, elicitkit only): each answer checked against an equal
  schema built anew, as a server reads each request from the wire, over the same answers
  checked against the one schema object: about 1 when a schema is compiled once per content
  (compiling costs a few hundred answers' worth), far below 1 when it is compiled again.

Run: `.venv/bin/python benchmarks/validate.py` (about 15 s). `run()` returns the figures.
"""

from __future__ import annotations

import itertools
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

from elicitkit.schema import validate

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 40},
        "handle": {"type": "string", "pattern": "^[a-z0-9_]+$", "maxLength": 20},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meeting": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "subscribe": {"type": "boolean", "default": False},
        "color": {"type": "string", "enum": ["Red", "Green", "Blue"], "default": "Red"},
        "hex": {
            "type": "string",
            "oneOf": [
                {"const": "#FF0000", "title": "Red"},
                {"const": "#00FF00", "title": "Green"},
                {"const": "#0000FF", "title": "Blue"},
            ],
        },
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["news", "offers", "events", "tips"]},
            "minItems": 1,
            "maxItems": 3,
        },
        "picks": {
            "type": "array",
            "items": {"anyOf": [{"const": "a", "title": "Alpha"}, {"const": "b", "title": "Beta"}]},
            "maxItems": 2,
        },
        "size": {"type": "string", "enum": ["s", "m", "l"], "enumNames": ["Small", "Medium", "Large"]},
    },
    "required": ["name", "email", "age"],
    "additionalProperties": False,  # elicitkit always refuses unknown keys; tell jsonschema too
}

# One way to break each kind of field that both validators agree is wrong.
_BREAKS: list[tuple[str, Any]] = [
    ("name", ""),
    ("handle", "Not Valid!"),
    ("site", "not a uri"),
    ("born", "2024-02-30"),
    ("meeting", "tomorrow"),
    ("age", "36"),
    ("age", 151),
    ("score", True),
    ("subscribe", 1),
    ("color", "Purple"),
    ("hex", "Red"),
    ("tags", []),
    ("picks", ["c"]),
    ("size", "Small"),
    ("email", None),
    ("extra", "unknown key"),
]


def answer(rng: random.Random, i: int, *, broken: bool) -> dict[str, Any]:
    """A plausible answer, different for each `i`; `broken` ones fail in exactly one field."""
    content: dict[str, Any] = {
        "name": f"Person {i}",
        "handle": f"user_{i}",
        "email": f"person.{i}@example{i % 97}.org",
        "site": f"https://example.org/people/{i}?tab=about",
        "born": f"{1950 + i % 60}-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "meeting": f"2025-11-{1 + i % 28:02d}T{i % 24:02d}:30:00Z",
        "age": rng.randint(0, 150),
        "score": rng.random(),
        "subscribe": rng.random() < 0.5,
        "color": rng.choice(["Red", "Green", "Blue"]),
        "hex": rng.choice(["#FF0000", "#00FF00", "#0000FF"]),
        "tags": rng.sample(["news", "offers", "events", "tips"], rng.randint(1, 3)),
        "picks": rng.sample(["a", "b"], rng.randint(0, 2)),
        "size": rng.choice(["s", "m", "l"]),
    }
    if broken:
        field, value = _BREAKS[i % len(_BREAKS)]
        content[field] = value
    return content


def _rate(check: Callable[[Any], object], answers: list[Any], seconds: float, *, cycle: bool) -> float:
    """Answers per second over about `seconds` (the clock read every 100 answers); `cycle=False`
    never repeats an answer."""
    done = 0
    start = time.perf_counter()
    deadline = start + seconds
    batches = range(0, len(answers), 100)
    for first in itertools.cycle(batches) if cycle else batches:
        batch = answers[first : first + 100]
        for content in batch:
            check(content)
        done += len(batch)
        if time.perf_counter() >= deadline:
            break
    return done / (time.perf_counter() - start)


def _checked(pair: Any) -> object:
    schema, content = pair
    return validate(schema, content)


def run(seconds: float = 1.5, rounds: int = 6) -> dict[str, float]:
    """Measure every scenario; returns answers/s for both and `validate_ratio` (mixed answers).

    Each scenario runs `rounds` adjacent pairs of `seconds / rounds` per side, alternating which
    side goes first; a scenario's ratio is the median of its pairs' ratios, so that the noise of
    a shared machine hits both sides alike."""
    rng = random.Random(20251125)
    baseline = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)
    pools = {
        "valid": [answer(rng, i, broken=False) for i in range(1000)],
        "invalid": [answer(rng, i, broken=True) for i in range(1000)],
    }
    pools["mixed"] = [a for pair in zip(pools["valid"], pools["invalid"], strict=True) for a in pair]
    for content in pools["mixed"]:  # same verdict from both, or the comparison means nothing
        assert (validate(SCHEMA, content) == []) == baseline.is_valid(content), content
    # Each pair gets its own never-seen answers, made just before it (jsonschema memoises
    # nothing, so they are still fresh for elicitkit when jsonschema goes first).
    per_round = 40_000 if seconds >= 1 else 2_000

    def elicitkit(content: Any) -> object:
        return validate(SCHEMA, content)

    def jsonschema(content: Any) -> object:
        return list(baseline.iter_errors(content))

    results: dict[str, float] = {}
    share = seconds / rounds
    for name in [*pools, "fresh"]:
        ours_rates, theirs_rates, ratios = [], [], []
        for r in range(rounds):
            pool, cycle = pools.get(name, []), True
            if name == "fresh":
                first = 10_000 + r * per_round
                pool, cycle = [answer(rng, first + i, broken=i % 2 == 1) for i in range(per_round)], False
            if r % 2 == 0:
                ours = _rate(elicitkit, pool, share, cycle=cycle)
                theirs = _rate(jsonschema, pool, share, cycle=cycle)
            else:
                theirs = _rate(jsonschema, pool, share, cycle=cycle)
                ours = _rate(elicitkit, pool, share, cycle=cycle)
            ours_rates.append(ours)
            theirs_rates.append(theirs)
            ratios.append(ours / theirs)
        results[f"{name}_elicitkit_per_s"] = statistics.median(ours_rates)
        results[f"{name}_jsonschema_per_s"] = statistics.median(theirs_rates)
        results[f"{name}_ratio"] = statistics.median(ratios)
    twins = [(json.loads(json.dumps(SCHEMA)), content) for content in pools["mixed"]]
    same = [(SCHEMA, content) for content in pools["mixed"]]
    ratios = []
    for r in range(rounds):
        if r % 2 == 0:
            anew = _rate(_checked, twins, share, cycle=True)
            one_object = _rate(_checked, same, share, cycle=True)
        else:
            one_object = _rate(_checked, same, share, cycle=True)
            anew = _rate(_checked, twins, share, cycle=True)
        ratios.append(anew / one_object)
    results["equal_schema_ratio"] = statistics.median(ratios)
    results["validate_ratio"] = results["mixed_ratio"]
    results["validate_fresh_ratio"] = results["fresh_ratio"]
    return results


def main() -> None:
    results = run()
    print(f"{'answers':<8} {'elicitkit/s':>12} {'jsonschema/s':>13} {'ratio':>7}")
    for name in ("valid", "invalid", "mixed", "fresh"):
        ours, theirs = results[f"{name}_elicitkit_per_s"], results[f"{name}_jsonschema_per_s"]
        print(f"{name:<8} {ours:>12,.0f} {theirs:>13,.0f} {ours / theirs:>6.1f}x")
    print(f"validate_ratio (mixed) = {results['validate_ratio']:.1f}x (target in benchmarks/run.py)")
    print(f"equal schema built anew / one schema object = {results['equal_schema_ratio']:.2f}")


if __name__ == "__main__":
    main()
