"""The OCR/parse rung: a target description matched against the parsed screen's elements.

The elements are the screen's one list: the pixel parse (its bars of words split into items,
:mod:`~gui_agent.parsing.menu_bars`), fused with the accessibility tree when the observation
carries one (:mod:`~gui_agent.parsing.tree_fusion`); a candidate's source says which found it
("a11y" or "ocr"). Scores combine three things: how well the text matches (:mod:`.matching`),
whether the element's kind fits the role words ('button', 'field', ...), and geometry (a field
named by the label beside it, 'right of X', 'below X', 'in the Settings dialog'). Ordinals pick
the n-th matching element in reading order; what the tree says of an element weighs in too
(:mod:`.tree_evidence`). Candidates come back sorted, best first; deciding whether the best is
good enough or ambiguous is the ladder's job.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..geometry import Box
from ..parsing.elements import Element, ElementKind, ScreenParse
from ..parsing.menu_bars import split_bars
from ..parsing.resize_grips import has_resize_grip
from ..parsing.tree_fusion import fuse_tree
from ..parsing.widgets import TEXT_AREA_HEIGHT
from ..screen.observation import Observation
from .candidate import Candidate
from .colours import weighed_by_colour
from .description import (
    LABELLED_KINDS,
    RESULT_ROLES,
    Relation,
    TargetQuery,
    is_pager_text,
    parse_description,
)
from .drawn_names import drawn_matches, unreadable
from .field_formats import formatted_fields
from .icon_names import asked_icons
from .indicator_columns import INDICATORS, cut_row_indicators
from .instruction_echo import without_echo
from .kinds import INTERACTIVE, kind_factor, without_kind_penalty
from .link_words import linked_words
from .matching import match_text, sub_box, symbol_fold
from .name_matches import direct_matches, spelled_matches
from .open_menus import weighed_by_open_menu
from .ordinals import apply_ordinal
from .paragraphs import paragraph_elements
from .scored import Scored
from .spatial import find_panels, label_affinity, relation_factor
from .text_evidence import span_kind
from .tree_evidence import titled_windows, tree_factor

log = logging.getLogger(__name__)
K = ElementKind
_AREA_ROLES = {"text area", "textarea"}
PARAGRAPH = "paragraph"
ROLE_ONLY_SCORE = 0.9           # an element picked by its role alone ('the 2nd text field')
ORDINAL_BAND = 0.12             # elements within this of the best match count for an ordinal
ANCHOR_BAND = 0.05              # anchors this close to the best one are all tried
BAR_SIBLINGS = 2                # texts beside a label in its row over one widget make a bar
SHORT_SYMBOLS = 3               # a caption of this many symbols or fewer is looked for drawn too
ANCHOR_BAND_AFTER = 0.1         # ... for 'after', where one name may head a record and sit in its menu
AREA_HEIGHT_RATIO = 1.3         # a field this much taller than the shortest one holds several lines


class OcrGrounder:
    """Grounds descriptions on a :class:`ScreenParse` (OCR text + detected widgets, fused with
    the accessibility tree when the observation has one)."""

    name = "ocr"

    def __init__(self, parser: Any | None = None, cache_size: int = 4) -> None:
        self._parser = parser
        self.instruction = ""    # the task being run: its echo on the screen is no target
        self._cache: list[tuple[Any, ScreenParse]] = []
        self._cache_size = cache_size

    def parse(self, observation: Observation | Any) -> ScreenParse:
        """The elements of ``observation`` (an image alone: its pixels), computed once per image
        object: the pixel parse with its bars split, fused with the observation's tree."""
        tree_view = observation.accessibility if isinstance(observation, Observation) else None
        image = observation.image if isinstance(observation, Observation) else observation
        for seen, parsed in self._cache:
            if seen is image:
                return parsed
        if self._parser is None:
            from ..parsing.screen_parser import ScreenParser

            self._parser = ScreenParser()
        pixels = self._parser.parse(image)
        window = observation.window if isinstance(observation, Observation) else None
        pixels = split_bars(pixels, _gray(image), lambda box: self._parser.read_text(image, box),
                            observation.box_to_image(window.box) if window and window.box else None)
        tree = tree_view.read() if tree_view is not None else None
        parsed = fuse_tree(pixels, tree) if tree is not None else pixels
        self._cache = [*self._cache[-(self._cache_size - 1):], (image, parsed)]
        return parsed

    def candidates(self, target: str | TargetQuery, observation: Observation | None = None,
                   parse: ScreenParse | None = None) -> list[Candidate]:
        """Scored candidates for ``target``, best first (empty when nothing fits at all)."""
        query = parse_description(target) if isinstance(target, str) else target
        if parse is None:
            if observation is None:
                raise ValueError("candidates() needs an observation or a parse")
            parse = self.parse(observation)
        if self.instruction:
            parse = without_echo(parse, self.instruction, query.raw)
        image = observation.image if observation is not None else None
        return candidates_on(query, parse, image, self.name)


