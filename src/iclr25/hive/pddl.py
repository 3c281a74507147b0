"""STRIPS + typing PDDL as Hive uses it (spec §2 step 6): parse a domain or problem file into frozen
dataclasses, write it back, and merge domains (step 4). Names are lower-cased (PDDL is case-insensitive).

The loader fixes the quirks of the shipped domain files (spec §8): `?question -text` (no space after the
dash), a variable repeated in one predicate declaration (`Translate ?t ?language ?language`), and a
comment glued to an action name (`caption_image;`). Each action keeps its `;` comment: the MiniLM
backend matches queries against it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from iclr25.core.errors import UserError

Atom = tuple[str, tuple[str, ...]]  # (predicate, arguments)
Typed = tuple[str, str]  # (name, type)
MAX_PDDL_BYTES = 4 << 20


@dataclass(frozen=True)
class Predicate:
    name: str
    params: tuple[Typed, ...]

    @property
    def arity(self) -> int:
        return len(self.params)


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[Typed, ...]
    precondition: tuple[Atom, ...]
    effect: tuple[Atom, ...]  # add effects only: the domains are STRIPS without deletes
    comment: str = field(default="", compare=False)  # the `;` text after `(:action name`

    @property
    def description(self) -> str:
        """The action's comment, or its name in words when the file gives none (image_to_image)."""
        return self.comment or self.name.replace("_", " ")


@dataclass(frozen=True)
class Domain:
    name: str
    types: tuple[str, ...]
    predicates: tuple[Predicate, ...]
    actions: tuple[Action, ...]

    def action(self, name: str) -> Action:
        for a in self.actions:
            if a.name == name.lower():
                return a
        raise UserError(f"domain {self.name!r} has no action {name!r}")

    def predicate(self, name: str) -> Predicate:
        for p in self.predicates:
            if p.name == name.lower():
                return p
        known = ", ".join(p.name for p in self.predicates)
        raise UserError(f"unknown predicate {name!r} in domain {self.name!r} (it has {known})")

    @classmethod
    def load(cls, path: str | Path) -> Domain:
        """Parse a domain file; malformed PDDL raises UserError('file:line: why')."""
        return parse_domain(_read(path), str(path))

    def to_pddl(self) -> str:
        lines = [
            f"(define (domain {self.name})",
            "  (:requirements :strips :typing)",
            f"  (:types {' '.join(self.types)})",
            "  (:predicates",
        ]
        lines += [f"    ({p.name}{_typed(p.params)})" for p in self.predicates]
        lines.append("  )")
        for a in self.actions:
            lines.append(f"  (:action {a.name}" + (f" ; {a.comment}" if a.comment else ""))
            lines.append(f"    :parameters ({_typed(a.params).strip()})")
            lines.append(f"    :precondition {_conj(a.precondition)}")
            lines.append(f"    :effect {_conj(a.effect)})")
        lines.append(")")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Problem:
    name: str
    domain: str
    objects: tuple[Typed, ...]
    init: tuple[Atom, ...]
    goal: tuple[Atom, ...]

    @classmethod
    def load(cls, path: str | Path) -> Problem:
        return parse_problem(_read(path), str(path))

    def to_pddl(self) -> str:
        objs = " ".join(f"{o} - {t}" for o, t in self.objects)
        init = " ".join(_atom(a) for a in self.init)
        return (
            f"(define (problem {self.name}) (:domain {self.domain})\n  (:objects {objs})\n"
            f"  (:init {init})\n  (:goal {_conj(self.goal)}))\n"
        )


def check_problem(domain: Domain, problem: Problem) -> None:
    """Every fact and goal names a known predicate with its arity, over declared objects of its types."""
    objects = dict(problem.objects)
    for o, t in problem.objects:
        if t not in domain.types:
            raise UserError(f"object {o!r} has type {t!r}, unknown to domain {domain.name!r}")
    for where, atoms in (("init", problem.init), ("goal", problem.goal)):
        for pred, args in atoms:
            p = domain.predicate(pred)
            if p.arity != len(args):
                raise UserError(
                    f"{where}: ({pred} {' '.join(args)}) has {len(args)} arguments; {pred} takes {p.arity}"
                )
            for arg, (_, typ) in zip(args, p.params, strict=True):
                if arg not in objects:
                    raise UserError(f"{where}: ({pred} {' '.join(args)}) names undeclared object {arg!r}")
                if objects[arg] != typ:
                    raise UserError(f"{where}: {arg!r} is a {objects[arg]}, {pred} wants a {typ}")


