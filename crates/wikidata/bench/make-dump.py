#!/usr/bin/env python3
"""Write a synthetic Wikidata JSON dump with the real dump's layout, for benchmarks and scale tests.

Layout as Wikimedia writes it: a JSON array, one entity per line, lines end with ",",
first line "[", last line "]"; .gz output is many concatenated gzip members (one per batch),
like the real latest-all.json.gz. Entity JSON follows the real schema (labels, aliases,
claims with mainsnak/qualifiers/rank/references, time values with precision).

About 1% of entities are politicians with P39 (position held) statements, 0.3% are
positions with P1308 (officeholder) statements; the rest are filler items shaped like
the scholarly articles and general items that make up most of the real dump.

With --relations naming more (default: all of P39,P1308,P54,P286,P169,P488), the other
relations come at the proportions of the real dump (rounded up, as P39 is):
  P54  member of sports team (player -> club): 1% of entities are players, as many as
       politicians (P54 and P39 each hold about 1.7 M statements in the real dump), with
       1-6 spells (mean about 2.7 statements, 1.7 M over 629k players), match and goal
       qualifiers and the external ids that make a real player line several KB;
  clubs: one for 12.9 players (48,773 teams for 629k players), spread through the dump;
       35% of them have P286 head coach (club -> person) statements, 1-5 each;
  P169 chief executive officer (company -> person): 0.02% of entities, 1-4 each;
  P488 chairperson (organization -> person): 0.06% of entities, and 40% of companies;
  coaches and business people (the objects of P286, P169, P488) are person lines
  without any of these relations (half the coaches are former players), spread through
  the dump: their names need the reader's second pass when they come first.

--truth writes the evolving (subject, relation) pairs under this rule:
  a pair is evolving when it has two different objects, one whose start is on or before
  the cutoff and another whose start is after it; deprecated statements and statements
  without a start do not decide; a start with year or month precision counts as its
  earliest possible day.

Usage: make-dump.py --entities 200000 --out /tmp/dump.json.gz [--truth truth.jsonl] [--cutoff 2019-12-31] [--seed 7]
       [--relations P39,P1308,P54,P286,P169,P488] [--no-filler] [--player-ids 25]
--truth rows: {"subject": "Q...", "relation": "P54"}; the counts per relation go to stderr.
"""
import argparse
import bz2
import datetime as dt
import gzip
import json
import random
import sys

CAL = "http://www.wikidata.org/entity/Q1985727"
WORDS = ("state minister council national federal affairs foreign interior health justice defence finance "
         "education culture transport energy labour trade agriculture environment science research city "
         "regional assembly governor mayor president secretary deputy chancellor speaker senate house "
         "member parliament district county province republic kingdom union central bank court supreme "
         "protein cell gene analysis study effect model patient clinical trial quantum network data survey").split()
COUNTRIES = ["Aldoria", "Brevania", "Calmora", "Dunmark", "Estovia", "Fenland", "Gorvania", "Hestia",
             "Istria Nova", "Jorvik", "Kaldor", "Lumeria", "Mordavia", "Norland", "Ostrava", "Pellaria"]
FIRST = ["Anna", "Boris", "Carla", "David", "Elena", "Frank", "Grace", "Hugo", "Irene", "Jon", "Kamala",
         "Liz", "Mario", "Nadia", "Olaf", "Petra", "Rishi", "Sanna", "Theresa", "Viktor", "Ursula", "Wen"]
LAST = ["Albers", "Brandt", "Costa", "Duarte", "Eriksen", "Fischer", "Garcia", "Hansen", "Ivanova",
        "Johnson", "Kowalski", "Larsen", "Moreau", "Novak", "Okafor", "Petrov", "Quinn", "Rossi",
        "Schmidt", "Tanaka", "Varga", "Weber", "Young", "Zhou"]


def hexhash(rng):
    return "%040x" % rng.getrandbits(160)


