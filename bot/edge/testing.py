"""A fake Discord for tests and benchmarks: no network, discord.py's real dispatch.

``FakeDiscord`` stands in for both HTTP paths discord.py uses: the bot's REST
client (``HTTPClient.request``: channel messages, DMs, threads, command sync)
and the webhook adapter that answers interactions (callbacks, followups,
edits). It answers with payloads shaped like Discord's, records every
message, and can refuse DMs with error 50007. Every request body is checked against
Discord's published OpenAPI spec (``bot.edge.testing_api``). Interactions are built as raw
gateway payloads (application commands with nested subcommand options,
components, autocomplete) and fed to discord.py's dispatch (``fence.dispatch_interaction``),
so the real ``CommandTree``, ``DynamicItem`` dispatch and views run.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import itertools
import json
import re
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import discord
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot import fence
from bot.clock import Clock, SystemClock
from bot.edge.testing_api import SpecViolation, request_schemas

Payload = dict[str, Any]

# The interaction whose dispatch created a task (inherited by the tasks it creates).
_FEED: contextvars.ContextVar[int | None] = contextvars.ContextVar("fake_feed", default=None)
_ORIGIN: weakref.WeakKeyDictionary[asyncio.Task[Any], int] = weakref.WeakKeyDictionary()
# Every request body Discord's published schema refused, by any fake of the process: the
# bot catches the 400 the fake answers like any other refusal, so tests look here (the bot
# tests' conftest fails a test that left one).
VIOLATIONS: list[str] = []


def _tagging_factory(loop: asyncio.AbstractEventLoop, coro: Any,
                     context: contextvars.Context | None = None) -> asyncio.Task[Any]:
    task = asyncio.Task(coro, loop=loop, context=context)
    # Not ``context or ...``: a task given a fresh, empty context (work shared by every
    # caller, such as SQLite's committer) is nobody's, yet an empty context is falsy.
    feed = (contextvars.copy_context() if context is None else context).get(_FEED)
    if feed is not None:
        _ORIGIN[task] = feed
    return task


def _tag_tasks(loop: asyncio.AbstractEventLoop) -> None:
    if loop.get_task_factory() is not _tagging_factory:
        loop.set_task_factory(_tagging_factory)
EPHEMERAL = 64
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12  # channel type: only its members (and moderators) see it
TIMESTAMP = "2024-05-01T12:00:00.000000+00:00"
ALL_PERMISSIONS = 2251799813685247
# Permission bits the fake checks (Discord's values).
ADMINISTRATOR = 1 << 3
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
HOUR = 3600.0


@dataclass
class Limits:
    """What the fake refuses as Discord does; on in every test, a test changes them."""

    # Edits Discord allows of one message once it is older than an hour (then 30046; the
    # real number is not documented; None: no cap).
    edit_cap: int | None = 5
    token_life: float = 15 * 60  # an interaction token's life (then 50027)
    answer_within: float = 3.0  # the first answer to an interaction (then 10062)
    attachments_max: int = 10 * 2**20  # bytes of files in one message (then 40005)
    route_rate: tuple[int, float] = (5, 5.0)  # requests per window, per route and channel
    global_rate: tuple[int, float] = (50, 1.0)  # REST requests per window, all routes


@dataclass(frozen=True)
class Refused:
    """A request Discord refused (these count towards its ban of clients that fail often)."""

    method: str
    path: str
    status: int
    code: int
    channel_id: int | None = None


@dataclass(frozen=True)
class Mention:
    """A user option's value in ``FakeDiscord.slash`` (sent with its resolved member)."""

    user_id: int


@dataclass
class Sent:
    """One message the bot sent or edited, as Discord would have stored it."""

    kind: str  # "channel", "thread" (a private one), "dm", "response", "followup"
    channel_id: int
    message: Payload
    files: list[tuple[str, bytes]] = field(default_factory=list)
    ephemeral: bool = False
    user_id: int | None = None  # who sees an ephemeral message / the DM's recipient
    interaction_id: int | None = None
    edit: bool = False  # a new version of an earlier message (same kind and audience)
    feed: int | None = field(default_factory=lambda: _FEED.get())  # whose dispatch sent it
    allowed_mentions: Payload | None = None  # as sent; None: Discord's default (ping all)
    uploaded: list[tuple[str, bytes]] = field(default_factory=list)  # files sent this time
    at: float = field(default_factory=time.perf_counter)  # when the fake received it

    @property
    def id(self) -> int:
        return int(self.message["id"])

    @property
    def content(self) -> str:
        return str(self.message.get("content") or "")

    @property
    def public(self) -> bool:
        """Seen by everyone in a server channel (not ephemeral, not a DM)."""
        return self.kind not in ("dm", "thread") and not self.ephemeral

    def controls(self) -> Iterator[Payload]:
        for row in self.message.get("components") or []:
            yield from row.get("components", [])

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.controls() if "custom_id" in c]

    def control(self, *, custom_id: str | None = None, label: str | None = None,
                prefix: str | None = None) -> Payload:
        for c in self.controls():
            cid = c.get("custom_id", "")
            if ((custom_id is None or cid == custom_id)
                    and (label is None or c.get("label") == label)
                    and (prefix is None or cid.startswith(prefix))):
                return c
        raise LookupError(f"no control {custom_id or label or prefix!r} in {self.custom_ids()}")


