"""Schemathesis hooks of the API fuzz run (tests/api-fuzz/run.py loads them).

A few operations reach their logic only with something no schema can describe: a zip
archive, a Git repository this machine can fetch, a file that is in a thread, a run that is
still working (or one that has finished, on a thread that is still there: a stateless run's
thread goes with it), the caller's own password, an MCP server that is configured, a thread
that has a checkpoint, a cron's schedule, time zone and end time, a run's message to answer.
In the positive cases of those operations (all of them, or every other one where generated ids are
worth fuzzing too) that one field is a real one, made through the API first when the fuzzer
removed it; the rest of the request stays as generated, and negative cases stay as they are.
Everything else comes from the document: its constraints, examples and links.

Reads FUZZ_BASE, FUZZ_TOKEN, FUZZ_ADMIN_PASSWORD and FUZZ_IMPORT_URL.
"""

import collections
import io
import os
import re
import sys
import zipfile

import requests
import schemathesis
from schemathesis import GenerationMode

BASE = os.environ["FUZZ_BASE"]
HEADERS = {"Authorization": f"Bearer {os.environ['FUZZ_TOKEN']}"}
# The thread holding the files the artifact and install operations are given, and the runs
# the fuzzer cancels; finished runs are kept on their own thread.
THREAD = "fuzz-seeded"
RUNS_THREAD = "fuzz-runs"
NOTES = "notes.txt"
ARCHIVE = "fuzz-install.skill"
MCP_SERVER = "fuzz-mcp"
# What the scripted model answers slowly (run.py's script), so a run is still working when
# the fuzzer cancels it.
SLOW = "fuzz-slow"

_made = collections.Counter()
_positive = collections.Counter()
# The checkpoint post_state_at reads and the finished run the run readers read.
_kept = {}


def skill_archive(name):
    """A valid `.skill` archive holding the skill `name`."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(
            f"{name}/SKILL.md",
            f"---\nname: {name}\ndescription: A skill the API fuzzer installs.\n---\n# {name}\n",
        )
    return out.getvalue()


def api(method, path, **kwargs):
    response = requests.request(method, BASE + path, headers=HEADERS, timeout=30, **kwargs)
    response.raise_for_status()
    return response


def exists(path):
    return requests.get(BASE + path, headers=HEADERS, timeout=30).status_code == 200


def ensure_upload(name, content):
    """The seeded thread, with `name` among its uploads."""
    api("POST", "/api/threads", json={"thread_id": THREAD})
    listed = api("GET", f"/api/threads/{THREAD}/uploads").json()["files"]
    if not any(f["filename"] == name for f in listed):
        api("POST", f"/api/threads/{THREAD}/uploads", files={"files": (name, content)})


def start_run(thread, text, strategy, wait=False):
    """A run of `thread` answering `text`: its id (once it has finished, with `wait`)."""
    response = api("POST", f"/api/threads/{thread}/runs{'/wait' if wait else ''}", json={
        "assistant_id": "agent",
        "input": {"messages": [{"role": "user", "content": text}]},
        "if_not_exists": "create",
        "multitask_strategy": strategy,
    })
    return response.headers["Content-Location"].rsplit("/", 1)[-1]


def upload_skill(case):
    # A few names, so installs also meet existing skills (`overwrite` decides).
    _made["skill"] += 1
    case.body["file"] = skill_archive(f"fuzz-upload-{_made['skill'] % 3}")


def preview_skill(case):
    case.body["file"] = skill_archive("fuzz-preview")


def install_skill(case):
    ensure_upload(ARCHIVE, skill_archive("fuzz-install"))
    case.body.update(thread_id=THREAD, path=f"/mnt/user-data/uploads/{ARCHIVE}", overwrite=True)


def import_skills(case):
    case.body.pop("ref", None)
    case.body.update(url=os.environ["FUZZ_IMPORT_URL"], skills=[])


def get_artifact(case):
    ensure_upload(NOTES, b"Notes the API fuzzer reads back.\n")
    case.path_parameters.update(thread_id=THREAD, path=f"mnt/user-data/uploads/{NOTES}")
    # A PDF preview is made of office documents only (a text file's is a documented 400);
    # converting one needs LibreOffice in a sandbox, which the Rust tests cover.
    if isinstance(case.query, dict):
        case.query.pop("preview", None)


def delete_upload(case):
    _made["scratch"] += 1
    name = f"scratch-{_made['scratch']}.txt"
    ensure_upload(name, b"To be deleted.\n")
    case.path_parameters.update(thread_id=THREAD, filename=name)


def cancel_run(case):
    run = start_run(THREAD, SLOW, "interrupt")
    case.path_parameters.update(thread_id=THREAD, run_id=run)


def finished_run(case):
    """A finished run (one, made again when the fuzzer deleted it or its thread)."""
    run = _kept.get("run")
    if run is None or not exists(f"/api/threads/{RUNS_THREAD}/runs/{run}"):
        run = _kept["run"] = start_run(RUNS_THREAD, "Hello", "enqueue", wait=True)
    case.path_parameters.update(thread_id=RUNS_THREAD, run_id=run)


def console_run(case):
    """A run that exists, for the console, which reads any run by its id alone."""
    finished_run(case)
    case.path_parameters.pop("thread_id", None)


def runs_thread(case):
    """The finished run's thread (its runs may be rated), for what reads a thread's feedback."""
    finished_run(case)
    case.path_parameters.pop("run_id", None)


def delete_run(case):
    run = start_run(RUNS_THREAD, "Hello", "enqueue", wait=True)
    case.path_parameters.update(thread_id=RUNS_THREAD, run_id=run)


def fact(case):
    """A fact of the caller's: the fuzzer forgets, corrects and crowds out facts."""
    made = api("POST", "/api/memory/facts", json={"content": "Likes fuzzing."}).json()
    case.path_parameters["fact_id"] = made["fact_id"]