def candidates_on(query: TargetQuery, parse: ScreenParse, image: Any, rung: str) -> list[Candidate]:
    """Scored candidates for ``query`` among ``parse``'s elements, best first; an element of the
    accessibility tree is reported as found by "a11y", any other by ``rung``."""
    scored = _score_query(query, parse, image)
    return [Candidate(s.box, round(min(1.0, s.score), 4),
                      "a11y" if s.element.accessible is not None else rung, s.element, s.why,
                      segmented=s.segmented)
            for s in scored]


def _score_query(query: TargetQuery, parse: ScreenParse, image: Any) -> list[Scored]:
    elements = parse.elements
    if PARAGRAPH in query.role_words:   # 'the 2nd paragraph': blocks of lines, not lines
        elements = tuple(paragraph_elements(elements))
    rgb = _as_array(image)
    scored = direct_matches(query, elements, rgb=rgb) if query.text else \
        _role_matches(query, elements, _gray(image) if rgb is not None else None)
    if query.spelled:
        scored += spelled_matches(query, elements)
    if query.text and rgb is not None and (unreadable(query.text) or (
            len(query.text.strip()) <= SHORT_SYMBOLS and symbol_fold(query.text) is not None)):
        # a name OCR cannot read, or a key's symbol it may not have ("=", "/"): found by its drawing
        scored += drawn_matches(query, elements, _gray(image))
    if query.text and rgb is not None and not scored:
        scored += asked_icons(query, elements, _gray(image))    # a badge may hide its likeness
    if query.text and query.wants_labelled:
        scored += _labelled_widgets(query, elements) + formatted_fields(query, elements)
        if not any(s.element.kind in query.kinds & INDICATORS for s in scored):
            scored += cut_row_indicators(query, elements)    # a check list's row cut by its edge
    scored = without_kind_penalty(query, _dedupe(weighed_by_open_menu(scored, query.text, parse, image)))
    scored = linked_words(query, scored, rgb)
    if query.colour and rgb is not None:
        scored = weighed_by_colour(query.colour, scored, rgb)
    if query.container is not None:
        scored = _apply_container(query.container, scored, parse, image)
    for relation in query.relations:
        scored = _apply_relation(relation, scored, parse, image, query)
    scored = [_weighed_by_tree(s, parse, query) for s in scored]
    scored.sort(key=lambda s: -s.score)
    if query.ordinal is not None:
        scored = apply_ordinal(query.ordinal, scored, ORDINAL_BAND)
    return scored


def _weighed_by_tree(s: Scored, parse: ScreenParse, query: TargetQuery) -> Scored:
    factor, note = tree_factor(s.element, s.box, parse, query, via_label=s.via is not None)
    return replace(s, score=s.score * factor, why=s.why + note) if factor < 1.0 else s