@dataclass
class Exchange:
    """Everything one fed interaction caused."""

    interaction_id: int
    replies: list[Sent]  # answers to this interaction (callback, followups, edits)
    sent: list[Sent]  # every message sent meanwhile (channel posts, DMs, replies)
    callback_types: list[int]
    choices: list[Payload] | None = None  # autocomplete result

    @property
    def reply(self) -> Sent:
        if not self.replies:
            raise LookupError("the interaction got no message reply")
        return self.replies[-1]

    @property
    def text(self) -> str:
        return "\n".join(s.content for s in self.replies)


class _Response:
    """Enough of an aiohttp response for ``discord.HTTPException``."""

    def __init__(self, status: int, reason: str):
        self.status = status
        self.reason = reason


class _WebhookAdapter(AsyncWebhookAdapter):
    def __init__(self, fake: FakeDiscord):
        super().__init__()  # type: ignore[no-untyped-call]
        self.fake = fake

    async def request(self, route: Route, session: Any, *, payload: Payload | None = None,
                      multipart: list[Payload] | None = None, files: Sequence[discord.File]
                      | None = None, **kwargs: Any) -> Any:
        return self.fake.webhook(route, _body(payload, multipart), _files(files))


def _body(payload: Any, form: Sequence[Payload] | None) -> Any:
    """The JSON body of a request: an object, or a list for bulk command syncs."""
    if payload is not None:
        return payload
    for part in form or []:
        if part.get("name") == "payload_json":
            return dict(json.loads(part["value"]))
    return {}


def _files(files: Sequence[discord.File] | None) -> list[tuple[str, bytes]]:
    out = []
    for f in files or []:
        f.reset()
        out.append((f.filename or "file", f.fp.read()))
    return out


def _params(template: str, url: str) -> dict[str, str]:
    m = _route_pattern(template).fullmatch(url)
    return dict(m.groupdict()) if m else {}


@functools.cache
def _route_pattern(template: str) -> re.Pattern[str]:
    """A route template ('/channels/{channel_id}/messages') as a pattern naming its
    parameters (built once per route: every request asks)."""
    pattern = re.escape(Route.BASE + template).replace(r"\{", "{").replace(r"\}", "}")
    return re.compile(re.sub(r"{(\w+)}", r"(?P<\1>[^/?]+)", pattern))


