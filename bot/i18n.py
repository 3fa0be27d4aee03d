"""Player-facing text in English and German: one gettext message catalog (Babel).

The English text in the code is the message id; ``bot/locale/de/LC_MESSAGES/messages.po``
holds the German. The ``.po`` source is compiled in memory on first use (Babel's
``read_po``/``write_mo``), so nothing is built at install time or downloaded at run time.

Which language a text is in follows the code that builds it: ``language(lang)`` sets it
for a block (a context variable, so concurrent tasks do not mix), ``_`` and ``_n`` read
it. Channel posts are built in the game's language; private answers and DMs in the
player's (see ``player_language``). ``python -m bot.catalog`` brings the catalog up to date
with the code (new message ids in, unused ones out).

Messages use ``str.format`` fields: ``_("You drew {card}.", card=...)``; the German
text keeps the same fields (a test checks).
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import io
from collections.abc import Iterator
from contextvars import ContextVar
from importlib import resources
from typing import Literal, get_args

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from engine.errors import Listing, Plural, Text

Language = Literal["en", "de"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
DEFAULT: Language = "en"
DOMAIN = "messages"
# Contexts of the command tree's names (command, option and group names must be lowercase
# words without spaces, so they are translated apart from the same word in a sentence).
NAME_CONTEXT = "command name"

_current: ContextVar[Language] = ContextVar("ttr_language", default=DEFAULT)


def po_path(lang: Language) -> resources.abc.Traversable:
    return resources.files("bot") / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: Language) -> Catalog:
    with po_path(lang).open("rb") as source:
        return read_po(source, locale=lang, domain=DOMAIN)


@functools.cache
def translations(lang: Language) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (English: the message ids themselves). Fuzzy or
    empty entries fall back to English, as gettext does."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    compiled = io.BytesIO()
    write_mo(compiled, read_catalog(lang))
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def current() -> Language:
    return _current.get()


@contextlib.contextmanager
def language(lang: Language | None) -> Iterator[Language]:
    """Build the texts of this block in ``lang`` (None: keep the current language)."""
    token = _current.set(lang or _current.get())
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def _(message: str, /, **fields: object) -> str:
    """``message`` in the current language, its ``{fields}`` filled in."""
    text = translations(_current.get()).gettext(message)
    return text.format(**fields) if fields else text


def _n(singular: str, plural: str, n: int, /, **fields: object) -> str:
    """The singular or plural form for ``n`` (also a field, ``{n}``) in the current language."""
    text = translations(_current.get()).ngettext(singular, plural, n)
    return text.format(n=n, **fields)


def N_(message: str, /) -> str:
    """Mark ``message`` for the catalog where it is defined; ``_`` translates it where it
    is shown (tables of texts, engine refusals)."""
    return message


def translate(message: str, fields: dict[str, object], lang: Language | None = None) -> str:
    """A message whose fields were given elsewhere; ``lang`` None: the current language."""
    with language(lang):
        return _(message, **fields)


def text(sentence: Text) -> str:
    """An engine ``Text`` (an ``IllegalAction``'s reason, a card name) in the current
    language, its clauses translated one by one."""
    if isinstance(sentence, Listing):
        return ", ".join(map(text, sentence.items))
    fields = {k: text(v) if isinstance(v, Text) else v for k, v in sentence.fields.items()}
    if isinstance(sentence, Plural):
        del fields["n"]
        return _n(sentence.template, sentence.plural, sentence.n, **fields)
    return _(sentence.template, **fields)


def name(text: str, lang: Language) -> str | None:
    """A command tree name (``/ttr new``, option ``map``) in ``lang``; None if untranslated."""
    if lang == DEFAULT:
        return None
    found = translations(lang).pgettext(NAME_CONTEXT, text)
    return found if found != text else None


def of_locale(locale: object) -> Language | None:
    """The language of a Discord locale ('de' -> 'de', 'en-US' -> 'en'); None for others."""
    code = str(getattr(locale, "value", locale) or "").split("-")[0].lower()
    return code if code in LANGUAGES else None


def player_language(chosen: Language | None, locale: object = None,
                    fallback: Language | None = None) -> Language:
    """The language of a player's private messages: their own choice (``/ttr settings``),
    else their Discord client's (known while they interact), else the game's or server's."""
    return chosen or of_locale(locale) or fallback or DEFAULT