def time_value(rng, day):
    """A Wikidata time value for `day`, sometimes at year or month precision with 00 parts."""
    r = rng.random()
    if r < 0.08:
        return {"time": "+%04d-00-00T00:00:00Z" % day.year, "precision": 9}, dt.date(day.year, 1, 1)
    if r < 0.12:
        return {"time": "+%04d-01-01T00:00:00Z" % day.year, "precision": 9}, dt.date(day.year, 1, 1)
    if r < 0.18:
        return {"time": "+%04d-%02d-00T00:00:00Z" % (day.year, day.month), "precision": 10}, dt.date(day.year, day.month, 1)
    return {"time": "+%04d-%02d-%02dT00:00:00Z" % (day.year, day.month, day.day), "precision": 11}, day


def time_snak(rng, prop, value):
    v = dict(value, timezone=0, before=0, after=0, calendarmodel=CAL)
    return {"snaktype": "value", "property": prop, "hash": hexhash(rng),
            "datavalue": {"value": v, "type": "time"}, "datatype": "time"}


def item_snak(rng, prop, qid):
    return {"snaktype": "value", "property": prop, "hash": hexhash(rng),
            "datavalue": {"value": {"entity-type": "item", "numeric-id": int(qid[1:]), "id": qid},
                          "type": "wikibase-entityid"}, "datatype": "wikibase-item"}


def string_snak(rng, prop, s):
    return {"snaktype": "value", "property": prop, "hash": hexhash(rng),
            "datavalue": {"value": s, "type": "string"}, "datatype": "string"}


def quantity_snak(rng, prop, n):
    return {"snaktype": "value", "property": prop, "hash": hexhash(rng),
            "datavalue": {"value": {"amount": "+%d" % n, "unit": "1"}, "type": "quantity"}, "datatype": "quantity"}


def external_ids(rng, sid, n):
    """`n` external-id claims (P2000-P2999), as real person lines carry dozens."""
    return {"P%d" % (2000 + k * 37): [statement(rng, sid, dict(string_snak(rng, "P%d" % (2000 + k * 37), "%x" % rng.getrandbits(40)),
                                                        datatype="external-id"))] for k in range(n)}


def statement(rng, sid, mainsnak, qualifiers=None, rank="normal"):
    st = {"mainsnak": mainsnak, "type": "statement"}
    if qualifiers:
        st["qualifiers"] = qualifiers
        st["qualifiers-order"] = list(qualifiers)
    st["id"] = "%s$%08X-%04X-%04X-%04X-%012X" % (sid, rng.getrandbits(32), rng.getrandbits(16),
                                                  rng.getrandbits(16), rng.getrandbits(16), rng.getrandbits(48))
    st["rank"] = rank
    if rng.random() < 0.6:
        st["references"] = [{"hash": hexhash(rng), "snaks": {"P143": [item_snak(rng, "P143", "Q328")]},
                             "snaks-order": ["P143"]}]
    return st


def labels(names):
    return {lang: {"language": lang, "value": v} for lang, v in names.items()}


def entity(qid, names, descr, aliases, claims, sitelinks=None):
    return {"type": "item", "id": qid, "labels": labels(names),
            "descriptions": {"en": {"language": "en", "value": descr}},
            "aliases": {"en": [{"language": "en", "value": a} for a in aliases]} if aliases else {},
            "claims": claims, "sitelinks": sitelinks or {}}


def tenure_plan(rng):
    """1-4 consecutive tenures: list of (start_day, end_day or None)."""
    n = rng.choice([1, 1, 2, 2, 3, 4])
    day = dt.date(rng.randint(1985, 2021), rng.randint(1, 12), rng.randint(1, 28))
    out = []
    for i in range(n):
        length = dt.timedelta(days=rng.randint(200, 3000))
        end = day + length
        if end > dt.date(2025, 6, 1) or (i == n - 1 and rng.random() < 0.4):
            out.append((day, None))
            break
        out.append((day, end))
        day = end + dt.timedelta(days=rng.randint(0, 400))
    return out


