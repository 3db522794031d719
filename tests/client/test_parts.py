"""The small parts on their own: token bucket, completion ids, scripted UI, client construction."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    ElicitationConfig,
    ElicitingClient,
    FormQuestion,
    RateLimit,
    ScriptedUI,
    UrlCompletions,
    Waiting,
    accept_prefilled,
)
from elicitkit.client._limits import TokenBucket
from elicitkit.errors import ConfigurationError


def test_token_bucket_allows_a_burst_then_the_refill_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(RateLimit(per_second=2, burst=3), clock=lambda: now[0])
    assert [bucket.take() for _ in range(5)] == [True, True, True, False, False]
    now[0] = 0.5
    assert [bucket.take(), bucket.take()] == [True, False]
    now[0] = 100.0
    assert sum(bucket.take() for _ in range(10)) == 3  # never more than the burst


def test_rate_limit_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="RateLimit"):
        RateLimit(burst=0)


async def test_completions_count_only_pending_ids_once() -> None:
    completions = UrlCompletions()
    completions.expect("a", "Connect")
    assert not completions.complete("unknown")
    assert completions.complete("a")
    assert not completions.complete("a")
    assert completions.is_done("a") and not completions.is_pending("a")
    completions.expect("a")  # a completed id never becomes pending again
    assert not completions.is_pending("a")


async def test_completions_wake_waiters_and_stay_bounded() -> None:
    completions = UrlCompletions(max_ids=3)
    for i in range(10):
        completions.expect(str(i))
    assert [completions.is_pending(str(i)) for i in (0, 6, 7, 8, 9)] == [False, False, True, True, True]
    woke: list[bool] = []

    async def waiter() -> None:
        await completions.changed()
        woke.append(True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(waiter)
        await anyio.sleep(0.01)
        completions.complete("nope")
        await anyio.sleep(0.01)
        assert woke == []
        completions.complete("9")
    assert woke == [True]


async def test_scripted_ui_replies_in_order_then_otherwise_and_records() -> None:
    question = FormQuestion("S", "Name?", {"type": "object", "properties": {}}, {"name": "Ada"})
    ui = ScriptedUI(CancelledElicitation(), accept_prefilled, otherwise=AcceptedElicitation({"name": "Z"}))
    assert [await ui.ask_form(question) for _ in range(3)] == [
        CancelledElicitation(),
        AcceptedElicitation({"name": "Ada"}),
        AcceptedElicitation({"name": "Z"}),
    ]
    assert ui.shown == [question] * 3
    ui.notice("hello")
    assert ui.notices == ["hello"]


async def test_scripted_ui_waits_until_timed_out_then_takes_the_next_choice() -> None:
    ui = ScriptedUI(waits=["retry"])
    with anyio.move_on_after(0.05) as scope:
        await ui.wait(Waiting("S", [("a", "m")], 0.0))
    assert scope.cancelled_caught
    assert await ui.wait(Waiting("S", [("a", "m")], 0.0, timed_out=True)) == "retry"
    assert await ui.wait(Waiting("S", [("a", "m")], 0.0, timed_out=True)) == "cancel"


def test_eliciting_client_needs_a_config_and_owns_the_callback() -> None:
    with pytest.raises(ConfigurationError, match="config=ElicitationConfig"):
        ElicitingClient("http://127.0.0.1:1/mcp")

    async def mine(context: Any, params: Any) -> Any:
        return None

    with pytest.raises(ConfigurationError, match="elicitation_callback"):
        ElicitingClient(
            "http://127.0.0.1:1/mcp", config=ElicitationConfig(ScriptedUI()), elicitation_callback=mine
        )


def test_rounds_are_patient_by_default() -> None:
    client = ElicitationConfig(ScriptedUI()).connect("http://127.0.0.1:1/mcp")
    assert client.input_required_max_rounds == 10_000
    custom = ElicitationConfig(ScriptedUI()).connect("http://127.0.0.1:1/mcp", input_required_max_rounds=50)
    assert custom.input_required_max_rounds == 50