def merge_domains(domains: list[Domain]) -> Domain:
    """Union of types, predicates and actions (spec §2 step 4), named 'a-b' over the sorted names, so
    merging is commutative and idempotent. A predicate or action declared twice differently raises."""
    if not domains:
        raise UserError("merge_domains needs at least one domain")
    types: dict[str, None] = {}
    preds: dict[str, Predicate] = {}
    acts: dict[str, Action] = {}
    for d in sorted(domains, key=lambda d: d.name):
        types.update(dict.fromkeys(d.types))
        for p in d.predicates:
            old = preds.setdefault(p.name, p)
            if tuple(t for _, t in old.params) != tuple(t for _, t in p.params):
                raise UserError(
                    f"predicate {p.name!r} clashes: {old.arity} argument(s) "
                    f"{[t for _, t in old.params]} vs {[t for _, t in p.params]} in {d.name!r}"
                )
        for a in d.actions:
            old_a = acts.setdefault(a.name, a)
            if old_a != a:
                raise UserError(f"action {a.name!r} is declared differently in {d.name!r}")
    name = "-".join(sorted({n for d in domains for n in d.name.split("-")}))
    return Domain(
        name,
        tuple(sorted(types)),
        tuple(sorted(preds.values(), key=lambda p: p.name)),
        tuple(sorted(acts.values(), key=lambda a: a.name)),
    )


# ---- writing -----------------------------------------------------------------------------------


def _typed(params: tuple[Typed, ...]) -> str:
    return "".join(f" {v} - {t}" for v, t in params)


def _atom(a: Atom) -> str:
    return "(" + " ".join((a[0], *a[1])) + ")"


def _conj(atoms: tuple[Atom, ...]) -> str:
    return _atom(atoms[0]) if len(atoms) == 1 else "(and " + " ".join(map(_atom, atoms)) + ")"


# ---- parsing -----------------------------------------------------------------------------------


class _List(list):
    line: int = 0


