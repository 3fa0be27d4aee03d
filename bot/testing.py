"""A fake Discord for tests and benchmarks: no network, discord.py's real dispatch.

``FakeDiscord`` stands in for both HTTP paths discord.py uses: the bot's REST
client (``HTTPClient.request``: channel messages, DMs, threads, command sync)
and the webhook adapter that answers interactions (callbacks, followups,
edits). It answers with payloads shaped like Discord's, records every
message, and can refuse DMs with error 50007. Interactions are built as raw
gateway payloads (application commands with nested subcommand options,
components, autocomplete) and fed to ``client._connection.parse_interaction_create``,
so the real ``CommandTree``, ``DynamicItem`` dispatch and views run.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import re
import time
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

Payload = dict[str, Any]

# The interaction whose dispatch created a task (inherited by the tasks it creates).
_FEED: contextvars.ContextVar[int | None] = contextvars.ContextVar("fake_feed", default=None)
_ORIGIN: weakref.WeakKeyDictionary[asyncio.Task[Any], int] = weakref.WeakKeyDictionary()


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
PRIVATE_THREAD = 12  # channel type: only its members (and moderators) see it
TIMESTAMP = "2024-05-01T12:00:00.000000+00:00"
ALL_PERMISSIONS = 2251799813685247


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
    pattern = re.escape(Route.BASE + template).replace(r"\{", "{").replace(r"\}", "}")
    pattern = re.sub(r"{(\w+)}", r"(?P<\1>[^/?]+)", pattern)
    m = re.fullmatch(pattern, url)
    return dict(m.groupdict()) if m else {}


ALL_PERMISSIONS = 2251799813685247


class FakeDiscord:
    """One guild with one text channel, users you add, and a bot user."""

    APP_ID = 1_100_000_000_000_000_001
    BOT_ID = 1_100_000_000_000_000_002
    GUILD_ID = 1_100_000_000_000_000_003
    CHANNEL_ID = 1_100_000_000_000_000_004
    COMMAND_ID = 1_100_000_000_000_000_005

    def __init__(self) -> None:
        self._ids = itertools.count(1_200_000_000_000_000_000)
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

    def next_id(self) -> int:
        return next(self._ids)

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

        client.http.request = request  # type: ignore[method-assign,assignment]
        async_context.set(self.adapter)
        await client.login(token)
        caught_up = getattr(client, "caught_up", None)
        if catch_up and caught_up is not None:
            await caught_up()

    # -- REST ---------------------------------------------------------------------------

    def rest(self, route: Route, body: Any, files: list[tuple[str, bytes]],
             params: dict[str, Any] | None = None) -> Any:
        params = params or {}
        key = (route.method, route.path)
        self.requests.append(key)
        p = _params(route.path, route.url)
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
                cid = next((c for c, u in self._dm_channels.items() if u == uid), None)
                if cid is None:
                    cid = self.next_id()
                    self._dm_channels[cid] = uid
                return {"id": str(cid), "type": 1, "recipients": [self.user(uid)],
                        "last_message_id": None}
            case ("POST", "/channels/{channel_id}/messages"):
                cid = int(p["channel_id"])
                if cid in self._dm_channels:
                    uid = self._dm_channels[cid]
                    if uid in self.refuse_dms:
                        raise discord.Forbidden(_Response(403, "Forbidden"), {
                            "code": 50007, "message": "Cannot send messages to this user"})
                    return self._store("dm", cid, body, files, user_id=uid).message
                if cid not in self.channels:
                    raise discord.NotFound(_Response(404, "Not Found"),
                                           {"code": 10003, "message": "Unknown Channel"})
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
                shown = (self._messages[m] for m in reversed(self._channel_ids.get(cid, []))
                         if m not in self.deleted)
                return [m.message for m in itertools.islice(
                    (m for m in shown if not m.ephemeral), int(params.get("limit", 50)))]
            case ("DELETE", "/channels/{channel_id}/messages/{message_id}"):
                mid = int(p["message_id"])
                if mid not in self._messages or mid in self.deleted:
                    raise discord.NotFound(_Response(404, "Not Found"),
                                           {"code": 10008, "message": "Unknown Message"})
                self.deleted.add(mid)
                return None
            case ("PATCH", "/channels/{channel_id}/messages/{message_id}"):
                return self._edit(int(p["message_id"]), body, files).message
            case ("POST", "/channels/{channel_id}/threads"):
                tid = self.next_id()
                self.channels[tid] = {
                    "id": str(tid), "type": body.get("type", 11), "guild_id": str(self.GUILD_ID),
                    "parent_id": p["channel_id"], "owner_id": str(self.BOT_ID),
                    "name": body.get("name", "thread"), "last_message_id": None,
                    "rate_limit_per_user": 0, "message_count": 0, "member_count": 1, "flags": 0,
                    "thread_metadata": {"archived": False, "locked": False,
                                        "auto_archive_duration": 1440,
                                        "archive_timestamp": TIMESTAMP}}
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
            "content": body.get("content") or "", "timestamp": TIMESTAMP,
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
        self._channel_ids.setdefault(channel_id, []).append(sent.id)
        return sent

    def _edit(self, message_id: int, body: Payload, files: list[tuple[str, bytes]],
              interaction_id: int | None = None) -> Sent:
        old = self._messages[message_id]
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

    def message(self, message_id: int) -> Sent:
        """The current version of a message (after edits)."""
        return self._messages[message_id]

    # -- webhooks: answers to interactions ------------------------------------------------

    def webhook(self, route: Route, body: Payload, files: list[tuple[str, bytes]]) -> Any:
        key = (route.method, route.path)
        self.requests.append(key)
        p = _params(route.path, route.url)
        token = p.get("webhook_token", "")
        if token not in self._tokens:
            raise discord.NotFound(_Response(404, "Not Found"),
                                   {"code": 10015, "message": "Unknown Webhook"})
        iid, uid, cid, source = self._tokens[token]
        if key == ("POST", "/interactions/{webhook_id}/{webhook_token}/callback"):
            kind = int(body["type"])
            if self._callbacks.get(iid):
                raise discord.HTTPException(_Response(400, "Bad Request"), {
                    "code": 40060, "message": "Interaction has already been acknowledged."})
            self._callbacks.setdefault(iid, []).append(kind)
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
                sent = self._edit(source, data, files, interaction_id=iid)
                result["resource"] = {"type": kind, "message": sent.message}
            return result
        if key == ("POST", "/webhooks/{webhook_id}/{webhook_token}"):
            return self._store("followup", cid, body, files, user_id=uid,
                               interaction_id=iid).message
        if route.path.startswith("/webhooks/{webhook_id}/{webhook_token}/messages/"):
            original = route.path.endswith("/@original")
            target = source if original else int(p["message_id"])
            if target is None:
                raise discord.NotFound(_Response(404, "Not Found"),
                                       {"code": 10008, "message": "Unknown Message"})
            if route.method == "PATCH":
                return self._edit(target, body, files, interaction_id=iid).message
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
        payload: Payload = {
            "id": str(iid), "application_id": str(self.APP_ID), "type": type_, "token": token,
            "version": 1, "data": data, "locale": self.locales.get(user_id, "en-US"),
            "entitlements": [],
            "attachment_size_limit": 26_214_400, "app_permissions": "2251799813685247",
            "channel_id": str(cid),
        }
        if cid in self._dm_channels:
            payload["channel"] = {"id": str(cid), "type": 1, "recipients": [self.user(user_id)]}
            payload["user"] = self.user(user_id)
            payload["context"] = 1
        else:
            payload["guild_id"] = str(self.GUILD_ID)
            payload["guild_locale"] = "en-US"
            payload["channel"] = self.channels[cid]
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
            client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
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
        data: Payload = {"id": str(self.COMMAND_ID), "name": group, "type": 1,
                         "options": [{"type": 1, "name": sub,
                                      "options": self._options(options, focused)}]}
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
