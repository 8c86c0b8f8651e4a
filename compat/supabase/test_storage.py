"""/storage/v1 through the official supabase-py client (storage3).

Upload (storage3 sends multipart with a `file` part whose declared type defaults to
text/plain), overwrite with upsert and update, the public URL fetched byte for byte without
an apikey (as an <img> would), a polyglot, a non-image and an oversized body refused, and a
stranger who cannot overwrite or remove. After every refused attempt the database and the
public URL show nothing changed.
"""

import base64
import hashlib
import os
import subprocess
import uuid

import httpx
import pytest
from storage3.exceptions import StorageApiError

# A real 16x16 PNG and a real 16x16 JPEG (the same images as the Swift tests).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAMAAAAoLQ9TAAAAIGNIUk0AAHomAACAhAAA+gAAAIDoAAB1MAAA6mAAADqYAAAXcJy6UTwAAAHFUExURQAAAE6NwEqGujxxnjdolgAAAAAAAAAAAAAAAAAAAE6PxEyKv0iFtkN9rT10oTlsljZmkAAAAAAAAFKRxv3dSvnVPgAAADJghwAAAP3VNgAAADVokgAAAOzORQAAADZpkxsxRQAAAAAAAOLDRf3ZQQAAAEaBsjZnkQAAAPLhbv3pav3LG0N9rhwyS/Xjb/PBGkB1oz1zogAAAMKaEgAAAAAAAAAAAAAAAAAAAOjHPevFNOvCKuu+Ieu7GMabEgAAAAAAAAAAAAAAAAAAAAAAAAAAAP3eTgAAAAAAAAAAAAAAAPHQP/rTOf3SL/rHGcCXEgAAAAAAAAAAAAAAAAAAAAAAAEiDtER+rUB4p0yKvP///0V/r0F5qD50ojpvmzZplEmFt0aAsUJ7qj51oztwnTdqljhsl0+NwUuIu0R9rUB4pj1zoDltmf/iVVCPw0yJvEiEtT10of/eS//aQU2LvkaAsDtwnP/aQv/WN//TLUqHuUeBskN8qz92pf/XOP/PI//mYf/jV//fTf/bQv/TLv/PJP/rbP/nYf/bQ//XOf/MHDpwnP/nYv/jWP/fTv/TL//bRP/XOv/TMP/QJf/YOv/UMP/QJpJJAAIAAABWdFJOUwCv7feSCwMoQRV+oKGjp6qqSBi994IKtkPtJPdPiD22XExHa/dG96pOpvf311uzwm/3S3o0CCE8NaqpqampeSACCRMSLB73QBwFAUzM99h7Ox1CRTgf+DIQcQAAAAFiS0dEWgO7paIAAAD1SURBVBjTY2AAAkamsPAIZhZWNgYoiIyKjomNi2dnhQkkJCYlp6TGc3CCeVzcPLx8/AJp8fGCQiC+cHpGWGZWdk48UCBXRFSMIS+/IDqmMA7IF5coKpaUYihJKE1KLkuNlxaXkS2vqJRjqKquqZVXUBRU4lBWqausV2VQy8xS19DUamhsaq5radVWYtCJKdTVa2tvbOrobGnt0udgMDDsNmrr6e3r6Oxv7eoyNmEwNTO3APItraxtbG3tOOwZHBydnHv7JkycNLmLw8LFFeJ6twlTpk6L0nb3cPT0Agt4+/hO6/LzD3CGec400CJIKTgk1BTIBgBAYkJ/yC2b5QAAACV0RVh0ZGF0ZTpjcmVhdGUAMjAxNC0wMS0yNlQyMDo1OTozNyswMjowMPuaB3cAAAAldEVYdGRhdGU6bW9kaWZ5ADIwMTQtMDEtMjZUMjA6NTk6MDArMDI6MDDB74amAAAAAElFTkSuQmCC"
)
JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z"
)
FIVE_MIB = 5 * 1024 * 1024


def psql(sql: str) -> str:
    """One query on the server's embedded cluster (socket directory and port from postmaster.pid)."""
    lines = open(os.path.join(os.environ["DATA_DIR"], "postgres", "postmaster.pid")).read().splitlines()
    args = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", lines[4], "-p", lines[3], "-U", "postgres",
            "-d", "postgres", "-c", sql]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout.strip()


def stored(name: str) -> str:
    """The object's `id|owner|hash`, or "" when there is no such object."""
    return psql(f"SELECT id || '|' || owner || '|' || hash FROM storage_objects WHERE bucket = 'avatars' AND name = '{name}'")


@pytest.fixture
def world(create_realtor, signed_in_client):
    class World:
        owner = create_realtor("Olive Owner")
        stranger = create_realtor("Stan Stranger")
        bucket = signed_in_client(owner).storage.from_("avatars")
        strangers_bucket = signed_in_client(stranger).storage.from_("avatars")

    return World