def kept_checkpoint():
    """A thread with a checkpoint (one, made again when the fuzzer has not left it)."""
    thread, checkpoint = _kept.get("state_thread"), _kept.get("checkpoint")
    if checkpoint is None or not exists(f"/api/threads/{thread}/state/{checkpoint}"):
        # A new thread each time: the old one may be gone, or busy with a run.
        _made["threads"] += 1
        thread = f"fuzz-state-{_made['threads']}"
        api("POST", "/api/threads", json={"thread_id": thread})
        update = api("POST", f"/api/threads/{thread}/state", json={"values": {"title": "Fuzzed"}})
        checkpoint = update.json()["checkpoint"]["checkpoint_id"]
        _kept.update(state_thread=thread, checkpoint=checkpoint)
    return thread, checkpoint


def post_state_at(case):
    thread, checkpoint = kept_checkpoint()
    case.path_parameters["thread_id"] = thread
    case.body["checkpoint"] = checkpoint


def patch_state(case):
    """Metadata patched into a thread that has a checkpoint (a new thread has none), at that
    checkpoint when the case names one."""
    thread, checkpoint = kept_checkpoint()
    case.path_parameters["thread_id"] = thread
    for field in ("checkpoint_id", "checkpoint"):
        if case.body.get(field) is not None:
            case.body[field] = checkpoint


def cron_fields(case):
    """A schedule, time zone and end time a cron can have (a schema can say "a string", not
    "a cron expression", "an IANA time zone" or "in the future"), in every case, so that the
    other fields are what decides; an assistant that exists in every other case of a phase,
    its first included (generated ids are the other half's)."""
    fields = [("schedule", "0 9 * * 1-5"), ("timezone", "Europe/Paris"),
              ("end_time", "2100-01-01T00:00:00Z")]
    if first_in_every(case, "cron_assistant"):
        fields.append(("assistant_id", "agent"))
    for field, value in fields:
        if isinstance(case.body.get(field), str):
            case.body[field] = value


