"""Classical planning (spec §2 step 6) behind one call: `plan(domain, problem, planner)` with pyperplan
(breadth-first search, pure Python), LAPKT 1-BFWS (the paper's planner) or Fast Downward (through
unified-planning), and two plan validators: ours (STRIPS state progression) and unified-planning's."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from iclr25.core.errors import UserError
from iclr25.hive.pddl import Atom, Domain, Problem, check_problem

PLANNERS = ("pyperplan", "lapkt-bfws", "fast-downward")
# A goal of independent atoms costs breadth-first search time doubling with each atom (pyperplan on one
# action: 16 atoms 0.8 s, 20 atoms 22 s of CPU); MuSE's requests need at most 3. Larger goals are refused.
MAX_GOAL_ATOMS = 12
Step = tuple[str, tuple[str, ...]]  # (action, objects)


@dataclass(frozen=True)
class Plan:
    """A sequential plan: the planner's raw order of ground actions, its log and the time it took."""

    steps: tuple[Step, ...]
    planner: str
    raw: str = field(default="", compare=False)  # the planner's own output, for the report
    seconds: float = field(default=0.0, compare=False)

    @property
    def actions(self) -> list[str]:
        return [a for a, _ in self.steps]

    def dag(
        self,
        inputs: tuple[str, ...] = ("text",),
        output: str | None = None,
        order_hint: list[str] | None = None,
    ):
        """The data-flow DAG the chaining step builds from this plan's actions, given the modalities
        the request provides (see chaining.chain)."""
        from iclr25.hive.chaining import chain

        return chain(self.actions, output=output, inputs=inputs, order_hint=order_hint)

    def to_text(self) -> str:
        return "\n".join("(" + " ".join((a, *args)) + ")" for a, args in self.steps)


def plan(domain: Domain, problem: Problem, planner: str = "pyperplan") -> Plan:
    """A plan for `problem`, or a UserError naming the goal atoms no action can reach."""
    if planner not in PLANNERS:
        raise UserError(f"unknown planner {planner!r}; choose from {', '.join(PLANNERS)}")
    if len(problem.goal) > MAX_GOAL_ATOMS:
        raise UserError(f"the goal has {len(problem.goal):,} atoms; at most {MAX_GOAL_ATOMS} are planned "
                        "(search time doubles with each independent atom: 20 atoms take ~20 s)")
    check_problem(domain, problem)
    unreachable = unreachable_goals(domain, problem)
    if unreachable:
        names = ", ".join("(" + " ".join((p, *a)) + ")" for p, a in unreachable)
        raise UserError(f"unreachable goal {names}: no action of domain {domain.name!r} achieves it")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hive-plan-") as tmp:
        dom_f, prob_f = Path(tmp, "domain.pddl"), Path(tmp, "problem.pddl")
        dom_f.write_text(domain.to_pddl())
        prob_f.write_text(problem.to_pddl())
        steps, raw = {"pyperplan": _pyperplan, "lapkt-bfws": _lapkt, "fast-downward": _fast_downward}[
            planner
        ](dom_f, prob_f, Path(tmp))
    result = Plan(tuple(steps), planner, raw, time.perf_counter() - t0)
    if not validate(domain, problem, result):
        raise RuntimeError(f"{planner} returned an invalid plan: {result.to_text()}")
    return result


def _parse_steps(lines: list[str]) -> list[Step]:
    steps = []
    for ln in lines:
        toks = ln.strip().strip("()").lower().split()
        if toks and not ln.lstrip().startswith(";"):
            steps.append((toks[0], tuple(toks[1:])))
    return steps


def _pyperplan(dom_f: Path, prob_f: Path, tmp: Path) -> tuple[list[Step], str]:
    from pyperplan.planner import search_plan
    from pyperplan.search import breadth_first_search

    logging.getLogger().setLevel(logging.WARNING)  # pyperplan logs every stage at INFO
    ops = search_plan(str(dom_f), str(prob_f), breadth_first_search, None)
    if ops is None:
        raise UserError("pyperplan found no plan: the goal is unreachable from the initial state")
    names = [op.name for op in ops]
    return _parse_steps(names), "\n".join(names)