def _gray(image: Any) -> Any:
    """The image in grey levels (an RGB array or a PIL image)."""
    import numpy as np

    if isinstance(image, np.ndarray):
        return image.mean(axis=2) if image.ndim == 3 else image
    return np.asarray(image.convert("L"))


def _as_array(image: Any) -> Any:
    """The observation's pixels as an RGB array (None without an image)."""
    if image is None:
        return None
    import numpy as np

    return np.asarray(image.convert("RGB") if getattr(image, "mode", "RGB") != "RGB" else image)


_CONTROLS = frozenset({K.BUTTON, K.ICON, K.CHECKBOX, K.TAB, K.CLOSE, K.COMBO})


def is_text_area(field: Element, elements: Iterable[Element], gray: Any = None) -> bool:
    """Whether a text field holds several lines: taller than a one-line field can be, clearly
    taller than the shortest field beside it (a two-row text area at any scale), or with a
    resize grip in its corner (with ``gray``, the screen in grey levels)."""
    if field.box.height > TEXT_AREA_HEIGHT or (gray is not None and has_resize_grip(gray, field.box)):
        return True
    shortest = min((e.box.height for e in elements if e.kind == K.TEXT_FIELD), default=field.box.height)
    return field.box.height >= AREA_HEIGHT_RATIO * shortest


def _role_matches(query: TargetQuery, elements: Iterable[Element], gray: Any = None) -> list[Scored]:
    elements = tuple(elements)
    out = []
    for e in elements:
        if query.kinds and e.kind not in query.kinds:
            continue
        if not query.kinds and not query.relations and query.container is None:
            continue  # an empty description names nothing
        if RESULT_ROLES & set(query.role_words) and is_pager_text(e.text):
            continue  # a results list's pager is none of its results
        score = ROLE_ONLY_SCORE * (1.0 if query.kinds else kind_factor(query, e.kind))
        if e.kind == K.TEXT_FIELD:   # 'text area' asks for a multi-line field, 'field' for a line
            area = is_text_area(e, elements, gray)
            score *= 1.0 if area == bool(_AREA_ROLES & set(query.role_words)) else 0.7
            score *= 0.7 if _holds_a_row_of_controls(e, elements) else 1.0
        out.append(Scored(e, e.box, score, f"a {e.kind} by role"))
    return out


def _holds_a_row_of_controls(field: Element, elements: tuple[Element, ...]) -> bool:
    """A box holding two controls or more side by side and no words (an editor's tool bar: its
    colour "A", its "B" and "I", read as buttons or as letters): a tool bar, not a field to type
    in, though the detector drew it as one."""
    inside = [e for e in elements if e is not field and field.box.contains(e.box.center)
              and e.box.area < 0.25 * field.box.area]
    if any(len(e.text.strip()) > 2 for e in inside):
        return False
    inner = [e for e in inside if e.kind in _CONTROLS or e.text.strip()]
    return any(a.box.top < b.box.center.y < a.box.bottom or b.box.top < a.box.center.y < b.box.bottom
               for i, a in enumerate(inner) for b in inner[i + 1:])


def _labelled_widgets(query: TargetQuery, elements: tuple[Element, ...]) -> list[Scored]:
    kinds = (query.kinds & LABELLED_KINDS) or LABELLED_KINDS
    widgets = [e for e in elements if e.kind in kinds]
    labels = [e for e in elements if e.kind in (K.TEXT, K.LINK) and e.text]
    out: list[Scored] = []
    for lab in labels:
        m = match_text(query.text, lab.text)
        if m is None or (query.quoted and "fuzzy" in m.grade):
            continue
        claims = []
        for w in widgets:
            aff = label_affinity(lab.box, w.box, w.kind)
            if aff <= 0.05 or _one_of_a_row_above(lab, w, labels):
                continue
            # a widget belongs to the label that lies closest to it
            rival = max((label_affinity(o.box, w.box, w.kind) for o in labels if o is not lab),
                        default=0.0)
            if rival > aff + 0.05:
                aff *= 0.7
            claims.append((aff, w))
        for aff, w in claims:
            score = m.score * (0.5 + 0.5 * aff) * kind_factor(query, w.kind)
            out.append(Scored(w, w.box, score, f"{w.kind} labelled {lab.text!r} ({m.grade})", lab))
        if not claims and kinds & {K.CHECKBOX, K.RADIO}:
            # no indicator found: clicking a Qt check box's text toggles it too
            out.append(Scored(lab, lab.box, m.score * 0.75, f"text {lab.text!r} of a {kinds}"))
    return out