def held_statements(rng, sid, prop, objects, plan, facts, stats=False):
    """Statements of `prop` on `sid` following `plan`; records decisive (object, start, rank) in facts.
    `stats`: matches played and goals scored qualifiers, as on real P54 statements."""
    claims = []
    for (start, end) in plan:
        obj = rng.choice(objects)
        quals = {}
        if stats and rng.random() < 0.7:
            quals["P1350"] = [quantity_snak(rng, "P1350", rng.randint(0, 400))]
            quals["P1351"] = [quantity_snak(rng, "P1351", rng.randint(0, 120))]
        rank = "deprecated" if rng.random() < 0.03 else ("preferred" if rng.random() < 0.05 else "normal")
        has_start = rng.random() > 0.04
        if has_start:
            tv, earliest = time_value(rng, start)
            quals["P580"] = [time_snak(rng, "P580", tv)]
        if end is not None:
            if rng.random() < 0.03:
                quals["P582"] = [{"snaktype": "somevalue", "property": "P582", "hash": hexhash(rng), "datatype": "time"}]
            else:
                tv, _ = time_value(rng, end)
                quals["P582"] = [time_snak(rng, "P582", tv)]
        if rng.random() < 0.3:
            quals["P1365"] = [item_snak(rng, "P1365", "Q%d" % rng.randint(1000, 90000000))]
        if rng.random() < 0.1:
            quals["P1545"] = [string_snak(rng, "P1545", str(rng.randint(1, 50)))]
        claims.append(statement(rng, sid, item_snak(rng, prop, obj), quals, rank))
        if has_start and rank != "deprecated":
            facts.append((obj, earliest))
    return claims


def evolving(facts, cutoff):
    before = {o for o, s in facts if s <= cutoff}
    after = {o for o, s in facts if s > cutoff}
    return any(a != b for a in after for b in before)


def filler(rng, qid, sid):
    """An item shaped like a scholarly article or a general item, 2-40 KB of JSON."""
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 14))).capitalize()
    claims = {"P31": [statement(rng, sid, item_snak(rng, "P31", rng.choice(["Q13442814", "Q5", "Q486972", "Q16521"])))],
              "P1476": [statement(rng, sid, {"snaktype": "value", "property": "P1476", "hash": hexhash(rng),
                                             "datavalue": {"value": {"text": title, "language": "en"}, "type": "monolingualtext"},
                                             "datatype": "monolingualtext"})]}
    day = dt.date(rng.randint(1950, 2024), rng.randint(1, 12), rng.randint(1, 28))
    claims["P577"] = [statement(rng, sid, time_snak(rng, "P577", time_value(rng, day)[0]))]
    claims["P2093"] = [statement(rng, sid, string_snak(rng, "P2093", "%s %s" % (rng.choice(FIRST), rng.choice(LAST))),
                                 {"P1545": [string_snak(rng, "P1545", str(i + 1))]})
                       for i in range(int(rng.paretovariate(1.6) * 3))][:120]
    claims["P356"] = [statement(rng, sid, string_snak(rng, "P356", "10.%d/%s" % (rng.randint(1000, 9999), hexhash(rng)[:12])))]
    if rng.random() < 0.002:   # a string that mentions the property id, to keep pre-filters honest
        claims["P2093"].append(statement(rng, sid, string_snak(rng, "P2093", 'P39 "P39":[ P1308')))
    names = {"en": title}
    if rng.random() < 0.3:
        names.update({"de": title, "fr": title})
    return entity(qid, names, "scholarly article", [], claims)


def career_plan(rng, choices, shortest, longest):
    """Consecutive spells (a player's clubs, a club's coaches): list of (start_day, end_day or None)."""
    n = rng.choice(choices)
    day = dt.date(rng.randint(1990, 2022), rng.randint(1, 12), rng.randint(1, 28))
    out = []
    for i in range(n):
        end = day + dt.timedelta(days=rng.randint(shortest, longest))
        if end > dt.date(2025, 6, 1) or (i == n - 1 and rng.random() < 0.4):
            out.append((day, None))
            break
        out.append((day, end))
        day = end + dt.timedelta(days=rng.randint(0, 120))
    return out


