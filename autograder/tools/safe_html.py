"""HTML a student's notebook produced, made inert for whoever opens it: nbconvert's ``clean_html`` and
``strip_files_prefix`` filters, replaced (``nbgrader_config.py``) for every notebook nbgrader renders (feedback,
formgrader's views).

Under ``HTMLExporter.sanitize_html`` nbconvert passes HTML outputs through ``clean_html`` and drops JavaScript
outputs. Its own ``clean_html`` keeps too few tags: every ``<p>`` and heading of a markdown cell showed as escaped
text. This one keeps the markup of documents (paragraphs, headings, lists, tables, code, images) and removes what
runs: scripts, event handlers, ``javascript:`` links, frames, forms and styles other than colours, borders and
spacing. nbgrader's feedback and formgrade templates render markdown cells without ``clean_html`` (a student's
``<script>`` in a markdown cell ran); every one of their markdown cells goes through ``strip_files_prefix`` right
after ``markdown2html``, so that filter cleans too.
"""

from __future__ import annotations

import bleach
from bleach.css_sanitizer import CSSSanitizer

TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "ol", "p", "pre", "s", "small",
    "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
})
ATTRIBUTES = {"*": ["class", "id", "title", "style"], "a": ["href"], "img": ["src", "alt", "width", "height"],
              "td": ["colspan", "rowspan", "align"], "th": ["colspan", "rowspan", "align"]}
PROTOCOLS = frozenset({"http", "https", "mailto", "data"})  # data: for inline images (img only: see _attribute)
CSS = CSSSanitizer(allowed_css_properties=[
    "color", "background-color", "font-weight", "font-style", "font-size", "text-align", "border",
    "border-radius", "padding", "margin", "width"])


def _attribute(tag: str, name: str, value: str) -> bool:
    if name in ATTRIBUTES.get(tag, ()) or name in ATTRIBUTES["*"]:
        return not (tag == "a" and name == "href" and value.strip().lower().startswith("data:"))
    return False


def clean_html(element) -> str:
    """``element`` (str or bytes of HTML) with only inert markup left; tags not allowed are removed, their text
    kept as text."""
    text = element.decode() if isinstance(element, bytes) else str(element)
    return bleach.clean(text, tags=TAGS, attributes=_attribute, protocols=PROTOCOLS, css_sanitizer=CSS,
                        strip=True, strip_comments=True)


def strip_files_prefix(text) -> str:
    """nbconvert's ``strip_files_prefix`` (what every template applies to a markdown cell's HTML), then cleaned."""
    from nbconvert.filters.strings import strip_files_prefix as original

    return clean_html(original(text))
