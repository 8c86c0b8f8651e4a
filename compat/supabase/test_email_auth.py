"""E-mail sign-in, recovery, invitations and address change through supabase-py, and
raw HTTP for what supabase-swift sends differently (PKCE, /admin/invite).

The server sends through a real SMTP relay (scripts/smtp_capture.py, aiosmtpd with STARTTLS)
that scripts/supabase-test starts; codes and links are read from the captured mail
(DISPATCH_SMTP_DIR), never from the database. One mail per address per 60 s is the rule, so
every test mails addresses of its own.
"""

import base64
import hashlib
import html
import os
import re
import secrets
import statistics
import sys
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from supabase_auth import SyncGoTrueAdminAPI
from supabase_auth.errors import AuthApiError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts"))
from smtp_capture import plain_text, wait_for_messages  # noqa: E402

SMTP_DIR = os.environ.get("DISPATCH_SMTP_DIR", "")
pytestmark = pytest.mark.skipif(not SMTP_DIR, reason="needs scripts/supabase-test's SMTP relay (DISPATCH_SMTP_DIR)")


def address(label="mail"):
    return f"{label}-{uuid.uuid4().hex[:12]}@example.com"


def mail_to(recipient, count=1):
    """The `count`-th mail to `recipient` (waits for it): (plain text, code or None, link or None)."""
    messages = wait_for_messages(SMTP_DIR, count, timeout=20, to=recipient)
    assert len(messages) >= count, f"no mail #{count} to {recipient} (got {len(messages)})"
    message = messages[count - 1]
    assert message["tls"], "the relay requires STARTTLS; a mail arrived in plaintext"
    text = html.unescape(plain_text(message))
    code = re.search(r"^\s+(\d{6})\s*$", text, re.M)
    link = re.search(r"(https?://\S+/auth/v1/verify\?\S+)", text)
    return text, code and code.group(1), link and link.group(1)


def mails_to(recipient):
    return [m for m in wait_for_messages(SMTP_DIR, 0, timeout=0, to=recipient)]


def gotrue(server, method, path, token=None, **kwargs):
    headers = {"apikey": server.publishable_key, **kwargs.pop("headers", {})}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.request(method, f"{server.url}/auth/v1{path}", headers=headers, timeout=30, **kwargs)


def admin_token(server):
    response = httpx.post(f"{server.url}/v1/auth/login", json={"email": server.admin_email, "password": server.admin_password})
    response.raise_for_status()
    return response.json()["access_token"]


def test_sign_in_with_otp_code(create_realtor, new_client):
    account = create_realtor()
    client = new_client()
    client.auth.sign_in_with_otp({"email": account.email})
    _, code, link = mail_to(account.email)
    assert code and link
    response = client.auth.verify_otp({"email": account.email, "token": code, "type": "email"})
    assert response.session and response.user.email == account.email
    assert client.auth.get_user().user.id == account.id
    # Single use: the same code again fails.
    with pytest.raises(AuthApiError) as error:
        new_client().auth.verify_otp({"email": account.email, "token": code, "type": "email"})
    assert error.value.code == "otp_expired"


def test_magic_link_redirects_with_the_session_in_the_fragment(server, create_realtor):
    account = create_realtor()
    # Without a code_challenge (the implicit flow): the session comes in the fragment.
    sent = gotrue(server, "POST", "/otp", params={"redirect_to": "https://evil.example.net/x"}, json={"email": account.email})
    assert sent.status_code == 200
    _, _, link = mail_to(account.email)
    assert link.startswith(server.url + "/auth/v1/verify?"), link  # PUBLIC_URL, never the Host header
    # A browser opens it: no apikey header.
    opened = httpx.get(link, follow_redirects=False, timeout=30)
    assert opened.status_code == 303
    assert opened.headers["Referrer-Policy"] == "no-referrer"
    location = urlsplit(opened.headers["Location"])
    # The redirect target asked for is not on the allow-list: the default (PUBLIC_URL) is used.
    assert f"{location.scheme}://{location.netloc}" == server.url
    fragment = parse_qs(location.fragment, keep_blank_values=True)
    assert fragment.get("type") == ["magiclink"] and fragment.get("token_type") == ["bearer"] and "sb" in fragment, location
    user = gotrue(server, "GET", "/user", token=fragment["access_token"][0])
    assert user.status_code == 200 and user.json()["email"] == account.email
    # Opened again: the error as GoTrue puts it in the fragment.
    again = urlsplit(httpx.get(link, follow_redirects=False, timeout=30).headers["Location"])
    errors = parse_qs(again.fragment, keep_blank_values=True)
    assert errors["error_code"] == ["otp_expired"] and errors["error"] == ["access_denied"]