def cron_to_run(case):
    """A cron whose kept input has a message to answer (each run starts a new thread)."""
    made = api("POST", "/api/runs/crons", json={
        "assistant_id": "agent", "schedule": "0 9 * * 1-5", "enabled": False,
        "input": {"messages": [{"role": "user", "content": "Hello"}]},
    }).json()
    case.path_parameters["cron_id"] = made["cron_id"]


def latest_version(case):
    """A custom assistant and its first version (generated ids name no assistant, generated
    version numbers rarely one it has, and the built-in one cannot change: 404 or 409)."""
    assistant = _kept.get("versioned")
    if assistant is None or not exists(f"/api/assistants/{assistant}"):
        made = api("POST", "/api/assistants", json={"graph_id": "agent", "name": "Fuzz versions"})
        assistant = made.json()["assistant_id"]
        _kept["versioned"] = assistant
    case.path_parameters["assistant_id"] = assistant
    if isinstance(case.body, dict):
        case.body["version"] = 1


_own_id = []


def own_id():
    """The id of the account the fuzzer signs in with."""
    if not _own_id:
        _own_id.append(api("GET", "/api/auth/me").json()["id"])
    return _own_id[0]


def own_password_kept(case):
    """A new password for the fuzzer's own account is left out (the rest of the change stays):
    `change_password` is given the password it signs in with, and an account set to a
    generated one made every later case of it a refusal."""
    if case.path_parameters.get("id") == own_id() and isinstance(case.body, dict):
        case.body.pop("password", None)


def own_limits_unset(case):
    """The fuzzer's own daily limits are cleared rather than set (the rest of the request
    stays): a limit it reached, 0 tokens say, refused every later run with a documented 429,
    and the runs' logic was no longer reached."""
    user = case.path_parameters.get("user_id")
    if isinstance(user, str) and user.lower() == own_id() and isinstance(case.body, dict):
        case.body["tokens_per_day"] = None
        case.body["cost_usd_per_day"] = None


def without_nul(value):
    """`value` with every NUL character taken out of its keys and strings, at any depth."""
    if isinstance(value, str):
        return value.replace("\0", "")
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    return value


def nul_free_filter(case):
    """A filter without NUL: the server refuses it (PostgreSQL cannot compare NUL in JSON),
    and the document cannot say so of every string at every depth of a free-form object
    without a recursive schema, which the fuzzer cannot generate from."""
    if isinstance(case.body, dict) and "filter" in case.body:
        case.body["filter"] = without_nul(case.body["filter"])


def batch_inputs(case):
    """Each run of a batch with a message to answer, and no question to resume."""
    for item in case.body:
        if isinstance(item, dict):
            item["input"] = {"messages": [{"role": "user", "content": "Hello"}]}
            item.pop("command", None)
            item.pop("checkpoint_id", None)


def change_password(case):
    # The same password again: the fuzzer's own sign-in keeps working.
    password = os.environ["FUZZ_ADMIN_PASSWORD"]
    case.body.update(current=password, new=password)


def mcp_config(case):
    """Server names and servers the server takes (the schema can only call a server "an
    object"; names are 1-32 letters, digits, `-` or `_`): each generated server becomes a
    disabled one under a valid name, so that what decides is the rest of the document. Every
    valid case, not every other: a server object the fuzzer makes up has keys no server
    has (refused, 422), so with half left as generated the share refused hovered near the
    "mostly rejected" line and one run in many failed on it."""
    servers = case.body.get("servers")
    if not isinstance(servers, dict):
        return
    fixed = {}
    for i, name in enumerate(servers):
        valid = re.fullmatch(r"[A-Za-z0-9_-]{1,32}", name) and "__" not in name
        fixed[name if valid else f"fuzz-{i}"] = {"command": "true", "enabled": False}
    case.body["servers"] = fixed


