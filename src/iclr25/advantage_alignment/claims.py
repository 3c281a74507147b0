"""Advantage Alignment's claims and the rules that decide them (pure data: `iclr25 report` reads this
without torch). Rewards are per step (IPD, Coin Game) or per round (Negotiation), one value per training
seed; each rule reads the 95% interval over seeds, never a bare mean."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AllOf, Diff, Each, Mean, Rule, Test

# Poster (repo poster.png), AdAlign on the IPD: P(C | start, CC, CD, DC, DD), state written (own, opp).
PAPER_IPD_POLICY = {"start": 1.00, "CC": 0.97, "CD": 0.15, "DC": 0.96, "DD": 0.11}
PAPER_SPEEDUP = 10.0  # poster: "runs 10x faster than other opponent-shaping algorithms"
EXPLOIT_BOUND = -2.1  # tit-for-tat gets -2.06/step against always-defect over T=16; random -2.5
NEGOTIATION_VS_AD = 4.3  # spec 02 §4b: defecting back gets 4.5 per round, always-cooperate 3.75
TIMED_BATCHES = ("64", "256", "1024")  # full; quick times the first two

IPD_SETUP = ("IPD self-play, memory-1 tabular policies and a time-aware tabular critic, T=16, gamma 0.96, "
             "5 seeds (two independent learners each), evaluated frozen on 1,024 fresh episodes")

CLAIMS = [
    Claim(key="ipd_reciprocity",
          statement="On the iterated prisoner's dilemma AdAlign learns reciprocity (tit-for-tat-like) in "
                    "self-play, where naive policy gradient learns to always defect.",
          paper="poster: P(C) start 1.00, CC 0.97, CD 0.15, DC 0.96, DD 0.11 (GRU policy, T=16, gamma 0.96)",
          setup=IPD_SETUP + "; P(C|CD) is the mean of both seats",
          rule=AllOf({
              "AdAlign cooperates": Rule(Test(Mean("adalign_reward", "AdAlign reward/step"), ">=", -1.6)),
              "naive PG defects": Rule(Test(Mean("naive_reward", "naive PG reward/step"), "<=", -1.9)),
              "AdAlign retaliates": Rule(Test(Mean("adalign_p_coop_CD", "AdAlign P(C|CD)"), "<=", 0.2)),
          })),
    Claim(key="not_exploitable",
          statement="AdAlign cannot be exploited: against always-defect it defects back.",
          paper="AA defects against AD (Coin Game league: AdAlign -0.08 vs AD 0.15 per step)",
          setup="the paper's protocol: the IPD self-play agents above, frozen, each seat played against "
                "always-defect (tit-for-tat gets -2.06 over T=16, random -2.5). Reported beside it, not "
                "judged: an AdAlign learner trained against always-defect under the library's default "
                "discounted past term and under the official code's running mean",
          rule=Rule(Test(Mean("selfplay_frozen_vs_defect", "frozen AdAlign's reward/step vs always-defect"),
                         ">=", EXPLOIT_BOUND),
                    partial=Test(Mean("selfplay_frozen_vs_defect", "frozen AdAlign's reward/step vs "
                                      "always-defect"), ">=", EXPLOIT_BOUND, by="point"))),
    Claim(key="coin_game",
          statement="In the Coin Game AdAlign agents learn to pick up mostly their own coins in self-play; "
                    "naive learners take any coin.",
          paper="Coin Game league: AdAlign self-play 0.28 reward/step each (3x3, T=50, gamma 0.96)",
          setup="full profile: 3x3 torus, T=50, gamma 0.96, MLP policies, 600 iterations of 128 episodes, "
                "3 seeds per algorithm, own-coin fraction of frozen agents on 1,024 fresh episodes",
          rule=Rule(All(Test(Mean("adalign_own_coin_fraction", "AdAlign own-coin fraction"), ">=", 0.8),
                        Test(Mean("naive_own_coin_fraction", "naive PG own-coin fraction"), "<=", 0.65)),
                    partial=Test(Diff("adalign_own_coin_fraction", "naive_own_coin_fraction",
                                      "own-coin fraction, AdAlign − naive PG"), ">", 0.1))),
    Claim(key="negotiation",
          statement="In the Negotiation game Proximal Advantage Alignment (AdAP) finds the cooperative split "
                    "in self-play, where PPO ends at the greedy one, and is not exploited by always-defect.",
          paper="qualitative only (no table recovered): AA cooperates and is not exploited by AD",
          setup="full profile: 3 items, 50 rounds, gamma 0.96, MLP policies (64 units), 320 iterations of "
                "128 episodes, 3 seeds per algorithm; welfare = both players' reward per round (greedy 9, "
                "cooperative 15); the frozen AdAP agents also play always-defect (defecting back gets 4.5 "
                "per round, always-cooperate 3.75)",
          rule=AllOf({
              "cooperation": Rule(
                  All(Test(Mean("adap_welfare", "AdAP self-play welfare/round"), ">=", 12),
                      Test(Mean("ppo_welfare", "PPO self-play welfare/round"), "<=", 10)),
                  partial=Test(Diff("adap_welfare", "ppo_welfare", "welfare/round, AdAP − PPO"), ">", 1)),
              "not exploited": Rule(
                  Test(Mean("adap_vs_defect", "frozen AdAP's reward/round vs always-defect"), ">=",
                       NEGOTIATION_VS_AD)),
          })),
    Claim(key="cheaper_than_lola",
          statement="Advantage Alignment is first order and much cheaper per update than LOLA-style shaping.",
          paper="poster: 'runs 10x faster than other opponent-shaping algorithms' (A100, JAX)",
          setup="IPD with the paper's GRU policies (hidden 32, T=16): CPU time of one two-player update, "
                "LOLA-DiCE and AdAlign alternated within each repeat (quick 5, full 9 repeats), at each "
                "batch of a sweep (quick 64 and 256)",
          timing=True,
          rule=Each(Rule(Test(Mean("ratio_b{c}", "LOLA-DiCE / AdAlign CPU time per update, batch {c}",
                                   over="repeats", log=True), ">=", 3),
                         partial=Test(Mean("ratio_b{c}", "LOLA-DiCE / AdAlign CPU time per update, batch {c}",
                                           over="repeats", log=True), ">", 1)),
                    TIMED_BATCHES, "batch", measured_only=True)),
    Claim(key="melting_pot",
          statement="On Melting Pot 2.0 Commons Harvest Open, AdAlign beats PPO and the MP2 baselines.",
          paper="normalised focal return AdAlign 1.63 vs PPO 0.94 (avg of scenarios 0/1)",
          not_testable="dm-meltingpot 2.4.1 is an sdist whose setup.py downloads assets at build time "
                       "and needs TensorFlow; the paper's scale (GTrXL, 7 players, pixels, GPU) is out of "
                       "reach on 2 CPU cores. The MP2 score normaliser ships (melting_pot.load_bounds)"),
]