# Share of entities per kind (see the docstring); "person"/"position" as before.
SHARES = [("person", 0.01, "P39"), ("position", 0.003, "P1308"), ("player", 0.01, "P54"),
          ("team", 0.01 / 12.9, "P54"), ("company", 0.0002, "P169"), ("org", 0.0006, "P488"),
          ("coach", 0.0003, "P286"), ("business", 0.0005, "P169")]


def assign_kinds(rng, n, relations, filler=True):
    """Each entity's kind; without `filler`, only the kinds the relations need, in the same proportions."""
    kinds = []
    while len(kinds) < n:
        r, kind = rng.random(), "filler"
        for name, share, relation in SHARES:
            if r < share:
                kind = name if relation in relations or (name == "business" and "P488" in relations) else "filler"
                break
            r -= share
        if filler or kind != "filler":
            kinds.append(kind)
    return kinds


def person_entity(rng, qid, descr, claims, ids):
    name = "%s %s" % (rng.choice(FIRST), rng.choice(LAST))
    claims = dict({"P31": [statement(rng, qid, item_snak(rng, "P31", "Q5"))]}, **claims)
    claims.update(external_ids(rng, qid, ids))
    aliases = [name.split()[-1]] + (["%s %s." % (name.split()[0], name.split()[-1][0])] if rng.random() < 0.5 else [])
    return entity(qid, {"en": name, "de": name}, descr, aliases, claims)