def _read(path: str | Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise UserError(f"PDDL file not found: {p}")
    if p.stat().st_size > MAX_PDDL_BYTES:
        raise UserError(f"PDDL file {p} is larger than {MAX_PDDL_BYTES >> 20} MiB")
    try:
        return p.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as e:
        raise UserError(f"cannot read PDDL file {p}: {type(e).__name__}") from None


_TOKEN = re.compile(r"\(|\)|[^\s();]+")


def _sexp(text: str, src: str) -> tuple[_List, dict[int, str]]:
    """Nested lists of lower-case tokens (each list knows its line) and the comment of each line."""
    comments: dict[int, str] = {}
    stack: list[_List] = [_List()]
    for ln, raw in enumerate(text.splitlines(), 1):
        code, sep, comment = raw.partition(";")
        if sep:
            comments[ln] = comment.strip()
        for tok in _TOKEN.findall(code):
            if tok == "(":
                lst = _List()
                lst.line = ln
                stack[-1].append(lst)
                stack.append(lst)
            elif tok == ")":
                if len(stack) == 1:
                    raise UserError(f"{src}:{ln}: unbalanced ')'")
                stack.pop()
            else:
                stack[-1].append(tok.lower())
        if len(stack) > 64:
            raise UserError(f"{src}:{ln}: nesting deeper than 64 levels")
    if len(stack) > 1:
        raise UserError(f"{src}:{stack[-1].line}: '(' opened here is never closed")
    top = stack[0]
    if len(top) != 1 or not isinstance(top[0], list):
        raise UserError(f"{src}:1: expected exactly one (define ...) form")
    return top[0], comments


def _line(x: object, default: int) -> int:
    return getattr(x, "line", default)


def _typed_list(items: list, src: str, line: int, variables: bool) -> tuple[Typed, ...]:
    """`?a ?b - t ?c -t` -> ((?a, t), (?b, t), (?c, t)); untyped names get 'object'."""
    toks: list[str] = []
    for it in items:
        if not isinstance(it, str):
            raise UserError(f"{src}:{_line(it, line)}: unexpected '(' in a typed list")
        if it.startswith("-") and len(it) > 1:  # quirk: '-text' means '- text'
            toks += ["-", it[1:]]
        else:
            toks.append(it)
    out: list[Typed] = []
    pending: list[str] = []
    i = 0
    while i < len(toks):
        if toks[i] == "-":
            if i + 1 >= len(toks) or toks[i + 1] == "-":
                raise UserError(f"{src}:{line}: '-' without a type name")
            out += [(n, toks[i + 1]) for n in pending]
            pending = []
            i += 2
            continue
        name = toks[i]
        if variables and not name.startswith("?"):
            raise UserError(f"{src}:{line}: parameter {name!r} must start with '?'")
        pending.append(name)
        i += 1
    out += [(n, "object") for n in pending]
    return tuple(out)


def _dedupe(params: tuple[Typed, ...]) -> tuple[Typed, ...]:
    """Quirk: a repeated variable in a predicate declaration gets a numbered copy (only arity and types
    matter in a declaration)."""
    seen: dict[str, int] = {}
    out = []
    for v, t in params:
        seen[v] = seen.get(v, 0) + 1
        out.append((v if seen[v] == 1 else f"{v}_{seen[v]}", t))
    return tuple(out)


def _atoms(expr: object, src: str, line: int, what: str) -> tuple[Atom, ...]:
    """A positive conjunction of atoms: (p a b) or (and (p a) (q b)); () is empty."""
    if not isinstance(expr, list):
        raise UserError(f"{src}:{line}: {what} must be a parenthesised formula, got {expr!r}")
    line = _line(expr, line)
    if not expr:
        return ()
    if expr[0] == "and":
        return tuple(a for sub in expr[1:] for a in _atoms(sub, src, line, what))
    head = expr[0]
    if not isinstance(head, str) or head in ("or", "not", "imply", "forall", "exists", "when"):
        raise UserError(
            f"{src}:{line}: {what}: only positive conjunctions (STRIPS) are supported, got {head!r}"
        )
    args = tuple(expr[1:])
    if any(not isinstance(a, str) for a in args):
        raise UserError(f"{src}:{line}: {what}: nested formula inside ({head} ...)")
    return ((head, args),)


def _header(form: _List, kind: str, src: str) -> str:
    if (
        not form
        or form[0] != "define"
        or len(form) < 2
        or not isinstance(form[1], list)
        or len(form[1]) != 2
        or form[1][0] != kind
        or not isinstance(form[1][1], str)
    ):
        raise UserError(f"{src}:{_line(form, 1)}: expected (define ({kind} NAME) ...)")
    return form[1][1]


def parse_domain(text: str, src: str = "<domain>") -> Domain:
    form, comments = _sexp(text, src)
    name = _header(form, "domain", src)
    types: tuple[str, ...] = ()
    preds: list[Predicate] = []
    actions: list[Action] = []
    for sec in form[2:]:
        if not isinstance(sec, list) or not sec or not isinstance(sec[0], str):
            raise UserError(f"{src}:{_line(sec, form.line)}: expected a (:section ...)")
        line, key = sec.line, sec[0]
        if key == ":requirements":
            unsupported = [r for r in sec[1:] if r not in (":strips", ":typing")]
            if unsupported:
                raise UserError(f"{src}:{line}: unsupported requirement {unsupported[0]} (STRIPS + typing)")
        elif key == ":types":
            types = tuple(dict.fromkeys(n for n, _ in _typed_list(sec[1:], src, line, False)))
        elif key == ":predicates":
            for p in sec[1:]:
                if not isinstance(p, list) or not p or not isinstance(p[0], str):
                    raise UserError(f"{src}:{_line(p, line)}: expected (Predicate ?x - type ...)")
                preds.append(Predicate(p[0], _dedupe(_typed_list(p[1:], src, p.line, True))))
        elif key == ":action":
            actions.append(_action(sec, src, comments))
        else:
            raise UserError(f"{src}:{line}: unsupported section {key!r}")
    dom = Domain(name, types, tuple(preds), tuple(actions))
    _check_domain(dom, src)
    return dom


def _action(sec: _List, src: str, comments: dict[int, str]) -> Action:
    if len(sec) < 2 or not isinstance(sec[1], str):
        raise UserError(f"{src}:{sec.line}: (:action NAME ...) needs a name")
    parts = dict.fromkeys((":parameters", ":precondition", ":effect"))
    i = 2
    while i < len(sec):
        key = sec[i]
        if key not in parts or i + 1 >= len(sec):
            raise UserError(f"{src}:{sec.line}: action {sec[1]}: unexpected {key!r}")
        parts[key] = sec[i + 1]
        i += 2
    params = parts[":parameters"]
    if not isinstance(params, list):
        raise UserError(f"{src}:{sec.line}: action {sec[1]} needs :parameters (...)")
    effect = _atoms(parts[":effect"] if parts[":effect"] is not None else [], src, sec.line, "effect")
    if not effect:
        raise UserError(f"{src}:{sec.line}: action {sec[1]} has no effect")
    return Action(
        sec[1],
        _typed_list(params, src, sec.line, True),
        _atoms(parts[":precondition"] or [], src, sec.line, "precondition"),
        effect,
        comments.get(sec.line, ""),
    )


def _check_domain(dom: Domain, src: str) -> None:
    preds = {p.name: p for p in dom.predicates}
    for p in dom.predicates:
        for _, t in p.params:
            if t not in dom.types and t != "object":
                raise UserError(f"{src}: predicate {p.name!r} uses undeclared type {t!r}")
    for a in dom.actions:
        variables = dict(a.params)
        for pred, args in a.precondition + a.effect:
            if pred not in preds:
                raise UserError(f"{src}: action {a.name!r} uses unknown predicate {pred!r}")
            if len(args) != preds[pred].arity:
                raise UserError(
                    f"{src}: action {a.name!r}: ({pred} ...) has {len(args)} arguments, "
                    f"declared with {preds[pred].arity}"
                )
            missing = [x for x in args if x not in variables]
            if missing:
                raise UserError(f"{src}: action {a.name!r} uses undeclared variable {missing[0]!r}")


def parse_problem(text: str, src: str = "<problem>") -> Problem:
    form, _ = _sexp(text, src)
    name = _header(form, "problem", src)
    dom, objects, init, goal = "", (), (), None
    for sec in form[2:]:
        if not isinstance(sec, list) or not sec or not isinstance(sec[0], str):
            raise UserError(f"{src}:{_line(sec, form.line)}: expected a (:section ...)")
        key = sec[0]
        if key == ":domain" and len(sec) == 2 and isinstance(sec[1], str):
            dom = sec[1]
        elif key == ":objects":
            objects = _typed_list(sec[1:], src, sec.line, False)
        elif key == ":init":
            init = tuple(a for x in sec[1:] for a in _atoms(x, src, sec.line, "init"))
        elif key == ":goal" and len(sec) == 2:
            goal = _atoms(sec[1], src, sec.line, "goal")
        else:
            raise UserError(f"{src}:{sec.line}: unsupported problem section {key!r}")
    if not goal:
        raise UserError(f"{src}: problem {name!r} has no (:goal ...)")
    return Problem(name, dom, objects, init, goal)


def parse_atoms(text: str, src: str = "<goal>") -> tuple[Atom, ...]:
    """Atoms of '(p a b)' or '(and (p a) (q b))', lower-cased."""
    if not text.strip():
        raise UserError(f"{src}: empty formula")
    form, _ = _sexp(text, src)
    return _atoms(form, src, 1, "goal")
