"""Cache-friendly prompts: how much of each model request repeats the previous request's
prefix, the part a provider's prompt cache can serve. A thread of three user turns, each
answered in three model calls (read a skill, list its folder, answer), with the repository's
skills and 40 remembered facts switched on. For every agent request after the first, the
share of its prompt (tools, then messages, as the provider reads them) that is a prefix of
the previous request's, in characters (a good stand-in for tokens: both count the same
text). Reported apart for calls within one run (multi-step) and for a turn's first call
(across turns); the goal is at least 95 % for both. With BENCH_PROMPT_CACHE_PROVIDER=anthropic
the same thread runs against mock-llm's Anthropic mode and the run's usage says how much of
the input was read from the cache."""

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import urllib.request
from pathlib import Path

from common import ROOT, TARGET, Server, table

TURNS = ["Summarise the CSV skill for me", "Now tell me what the markdown skill does",
         "And which skill writes research reports?"]


def call(base, path, body=None, method=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method or ("POST" if data else "GET"),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        raw = r.read()
    return json.loads(raw) if raw.strip() else None


def without_markers(value):
    """`value` without Anthropic's `cache_control` marks: they say where to cache, they are
    not part of what is cached (the mark moves to the newest block every call)."""
    if isinstance(value, dict):
        return {k: without_markers(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [without_markers(v) for v in value]
    return value


def prompt_text(request):
    """The request as the provider's cache sees it: tools first, then the conversation."""
    request = without_markers(request)
    tools = json.dumps(request.get("tools", []), sort_keys=True)
    system = json.dumps(request.get("system", ""), sort_keys=True)
    messages = "".join(json.dumps(m, sort_keys=True) for m in request.get("messages", []))
    return tools + system + messages


def common_prefix(a, b):
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def script(path):
    turns = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "/mnt/skills/public/csv-insights/SKILL.md"}}]},
        {"tool_calls": [{"name": "ls", "arguments": {"path": "/mnt/skills/public/csv-insights"}}]},
        {"content": "Here is what I found, in short."},
    ]
    path.write_text(json.dumps({"options": {"chunk_size": 64},
                                "scenarios": [{"match": "", "turns": turns}]}))


def main():
    provider = os.environ.get("BENCH_PROMPT_CACHE_PROVIDER", "openai")
    work = Path(tempfile.mkdtemp(prefix="antler-bench-prompt-cache-"))
    try:
        script(work / "mock.json")
        mock = subprocess.Popen([str(TARGET / "release/antler-mock-llm"), "--script", str(work / "mock.json")],
                                stdout=subprocess.PIPE, text=True)
        model = mock.stdout.readline().strip().removeprefix("listening on ")
        skills = work / "skills"
        shutil.copytree(ROOT / "skills", skills)
        config = work / "antler.yaml"
        spec = {"name": "bench", "base_url": model + "/v1", "model": "bench-model", "api_key_env": None}
        if provider != "openai":
            spec["provider"] = provider
        config.write_text(json.dumps({"models": [spec]}))
        server = Server(skills, config=config, env={
            "ANTLER_AGENT_GENERATE_TITLES": "false", "ANTLER_AGENT_SUGGESTIONS_ENABLED": "false",
            "ANTLER_SANDBOX_PROVIDER": "local"})
        try:
            call(server.base, "/api/memory/import", {"facts": [
                {"content": f"Fact {i}: prefers {w} reports", "category": "preference"}
                for i, w in enumerate(["short", "tabular", "cited", "plain", "bulleted"] * 8)]})
            thread = call(server.base, "/api/threads", {})["thread_id"]
            usage = []
            for text in TURNS:
                run = call(server.base, f"/api/threads/{thread}/runs/wait", {
                    "assistant_id": "lead_agent", "input": {"messages": [{"role": "user", "content": text}]}})
                assert run is not None
                runs = call(server.base, f"/api/threads/{thread}/runs?limit=1")
                usage.append(runs[0].get("usage") or {})
            requests = [r for r in call(model, "/_requests") if r.get("tools")]
        finally:
            server.stop()
            mock.kill()
        texts = [prompt_text(r) for r in requests]
        # (prefix shared with the previous request, this request's length, previous length)
        within, across = [], []
        for i in range(1, len(texts)):
            shared = common_prefix(texts[i - 1], texts[i])
            (across if i % 3 == 0 else within).append((shared, len(texts[i]), len(texts[i - 1])))

        def row(name, pairs):
            weighted = sum(p[0] for p in pairs) / sum(p[1] for p in pairs)
            lowest = min(p[0] / p[1] for p in pairs)
            kept = min(p[0] / p[2] for p in pairs)
            return [name, f"{100 * weighted:.1f} %", f"{100 * lowest:.1f} %", f"{100 * kept:.1f} %"]

        table(f"Prompt prefix repeated from the previous request ({provider} format, {len(texts)} agent "
              "requests, skills and 40 facts on; goal >= 95 %)",
              ["calls", "share of input (all calls)", "lowest call", "previous request kept whole (lowest)"],
              [row("within a run (calls 2 and 3 of each turn)", within),
               row("across turns (a turn's first call)", across),
               row("all", within + across)])
        print("\n(A call's new part is what the previous answer added: a tool result, the next user "
              "message. A skill read adds its whole SKILL.md at once, which no cache can hold yet.)")
        if provider == "anthropic":
            read = sum(u.get("cached_input_tokens", 0) for u in usage)
            total = sum(u.get("input_tokens", 0) for u in usage)
            print(f"\ninput tokens read from the prompt cache: {read} of {total} "
                  f"({100 * read / max(total, 1):.1f} %)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