def held(rng, qid, relation, objects, plan, truth, cutoff, stats=False):
    facts = []
    claims = held_statements(rng, qid, relation, objects, plan, facts, stats)
    if evolving(facts, cutoff):
        truth.append({"subject": qid, "relation": relation})
    return claims


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entities", type=int, default=200000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--truth")
    ap.add_argument("--cutoff", default="2019-12-31")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--batch", type=int, default=2000, help="entities per gzip member")
    ap.add_argument("--relations", default="P39,P1308,P54,P286,P169,P488")
    ap.add_argument("--player-ids", type=int, default=25,
                    help="external ids on a player line (25: about 17 KB a line; 8: about 7 KB)")
    ap.add_argument("--no-filler", action="store_true",
                    help="only the entities the relations need (a model of the live services)")
    a = ap.parse_args()
    relations = set(a.relations.split(","))
    rng = random.Random(a.seed)
    cutoff = dt.date.fromisoformat(a.cutoff)
    n_pos = max(20, a.entities // 300)
    positions = ["Q%d" % (70000000 + i) for i in range(n_pos)]
    pos_names = {}
    for q in positions:
        c = rng.choice(COUNTRIES)
        role = rng.choice(["Minister of %s" % rng.choice(WORDS).capitalize(), "President", "Prime Minister",
                           "Governor of %s Province" % rng.choice(WORDS).capitalize(), "Mayor of %s City" % rng.choice(WORDS).capitalize()])
        pos_names[q] = ("%s of %s" % (role, c)) if not role.startswith(("Minister", "Governor", "Mayor")) else "%s (%s)" % (role, c)
    people = []
    truth = []
    statements = {}
    kinds = assign_kinds(rng, a.entities, relations, not a.no_filler)
    qids = ["Q%d" % (100 + i * 7) for i in range(a.entities)]
    of_kind = lambda k: [q for q, kind in zip(qids, kinds) if kind == k] or ["Q5"]
    teams, coaches, business = of_kind("team"), of_kind("coach"), of_kind("business")
    players = of_kind("player")
    coach_pool = coaches + players[: len(coaches)]

    unused_positions = list(reversed(positions))

    def count(claims):
        for prop, sts in claims.items():
            if prop in relations:
                statements[prop] = statements.get(prop, 0) + len(sts)
        return claims

    def one(i, kind):
        qid = qids[i]
        if kind == "person":
            claims = {"P39": held(rng, qid, "P39", positions, tenure_plan(rng), truth, cutoff)}
            people.append(qid)
            return person_entity(rng, qid, "politician", count(claims), 4)
        if kind == "position" and unused_positions:
            qid = unused_positions.pop()
            claims = {"P31": [statement(rng, qid, item_snak(rng, "P31", "Q4164871"))],
                      "P1308": held(rng, qid, "P1308", people[-50:] or ["Q5"], tenure_plan(rng), truth, cutoff)}
            return entity(qid, {"en": pos_names.get(qid, "Office %s" % qid)}, "political office", [], count(claims))
        if kind == "player":
            plan = career_plan(rng, [1, 2, 2, 3, 3, 4, 5, 6], 150, 1500)
            claims = {"P54": held(rng, qid, "P54", teams, plan, truth, cutoff, stats=True)}
            return person_entity(rng, qid, "association football player", count(claims), a.player_ids)
        if kind == "team":
            claims = {"P31": [statement(rng, qid, item_snak(rng, "P31", "Q476028"))]}
            if "P286" in relations and rng.random() < 0.35:
                claims["P286"] = held(rng, qid, "P286", coach_pool, career_plan(rng, [1, 2, 3, 4, 5], 200, 1800), truth, cutoff)
            claims.update(external_ids(rng, qid, 12))
            town = rng.choice(LAST)
            return entity(qid, {"en": "%s %s F.C." % (town, rng.choice(["United", "City", "Rovers", "Athletic"]))},
                          "association football club", [town], count(claims))
        if kind in ("company", "org"):
            claims = {"P31": [statement(rng, qid, item_snak(rng, "P31", "Q4830453" if kind == "company" else "Q43229"))]}
            if kind == "company":
                claims["P169"] = held(rng, qid, "P169", business, career_plan(rng, [1, 2, 3, 4], 300, 3000), truth, cutoff)
            if "P488" in relations and (kind == "org" or rng.random() < 0.4):
                claims["P488"] = held(rng, qid, "P488", business, career_plan(rng, [1, 2, 3, 4], 300, 3000), truth, cutoff)
            claims.update(external_ids(rng, qid, 10))
            name = "%s %s" % (rng.choice(LAST), rng.choice(["Holdings", "Group", "plc", "Association", "Federation"]))
            return entity(qid, {"en": name}, "company" if kind == "company" else "organization", [], count(claims))
        if kind in ("coach", "business"):
            return person_entity(rng, qid, "football manager" if kind == "coach" else "business executive", {}, 15)
        return filler(rng, qid, qid)

    def lines():
        for i, kind in enumerate(kinds):
            e = one(i, kind)
            yield json.dumps(e, ensure_ascii=True, separators=(",", ":")).replace("/", "\\/")

    write_dump(a, lines())
    if a.truth:
        with open(a.truth, "w") as t:
            for row in sorted(truth, key=lambda r: (r["relation"], int(r["subject"][1:]))):
                t.write(json.dumps(row) + "\n")
    pairs = {}
    for row in truth:
        pairs[row["relation"]] = pairs.get(row["relation"], 0) + 1
    print("wrote %s (%d entities, %d evolving pairs)" % (a.out, len(kinds), len(truth)), file=sys.stderr)
    for rel in a.relations.split(","):
        print("  %s: %d statements, %d evolving pairs" % (rel, statements.get(rel, 0), pairs.get(rel, 0)), file=sys.stderr)


def write_dump(a, it):
    out = a.out
    first = True
    if out.endswith(".gz"):
        f = open(out, "wb")
        f.write(gzip.compress(b"[\n", 6))
        batch = []
        for line in it:
            batch.append(line)
            if len(batch) == a.batch:
                f.write(gzip.compress((("" if first else ",\n") + ",\n".join(batch)).encode(), 6))
                first = False
                batch = []
        tail = (("" if first else ",\n") + ",\n".join(batch)) if batch else ""
        f.write(gzip.compress((tail + "\n]\n").encode(), 6))
        f.close()
    else:
        f = bz2.open(out, "wt") if out.endswith(".bz2") else open(out, "w")
        f.write("[\n")
        f.write(",\n".join(it))
        f.write("\n]\n")
        f.close()


if __name__ == "__main__":
    main()