def _one_of_a_row_above(label: Element, widget: Element, labels: list[Element]) -> bool:
    """``label`` is one of a bar of texts over ``widget`` (a menu bar over a calculator's
    display): none of them is the widget's label, which stands alone or with a hint beside it
    ("Email (optional)")."""
    if label.box.bottom > widget.box.top + 4:
        return False
    row = label.box.center.y
    return sum(1 for o in labels if o is not label and abs(o.box.center.y - row) <= label.box.height / 2
               and o.box.bottom <= widget.box.top + 4
               and widget.box.left <= o.box.center.x < widget.box.right) >= BAR_SIBLINGS


def _dedupe(scored: list[Scored]) -> list[Scored]:
    """One candidate per control: overlapping hits, and a widget with its own label text, are
    one place; it keeps the best score and, among labels and widgets, the widget's box."""
    order = sorted(scored, key=lambda s: (-round(s.score, 3), s.element.kind not in INTERACTIVE))
    kept: list[Scored] = []
    for s in order:
        twin = next((i for i, k in enumerate(kept) if _same_place(s.box, k.box) or _same_control(s, k)
                     or _same_control(k, s)), None)
        if twin is None:
            kept.append(s)
        elif _same_control(kept[twin], s):   # the label came first: click the widget instead
            kept[twin] = replace(s, score=kept[twin].score, why=f"{s.why} (= {kept[twin].why})")
    return kept


def _same_control(text: Scored, widget: Scored) -> bool:
    """``text`` is the label that names ``widget`` (so both stand for one control)."""
    if text.element.kind not in (K.TEXT, K.LINK) or widget.element.kind not in LABELLED_KINDS:
        return False
    if widget.via is not None:
        return widget.via is text.element
    named = match_text(widget.element.label, text.element.text) if widget.element.label else None
    return named is not None and not named.partial and \
        label_affinity(text.element.box, widget.box, widget.element.kind) >= 0.5


def _same_place(a: Box, b: Box) -> bool:
    return a.contains(b.center) or b.contains(a.center)


def _apply_container(title: str, scored: list[Scored], parse: ScreenParse, image: Any) -> list[Scored]:
    windows = titled_windows(title, parse) if title else []
    if windows:   # the tree knows the window by its title: inside is inside its box
        return _weighed_by_place(scored, windows, f"{title} window")
    panels = find_panels(image) if image is not None else []
    if title:
        anchors = [a for a in direct_matches(parse_description(f'"{title}"'), parse.elements)
                   if a.score >= 0.85]
        regions = []
        for a in anchors:
            around = [p for p in panels if p.contains(a.box.center) and p.height >= 3 * a.box.height + 40]
            if around:
                regions.append(min(around, key=lambda p: p.area))
            else:  # no visible frame: the area under the title
                regions.append(Box(a.box.left - 400, a.box.top, a.box.width + 800, 600))
    else:
        screen = parse.width * parse.height
        regions = [p for p in panels if 0.03 * screen <= p.area <= 0.9 * screen]
    return _weighed_by_place(scored, regions, title or "dialog")


def _weighed_by_place(scored: list[Scored], regions: Sequence[Box], named: str) -> list[Scored]:
    """Candidates outside every region keep 0.4 of their score; the reason says which."""
    out = []
    for s in scored:
        inside = any(r.contains(s.box.center) for r in regions)
        out.append(replace(s, score=s.score * (1.0 if inside else 0.4),
                           why=s.why + (" inside" if inside else " outside") + f" the {named}"))
    return out


