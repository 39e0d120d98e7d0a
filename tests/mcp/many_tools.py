#!/usr/bin/env python3
"""An MCP server over stdio with many tools, for Antler's MCP client tests.

    many_tools.py [N] [--changing] [--page-size K] [--duplicate NAME]

Serves N tools (default 200) with realistic names, descriptions and typed parameters, built
from hand-written ones (weather_forecast, stock_quote, translate_text, currency_convert, ...)
followed by domain x verb combinations (invoice_create, ticket_search, ...), so that a BM25
tool search has a real catalogue to rank: "convert currency" finds currency_convert. A call
to any of them returns one text block, the JSON {"tool": name, "arguments": {...}}; a
missing required argument is an isError result. Three more tools are always there:

  crash            exits the process at once (status 3), to test respawning;
  slow {seconds}   sleeps, reporting progress every 0.2 s when the request has a progress
                   token, to test timeouts, cancellation and progress;
  (with --changing) flight_status, added 2 s after the client's notifications/initialized,
                   followed by notifications/tools/list_changed.

--page-size K pages tools/list K tools at a time (nextCursor), to test pagination.

--duplicate NAME lists the tool NAME a second time (another description, no arguments), as
a careless server might, to test that a client offers each name once.

Built on the low-level Server of the official `mcp` SDK (2.x), installed by
scripts/mcp-servers.sh into its virtualenv: run it with that venv's python.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

# (name, description, [(param, type, description, required)]). Types are JSON Schema types;
# "enum:a|b|c" is a string enum.
HAND_WRITTEN = [
    ("weather_forecast", "Get the weather forecast (temperature, rain, wind) for a city for the coming days.",
     [("city", "string", "City name, e.g. 'Lisbon'", True),
      ("days", "integer", "Number of days ahead, 1 to 14", False),
      ("units", "enum:metric|imperial", "Unit system for temperatures and wind speed", False)]),
    ("stock_quote", "Get the latest stock market price quote for a ticker symbol.",
     [("symbol", "string", "Ticker symbol, e.g. 'AAPL'", True)]),
    ("translate_text", "Translate a text from one language into another language.",
     [("text", "string", "The text to translate", True),
      ("target_language", "string", "Target language code, e.g. 'fr'", True),
      ("source_language", "string", "Source language code; detected when omitted", False)]),
    ("currency_convert", "Convert an amount of money from one currency to another at the current exchange rate.",
     [("amount", "number", "The amount of money to convert", True),
      ("from_currency", "string", "ISO 4217 code of the source currency, e.g. 'EUR'", True),
      ("to_currency", "string", "ISO 4217 code of the target currency, e.g. 'JPY'", True)]),
    ("send_email", "Send an email message to one or more recipients.",
     [("to", "string", "Recipient email address", True),
      ("subject", "string", "Subject line", True),
      ("body", "string", "Plain text body of the message", True)]),
    ("calendar_create_event", "Create a meeting or appointment event in the user's calendar.",
     [("title", "string", "Event title", True),
      ("start", "string", "Start time, ISO 8601", True),
      ("duration_minutes", "integer", "Length of the event in minutes", False)]),
    ("geocode_address", "Look up the latitude and longitude coordinates of a street address.",
     [("address", "string", "Street address or place name", True)]),
    ("timezone_lookup", "Find the time zone and current local time of a city.",
     [("city", "string", "City name", True)]),
    ("unit_convert", "Convert a measurement between units of length, mass, volume or temperature.",
     [("value", "number", "The value to convert", True),
      ("from_unit", "string", "Unit of the value, e.g. 'km'", True),
      ("to_unit", "string", "Unit to convert to, e.g. 'mi'", True)]),
    ("calculate_expression", "Evaluate an arithmetic or mathematical expression and return the number.",
     [("expression", "string", "Expression such as '2 * (3 + 4)'", True)]),
    ("web_search", "Search the web for pages matching a query and return titles and links.",
     [("query", "string", "Search terms", True),
      ("max_results", "integer", "Maximum number of results", False)]),
    ("news_headlines", "Get today's top news headlines, optionally for one topic or country.",
     [("topic", "string", "Topic such as 'science'", False),
      ("country", "string", "Two-letter country code", False)]),
    ("dictionary_define", "Look up the definitions and part of speech of an English word.",
     [("word", "string", "The word to define", True)]),
    ("spell_check", "Check the spelling of a text and suggest corrections for misspelled words.",
     [("text", "string", "The text to check", True),
      ("language", "string", "Language code, e.g. 'en'", False)]),
    ("summarize_text", "Summarize a long text into a few sentences.",
     [("text", "string", "The text to summarize", True),
      ("max_sentences", "integer", "Maximum length of the summary in sentences", False)]),
    ("sentiment_analyze", "Analyze the sentiment (positive, negative or neutral) of a review or message.",
     [("text", "string", "The text to analyze", True)]),
    ("image_resize", "Resize an image to the given width and height in pixels.",
     [("url", "string", "URL of the image", True),
      ("width", "integer", "New width in pixels", True),
      ("height", "integer", "New height in pixels", True)]),
    ("qr_code_generate", "Generate a QR code image that encodes a text or link.",
     [("data", "string", "The text or URL to encode", True),
      ("size", "integer", "Image size in pixels", False)]),
    ("password_generate", "Generate a random strong password.",
     [("length", "integer", "Number of characters", False),
      ("include_symbols", "boolean", "Whether to include punctuation symbols", False)]),
    ("hash_compute", "Compute a cryptographic hash digest (SHA-256, MD5) of a text.",
     [("text", "string", "The input text", True),
      ("algorithm", "enum:sha256|sha1|md5", "Hash algorithm", False)]),
    ("flight_search", "Search for airline flights between two airports on a date.",
     [("origin", "string", "IATA code of the departure airport", True),
      ("destination", "string", "IATA code of the arrival airport", True),
      ("date", "string", "Departure date, YYYY-MM-DD", True)]),
    ("hotel_search", "Find hotel rooms available in a city for the given check-in and check-out dates.",
     [("city", "string", "City name", True),
      ("check_in", "string", "Check-in date, YYYY-MM-DD", True),
      ("check_out", "string", "Check-out date, YYYY-MM-DD", True)]),
    ("restaurant_find", "Find restaurants near a location, optionally by cuisine.",
     [("location", "string", "Neighbourhood, city or address", True),
      ("cuisine", "string", "Type of food, e.g. 'thai'", False)]),
    ("recipe_search", "Search cooking recipes by ingredient or dish name.",
     [("ingredients", "string", "Comma-separated ingredients", True),
      ("vegetarian", "boolean", "Only vegetarian recipes", False)]),
    ("movie_showtimes", "List cinema showtimes for a movie in a city today.",
     [("movie", "string", "Movie title", True),
      ("city", "string", "City name", True)]),
    ("crypto_price", "Get the current price of a cryptocurrency such as bitcoin in a fiat currency.",
     [("coin", "string", "Coin name or symbol, e.g. 'BTC'", True),
      ("currency", "string", "Fiat currency code, e.g. 'USD'", False)]),
    ("package_track", "Track a parcel shipment by its carrier and tracking number.",
     [("tracking_number", "string", "The tracking number", True),
      ("carrier", "enum:ups|fedex|dhl|usps", "Shipping carrier", False)]),
    ("sports_scores", "Get the latest scores and results of a sports league.",
     [("league", "string", "League, e.g. 'NBA'", True)]),
    ("reminder_set", "Set a reminder that notifies the user at a given time.",
     [("message", "string", "What to be reminded of", True),
      ("at", "string", "When, ISO 8601", True)]),
    ("file_upload", "Upload a local file to cloud storage and return its link.",
     [("path", "string", "Path of the file", True),
      ("public", "boolean", "Whether the link is public", False)]),
]

# Generic business objects x generic verbs: realistic for a SaaS catalogue, each with its
# identifying parameter. (noun, plural description, id parameter, id description)
DOMAINS = [
    ("invoice", "invoices", "invoice_id", "Invoice number"),
    ("customer", "customer accounts", "customer_id", "Customer identifier"),
    ("order", "sales orders", "order_id", "Order number"),
    ("ticket", "support tickets", "ticket_id", "Support ticket number"),
    ("contact", "address book contacts", "contact_id", "Contact identifier"),
    ("project", "projects", "project_id", "Project key"),
    ("task", "to-do tasks", "task_id", "Task identifier"),
    ("document", "shared documents", "document_id", "Document identifier"),
    ("repository", "git repositories", "repo", "Repository as owner/name"),
    ("pull_request", "code review pull requests", "pr_number", "Pull request number"),
    ("deployment", "application deployments", "deployment_id", "Deployment identifier"),
    ("server", "cloud virtual machine servers", "server_id", "Server identifier"),
    ("database", "SQL databases", "database", "Database name"),
    ("bucket", "object storage buckets", "bucket", "Bucket name"),
    ("user", "user accounts and permissions", "username", "Login name"),
    ("playlist", "music playlists", "playlist_id", "Playlist identifier"),
    ("product", "catalogue products and inventory", "sku", "Product SKU"),
    ("campaign", "marketing email campaigns", "campaign_id", "Campaign identifier"),
    ("expense", "expense reports and receipts", "expense_id", "Expense identifier"),
    ("employee", "employee HR records", "employee_id", "Employee number"),
    ("lead", "sales leads in the CRM", "lead_id", "Lead identifier"),
    ("note", "personal notes", "note_id", "Note identifier"),
    ("alert", "monitoring alerts and incidents", "alert_id", "Alert identifier"),
    ("subscription", "billing subscriptions and plans", "subscription_id", "Subscription identifier"),
    ("shipment", "warehouse shipments", "shipment_id", "Shipment identifier"),
    ("patient", "clinic patient appointments", "patient_id", "Patient identifier"),
    ("vehicle", "fleet vehicles", "vehicle_id", "Vehicle plate or identifier"),
]

# (verb, description template, extra parameters beyond the id; None: the id is not a parameter)
VERBS = [
    ("search", "Search {plural} by keywords and filters.",
     None, [("query", "string", "Keywords to search for", True),
            ("limit", "integer", "Maximum number of results", False)]),
    ("get", "Get the full details of one of the {plural}.", True, []),
    ("create", "Create a new record among the {plural}.",
     None, [("name", "string", "Name or title of the new {noun}", True),
            ("notes", "string", "Optional free-text notes", False)]),
    ("update", "Update fields of an existing record among the {plural}.",
     True, [("fields", "object", "Fields to change, as an object", True)]),
    ("delete", "Delete permanently one of the {plural}.",
     True, [("confirm", "boolean", "Must be true to confirm the deletion", True)]),
    ("list", "List recent {plural}, newest first.",
     None, [("page", "integer", "Page number, from 1", False),
            ("status", "enum:open|closed|all", "Filter by status", False)]),
    ("export", "Export {plural} to a CSV or PDF file.",
     None, [("format", "enum:csv|pdf|json", "File format", True),
            ("since", "string", "Only records changed since this date, YYYY-MM-DD", False)]),
    ("history", "Show the change history and audit log of one of the {plural}.",
     True, [("days", "integer", "How many days back", False)]),
]

# Added by --changing after the client is initialized.
LATE_TOOL = ("flight_status", "Get the live departure and arrival status of a flight by its flight number.",
             [("flight_number", "string", "Airline flight number, e.g. 'TP1234'", True)])

SLOW_TICK = 0.2


def schema(params: list[tuple[str, str, str, bool]]) -> dict:
    props: dict = {}
    for name, kind, desc, _ in params:
        if kind.startswith("enum:"):
            props[name] = {"type": "string", "enum": kind[5:].split("|"), "description": desc}
        else:
            props[name] = {"type": kind, "description": desc}
    out: dict = {"type": "object", "properties": props}
    required = [name for name, _, _, req in params if req]
    if required:
        out["required"] = required
    return out


def catalogue(n: int) -> list[tuple[str, str, list]]:
    """The first n tools, in a fixed order: the hand-written ones, then domain x verb."""
    tools = list(HAND_WRITTEN)
    for verb, template, takes_id, extra in VERBS:
        for noun, plural, id_param, id_desc in DOMAINS:
            params = [(id_param, "string", id_desc, True)] if takes_id else []
            params += [(p, k, d.format(noun=noun.replace("_", " ")), r) for p, k, d, r in extra]
            tools.append((f"{noun}_{verb}", template.format(plural=plural), params))
    # Past the catalogue (246 tools), numbered filler keeps N exact.
    for i in range(len(tools), n):
        tools.append((f"report_{i}", f"Generate the numbered analytics report {i}.",
                      [("period", "enum:day|week|month", "Reporting period", False)]))
    return tools[:n]


def make_tool(name: str, description: str, params: list) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema(params))


def build_server(n: int, changing: bool, page_size: int,
                 duplicate: str | None = None) -> tuple[Server, dict]:
    tools = [make_tool(*t) for t in catalogue(n)]
    tools.append(types.Tool(
        name="crash",
        description="Crash the server process immediately (for testing restarts).",
        input_schema={"type": "object", "properties": {}},
    ))
    tools.append(types.Tool(
        name="slow",
        description="Wait for the given number of seconds, reporting progress every 0.2 seconds.",
        input_schema={"type": "object",
                      "properties": {"seconds": {"type": "number", "description": "How long to wait"}},
                      "required": ["seconds"]},
    ))
    required = {t.name: (t.input_schema or {}).get("required", []) for t in tools}
    if duplicate is not None:
        # Listed after the first; calls by that name still reach the first one's handler.
        tools.append(types.Tool(
            name=duplicate,
            description=f"A second listing of {duplicate} (a careless server).",
            input_schema={"type": "object", "properties": {}},
        ))
    # Scheduled background work (the --changing timer) lives in this task group, set by main.
    state: dict = {"tg": None, "scheduled": False}

    async def list_tools(ctx, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if page_size <= 0:
            return types.ListToolsResult(tools=list(tools))
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        return types.ListToolsResult(tools=tools[start:end],
                                     next_cursor=str(end) if end < len(tools) else None)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, args = params.name, dict(params.arguments or {})
        if name not in required:
            # A protocol error, as the spec (2025-11-25) asks for an unknown tool.
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")
        missing = [p for p in required[name] if p not in args]
        if missing:
            return error_result(f"Missing required argument(s) for {name}: {', '.join(missing)}")
        if name == "crash":
            print("many_tools: crash tool called, exiting with status 3", file=sys.stderr, flush=True)
            os._exit(3)
        if name == "slow":
            return await slow(ctx, args)
        return text_result(json.dumps({"tool": name, "arguments": args}, sort_keys=True))

    async def slow(ctx, args: dict) -> types.CallToolResult:
        try:
            seconds = float(args["seconds"])
        except (TypeError, ValueError):
            return error_result("seconds must be a number")
        started = time.monotonic()
        try:
            while (elapsed := time.monotonic() - started) < seconds:
                await anyio.sleep(min(SLOW_TICK, seconds - elapsed))
                done = min(time.monotonic() - started, seconds)
                # A no-op when the request carried no progress token.
                await ctx.session.report_progress(round(done, 3), seconds, f"waited {done:.1f} of {seconds:g} s")
        except anyio.get_cancelled_exc_class():
            # notifications/cancelled (or shutdown): say so where test logs can show it.
            print(f"many_tools: slow cancelled after {time.monotonic() - started:.1f} s",
                  file=sys.stderr, flush=True)
            raise
        return text_result(f"slept {seconds:g} seconds")

    async def on_initialized(ctx, params) -> None:
        if changing and not state["scheduled"] and state["tg"] is not None:
            state["scheduled"] = True
            state["tg"].start_soon(add_late_tool, ctx.session)

    async def add_late_tool(session) -> None:
        await anyio.sleep(2)
        tools.append(make_tool(*LATE_TOOL))
        required[LATE_TOOL[0]] = schema(LATE_TOOL[2]).get("required", [])
        print(f"many_tools: added {LATE_TOOL[0]}, sending tools/list_changed", file=sys.stderr, flush=True)
        await session.send_tool_list_changed()

    server = Server(
        "antler-many-tools",
        version="1.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.add_notification_handler("notifications/initialized", types.NotificationParams, on_initialized)
    return server, state


def text_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=200, help="number of tools besides crash and slow")
    parser.add_argument("--changing", action="store_true",
                        help="add flight_status 2 s after initialization and send tools/list_changed")
    parser.add_argument("--page-size", type=int, default=0, help="tools per tools/list page (0: one page)")
    parser.add_argument("--duplicate", metavar="NAME", help="list the tool NAME twice")
    args = parser.parse_args()
    server, state = build_server(max(args.n, 0), args.changing, args.page_size, args.duplicate)
    options = server.create_initialization_options(NotificationOptions(tools_changed=args.changing))
    async with anyio.create_task_group() as tg:
        state["tg"] = tg
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)
        # The client closed stdin: drop a pending timer rather than wait for it.
        tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
