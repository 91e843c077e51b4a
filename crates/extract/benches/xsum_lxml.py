#!/usr/bin/env python3
"""The XSum scripts' extraction rule in Python with lxml (libxml2): the baseline of
`cargo bench -p tempora-extract --bench speed`.

The rule is that of XSum's parse-bbc-html-data.py (title, `story-body__introduction`,
the rest of the story body, embedded tweets and Instagram posts deleted), applied
with ONE parse per page (XSum's script parses each page three times, once per
field; one parse is the stronger baseline). Only parsing and the rule are timed,
on pages already read into memory, on one core.

Usage: xsum_lxml.py --repeat N FILE.html...   prints `pages=<n> seconds=<s> pages_per_s=<r>`.
"""

import argparse
import time

from lxml import html

DELETE = [
    '//blockquote[contains(@class, "twitter-tweet")]',
    '//blockquote[contains(@class, "instagram-media")]',
]
TITLE = [
    '//h1[contains(@class, "story-headline")]',
    '//h1[contains(@class, "story-body__h1")]',
]
INTRODUCTION = ['//p[contains(@class, "story-body__introduction")]']
EXCLUDE = (
    'not(contains(@class, "story-headline"))'
    ' and not(contains(@class, "story-body__h1"))'
    ' and not(contains(@class, "story-body__introduction"))'
    ' and not(contains(@class, "with-extracted-share-icons"))'
)
REST = ['//div[contains(@class, "story-body")]//p[%s]' % EXCLUDE]


def texts(tree, selectors):
    out = []
    for selector in selectors:
        for element in tree.xpath(selector):
            text = element.text_content().strip()
            if text:
                out.append(text)
    return out


def extract(page):
    tree = html.document_fromstring(page, parser=html.HTMLParser(encoding="utf-8"))
    for selector in DELETE:
        for bad in tree.xpath(selector):
            bad.getparent().remove(bad)
    return texts(tree, TITLE), texts(tree, INTRODUCTION), texts(tree, REST)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    pages = []
    for path in args.files:
        with open(path, "rb") as f:
            pages.append(f.read())
    found = 0
    start = time.perf_counter()
    for _ in range(args.repeat):
        for page in pages:
            title, intro, rest = extract(page)
            found += len(intro) == 1 and len(rest) > 0
    seconds = time.perf_counter() - start
    n = len(pages) * args.repeat
    print(f"pages={n} seconds={seconds:.4f} pages_per_s={n / seconds:.1f} with_intro={found}")


if __name__ == "__main__":
    main()