def test_supabase_py_pkce_link_and_exchange(create_realtor, new_client):
    # supabase-py's default flow is PKCE: the mail's link answers ?code=, which the same client
    # exchanges with the verifier it kept.
    account = create_realtor()
    client = new_client()
    client.auth.sign_in_with_otp({"email": account.email})
    _, _, link = mail_to(account.email)
    assert "token=pkce_" in link
    location = urlsplit(httpx.get(link, follow_redirects=False, timeout=30).headers["Location"])
    code = parse_qs(location.query)["code"][0]
    session = client.auth.exchange_code_for_session({"auth_code": code}).session
    assert session.user.email == account.email


def test_recovery_sets_a_password_once_and_ends_other_sessions(create_realtor, new_client, signed_in_client):
    account = create_realtor()
    elsewhere = signed_in_client(account)
    client = new_client()
    client.auth.reset_password_for_email(account.email)
    _, code, _ = mail_to(account.email)
    client.auth.verify_otp({"email": account.email, "token": code, "type": "recovery"})
    new_password = f"pw-{uuid.uuid4().hex}"
    client.auth.update_user({"password": new_password})  # supabase clients send no current_password here
    # Once only: a second change needs the current password.
    with pytest.raises(AuthApiError) as error:
        client.auth.update_user({"password": f"pw-{uuid.uuid4().hex}"})
    assert error.value.code == "current_password_required"
    # The other session ended; the new password signs in; a notice went out.
    with pytest.raises(AuthApiError):
        elsewhere.auth.refresh_session()
    new_client().auth.sign_in_with_password({"email": account.email, "password": new_password})
    notice, _, _ = mail_to(account.email, count=2)
    assert "password" in notice.lower()


def test_a_plain_session_still_needs_the_current_password(create_realtor, signed_in_client):
    account = create_realtor()
    with pytest.raises(AuthApiError) as error:
        signed_in_client(account).auth.update_user({"password": f"pw-{uuid.uuid4().hex}"})
    assert error.value.code == "current_password_required"


def test_invitation_and_first_password(server, new_client):
    token = admin_token(server)
    admin = SyncGoTrueAdminAPI(url=f"{server.url}/auth/v1",
                               headers={"apikey": server.publishable_key, "Authorization": f"Bearer {token}"})
    invited = address("invited")
    user = admin.invite_user_by_email(invited, {"data": {"name": "Ivy Invited"}}).user
    assert user.email == invited and user.user_metadata["name"] == "Ivy Invited"
    # supabase-swift posts to /admin/invite; only admins may invite.
    swift_invited = address("swift-invited")
    assert gotrue(server, "POST", "/admin/invite", token=token, json={"email": swift_invited}).status_code == 200
    mail_to(swift_invited)
    _, first_code, _ = mail_to(invited)
    client = new_client()
    session = client.auth.verify_otp({"email": invited, "token": first_code, "type": "invite"}).session
    assert session
    password = f"pw-{uuid.uuid4().hex}"
    client.auth.update_user({"password": password})
    new_client().auth.sign_in_with_password({"email": invited, "password": password})


def test_only_admins_invite(server, create_realtor, signed_in_client):
    realtor = signed_in_client(create_realtor())
    token = realtor.auth.get_session().access_token
    for path in ["/invite", "/admin/invite"]:
        response = gotrue(server, "POST", path, token=token, json={"email": address()})
        assert response.status_code == 403, response.text


def test_update_user_email_confirms_the_new_address_and_notifies_the_old(create_realtor, signed_in_client, new_client):
    account = create_realtor()
    client = signed_in_client(account)
    new_email = address("moved")
    # No current_password: the password sign-in a moment ago is the proof of presence (5 minutes).
    updated = client.auth.update_user({"email": new_email}).user
    assert updated.email == account.email and updated.new_email == new_email  # nothing moves before confirmation
    _, code, _ = mail_to(new_email)
    notice, notice_code, _ = mail_to(account.email)
    assert new_email in notice and notice_code is None and "/v1/auth/email-change/cancel?token=" in notice
    confirmed = new_client().auth.verify_otp({"email": new_email, "token": code, "type": "email_change"})
    assert confirmed.session is None and confirmed.user.email == new_email  # the address moves; no session opens
    new_client().auth.sign_in_with_password({"email": new_email, "password": account.password})


