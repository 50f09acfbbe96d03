"""What an element's kind costs a candidate when the description asked for another kind: a
parser may report a button as a link or a tab, a menu's items as text; a role word may be the
person's name for plain text ('the "Share" button' on a page that styles text as buttons)."""

from __future__ import annotations

from dataclasses import replace

from ..parsing.elements import ElementKind
from .description import TargetQuery
from .scored import Scored

K = ElementKind
INTERACTIVE = frozenset({K.BUTTON, K.TEXT_FIELD, K.CHECKBOX, K.RADIO, K.COMBO, K.TAB, K.LINK,
                         K.ICON, K.CLOSE, K.MENU, K.MENU_ITEM})
# A kind the description did not ask for but that a parser may have reported instead.
NEAR_KINDS = {
    K.BUTTON: {K.CLOSE, K.TAB, K.ICON, K.LINK, K.MENU_ITEM},
    K.LINK: {K.TEXT, K.BUTTON},
    K.TAB: {K.BUTTON, K.TEXT},
    K.CLOSE: {K.BUTTON, K.ICON},
    K.ICON: {K.BUTTON, K.CLOSE},
    K.COMBO: {K.TEXT_FIELD, K.BUTTON},
    K.TEXT_FIELD: {K.COMBO},
    K.TEXT: {K.LINK, K.MENU_ITEM, K.MENU},
    K.MENU: {K.MENU_ITEM, K.BUTTON},
    K.MENU_ITEM: {K.MENU, K.BUTTON},
}
NEAR_KIND_FACTOR = 0.8          # an element of a kind next to the one asked for
WRONG_KIND_FACTOR = 0.55        # of another kind


def kind_factor(query: TargetQuery, kind: ElementKind) -> float:
    """What an element of ``kind`` keeps of its score for the kinds the query asks for."""
    if not query.kinds:
        return 1.0 if kind in INTERACTIVE else 0.98
    if kind in query.kinds:
        return 1.0
    if any(kind in NEAR_KINDS.get(k, ()) for k in query.kinds):
        return NEAR_KIND_FACTOR
    return WRONG_KIND_FACTOR


def without_kind_penalty(query: TargetQuery, scored: list[Scored]) -> list[Scored]:
    """'the "Share" button' where nothing of a button's kind reads "Share" but a text does (web
    pages style plain text as buttons, menus pop up as lists of lines): the role word is the
    person's name for that text, so it costs what a near kind does, not a wrong kind's price."""
    if not query.kinds or not query.text or not query.quoted:
        return scored
    if any(kind_factor(query, s.element.kind) >= NEAR_KIND_FACTOR for s in scored):
        return scored
    lift = NEAR_KIND_FACTOR / WRONG_KIND_FACTOR
    return [replace(s, score=s.score * lift, why=f"{s.why}; no {'/'.join(query.role_words)} "
                    "reads it: the text itself") if s.element.kind in (K.TEXT, K.LINK) else s
            for s in scored]
