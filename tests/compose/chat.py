"""A scripted chat through the docker-compose stack (run by scripts/compose-test.sh with the
stack's base URL and the admin the stack was started with): sign-in, a token, the Docker
sandbox as the server's non-root user, an artifact, the run stored, and the web UI served."""

import json, os, sys, urllib.error, urllib.request
base = sys.argv[1]
admin = {"email": os.environ["ANTLER_ADMIN_EMAIL"], "password": os.environ["ANTLER_ADMIN_PASSWORD"]}
headers = {"content-type": "application/json"}

def call(method, path, body=None, extra=None):
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={**headers, **(extra or {})})
    with urllib.request.urlopen(req, timeout=120) as r:
        text = r.read()
        return json.loads(text) if text else None, r.headers

try:
    call("POST", "/api/threads", {})
    raise AssertionError("an anonymous request was served")
except urllib.error.HTTPError as e:
    assert e.code == 401, e.code
session, answer = call("POST", "/api/auth/login", admin)
cookie = "; ".join(c.split(";")[0] for c in answer.get_all("set-cookie"))
token, _ = call("POST", "/api/auth/tokens", {"name": "compose-test"},
                {"cookie": cookie, "x-csrf-token": session["csrf_token"]})
headers["authorization"] = "Bearer " + token["token"]
_call = call
def call(method, path, body=None):
    return _call(method, path, body)[0]
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
artifact = urllib.request.Request(base + f"/api/threads/{thread['thread_id']}/artifacts/mnt/user-data/outputs/whoami.txt",
                                  headers={"authorization": headers["authorization"]})
with urllib.request.urlopen(artifact) as r:
    assert r.read().decode().split() == ["10001", "42"]
with urllib.request.urlopen(base + f"/threads/{thread['thread_id']}") as r:
    page = r.read().decode()
    assert r.headers["content-type"].startswith("text/html") and '<div id="root">' in page, page[:200]
print("compose-test: chat ok, artifact ok, web UI ok, run", runs[0]["run_id"], "succeeded")