class FakeDiscord:
    """One guild with one text channel, users you add, and a bot user."""

    APP_ID = 1_100_000_000_000_000_001
    BOT_ID = 1_100_000_000_000_000_002
    GUILD_ID = 1_100_000_000_000_000_003
    CHANNEL_ID = 1_100_000_000_000_000_004
    COMMAND_ID = 1_100_000_000_000_000_005

    def __init__(self, clock: Clock | None = None) -> None:
        # Messages' ages, tokens' lives, rate windows: the bot's clock (a test's FakeClock).
        self.clock: Clock = clock or SystemClock()
        self._last_id = 0
        self.limits = Limits()
        self.refused: list[Refused] = []
        self.waits: list[float] = []  # seconds discord.py would have waited (rate limits)
        self.bot_permissions: dict[int, int] = {}  # channel -> the bot's permissions there
        self._forced: list[tuple[str | None, float, bool]] = []  # path, retry_after, global
        self._buckets: dict[tuple[str, str, str], list[float]] = {}  # at, window end, count
        self._born: dict[int, float] = {}  # message id -> when it was sent
        self._old_edits: dict[int, int] = {}  # message id -> edits while over an hour old
        self._token_born: dict[str, float] = {}
        self._activity: dict[int, float] = {}  # thread -> its last message
        self._gone: dict[int, Payload] = {}  # deleted channels
        self._client: discord.Client | None = None
        self.users: dict[int, str] = {}
        self.refuse_dms: set[int] = set()
        # A member's permissions in the channel (default: all; e.g. 0 for a plain member).
        self.permissions: dict[int, int] = {}
        # The next channel post fails as if the bot crashed "before" Discord got it, or
        # "after" Discord stored it but before the bot heard back.
        self.crash_on_post: str | None = None
        self.deleted: set[int] = set()  # ids of deleted messages
        self.thread_members: dict[int, set[int]] = {}  # thread id -> users added
        self.sent: list[Sent] = []
        self._replies: dict[int, list[Sent]] = {}
        self.requests: list[tuple[str, str]] = []
        self.request_log: list[tuple[float, int | None]] = []  # each request's time, channel
        self.unexpected: list[tuple[str, str]] = []
        self.synced: list[Payload] = []
        self.channels: dict[int, Payload] = {self.CHANNEL_ID: self._text_channel(self.CHANNEL_ID)}
        self._dm_channels: dict[int, int] = {}  # channel id -> user id
        self._messages: dict[int, Sent] = {}
        self._channel_ids: dict[int, list[int]] = {}  # channel -> its message ids, oldest first
        self._tokens: dict[str, tuple[int, int, int, int | None]] = {}  # iid, user, channel, msg
        self._callbacks: dict[int, list[int]] = {}
        self._choices: dict[int, list[Payload]] = {}
        self.adapter = _WebhookAdapter(self)
        self.bot_user = {"id": str(self.BOT_ID), "username": "ttr", "discriminator": "0",
                         "global_name": "TtR", "avatar": None, "bot": True}
        self.locales: dict[int, str] = {}  # a user's Discord client language (default en-US)
        self.schemas = request_schemas()

    def next_id(self) -> int:
        """A snowflake minted at the fake clock's time (as Discord's ids carry their date)."""
        at = int(self.clock.now() * 1000) - discord.utils.DISCORD_EPOCH
        self._last_id = max(self._last_id + 1, at << 22)
        return self._last_id

    def add_user(self, name: str) -> int:
        uid = self.next_id()
        self.users[uid] = name
        return uid

    def user(self, uid: int) -> Payload:
        return {"id": str(uid), "username": self.users.get(uid, f"user{uid}").lower(),
                "discriminator": "0", "global_name": self.users.get(uid), "avatar": None}

    def _text_channel(self, cid: int) -> Payload:
        return {"id": str(cid), "type": 0, "guild_id": str(self.GUILD_ID), "name": "games",
                "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None,
                "topic": None, "last_message_id": None, "rate_limit_per_user": 0}

    # -- wiring -------------------------------------------------------------------------

    async def connect(self, client: discord.Client, token: str = "fake-token", *,
                      catch_up: bool = True) -> None:
        """Route the client's HTTP into this fake and log in (runs ``setup_hook``); then,
        with ``catch_up``, wait for what the bot does in the background after a start
        (``TTRBot.caught_up``)."""

        async def request(route: Route, *, files: Sequence[discord.File] | None = None,
                          form: Sequence[Payload] | None = None, **kwargs: Any) -> Any:
            return self.rest(route, _body(kwargs.get("json"), form), _files(files),
                             kwargs.get("params") or {})

        fence.route_requests(client, request)
        self._client = client
        async_context.set(self.adapter)
        await client.login(token)
        caught_up = getattr(client, "caught_up", None)
        if catch_up and caught_up is not None:
            await caught_up()


    # -- what Discord refuses -----------------------------------------------------------

    def _refuse(self, route: Route, status: int, code: int, message: str,
                channel_id: int | None = None) -> NoReturn:
        self.refused.append(Refused(route.method, route.path, status, code, channel_id))
        error = {403: discord.Forbidden, 404: discord.NotFound}.get(status, discord.HTTPException)
        raise error(_Response(status, message), {"code": code, "message": message})

    def rate_limit(self, path: str | None = None, retry_after: float = 60.0, *,
                   is_global: bool = False) -> None:
        """The next request (to ``path``, a route template, or any) gets a 429."""
        self._forced.append((path, retry_after, is_global))

    def _admit(self, route: Route, major: str) -> None:
        """Rate limits. discord.py waits out a route's bucket before sending (its headers
        tell it), so a full bucket costs a wait, not a refusal; a 429 (the global limit, or
        one a test forces) is a refused request, then waited out and sent again. A wait
        longer than the client's ``max_ratelimit_timeout`` raises ``RateLimited`` instead,
        as discord.py does (never for the global limit)."""
        forced = next((f for f in self._forced if f[0] in (None, route.path)), None)
        if forced is not None:
            self._forced.remove(forced)
            self.refused.append(Refused(route.method, route.path, 429, 0))
            self._wait(forced[1], bounded=not forced[2])
        at = self._take((route.method, route.path, major), *self.limits.route_rate)
        if not major.startswith("interaction"):  # answers are outside the global limit
            count, window = self.limits.global_rate
            bucket = self._buckets.setdefault(("*", "*", "*"), [at, at + window, 0])
            if at < bucket[1] and bucket[2] >= count:
                self.refused.append(Refused(route.method, route.path, 429, 0))
                self._wait(bucket[1] - at, bounded=False)
            self._take(("*", "*", "*"), count, window, at)

    def _take(self, key: tuple[str, str, str], count: int, window: float,
              at: float | None = None) -> float:
        """One request from a bucket at the transport's time; returns when it is sent."""
        now = max(self.clock.now(), at or 0.0)
        bucket = self._buckets.setdefault(key, [now, now + window, 0])
        now = max(now, bucket[0])
        if now >= bucket[1]:
            bucket[1:] = [now + window, 0]
        elif bucket[2] >= count:
            if key[0] != "*":
                self._wait(bucket[1] - now, bounded=True)
            now = bucket[1]
            bucket[1:] = [now + window, 0]
        bucket[0] = now
        bucket[2] += 1
        return now

    def _wait(self, seconds: float, *, bounded: bool) -> None:
        limit = self._client.http.max_ratelimit_timeout if self._client is not None else None
        if bounded and limit is not None and seconds > limit:
            raise discord.RateLimited(seconds)
        self.waits.append(seconds)

    def revoke(self, channel_id: int, permissions: int) -> None:
        """An admin takes ``permissions`` (and administrator) from the bot in a channel."""
        self.bot_permissions[channel_id] = (self.bot_permissions.get(
            channel_id, ALL_PERMISSIONS) & ~permissions & ~ADMINISTRATOR)

    def restore(self, channel_id: int) -> None:
        self.bot_permissions.pop(channel_id, None)

    def bot_can(self, channel_id: int) -> int:
        """The bot's permissions in a channel (a thread's are its parent's)."""
        parent = self.channels.get(channel_id, {}).get("parent_id")
        return self.bot_permissions.get(int(parent) if parent else channel_id, ALL_PERMISSIONS)

    def delete_channel(self, channel_id: int) -> None:
        """An admin deletes a channel (a click sent from it just before still arrives)."""
        self._gone[channel_id] = self.channels.pop(channel_id)

    def add_thread(self, name: str = "game", *, private: bool = False,
                   auto_archive_minutes: int = 1440) -> int:
        """A thread of the text channel (a game may be played in one)."""
        tid = self.next_id()
        self.channels[tid] = {
            "id": str(tid), "type": PRIVATE_THREAD if private else PUBLIC_THREAD,
            "guild_id": str(self.GUILD_ID), "parent_id": str(self.CHANNEL_ID),
            "owner_id": str(self.BOT_ID), "name": name, "last_message_id": None,
            "rate_limit_per_user": 0, "message_count": 0, "member_count": 1, "flags": 0,
            "thread_metadata": {"archived": False, "locked": False,
                                "auto_archive_duration": auto_archive_minutes,
                                "archive_timestamp": TIMESTAMP}}
        self._activity[tid] = self.clock.now()
        return tid

    def archive(self, channel_id: int, *, locked: bool = False) -> None:
        """A thread archived (as by inactivity), or locked by a moderator."""
        self.channels[channel_id]["thread_metadata"].update(archived=True, locked=locked)

    def thread_state(self, channel_id: int) -> Payload | None:
        """A thread's metadata, archived once it was idle for its auto-archive time."""
        meta = self.channels.get(channel_id, {}).get("thread_metadata")
        if meta is not None and not meta["archived"] and self.clock.now() - self._activity.get(
                channel_id, self.clock.now()) >= meta["auto_archive_duration"] * 60:
            meta["archived"] = True
        return meta

    def _guard(self, route: Route, channel_id: int, need: int = 0, *,
               posting: bool = False) -> None:
        """Refuse a request in a channel as Discord would: it is gone (10003), the bot cannot
        see it (50001) or lacks a permission (50013), or it is an archived thread (50083;
        a post unarchives an unlocked one)."""
        if channel_id in self._dm_channels:
            return
        if channel_id not in self.channels:
            self._refuse(route, 404, 10003, "Unknown Channel", channel_id)
        perms = self.bot_can(channel_id)
        if not perms & ADMINISTRATOR:
            if not perms & VIEW_CHANNEL:
                self._refuse(route, 403, 50001, "Missing Access", channel_id)
            if need & ~perms:
                self._refuse(route, 403, 50013, "Missing Permissions", channel_id)
        meta = self.thread_state(channel_id)
        if meta is not None and meta["archived"]:
            manage = bool(perms & (ADMINISTRATOR | MANAGE_THREADS))
            if not posting or (meta["locked"] and not manage):
                self._refuse(route, 400, 50083, "Thread is archived", channel_id)
            meta["archived"] = False
        if meta is not None and posting:
            self._activity[channel_id] = self.clock.now()

    def _size(self, route: Route, files: list[tuple[str, bytes]]) -> None:
        if sum(len(data) for _, data in files) > self.limits.attachments_max:
            self._refuse(route, 413, 40005, "Request entity too large")

    # -- REST ---------------------------------------------------------------------------

    def _check(self, route: Route, body: Any) -> None:
        """Refuse a body Discord's published schema refuses, as Discord would (400,
        50035 "Invalid Form Body"), and keep the violation for the test to fail on."""
        try:
            self.schemas.check(route.method, route.path, body)
        except SpecViolation as exc:
            VIOLATIONS.append(str(exc))
            raise discord.HTTPException(_Response(400, "Bad Request"), {
                "code": 50035, "message": f"Invalid Form Body: {exc}"}) from None

    def rest(self, route: Route, body: Any, files: list[tuple[str, bytes]],
             params: dict[str, Any] | None = None) -> Any:
        params = params or {}
        key = (route.method, route.path)
        self.requests.append(key)
        p = _params(route.path, route.url)
        self.request_log.append((self.clock.now(), int(p["channel_id"]) if "channel_id" in p
                                 else None))
        self._check(route, body)
        self._admit(route, p.get("channel_id", ""))
        if "channel_id" in p:
            cid = int(p["channel_id"])
            thread = cid in self.channels and self.channels[cid].get("parent_id") is not None
            send = SEND_MESSAGES_IN_THREADS if thread else SEND_MESSAGES
            need = {("POST", "/channels/{channel_id}/messages"): send | (
                        ATTACH_FILES if files else 0),
                    ("POST", "/channels/{channel_id}/threads"): CREATE_PRIVATE_THREADS if (
                        body.get("type") == PRIVATE_THREAD) else CREATE_PUBLIC_THREADS,
                    ("PATCH", "/channels/{channel_id}"): MANAGE_THREADS if body.get(
                        "locked") is False else 0}.get(key, 0)
            self._guard(route, cid, need, posting=key in (
                ("POST", "/channels/{channel_id}/messages"), ("PATCH", "/channels/{channel_id}")))
        match key:
            case ("GET", "/users/@me"):
                return self.bot_user
            case ("GET", "/oauth2/applications/@me"):
                return {"id": str(self.APP_ID), "name": "TtR", "description": "", "icon": None,
                        "bot_public": True, "bot_require_code_grant": False,
                        "owner": self.user(self.BOT_ID), "verify_key": "0", "flags": 0,
                        "summary": "", "team": None}
            case ("PUT", "/applications/{application_id}/commands") | (
                    "PUT", "/applications/{application_id}/guilds/{guild_id}/commands"):
                self.synced = [dict(c, id=str(self.COMMAND_ID + i), application_id=str(
                    self.APP_ID), version="1") for i, c in enumerate(body)]
                return self.synced
            case ("POST", "/users/@me/channels"):
                uid = int(body["recipient_id"])
                dm = next((c for c, u in self._dm_channels.items() if u == uid), None)
                if dm is None:
                    dm = self.next_id()
                    self._dm_channels[dm] = uid
                return {"id": str(dm), "type": 1, "recipients": [self.user(uid)],
                        "last_message_id": None}
            case ("POST", "/channels/{channel_id}/messages"):
                cid = int(p["channel_id"])
                if cid in self._dm_channels:
                    uid = self._dm_channels[cid]
                    if uid in self.refuse_dms:
                        self._refuse(route, 403, 50007, "Cannot send messages to this user")
                    self._size(route, files)
                    return self._store("dm", cid, body, files, user_id=uid).message
                self._size(route, files)
                crash, self.crash_on_post = self.crash_on_post, None
                if crash == "before":
                    raise OSError("the connection was lost before the post arrived")
                private = self.channels[cid].get("type") == PRIVATE_THREAD
                sent = self._store("thread" if private else "channel", cid, body, files)
                if crash == "after":  # Discord has it, the bot never hears back
                    raise OSError("the connection was lost after the post arrived")
                return sent.message
            case ("GET", "/channels/{channel_id}/messages"):
                cid = int(p["channel_id"])  # the channel's newest messages first
                if not self.bot_can(cid) & (READ_MESSAGE_HISTORY | ADMINISTRATOR):
                    return []  # (Discord shows no history then, without an error)
                shown = (self._messages[m] for m in reversed(self._channel_ids.get(cid, []))
                         if m not in self.deleted)
                return [m.message for m in itertools.islice(
                    (m for m in shown if not m.ephemeral), int(params.get("limit", 50)))]
            case ("DELETE", "/channels/{channel_id}/messages/{message_id}"):
                mid = int(p["message_id"])
                if mid not in self._messages or mid in self.deleted:
                    self._refuse(route, 404, 10008, "Unknown Message")
                self.deleted.add(mid)
                return None
            case ("PATCH", "/channels/{channel_id}/messages/{message_id}"):
                mid = int(p["message_id"])
                if mid not in self._messages or mid in self.deleted:
                    self._refuse(route, 404, 10008, "Unknown Message")
                self._size(route, files)
                return self._edit(mid, body, files, route=route).message
            case ("PATCH", "/channels/{channel_id}"):  # (unarchived above, if it was)
                meta = self.channels[int(p["channel_id"])].get("thread_metadata") or {}
                meta.update({k: body[k] for k in ("archived", "locked") if k in body})
                return self.channels[int(p["channel_id"])]
            case ("GET", "/channels/{channel_id}"):
                cid = int(p["channel_id"])
                denied = ALL_PERMISSIONS & ~self.bot_permissions.get(cid, ALL_PERMISSIONS)
                return dict(self.channels[cid], permission_overwrites=[
                    {"id": str(self.BOT_ID), "type": 1, "allow": "0", "deny": str(denied)}]
                    if denied else [])
            case ("DELETE", "/channels/{channel_id}"):
                return self._gone.setdefault(cid, self.channels.pop(int(p["channel_id"])))
            case ("GET", "/users/@me/guilds"):
                return [{"id": str(self.GUILD_ID), "name": "Trains", "icon": None,
                         "owner": False, "permissions": str(ALL_PERMISSIONS), "features": []}]
            case ("GET", "/guilds/{guild_id}"):  # the bot's role: all but administrator
                return {"id": str(self.GUILD_ID), "name": "Trains", "owner_id": "1",
                        "roles": [{"id": str(self.GUILD_ID), "name": "@everyone",
                                   "permissions": str(ALL_PERMISSIONS & ~ADMINISTRATOR)}]}
            case ("GET", "/guilds/{guild_id}/members/{member_id}"):
                return {"user": self.user(int(p["member_id"])), "roles": [],
                        "joined_at": TIMESTAMP, "deaf": False, "mute": False, "flags": 0}
            case ("POST", "/channels/{channel_id}/threads"):
                tid = self.next_id()
                self.channels[tid] = {
                    "id": str(tid), "type": body.get("type", 11), "guild_id": str(self.GUILD_ID),
                    "parent_id": p["channel_id"], "owner_id": str(self.BOT_ID),
                    "name": body.get("name", "thread"), "last_message_id": None,
                    "rate_limit_per_user": 0, "message_count": 0, "member_count": 1, "flags": 0,
                    "thread_metadata": {"archived": False, "locked": False,
                                        "auto_archive_duration": body.get(
                                            "auto_archive_duration", 1440),
                                        "archive_timestamp": TIMESTAMP}}
                self._activity[tid] = self.clock.now()
                return self.channels[tid]
            case ("PUT", "/channels/{channel_id}/thread-members/{user_id}"):
                self.thread_members.setdefault(int(p["channel_id"]), set()).add(
                    int(p["user_id"]))
                return None
            case ("GET", "/users/{user_id}"):
                return self.user(int(p["user_id"]))
        self.unexpected.append(key)
        raise discord.NotFound(_Response(404, "Not Found"),
                               {"code": 0, "message": f"the fake has no {key}"})

    def _message(self, channel_id: int, body: Payload, files: list[tuple[str, bytes]],
                 flags: int = 0, mid: int | None = None) -> Payload:
        mid = mid or self.next_id()
        return {
            "id": str(mid), "channel_id": str(channel_id), "author": self.bot_user,
            "content": body.get("content") or "",
            "timestamp": discord.utils.snowflake_time(mid).isoformat(),
            "edited_timestamp": None, "tts": False, "mention_everyone": False, "mentions": [],
            "mention_roles": [], "embeds": body.get("embeds") or [], "pinned": False, "type": 0,
            "flags": int(body.get("flags") or 0) | flags,
            "components": body.get("components") or [],
            "attachments": [{"id": str(self.next_id()), "filename": name, "size": len(data),
                             "url": f"https://cdn.invalid/{name}",
                             "proxy_url": f"https://cdn.invalid/{name}"}
                            for name, data in files],
        }

    def _store(self, kind: str, channel_id: int, body: Payload, files: list[tuple[str, bytes]],
               *, user_id: int | None = None, interaction_id: int | None = None) -> Sent:
        message = self._message(channel_id, body, files)
        ephemeral = bool(message["flags"] & EPHEMERAL)
        sent = Sent(kind, channel_id, message, files, ephemeral, user_id, interaction_id,
                    allowed_mentions=body.get("allowed_mentions"), uploaded=files)
        self._record(sent)
        self._messages[sent.id] = sent
        self._born[sent.id] = self.clock.now()
        self._channel_ids.setdefault(channel_id, []).append(sent.id)
        return sent

    def _edit(self, message_id: int, body: Payload, files: list[tuple[str, bytes]],
              interaction_id: int | None = None, *, route: Route) -> Sent:
        old = self._messages[message_id]
        cap = self.limits.edit_cap
        if cap is not None and not old.ephemeral and self.clock.now() - self._born.get(
                message_id, 0.0) > HOUR:
            if self._old_edits.get(message_id, 0) >= cap:
                self._refuse(route, 400, 30046, "Maximum number of edits to messages older "
                             "than 1 hour reached. Try again later", old.channel_id)
            self._old_edits[message_id] = self._old_edits.get(message_id, 0) + 1
        message = dict(old.message)
        for key in ("content", "components", "embeds"):
            if key in body:
                message[key] = body[key] or ([] if key != "content" else "")
        kept = files or (old.files if "attachments" not in body else [])
        message["attachments"] = self._message(old.channel_id, {}, kept)["attachments"]
        sent = Sent(old.kind, old.channel_id, message, kept, old.ephemeral, old.user_id,
                    interaction_id, edit=True, allowed_mentions=body.get("allowed_mentions"),
                    uploaded=files)
        self._messages[message_id] = sent
        self._record(sent)
        return sent

    def _record(self, sent: Sent) -> None:
        self.sent.append(sent)
        if sent.interaction_id is not None:  # an interaction's replies, without a scan
            self._replies.setdefault(sent.interaction_id, []).append(sent)

    def is_dm(self, channel_id: int | None) -> bool:
        return channel_id in self._dm_channels

    def message(self, message_id: int) -> Sent:
        """The current version of a message (after edits)."""
        return self._messages[message_id]

    # -- webhooks: answers to interactions ------------------------------------------------

    def webhook(self, route: Route, body: Payload, files: list[tuple[str, bytes]]) -> Any:
        key = (route.method, route.path)
        self.requests.append(key)
        p = _params(route.path, route.url)
        token = p.get("webhook_token", "")
        self.request_log.append((self.clock.now(), self._tokens[token][2]
                                 if token in self._tokens else None))
        self._check(route, body)
        if token not in self._tokens:
            self._refuse(route, 404, 10015, "Unknown Webhook")
        self._admit(route, f"interaction:{token}")
        self._size(route, files)
        iid, uid, cid, source = self._tokens[token]
        age = self.clock.now() - self._token_born[token]
        callback = key == ("POST", "/interactions/{webhook_id}/{webhook_token}/callback")
        if callback and age > self.limits.answer_within:
            self._refuse(route, 404, 10062, "Unknown interaction")
        if age > self.limits.token_life:
            self._refuse(route, 401, 50027, "Invalid Webhook Token")
        if not callback and not self._callbacks.get(iid):  # never acknowledged: no webhook
            self._refuse(route, 404, 10015, "Unknown Webhook")
        if callback:
            kind = int(body["type"])
            if self._callbacks.get(iid):
                raise discord.HTTPException(_Response(400, "Bad Request"), {
                    "code": 40060, "message": "Interaction has already been acknowledged."})
            data = body.get("data") or {}
            result: Payload = {"interaction": {"id": str(iid), "type": 2}}
            if kind == 8:
                self._choices[iid] = list(data.get("choices", []))
            elif kind in (4, 5):
                sent = self._store("response", cid, data, files, user_id=uid, interaction_id=iid)
                self._tokens[token] = (iid, uid, cid, sent.id)
                result["interaction"].update(
                    response_message_id=str(sent.id), response_message_loading=kind == 5,
                    response_message_ephemeral=sent.ephemeral)
                result["resource"] = {"type": kind, "message": sent.message}
            elif kind == 7 and source is not None:
                sent = self._edit(source, data, files, interaction_id=iid, route=route)
                result["resource"] = {"type": kind, "message": sent.message}
            self._callbacks.setdefault(iid, []).append(kind)  # (a refused one acknowledges not)
            return result
        if key == ("POST", "/webhooks/{webhook_id}/{webhook_token}"):
            return self._store("followup", cid, body, files, user_id=uid,
                               interaction_id=iid).message
        if route.path.startswith("/webhooks/{webhook_id}/{webhook_token}/messages/"):
            original = route.path.endswith("/@original")
            target = source if original else int(p["message_id"])
            if target is None:
                self._refuse(route, 404, 10008, "Unknown Message")
            if route.method == "PATCH":
                return self._edit(target, body, files, interaction_id=iid, route=route).message
            return self._messages[target].message
        self.unexpected.append(key)
        raise discord.NotFound(_Response(404, "Not Found"), {"code": 0, "message": "no route"})

    # -- feeding interactions ----------------------------------------------------------------

    def _payload(self, type_: int, user_id: int, data: Payload, *, channel_id: int | None = None,
                 message: Sent | None = None) -> Payload:
        iid = self.next_id()
        token = f"token-{iid}"
        cid = message.channel_id if message is not None else (channel_id or self.CHANNEL_ID)
        self._tokens[token] = (iid, user_id, cid, None if message is None else message.id)
        self._token_born[token] = self.clock.now()
        payload: Payload = {
            "id": str(iid), "application_id": str(self.APP_ID), "type": type_, "token": token,
            "version": 1, "data": data, "locale": self.locales.get(user_id, "en-US"),
            "entitlements": [],
            "attachment_size_limit": 26_214_400,
            "channel_id": str(cid),
            "app_permissions": str(ALL_PERMISSIONS if cid in self._dm_channels
                                   else self.bot_can(cid)),
        }
        if cid in self._dm_channels:
            payload["channel"] = {"id": str(cid), "type": 1, "recipients": [self.user(user_id)]}
            payload["user"] = self.user(user_id)
            payload["context"] = 1
        else:
            payload["guild_id"] = str(self.GUILD_ID)
            payload["guild_locale"] = "en-US"
            payload["channel"] = self.channels.get(cid) or self._gone[cid]
            payload["context"] = 0
            payload["member"] = {"user": self.user(user_id), "roles": [], "joined_at": TIMESTAMP,
                                 "deaf": False, "mute": False, "flags": 0, "nick": None,
                                 "permissions": str(self.permissions.get(user_id, ALL_PERMISSIONS))}
        if message is not None:
            payload["message"] = message.message
        return payload

    async def feed(self, client: discord.Client, payload: Payload) -> Exchange:
        """Dispatch one raw interaction and wait until everything it started is done.

        Only this dispatch's own tasks and their descendants are waited for (they are
        tagged when created), so feeds running at once (a test's ``asyncio.gather``, the
        benchmark's concurrent games) each return when their own work is done."""
        async_context.set(self.adapter)
        _tag_tasks(asyncio.get_running_loop())
        iid = int(payload["id"])
        start = len(self.sent)
        token = _FEED.set(iid)
        try:
            fence.dispatch_interaction(client, payload)
        finally:
            _FEED.reset(token)
        await self.settle(iid)
        sent = [s for s in self.sent[start:] if s.feed in (iid, None)]
        replies = list(self._replies.get(iid, []))
        return Exchange(iid, replies, sent, self._callbacks.get(iid, []), self._choices.get(iid))

    async def settle(self, feed: int) -> None:
        """Wait until every task that dispatching interaction ``feed`` started is done."""
        while True:
            pending = [t for t, f in list(_ORIGIN.items()) if f == feed and not t.done()]
            if not pending:
                return
            await asyncio.wait(pending, timeout=10)

    @staticmethod
    def _options(values: dict[str, Any], focused: str | None = None) -> list[Payload]:
        out = []
        for name, value in values.items():
            if value is None:
                continue
            if isinstance(value, Mention):
                out.append({"name": name, "type": 6, "value": str(value.user_id)})
                continue
            kind = 5 if isinstance(value, bool) else 4 if isinstance(value, int) else 3
            option: Payload = {"name": name, "type": kind, "value": value}
            if name == focused:
                option.update(type=3, value=str(value), focused=True)
            out.append(option)
        return out

    def command_data(self, sub: str, options: dict[str, Any], focused: str | None = None,
                     group: str = "ttr") -> Payload:
        # "seat autopilot": a subcommand in a subcommand group (type 2), as Discord nests it
        *groups, name = sub.split()
        chosen: Payload = {"type": 1, "name": name, "options": self._options(options, focused)}
        for inner in reversed(groups):
            chosen = {"type": 2, "name": inner, "options": [chosen]}
        data: Payload = {"id": str(self.COMMAND_ID), "name": group, "type": 1,
                         "options": [chosen]}
        mentioned = [v.user_id for v in options.values() if isinstance(v, Mention)]
        if mentioned:
            data["resolved"] = {
                "users": {str(u): self.user(u) for u in mentioned},
                "members": {str(u): {"roles": [], "joined_at": TIMESTAMP, "deaf": False,
                                     "mute": False, "flags": 0, "nick": None,
                                     "permissions": "0"} for u in mentioned}}
        return data

    async def slash(self, client: discord.Client, user_id: int, sub: str, *,
                    channel_id: int | None = None, group: str = "ttr",
                    **options: Any) -> Exchange:
        data = self.command_data(sub, options, group=group)
        return await self.feed(client, self._payload(2, user_id, data, channel_id=channel_id))

    async def autocomplete(self, client: discord.Client, user_id: int, sub: str, focused: str,
                           *, channel_id: int | None = None, **options: Any) -> list[Payload]:
        data = self.command_data(sub, options, focused)
        ex = await self.feed(client, self._payload(4, user_id, data, channel_id=channel_id))
        return ex.choices or []

    async def click(self, client: discord.Client, user_id: int, message: Sent, *,
                    custom_id: str | None = None, label: str | None = None,
                    prefix: str | None = None) -> Exchange:
        message = self.message(message.id)  # the latest version, as Discord would send it
        control = message.control(custom_id=custom_id, label=label, prefix=prefix)
        data = {"custom_id": control["custom_id"], "component_type": control["type"]}
        return await self.feed(client, self._payload(3, user_id, data, message=message))

    async def choose(self, client: discord.Client, user_id: int, message: Sent,
                     values: list[str], *, prefix: str = "") -> Exchange:
        message = self.message(message.id)
        control = next(c for c in message.controls()
                       if c["type"] == 3 and c["custom_id"].startswith(prefix))
        data = {"custom_id": control["custom_id"], "component_type": 3, "values": values}
        return await self.feed(client, self._payload(3, user_id, data, message=message))

    def component_payload(self, user_id: int, message: Sent, custom_id: str,
                          component_type: int = 2, values: list[str] | None = None) -> Payload:
        """A raw click on ``message`` naming any custom_id (for malformed-input tests)."""
        data: Payload = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = values
        return self._payload(3, user_id, data, message=message)

    def plant(self, channel_id: int, components: list[Payload]) -> Sent:
        """A bot message carrying arbitrary components (an old or forged message)."""
        rows = [{"type": 1, "components": [c]} for c in components]
        return self._store("channel", channel_id, {"content": "", "components": rows}, [])

    def interaction_payload(self, type_: int, user_id: int, data: Payload) -> Payload:
        return self._payload(type_, user_id, data)

    # -- looking at what was sent -----------------------------------------------------------

    def channel_messages(self, channel_id: int | None = None) -> list[Sent]:
        return [s for s in self.sent if s.public
                and (channel_id is None or s.channel_id == channel_id)]

    def channel_now(self, channel_id: int | None = None) -> list[Sent]:
        """The public messages a channel shows now: latest versions, deleted ones gone."""
        return [self.message(s.id) for s in self.sent if s.public and not s.edit
                and s.id not in self.deleted
                and (channel_id is None or s.channel_id == channel_id)]

    def dms(self, user_id: int) -> list[Sent]:
        return [s for s in self.sent if s.kind == "dm" and not s.edit and s.user_id == user_id]

    def last_board(self, channel_id: int | None = None) -> Sent:
        """The newest public message carrying game controls (a board: "My hand" is on
        every one, not on a notice such as a kick vote)."""
        for s in reversed(self.sent):
            if s.public and not s.edit and any(c.endswith(":hand") for c in s.custom_ids()) and (
                    channel_id is None or s.channel_id == channel_id):
                return self.message(s.id)
        raise LookupError("no board message yet")


class FakeClock:
    """A clock that moves only when a test says so (``advance``): no test ever sleeps."""

    START = 1_777_885_200.0  # Monday 4 May 2026, 09:00 UTC

    def __init__(self, start: float = START):
        self._now = start
        self._waiters: set[asyncio.Event] = set()

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds
        for wake in self._waiters:  # a waiter looks at the time again
            wake.set()

    async def wait(self, wake: asyncio.Event, until: float | None) -> None:
        if until is not None and self._now >= until:
            return
        self._waiters.add(wake)
        try:
            await wake.wait()
        finally:
            self._waiters.discard(wake)