def restart_server(case):
    servers = api("GET", "/api/mcp/servers").json()["servers"]
    if not any(s["name"] == MCP_SERVER for s in servers):
        # Replaces what the fuzzer configured: that was fuzz data.
        api("PUT", "/api/mcp/config", json={"servers": {MCP_SERVER: {"command": "true", "enabled": False}}})
    case.path_parameters["name"] = MCP_SERVER


# operation id: (substitution, which positive cases: 1 every one, 2 every other one, whether
# it goes in the path rather than the body).
SUBSTITUTIONS = {
    "upload_skill": (upload_skill, 1, False),
    "preview_skill": (preview_skill, 1, False),
    "install_skill": (install_skill, 1, False),
    "import_skills": (import_skills, 1, False),
    "post_state_at": (post_state_at, 1, False),
    "patch_state": (patch_state, 2, False),
    "update_cron": (cron_fields, 1, False),
    "create_cron": (cron_fields, 1, False),
    "create_thread_cron": (cron_fields, 1, False),
    "create_batch": (batch_inputs, 1, False),
    "search_items": (nul_free_filter, 1, False),
    "set_latest_assistant": (latest_version, 2, True),
    "run_cron_now": (cron_to_run, 1, True),
    "change_password": (change_password, 1, False),
    "update_user": (own_password_kept, 1, True),
    "put_limits": (own_limits_unset, 1, True),
    "get_artifact": (get_artifact, 1, True),
    "delete_upload": (delete_upload, 1, True),
    "cancel_run": (cancel_run, 1, True),
    "update_fact": (fact, 1, True),
    "delete_fact": (fact, 1, True),
    "restart_server": (restart_server, 1, True),
    "put_config": (mcp_config, 1, False),
    "get_run": (finished_run, 2, True),
    "join_run": (finished_run, 2, True),
    "join_stream": (finished_run, 2, True),
    "get_console_run": (console_run, 2, True),
    "put_feedback": (finished_run, 2, True),
    "delete_feedback": (finished_run, 2, True),
    "list_thread_feedback": (runs_thread, 2, True),
    "delete_run": (delete_run, 2, True),
}


def first_in_every(case, what, every=2):
    """Whether `case` is the first of each `every` cases of `what` in its phase. Counted per
    phase: schemathesis warns about an operation when every valid case of one phase was
    refused, and a phase with few cases (the coverage phase's three) could otherwise have
    had none of them substituted."""
    phase = getattr(getattr(case.meta, "phase", None), "name", None)
    _positive[(what, phase)] += 1
    return (_positive[(what, phase)] - 1) % every == 0


def substitute(case):
    operation = case.operation.definition.raw.get("operationId")
    if operation not in SUBSTITUTIONS:
        return
    substitution, every, in_path = SUBSTITUTIONS[operation]
    if not in_path and not isinstance(case.body, (dict, list)):
        return
    if not first_in_every(case, operation, every):
        return
    try:
        substitution(case)
    except requests.RequestException as error:
        # The case goes as generated; a seeding that keeps failing shows as a warning.
        print(f"hooks.py: {operation}: {error}", file=sys.stderr)


@schemathesis.deserializer("application/x-ndjson")
def json_lines(ctx, response):
    """JSON Lines answers (the feedback export) as the list of their objects, so they are
    checked against the document (an array of its items). Lines end at "\n" only: a string
    may hold U+2028 and the other breaks `splitlines` knows."""
    import json

    return [json.loads(line) for line in response.content.decode("utf-8").split("\n") if line.strip()]


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if meta is not None and meta.generation.mode == GenerationMode.POSITIVE:
        substitute(case)
    return case


@schemathesis.hook
def before_add_examples(context, examples):
    # The document's examples are valid requests; they get the same real resources.
    for case in examples:
        substitute(case)