def unique(extension: str = "png") -> str:
    return f"test/{uuid.uuid4().hex}.{extension}"


def public_get(bucket, name: str) -> httpx.Response:
    """The URL the client builds for <img> tags, fetched with no apikey and no token."""
    return httpx.get(bucket.get_public_url(name), timeout=30)


def refused(call) -> StorageApiError:
    with pytest.raises(StorageApiError) as raised:
        call()
    return raised.value


def test_upload_then_public_url_serves_the_same_bytes(world):
    name = unique()
    response = world.bucket.upload(name, PNG)
    assert response.full_path == f"avatars/{name}"
    served = public_get(world.bucket, name)
    assert served.status_code == 200
    assert served.content == PNG
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["etag"] == f'"{hashlib.sha256(PNG).hexdigest()}"'
    assert served.headers["cache-control"] == "public, max-age=60"
    assert world.bucket.download(name) == PNG
    assert stored(name).split("|")[1] == world.owner.id


def test_content_addressed_name_is_cached_as_immutable(world):
    digest = hashlib.sha256(JPEG).hexdigest()
    world.bucket.upload(f"{digest}.jpg", JPEG, {"upsert": "true"})
    served = public_get(world.bucket, f"{digest}.jpg")
    assert served.content == JPEG
    assert served.headers["content-type"] == "image/jpeg"
    assert served.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_overwrite_needs_upsert_or_update_and_keeps_the_id(world):
    name = unique()
    world.bucket.upload(name, PNG)
    before = stored(name)
    duplicate = refused(lambda: world.bucket.upload(name, JPEG))
    assert duplicate.status == "409" and duplicate.code == "Duplicate"
    assert public_get(world.bucket, name).content == PNG

    world.bucket.upload(name, JPEG, {"upsert": "true"})
    assert public_get(world.bucket, name).content == JPEG
    world.bucket.update(name, PNG)
    assert public_get(world.bucket, name).content == PNG
    assert stored(name).split("|")[0] == before.split("|")[0]


@pytest.mark.parametrize("label,body,status,error", [
    ("polyglot", PNG + b"<html><script>alert(1)</script></html>", "422", "invalid_image"),
    ("png signature then html", PNG[:8] + b"<html><script>alert(1)</script></html>", "422", "invalid_image"),
    ("not an image", b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>", "415", "unsupported_media_type"),
    ("over 5 MiB", PNG[:8] + bytes(FIVE_MIB), "413", "body_too_large"),
])
def test_refused_uploads_store_nothing(world, label, body, status, error):
    name = unique()
    problem = refused(lambda: world.bucket.upload(name, body, {"content-type": "image/png"}))
    assert (problem.status, problem.code) == (status, error), label
    assert stored(name) == ""
    assert public_get(world.bucket, name).status_code == 404


def test_a_refused_overwrite_changes_nothing(world):
    name = unique()
    world.bucket.upload(name, PNG)
    before = stored(name)
    polyglot = refused(lambda: world.bucket.upload(name, JPEG + b"<html></html>", {"upsert": "true"}))
    assert polyglot.status == "422"
    assert stored(name) == before
    assert public_get(world.bucket, name).content == PNG


def test_a_stranger_cannot_overwrite_or_remove(world):
    name = unique()
    world.bucket.upload(name, PNG)
    before = stored(name)
    updated_at = psql(f"SELECT updated_at FROM storage_objects WHERE name = '{name}'")
    for attempt in [
        lambda: world.strangers_bucket.upload(name, JPEG, {"upsert": "true"}),
        lambda: world.strangers_bucket.update(name, JPEG),
        lambda: world.strangers_bucket.remove([name]),
    ]:
        problem = refused(attempt)
        assert (problem.status, problem.code) == ("403", "forbidden")
    assert stored(name) == before
    assert psql(f"SELECT updated_at FROM storage_objects WHERE name = '{name}'") == updated_at
    assert public_get(world.bucket, name).content == PNG

    removed = world.bucket.remove([name, unique()])
    assert [item["name"] for item in removed] == [name]
    assert stored(name) == ""
    assert public_get(world.bucket, name).status_code == 404


def test_upload_does_not_set_avatar_hash_but_the_app_can(world, server, signed_in_client):
    name = unique()
    world.bucket.upload(name, PNG, {"upsert": "true"})
    digest = hashlib.sha256(PNG).hexdigest()
    client = signed_in_client(world.owner)
    token = client.auth.get_session().access_token
    api = httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert api.get("/v1/me").json()["avatar_hash"] is None
    unknown = api.patch("/v1/me", json={"avatar_hash": "0" * 64})
    assert unknown.status_code == 422 and unknown.json()["code"] == "unknown_avatar"
    assert api.patch("/v1/me", json={"avatar_hash": digest}).json()["avatar_hash"] == digest