def _lapkt(dom_f: Path, prob_f: Path, tmp: Path) -> tuple[list[Step], str]:
    """LAPKT's 1-BFWS as the paper ran it (its CLI; a subprocess keeps its C++ stdout apart)."""
    script = Path(sys.executable).parent / "lapkt_cmd.py"
    if not script.is_file():
        raise UserError("lapkt is not installed (pip install lapkt==0.2.1 clingo==5.8.3 tarski==0.9.1)")
    plan_f = tmp / "plan.ipc"
    cmd = [
        sys.executable,
        str(script),
        "BFWS",
        "-d",
        str(dom_f),
        "-p",
        str(prob_f),
        "--search_type",
        "1-BFWS",
        "--plan_file",
        str(plan_f),
        "--log_file",
        str(tmp / "log"),
    ]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env, timeout=300)
    if not plan_f.is_file():
        tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        raise UserError(f"lapkt 1-BFWS found no plan ({tail[0][:200]})")
    return _parse_steps(plan_f.read_text().splitlines()), done.stdout


def _fast_downward(dom_f: Path, prob_f: Path, tmp: Path) -> tuple[list[Step], str]:
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    get_environment().credits_stream = None
    up_problem = PDDLReader().parse_problem(str(dom_f), str(prob_f))
    # Fast Downward's translator writes output.sas into the working directory, which unified-planning
    # does not set: two planners running side by side (process workers) would read each other's task.
    with (
        OneshotPlanner(name="fast-downward") as planner,
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.chdir(tmp),
    ):
        res = planner.solve(up_problem)
    if res.plan is None:
        raise UserError(f"Fast Downward found no plan ({res.status.name})")
    lines = [f"({a.action.name} {' '.join(str(p) for p in a.actual_parameters)})" for a in res.plan.actions]
    return _parse_steps(lines), "\n".join(res.log_messages and [m.message for m in res.log_messages] or lines)


# ---- validation ----------------------------------------------------------------------------------


def _ground(action_params: tuple, args: tuple[str, ...], atoms: tuple[Atom, ...]) -> set[Atom]:
    sub = {v: o for (v, _), o in zip(action_params, args, strict=True)}
    return {(p, tuple(sub[x] for x in xs)) for p, xs in atoms}


def validate(domain: Domain, problem: Problem, result: Plan | list[Step]) -> bool:
    """STRIPS progression: each step's action exists, its objects have the parameter types, its
    precondition holds in the current state; the goal holds at the end."""
    steps = result.steps if isinstance(result, Plan) else result
    objects = dict(problem.objects)
    state = set(problem.init)
    acts = {a.name: a for a in domain.actions}
    for name, args in steps:
        a = acts.get(name)
        if a is None or len(args) != len(a.params):
            return False
        if any(objects.get(o) != t for o, (_, t) in zip(args, a.params, strict=True)):
            return False
        if not _ground(a.params, args, a.precondition) <= state:
            return False
        state |= _ground(a.params, args, a.effect)
    return set(problem.goal) <= state


def up_validate(domain: Domain, problem: Problem, result: Plan) -> bool:
    """unified-planning's sequential plan validator on the same plan (the peer check)."""
    from unified_planning.io import PDDLReader
    from unified_planning.plans import ActionInstance, SequentialPlan
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    up_problem = PDDLReader().parse_problem_string(domain.to_pddl(), problem.to_pddl())
    steps = []
    for name, args in result.steps:
        try:
            steps.append(ActionInstance(up_problem.action(name), [up_problem.object(o) for o in args]))
        except Exception:  # unknown names or ill-typed arguments (unified-planning's own errors)
            return False
    with PlanValidator(name="sequential_plan_validator") as v:
        return bool(v.validate(up_problem, SequentialPlan(steps)).status.name == "VALID")


def unreachable_goals(domain: Domain, problem: Problem) -> list[Atom]:
    """Goal atoms that no sequence of actions can make true (delete-free reachability)."""
    objects = dict(problem.objects)
    state = set(problem.init)
    changed = True
    while changed:
        changed = False
        for a in domain.actions:
            for args in _bindings(a.params, objects):
                if _ground(a.params, args, a.precondition) <= state:
                    new = _ground(a.params, args, a.effect) - state
                    if new:
                        state |= new
                        changed = True
    return [g for g in problem.goal if g not in state]


def _bindings(params: tuple, objects: dict[str, str]):
    import itertools

    pools = [[o for o, t in objects.items() if t == typ] for _, typ in params]
    return itertools.product(*pools)
