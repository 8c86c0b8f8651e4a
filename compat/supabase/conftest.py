"""Fixtures for running the official supabase-py client against a real dispatchd.

scripts/supabase-test starts the server (fresh embedded PostgreSQL, free port) and exports:

    DISPATCH_URL                  e.g. http://127.0.0.1:40123
    DISPATCH_PUBLISHABLE_KEY      the key serve printed (SupabaseClient's supabaseKey)
    DISPATCH_ADMIN_EMAIL          an administrator created with `dispatchd create-admin`
    DISPATCH_ADMIN_PASSWORD
    DISPATCH_REFRESH_REUSE_GRACE  the server's REFRESH_REUSE_GRACE in seconds

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
"""

import os
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
