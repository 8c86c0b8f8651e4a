"""Who may join a realtime channel, over a raw socket (see
docs/app-developers/realtime.md).

A join without a usable user token gets the Phoenix error reply Supabase's clients expect —
`phx_reply` `{"status":"error","response":{"reason":"InvalidJWTToken: …"}}` on the join's
ref, with both serializers — and no "Subscribed" message; the socket itself stays usable. A
session signed out after the join loses the channel (`system` error, then `phx_close`), and a
later join with its token is refused. The expired token is a real one: issued by a replica
with ACCESS_TOKEN_TTL=1 on the same database and secret, then left to expire.
"""

import base64
import json
import time

import httpx
import pytest
from raw_websocket import RawWebSocket

ACCESS_TOKEN_TTL = 1


def sign_in(url: str, account) -> str:
    response = httpx.post(f"{url}/v1/auth/login", json={"email": account.email, "password": account.password})
    assert response.status_code == 200, response.text
    return response.json()["access_token"]


def sign_out(url: str, token: str):
    response = httpx.post(f"{url}/v1/auth/logout", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 204, response.text


def expires_at(token: str) -> int:
    body = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))["exp"]


@pytest.fixture(scope="module")
def account(create_realtor):
    return create_realtor("Jo Joiner")


@pytest.fixture(scope="module")
def short_tokens(replica):
    return replica("short-tokens", ACCESS_TOKEN_TTL=str(ACCESS_TOKEN_TTL))


def missing(server, account, short_tokens):
    return None, "an access_token"


def publishable_key(server, account, short_tokens):
    return server.publishable_key, "not a key"


def not_a_jwt(server, account, short_tokens):
    return "not-a-jwt", "The access token is invalid"


def forged_signature(server, account, short_tokens):
    header, claims, signature = sign_in(server.url, account).split(".")
    flipped = ("A" if signature[10] != "A" else "B")
    return f"{header}.{claims}.{signature[:10]}{flipped}{signature[11:]}", "The access token is invalid"


def expired(server, account, short_tokens):
    token = sign_in(short_tokens.url, account)
    time.sleep(max(0.0, expires_at(token) + 1 - time.time()))
    return token, "Token has expired"


def signed_out(server, account, short_tokens):
    token = sign_in(server.url, account)
    sign_out(server.url, token)
    return token, "The session has been signed out"


@pytest.mark.parametrize("vsn", ["1.0.0", "2.0.0"])
@pytest.mark.parametrize("make_token", [missing, publishable_key, not_a_jwt, forged_signature, expired, signed_out],
                         ids=lambda make: make.__name__)
def test_a_join_without_a_usable_token_gets_the_phoenix_error_reply(server, account, short_tokens, vsn, make_token):
    token, explanation = make_token(server, account, short_tokens)
    raw = RawWebSocket(server.url, server.publishable_key, vsn=vsn)
    topic = "realtime:private-tasks"
    ref = raw.join(topic, token)
    reply = raw.next_message()
    assert reply is not None
    join_ref, reply_ref, reply_topic, event, payload = reply
    assert (join_ref, reply_ref, reply_topic, event) == (ref, ref, topic, "phx_reply")  # nothing came before it
    assert payload["status"] == "error"
    assert payload["response"]["reason"].startswith("InvalidJWTToken: "), payload
    assert explanation in payload["response"]["reason"]
    # The socket is fine: a heartbeat is answered, and nothing of the refused channel arrives.
    heartbeat = raw.send_message("phoenix", "heartbeat", {})
    message = raw.next_message()
    assert message is not None and message[1] == heartbeat and message[4] == {"status": "ok", "response": {}}, message
    raw.close()


def test_signing_out_closes_a_joined_channel_and_refuses_the_next_join(server, account):
    token = sign_in(server.url, account)
    raw = RawWebSocket(server.url, server.publishable_key)
    topic = "realtime:until-sign-out"
    ref = raw.join(topic, token)
    assert raw.reply_to(ref)["status"] == "ok"
    subscribed = raw.next_message()
    assert subscribed is not None and subscribed[3] == "system" and subscribed[4]["status"] == "ok", subscribed

    sign_out(server.url, token)
    system = raw.next_message(timeout=10)  # the channel checks its token every second
    assert system is not None and (system[2], system[3]) == (topic, "system"), system
    assert system[4]["status"] == "error" and system[4]["message"] == "The session has been signed out"
    closing = raw.next_message()
    assert closing is not None and (closing[0], closing[2], closing[3]) == (ref, topic, "phx_close"), closing

    again = raw.join(topic, token)
    reply = raw.reply_to(again)
    assert reply == {"status": "error", "response": {"reason": "InvalidJWTToken: The session has been signed out"}}
    raw.close()