LINE_RELATIONS = ("right_of", "next_to", "after")     # a label's value may follow it on its line


def _apply_relation(relation: Relation, scored: list[Scored], parse: ScreenParse, image: Any,
                    head: TargetQuery) -> list[Scored]:
    anchor_query = relation.anchor
    if anchor_query.text and not anchor_query.kinds and not anchor_query.relations:
        # 'right of Name' is relative to the visible text, not to a widget the parser labelled Name
        anchors = _dedupe(direct_matches(anchor_query, parse.elements, use_labels=False))
        anchors.sort(key=lambda s: -s.score)
        if anchor_query.ordinal is not None:   # 'after the 2nd "@ann"': that one of the names
            anchors = apply_ordinal(anchor_query.ordinal, anchors, ORDINAL_BAND)[:1]
    else:
        anchors = _score_query(anchor_query, parse, image)
    if not anchors:
        return []
    top = anchors[0].score
    # a record's name read inside a longer line ("Tally @ann · 2h ago") scores below the same
    # name in a short one (an open menu's "Mute @ann"): after which of them the target lies
    # decides, and each placement keeps its anchor's score
    band = ANCHOR_BAND_AFTER if relation.kind == "after" else ANCHOR_BAND
    anchors = [a for a in anchors if a.score >= top - band][:6]
    if relation.kind in LINE_RELATIONS and not head.text and head.kinds <= {K.TEXT, K.LINK}:
        scored = scored + [r for a in anchors if (r := _rest_of_line(a, anchor_query, image)) is not None]
    placed = []
    for s in scored:
        best = (0.0, anchors[0])
        for a in anchors:
            own_label = s.element is a.element or _same_place(s.box, a.box) or _same_control(a, s)
            if own_label and relation.kind in ("next_to", "near") and s.element.kind in LABELLED_KINDS:
                factor = 1.0  # the anchor text is this widget's own label: 'the checkbox next to X'
            elif s.element is a.element or _same_place(s.box, a.box):
                factor = 0.0
            else:
                factor = relation_factor(relation.kind, s.box, a.box)
            best = max(best, (factor, a), key=lambda fa: fa[0])
        if best[0] > 0.0:
            placed.append((s, *best))
    if not placed:
        return []
    nearest = max(f for _, f, _ in placed)
    out = []
    for s, factor, anchor in placed:
        rel = factor / nearest   # the nearest in the asked direction fits fully; others fade
        name = anchor.element.text or str(anchor.element.kind)
        why = f"{s.why}; {relation.kind.replace('_', ' ')} {name!r} ({rel:.2f})"
        out.append(replace(s, score=s.score * (0.3 + 0.7 * rel) * min(1.0, anchor.score + 0.05), why=why))
    return out


def _rest_of_line(anchor: Scored, query: TargetQuery, image: Any) -> Scored | None:
    """What follows a label on its own line ("Phone: 487-625-9172" read as one line): the part
    of the line after the words the anchor matched, as an element of its own."""
    e = anchor.element
    if e.kind not in (K.TEXT, K.LINK) or not e.text:
        return None
    m = match_text(query.text, e.text)
    if m is None or not m.partial:
        return None
    start = m.end + len(e.text[m.end:]) - len(e.text[m.end:].lstrip(" :\u00b7-\u2013|"))
    rest = e.text[start:].strip()
    if not rest:
        return None
    box = sub_box(e.box, e.text, start, len(e.text))
    rgb = _as_array(image)
    kind = span_kind(rgb, box, K.TEXT) if rgb is not None else K.TEXT
    part = replace(e, kind=kind, box=box, text=rest)
    return Scored(part, box, ROLE_ONLY_SCORE, f"the rest of {e.text!r} after {e.text[m.start:m.end]!r}")
