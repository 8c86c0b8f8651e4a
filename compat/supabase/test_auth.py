"""/auth/v1 through supabase-py's own auth client (supabase_auth), against the real server."""

import time

import pytest
from supabase_auth.errors import AuthApiError


def test_sign_in_with_the_right_password_returns_a_gotrue_session(new_client, create_realtor):
    account = create_realtor(name="Sam Signin")
    response = new_client().auth.sign_in_with_password({"email": account.email, "password": account.password})
    session, user = response.session, response.user
    assert session.token_type == "bearer"
    assert session.expires_at >= int(time.time()) + session.expires_in - 5
    assert user.id == account.id
    assert user.email == account.email
    assert user.aud == "authenticated"
    assert user.user_metadata["name"] == "Sam Signin"
    assert user.app_metadata["user_type"] == "realtor"


def test_sign_in_with_a_wrong_password_is_invalid_credentials(new_client, create_realtor):
    account = create_realtor()
    with pytest.raises(AuthApiError) as raised:
        new_client().auth.sign_in_with_password({"email": account.email, "password": "not the password"})
    assert raised.value.code == "invalid_credentials"
    assert raised.value.status == 400


def test_a_wrong_publishable_key_is_refused(new_client, create_realtor, server):
    account = create_realtor()
    with pytest.raises(AuthApiError) as raised:
        new_client(server.publishable_key + "-wrong").auth.sign_in_with_password(
            {"email": account.email, "password": account.password})
    assert raised.value.status == 401
    assert raised.value.code == "invalid_api_key"


def test_refresh_rotates_the_refresh_token(signed_in_client, create_realtor):
    client = signed_in_client(create_realtor())
    before = client.auth.get_session()
    after = client.auth.refresh_session().session
    assert after.refresh_token != before.refresh_token
    assert client.auth.get_user(after.access_token).user.id == before.user.id


def test_a_replay_within_the_grace_window_yields_the_current_session(new_client, signed_in_client, create_realtor):
    client = signed_in_client(create_realtor())
    spent = client.auth.get_session().refresh_token
    first = new_client().auth.refresh_session(spent).session
    # The same token again, as a client retrying after a lost response would send it.
    replay = new_client().auth.refresh_session(spent).session
    assert replay.refresh_token == first.refresh_token
    assert new_client().auth.get_user(replay.access_token).user.id == first.user.id


def test_reuse_after_the_grace_window_revokes_the_session(new_client, signed_in_client, create_realtor, server):
    client = signed_in_client(create_realtor())
    spent = client.auth.get_session().refresh_token
    current = new_client().auth.refresh_session(spent).session
    time.sleep(server.refresh_reuse_grace + 1.5)
    with pytest.raises(AuthApiError) as reused:
        new_client().auth.refresh_session(spent)
    assert reused.value.code == "refresh_token_already_used"
    with pytest.raises(AuthApiError) as revoked:
        new_client().auth.refresh_session(current.refresh_token)
    assert revoked.value.code == "refresh_token_not_found"


def test_global_sign_out_ends_every_session_of_the_user(signed_in_client, new_client, create_realtor):
    account = create_realtor()
    phone, tablet = signed_in_client(account), signed_in_client(account)
    tablet_session = tablet.auth.get_session()
    phone.auth.sign_out()  # scope "global", the default
    assert phone.auth.get_session() is None
    with pytest.raises(AuthApiError) as refused:
        new_client().auth.refresh_session(tablet_session.refresh_token)
    assert refused.value.code == "refresh_token_not_found"
    with pytest.raises(AuthApiError) as user:
        new_client().auth.get_user(tablet_session.access_token)
    assert user.value.code == "session_not_found"


def test_get_user_returns_the_signed_in_user(signed_in_client, create_realtor):
    account = create_realtor(name="Gina Getuser")
    user = signed_in_client(account).auth.get_user().user
    assert user.id == account.id
    assert user.email == account.email
    assert user.user_metadata["name"] == "Gina Getuser"
    assert user.is_anonymous is False


def test_update_user_changes_the_name_and_the_password(signed_in_client, new_client, create_realtor):
    account = create_realtor(name="Old Name")
    client = signed_in_client(account)
    renamed = client.auth.update_user({"data": {"name": "New Name"}}).user
    assert renamed.user_metadata["name"] == "New Name"

    with pytest.raises(AuthApiError) as missing:
        client.auth.update_user({"password": "a brand new passphrase"})
    assert missing.value.code == "current_password_required"

    client.auth.update_user({"password": "a brand new passphrase", "current_password": account.password})
    with pytest.raises(AuthApiError):
        new_client().auth.sign_in_with_password({"email": account.email, "password": account.password})
    fresh = new_client().auth.sign_in_with_password({"email": account.email, "password": "a brand new passphrase"})
    assert fresh.user.user_metadata["name"] == "New Name"