def test_resend_an_open_invitation(server, new_client):
    token = admin_token(server)
    invited = address("resend")
    assert gotrue(server, "POST", "/invite", token=token, json={"email": invited}).status_code == 200
    _, first_code, _ = mail_to(invited)
    # One mail per address per 60 s: a resend within the interval is refused, as GoTrue does.
    with pytest.raises(AuthApiError) as error:
        new_client().auth.resend({"type": "signup", "email": invited})
    assert error.value.code == "over_email_send_rate_limit"
    assert first_code


def test_pkce_link_and_code_exchange_as_supabase_swift_sends_them(server, create_realtor):
    account = create_realtor()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    sent = gotrue(server, "POST", "/otp", params={"redirect_to": server.url + "/welcome"},
                  json={"email": account.email, "create_user": True, "code_challenge": challenge,
                        "code_challenge_method": "s256", "data": None})
    assert sent.status_code == 200 and sent.json() == {}
    _, _, link = mail_to(account.email)
    assert "token=pkce_" in link
    opened = httpx.get(link, follow_redirects=False, timeout=30)
    assert opened.status_code == 303
    location = urlsplit(opened.headers["Location"])
    assert location.path == "/welcome" and not location.fragment
    code = parse_qs(location.query)["code"][0]
    wrong = gotrue(server, "POST", "/token", params={"grant_type": "pkce"},
                   json={"auth_code": code, "code_verifier": secrets.token_urlsafe(48)})
    assert wrong.status_code == 400 and wrong.json()["code"] == "bad_code_verifier"
    # The code was spent by the wrong try: a stolen code gives one guess.
    spent = gotrue(server, "POST", "/token", params={"grant_type": "pkce"}, json={"auth_code": code, "code_verifier": verifier})
    assert spent.status_code == 404 and spent.json()["code"] == "flow_state_not_found"


def test_pkce_exchange_opens_a_session(server, create_realtor):
    account = create_realtor()
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    gotrue(server, "POST", "/recover", json={"email": account.email, "code_challenge": challenge, "code_challenge_method": "s256"})
    _, _, link = mail_to(account.email)
    code = parse_qs(urlsplit(httpx.get(link, follow_redirects=False, timeout=30).headers["Location"]).query)["code"][0]
    session = gotrue(server, "POST", "/token", params={"grant_type": "pkce"}, json={"auth_code": code, "code_verifier": verifier})
    assert session.status_code == 200 and session.json()["user"]["email"] == account.email
    # A recovery session: one password without current_password.
    changed = gotrue(server, "PUT", "/user", token=session.json()["access_token"], json={"password": f"pw-{uuid.uuid4().hex}"})
    assert changed.status_code == 200, changed.text


def test_wrong_tries_from_many_sources_spend_the_code_but_never_its_link(server, create_realtor, replica):
    # Through a replica that believes X-Forwarded-For, each try from its own address: the
    # account-wide budget (10 wrong tests since the code was issued), not a per-source one,
    # is what stops the guessing.
    proxied = replica("proxied", TRUSTED_PROXIES="127.0.0.1")
    account = create_realtor()
    assert httpx.post(f"{proxied.url}/auth/v1/otp", headers={"apikey": server.publishable_key},
                      json={"email": account.email}).status_code == 200
    _, code, link = mail_to(account.email)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"

    def verify(token, n):
        return httpx.post(f"{proxied.url}/auth/v1/verify", headers={"apikey": server.publishable_key, "X-Forwarded-For": f"198.51.100.{n}"},
                          json={"email": account.email, "token": token, "type": "email"}, timeout=30)

    for n in range(10):
        response = verify(wrong, n)
        assert response.status_code == 403 and response.json()["code"] == "otp_expired"
    eleventh = verify(code, 99)
    assert eleventh.status_code == 403 and eleventh.json()["code"] == "otp_expired", eleventh.text
    # The link of the same mail still signs in.
    opened = httpx.get(link, follow_redirects=False, timeout=30)
    assert opened.status_code == 303 and "#access_token=" in opened.headers["location"], opened.headers.get("location")


def test_an_expired_code_fails(server, create_realtor, replica):
    short = replica("short-codes", AUTH_EMAIL_TOKEN_TTL="1")
    account = create_realtor()
    httpx.post(f"{short.url}/auth/v1/otp", headers={"apikey": server.publishable_key}, json={"email": account.email})
    _, code, _ = mail_to(account.email)
    time.sleep(1.5)
    response = gotrue(server, "POST", "/verify", json={"email": account.email, "token": code, "type": "email"})
    assert response.status_code == 403 and response.json()["code"] == "otp_expired"


