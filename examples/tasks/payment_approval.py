"""A tool that runs as an MCP task and waits for the person to approve a payment in their browser.

    export ELICITKIT_VAULT_KEYS=$(python -c 'from elicitkit.server import KeyRing; print(KeyRing.generate())')
    python examples/tasks/payment_approval.py

Serves /mcp and the approval page on http://127.0.0.1:8000 (another port: give it after the file
name), for one local person (`McpUsers.single_user_local()`, so no sign-in). In another
terminal, start elicitkit's client and, at its `elicitkit>` prompt, call the tool:

    elicitkit client http://127.0.0.1:8000/mcp
    call pay_invoice {"invoice": "INV-7"}

`pay_invoice` requires a task, so elicitkit's client calls it as one (on 2025-11-25 and, through
the tasks extension, on 2026-07-28) and follows it. The client asks whether to open the approval
page in the browser; there the person sees the payee and the amount and approves or declines. A
payment is approved in URL mode (an `Approval`), on the server's own page, never through a form:
the client and its model see only the link and cannot answer for the person. The task is
`input_required` until the person answers. Its state is in `payments.sqlite3` (in the working
directory), so it outlives a restart: a page opened before the server stopped still approves the
payment once it runs again, and a client that then asks for the task (`tasks/get`) finds it
completed.
"""

import sys

from mcp.server.mcpserver import Context, MCPServer

from elicitkit.server import (
    Approval,
    Elicitation,
    McpUsers,
    SQLiteStore,
    Tasks,
    TasksExtension,
    UrlElicitationNotCompletedError,
    UrlMode,
)

INVOICES = {"INV-7": ("ACME Corp", "120.00 EUR"), "INV-8": ("Globex", "9,800.00 EUR")}

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
# Made before any request: a page opened before a restart finds its flow after it.
payment = Approval(url_mode, "payment", title="Approve a payment", approve_label="Approve the payment")


@server.tool()
async def pay_invoice(invoice: str, ctx: Context) -> str:
    """Pay an invoice once the person approves it in their browser."""
    if invoice not in INVOICES:
        return f"There is no invoice {invoice}."
    payee, amount = INVOICES[invoice]
    try:
        await payment.ask(
            ctx,
            f"Approve paying {amount} to {payee} (invoice {invoice}).",
            summary={"Payee": payee, "Amount": amount, "Invoice": invoice},
        )
    except UrlElicitationNotCompletedError as ended:
        return f"Not paid: the approval was {ended.state}."
    return f"Paid {amount} to {payee} for invoice {invoice}."


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=port)
