"""A tool that runs as an MCP task and waits for the person to approve a payment in their browser.

    export ELICITKIT_VAULT_KEYS=$(python -c 'from elicitkit.server import KeyRing; print(KeyRing.generate())')
    python examples/tasks/payment_approval.py

Serves /mcp and the approval page on http://127.0.0.1:8000 (another port: give it after the file
name), for one local person (`McpUsers.single_user_local()`, so no sign-in). In another
terminal, start elicitkit's client and, at its `elicitkit>` prompt, call the tool:

    elicitkit client http://127.0.0.1:8000/mcp
    call pay_invoice {"invoice": "INV-7"}

`pay_invoice` requires a task, so elicitkit's client calls it as one (on 2025-11-25 and, through
the tasks extension, on 2026-07-28) and follows it. The client asks whether to open the
approval page in the browser; there the person types their payment PIN (2468, or $PAYMENT_PIN)
to approve, or declines. A payment is approved in URL mode, on the server's own page, never
through a form: the client and its model see only the link. The task is `input_required` until
the person answers. Its state is in `payments.sqlite3` (in the working directory), so it
outlives a restart: a page opened before the server stopped still approves the payment once it
runs again, and a client that then asks for the task (`tasks/get`) finds it completed.
"""

import hmac
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from starlette.datastructures import FormData

from elicitkit.server import (
    Elicitation,
    McpUsers,
    Record,
    Secret,
    SQLiteStore,
    Tasks,
    TasksExtension,
    UrlElicitationNotCompletedError,
    UrlMode,
)

INVOICES = {"INV-7": ("ACME Corp", "120.00 EUR"), "INV-8": ("Globex", "9,800.00 EUR")}
PIN = os.environ.get("PAYMENT_PIN", "2468")  # a real server asks the person's bank instead


class PaymentApproval:
    """A URL-mode flow: the person approves by typing their PIN on the page, or declines there."""

    name = "payment-approval"
    title = "Payment PIN"
    template = Secret.template  # elicitkit's page with one masked field, Save and Decline

    async def check(self, record: Record, form: FormData) -> str | None:
        entered = form.get("secret")
        if isinstance(entered, str) and hmac.compare_digest(entered.encode(), PIN.encode()):
            return None
        return "That is not your payment PIN."

    async def finish(self, record: Record, form: FormData) -> None:
        """Nothing to keep: the completed record is the approval."""


port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
tasks = Tasks({"pay_invoice": "required"}, ttl=24 * 3600)
server = MCPServer("payments", extensions=[TasksExtension(tasks)])  # tasks on 2026-07-28 too
url_mode = UrlMode(
    public_url=f"http://127.0.0.1:{port}",
    users=McpUsers.single_user_local(),
    store=SQLiteStore("payments.sqlite3"),  # questions and tasks outlive the process
    ttl=24 * 3600,  # the person may approve tomorrow
)
Elicitation(server, url_mode=url_mode, tasks=tasks)
approval = PaymentApproval()
url_mode.add(approval)  # before any request: a page opened after a restart finds its flow


@server.tool()
async def pay_invoice(invoice: str, ctx: Context) -> str:
    """Pay an invoice once the person approves it in their browser."""
    if invoice not in INVOICES:
        return f"There is no invoice {invoice}."
    payee, amount = INVOICES[invoice]
    message = f"Approve paying {amount} to {payee} (invoice {invoice}): enter your payment PIN."
    try:
        await url_mode.ask(
            ctx, approval, message, {"description": "Decline if you do not know this invoice."}
        )
    except UrlElicitationNotCompletedError as ended:
        return f"Not paid: the approval was {ended.state}."
    return f"Paid {amount} to {payee} for invoice {invoice}."


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=port)
