"""Fixtures for running the official supabase-py client against a real dispatchd.

scripts/supabase-test starts the server (fresh embedded PostgreSQL, free port) and exports:

    DISPATCH_URL                  e.g. http://127.0.0.1:40123
    DISPATCH_PUBLISHABLE_KEY      the key serve printed (SupabaseClient's supabaseKey)
    DISPATCH_ADMIN_EMAIL          an administrator created with `dispatchd create-admin`
    DISPATCH_ADMIN_PASSWORD
    DISPATCH_REFRESH_REUSE_GRACE  the server's REFRESH_REUSE_GRACE in seconds
    DISPATCH_BIN                  the dispatchd binary (for replicas, below)
    DATA_DIR                      the server's data directory (embedded PostgreSQL, jwt_secret)

Fixtures (all but the factories are session-scoped; the server is shared by every test, so
tests create their own users with unique emails rather than assuming an empty database):

    server             Server(url, publishable_key, admin_email, admin_password, refresh_reuse_grace)
    admin_api          an httpx.Client on server.url authenticated as the admin (Bearer token
                       from /v1/auth/login), for /v1 calls such as creating users
    create_realtor     create_realtor(name="…", user_type="realtor") -> Account(id, email, password):
                       a new user created through the admin API (POST /v1/users)
    new_client         new_client(key=None) -> supabase.Client, not signed in (key defaults to
                       the publishable key); auto-refresh is off so tests decide when tokens rotate
    signed_in_client   signed_in_client(account) -> supabase.Client signed in with
                       sign_in_with_password (account: an Account, e.g. from create_realtor)
    replica            replica(name, **env) -> Replica(url, publishable_key, pid, log_path): a second
                       `dispatchd serve` on the same database, JWT secret and publishable key
                       (as a scaled-out deployment runs them), with extra environment such as
                       short WS_* timers; started once per name and stopped after the session
"""

import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass

import httpx
import pytest
from supabase import Client, ClientOptions, create_client


@dataclass(frozen=True)
class Server:
    url: str
    publishable_key: str
    admin_email: str
    admin_password: str
    refresh_reuse_grace: float


@dataclass(frozen=True)
class Account:
    id: str
    email: str
    password: str


@pytest.fixture(scope="session")
def server() -> Server:
    return Server(
        url=os.environ["DISPATCH_URL"],
        publishable_key=os.environ["DISPATCH_PUBLISHABLE_KEY"],
        admin_email=os.environ["DISPATCH_ADMIN_EMAIL"],
        admin_password=os.environ["DISPATCH_ADMIN_PASSWORD"],
        refresh_reuse_grace=float(os.environ.get("DISPATCH_REFRESH_REUSE_GRACE", "10")),
    )


@pytest.fixture(scope="session")
def admin_api(server):
    login = httpx.post(f"{server.url}/v1/auth/login",
                       json={"email": server.admin_email, "password": server.admin_password})
    login.raise_for_status()
    token = login.json()["access_token"]
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def create_realtor(admin_api):
    def create(name: str = "Rita Realtor", user_type: str = "realtor") -> Account:
        email = f"realtor-{uuid.uuid4().hex[:12]}@example.com"
        password = f"pw-{uuid.uuid4().hex}"
        response = admin_api.post("/v1/users", json={"email": email, "name": name, "user_type": user_type,
                                                     "password": password})
        assert response.status_code == 201, response.text
        return Account(id=response.json()["id"], email=email, password=password)

    return create


@pytest.fixture
def new_client(server):
    def make(key: str | None = None) -> Client:
        options = ClientOptions(auto_refresh_token=False, persist_session=False)
        return create_client(server.url, key or server.publishable_key, options)

    return make


@pytest.fixture
def signed_in_client(new_client):
    def sign_in(account: Account) -> Client:
        client = new_client()
        client.auth.sign_in_with_password({"email": account.email, "password": account.password})
        return client

    return sign_in


@dataclass(frozen=True)
class Replica:
    url: str
    publishable_key: str
    pid: int
    log_path: str

    def metrics(self) -> dict[str, float]:
        """The replica's unlabelled /metrics samples, by name (what the server itself counts,
        never the process's RSS, which moves with malloc's arenas)."""
        response = httpx.get(f"{self.url}/metrics", timeout=30)
        assert response.status_code == 200, response.text
        samples = (line.split(" ") for line in response.text.splitlines() if line and not line.startswith("#"))
        return {fields[0]: float(fields[1]) for fields in samples if len(fields) == 2 and "{" not in fields[0]}


def embedded_database_url() -> str:
    """The URL of the server's embedded cluster: its socket directory and port are in
    postmaster.pid under DATA_DIR (lines 5 and 4)."""
    lines = open(os.path.join(os.environ["DATA_DIR"], "postgres", "postmaster.pid")).read().splitlines()
    return f"postgresql:///postgres?host={lines[4]}&port={lines[3]}&user=postgres"


@pytest.fixture(scope="session")
def replica(server, tmp_path_factory):
    started: dict[str, Replica] = {}
    processes: list[subprocess.Popen] = []
    repository = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    jwt_secret = open(os.path.join(os.environ["DATA_DIR"], "jwt_secret")).read().strip()

    def start(name: str, **settings: str) -> Replica:
        if name in started:
            return started[name]
        directory = tmp_path_factory.mktemp(f"replica-{name}")
        env = {key: value for key, value in os.environ.items() if not key.startswith(("WS_", "HTTP_", "DB_"))}
        env.update(DATABASE_URL=embedded_database_url(), JWT_SECRET=jwt_secret, PUBLISHABLE_KEY=server.publishable_key,
                   HOST="127.0.0.1", PORT="0", DB_POOL_SIZE="3", DATA_DIR=str(directory / "data"),
                   MIGRATIONS_DIR=os.path.join(repository, "migrations"), LOG_FORMAT="json", **settings)
        banner, log_path = directory / "server.out", str(directory / "server.log")
        with open(banner, "w") as out, open(log_path, "w") as log:
            process = subprocess.Popen([os.environ["DISPATCH_BIN"], "serve"], env=env, stdout=out, stderr=log,
                                       stdin=subprocess.DEVNULL)
        processes.append(process)
        deadline = time.monotonic() + 60
        prefix = "Dispatch server listening on "
        while not (url := next((line[len(prefix):].strip() for line in open(banner) if line.startswith(prefix)), None)):
            assert process.poll() is None, f"replica {name} exited: {open(log_path).read()[-2000:]}"
            assert time.monotonic() < deadline, f"replica {name} did not start listening within 60 s"
            time.sleep(0.05)
        started[name] = Replica(url=url, publishable_key=server.publishable_key, pid=process.pid, log_path=log_path)
        return started[name]

    yield start
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