def test_unknown_and_known_addresses_answer_alike(server, admin_api, create_realtor):
    """Same status and body; timing medians printed (no assertion on wall-clock time)."""
    rounds = int(os.environ.get("EMAIL_TIMING_ROUNDS", "12"))
    known = [create_realtor().email for _ in range(rounds)]
    unknown = [address("nobody") for _ in range(rounds)]
    timings = {"known": [], "unknown": []}
    answers = {"known": set(), "unknown": set()}
    with httpx.Client(base_url=f"{server.url}/auth/v1", headers={"apikey": server.publishable_key}, timeout=30) as client:
        # create_user: true (the clients' default) creates no account while sign-up is off.
        stranger = address("stranger")
        assert client.post("/otp", json={"email": stranger, "create_user": True}).status_code == 200
        for known_email, unknown_email in zip(known, unknown):
            for label, email in (("known", known_email), ("unknown", unknown_email)):
                started = time.perf_counter()
                response = client.post("/recover", json={"email": email})
                timings[label].append(time.perf_counter() - started)
                answers[label].add((response.status_code, response.text))
        # The interval holds for unknown addresses too, answered the same way.
        again_known = client.post("/otp", json={"email": known[0]})
        again_unknown = client.post("/otp", json={"email": unknown[0]})
    assert answers["known"] == answers["unknown"] == {(200, "{}")}
    assert again_known.status_code == again_unknown.status_code == 429
    assert again_known.json()["code"] == again_unknown.json()["code"] == "over_email_send_rate_limit"
    print(f"\nPOST /auth/v1/recover over {rounds} rounds: median known {statistics.median(timings['known']) * 1000:.2f} ms, "
          f"unknown {statistics.median(timings['unknown']) * 1000:.2f} ms")
    # Mail goes out in order: once the last known address's mail is in, an earlier one to the
    # stranger or to an unknown address would be too.
    mail_to(known[-1])
    assert mails_to(unknown[0]) == [] and mails_to(stranger) == []


def test_sign_up_by_code_only_when_the_operator_allows_it(server, replica, new_client):
    open_doors = replica("signup", AUTH_EMAIL_SIGNUP="true")
    newcomer = address("newcomer")
    sent = httpx.post(f"{open_doors.url}/auth/v1/otp", headers={"apikey": server.publishable_key},
                      json={"email": newcomer, "create_user": True, "data": {"name": "Nina New"}})
    assert sent.status_code == 200
    _, code, _ = mail_to(newcomer)
    session = new_client().auth.verify_otp({"email": newcomer, "token": code, "type": "email"}).session
    assert session.user.email == newcomer and session.user.user_metadata["name"] == "Nina New"
    assert session.user.app_metadata["user_type"] == "realtor"


def test_header_injection_is_refused_or_encoded(server):
    token = admin_token(server)
    injected = gotrue(server, "POST", "/otp", json={"email": "victim@example.com\r\nBcc: evil@example.net"})
    assert injected.status_code == 422 and injected.json()["code"] == "validation_failed"
    invited = address("named")
    response = gotrue(server, "POST", "/invite", token=token,
                      json={"email": invited, "data": {"name": "Eve\r\nBcc: evil@example.net"}})
    assert response.status_code == 200
    messages = wait_for_messages(SMTP_DIR, 1, timeout=20, to=invited)
    assert messages and messages[0]["rcpt_tos"] == [invited]
    headers = messages[0]["data"].split("\r\n\r\n", 1)[0].replace("\r\n", "\n")
    assert not re.search(r"^Bcc:", headers, re.M | re.I)
    assert mails_to("evil@example.net") == []


def test_the_v1_twins(server, create_realtor):
    account = create_realtor()
    sent = httpx.post(f"{server.url}/v1/auth/otp", json={"email": account.email})
    assert sent.status_code == 202
    _, code, _ = mail_to(account.email)
    verified = httpx.post(f"{server.url}/v1/auth/verify", json={"type": "email", "email": account.email, "code": code})
    assert verified.status_code == 200 and verified.json()["user"]["email"] == account.email
    invited = httpx.post(f"{server.url}/v1/invitations", headers={"Authorization": f"Bearer {admin_token(server)}"},
                         json={"email": address("v1-invited"), "name": "Vic"})
    assert invited.status_code == 201 and invited.json()["name"] == "Vic"
