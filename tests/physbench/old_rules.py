"""The criteria this paper used before rules were data (commit 89e0144, `decide_*` in experiments.py),
written as rules on the new measurements so that their false-pass rate under no effect can be measured
beside the new ones: every one compared point estimates with its bound."""

from iclr25.core.rules import All, Diff, Mean, Rule, Test

# physagent_synth: mean agent − base ≥ 10 points and ≥ 18.4 % relative, blind ≤ 30 (points, over seeds)
OLD_PHYSAGENT = Rule(All(Test(Diff("agent_heldout", "base_heldout"), ">=", 10, by="point"),
                         Test(Mean("agent_rel_gain_pct"), ">=", 18.4, by="point"),
                         Test(Mean("blind_heldout"), "<=", 30, by="point")),
                     partial=Test(Diff("agent_heldout", "base_heldout"), ">=", 3, by="point"))
# priors_not_scale: base(4x) − base(1x) < agent(1x) − base(1x), i.e. agent(1x) > base(4x), mean over seeds
OLD_PRIORS = Rule(Test(Diff("prior_agent_1x", "prior_base_4x"), ">", 0, by="point"))
# embodied_transfer: success pooled over the three tasks, agent ≥ base + 10 points
OLD_EMBODIED = Rule(Test(Diff("embodied_agent_all", "embodied_base_all", over="episodes"), ">=", 10,
                         by="point"))
