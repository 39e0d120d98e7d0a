"""A scripted chat through the docker-compose stack (run by scripts/compose-test.sh with the
stack's base URL): the Docker sandbox as the server's non-root user, an artifact, the run
stored, and the web UI served."""

import json, sys, urllib.request
base = sys.argv[1]
def call(method, path, body=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)
thread = call("POST", "/api/threads", {"metadata": {"source": "compose-test"}})
values = call("POST", f"/api/threads/{thread['thread_id']}/runs/wait", {
    "assistant_id": "lead_agent",
    "input": {"messages": [{"role": "user", "content": "compose check"}]},
})
messages = values["messages"]
bash = next(m for m in messages if m["type"] == "tool" and m.get("name") == "bash")
assert "[exit code: 0]" in bash["content"] and "42" in bash["content"], bash
assert bash["content"].split("\n")[0] == "10001", "the sandbox runs as the server's non-root user"
assert values["artifacts"] == ["/mnt/user-data/outputs/whoami.txt"], values["artifacts"]
assert messages[-1]["content"] == "The sandbox answered; see whoami.txt.", messages[-1]
runs = call("GET", f"/api/threads/{thread['thread_id']}/runs")
assert runs[0]["status"] == "success", runs[0]
with urllib.request.urlopen(base + f"/api/threads/{thread['thread_id']}/artifacts/mnt/user-data/outputs/whoami.txt") as r:
    assert r.read().decode().split() == ["10001", "42"]
with urllib.request.urlopen(base + f"/threads/{thread['thread_id']}") as r:
    page = r.read().decode()
    assert r.headers["content-type"].startswith("text/html") and '<div id="root">' in page, page[:200]
print("compose-test: chat ok, artifact ok, web UI ok, run", runs[0]["run_id"], "succeeded")
