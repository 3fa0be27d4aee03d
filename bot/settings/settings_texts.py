"""Texts of ``/ttr settings`` and ``/ttr-admin config``."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from bot import i18n
from bot.i18n import N_, Language, _
from bot.play.presenters import (
    LANGUAGE_NAMES,
)
from bot.settings.preferences import Invalid


def player_settings_text(quiet_hours: tuple[int, int] | None, timezone: str, reminders: bool,
                         dm_every_turn: bool, language: Language | None, *,
                         changed: bool) -> str:
    def on(value: bool) -> str:
        return _("on") if value else _("off")

    quiet = (_("none") if quiet_hours is None
             else f"{quiet_hours[0]:02d}:00–{quiet_hours[1]:02d}:00 ({timezone})")
    spoken = _(LANGUAGE_NAMES[language]) if language else _("my Discord's language")
    head = _("Saved. Your settings:") if changed \
        else _("Your settings (change them with the options):")
    return "\n".join([
        head, _("• Reminders: {on}", on=on(reminders)),
        _("• A DM every time it is your turn: {on}", on=on(dm_every_turn)),
        _("• Time zone: {zone}", zone=timezone),
        _("• Quiet hours (no reminders): {hours}", hours=quiet),
        _("• Language of answers and DMs: {language}", language=spoken)])


def server_settings_text(values: Sequence[tuple[str, str, object]], *, changed: str | None
                         ) -> str:
    """``values``: (name, what it means, value) per setting ``/ttr-admin config`` offers."""
    head = (_("Saved `{name}`. This server's settings:", name=changed) if changed
            else _("This server's settings (`/ttr-admin config setting value` changes one):"))
    lines = [f"• `{name}` = **{_setting_value(name, value)}** — {meaning}"
             for name, meaning, value in values]
    return "\n".join([head, *lines])


def _setting_value(name: str, value: object) -> str:
    """A setting's value as it is typed in ``/ttr-admin config`` ('true', 'all', 'off')."""
    if value is None:
        return "all" if name == "maps_offered" else "off"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if name == "chronicle_channel":
        return f"<#{value}>"
    return str(value)


CONFIG_REFUSED = N_("Only members with the Manage Server permission can change the server's "
                    "settings.")


# What pydantic found wrong with a setting's value, by its error type (fields: its context).
SETTING_PROBLEMS = {
    "literal_error": N_("use {expected}"),
    "bool_parsing": N_("use 'true' or 'false'"),
    "int_parsing": N_("give a whole number"),
    "int_from_float": N_("give a whole number"),
    "float_parsing": N_("give a number"),
    "greater_than": N_("give more than {gt}"),
    "greater_than_equal": N_("give at least {ge}"),
    "less_than": N_("give less than {lt}"),
    "less_than_equal": N_("give at most {le}"),
}


def setting_problem(exc: ValidationError) -> str:
    """The first thing pydantic found wrong with a setting, in words a member can read (in
    their language; pydantic's own message only for a case not foreseen here)."""
    errors = exc.errors()
    if not errors:
        return str(exc)
    error = errors[0]
    context = dict(error.get("ctx") or {})
    cause = context.get("error")
    if isinstance(cause, Invalid):
        return i18n.text(cause.text)
    template = SETTING_PROBLEMS.get(error["type"])
    if template is None:
        return str(error["msg"])
    if "expected" in context:  # pydantic's "'en' or 'de'"
        context["expected"] = str(context["expected"]).replace(" or ", _(" or "))
    return _(template, **context)


def setting_off_hint(problem: str) -> str:
    """A refused value of a setting that can be switched off says how."""
    return _("{problem}; 'off' turns it off", problem=problem)


def invalid_setting(name: str, problem: str) -> str:
    return _("That is not a valid value for `{name}`: {problem}.", name=name[:40],
             problem=problem[:200])
