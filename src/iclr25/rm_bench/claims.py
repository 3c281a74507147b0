"""RM-Bench's claims and the rules that decide them (pure data: `iclr25 report` reads this without
torch). Scores are in points (percent); an overall level is the mean over the three shipped domains, its
interval from the spread over the benchmark's items (`metric.item_contributions`)."""

from iclr25.core.claims import Claim
from iclr25.core.rules import All, AnyOf, Diff, Each, Mean, Named, Rule, Test, Value

MATH_NOTE = "3 of 4 domains (chat, code, safety); math_filtered.json is not shipped"


def _over_items(key: str, label: str) -> Value:
    """An overall score with its standard error over items."""
    return Value(key, label, se=f"{key}_se")


LENGTH = Named("L", All(Test(_over_items("length_easy_minus_hard", "length scorer's Easy − Hard"), ">=", 60),
             Test(_over_items("length_hard", "length scorer's Hard"), "<", 50)))
MARKDOWN = Named("M", All(
    Test(_over_items("markdown_easy_minus_normal", "markdown scorer's Easy − Normal"), ">", 0),
    Test(_over_items("markdown_normal_minus_hard", "markdown scorer's Normal − Hard"), ">", 0)))
RANDOM = Test(Value("random_max_dev_pts", "largest |random scorer − 50| over the three levels"), "<=", 4)

SEEDS = "fold seeds"
SUBTLE = Rule(All(
    Test(Diff("{c}_normal_safety", "{c}_normal_chat", "Normal(safety) − Normal(chat)", over=SEEDS), ">=", 10),
    Test(Diff("{c}_normal_safety", "{c}_normal_code", "Normal(safety) − Normal(code)", over=SEEDS), ">=", 10),
    Test(Mean("{c}_normal_code", "Normal(code)", over=SEEDS), ">=", 40),
    Test(Mean("{c}_normal_code", "Normal(code)", over=SEEDS), "<=", 60)))

LM_ORDER = Named("the order", All(Test(_over_items("avg_easy_minus_normal", "Easy − Normal"), ">", 0),
                                  Test(_over_items("avg_normal_minus_hard", "Normal − Hard"), ">", 0)))

CLAIMS = [
    Claim(key="style_probe",
          statement="Reward models prefer style over substance: accuracy falls from Easy (chosen answer more "
                    "formatted) to Normal (same style) to Hard (chosen answer plainer); a pure style scorer "
                    "shows the pattern in its extreme form.",
          paper="Easy ≫ Normal ≫ Hard for nearly every one of ~40 RMs; the best RM has Hard 46.6 < 50 "
                "(random)",
          setup=f"every item of chat, code and safety ({MATH_NOTE}), scored by a length scorer, a "
                "markdown-count scorer and a random scorer (seed 0, the control)",
          rule=Rule(All(LENGTH, MARKDOWN, RANDOM), partial=AnyOf(LENGTH, MARKDOWN))),
    Claim(key="subtle_content_hard",
          statement="Subtle content errors are hard to detect: RMs are near chance on code, while safety "
                    "(refusal vs compliance) is easy.",
          paper="best RM: Chat 69.5, Code 54.5, Safety 95.7; code and math near chance for nearly all RMs",
          setup="Bradley–Terry reward models trained here on same-style pairs, 5-fold cross-validation by "
                "prompt, 3 fold seeds; Normal accuracy per domain. Quick: TF-IDF features; full: TF-IDF and "
                "MiniLM",
          rule=Each(SUBTLE, ("tfidf", "minilm"), "feature set", measured_only=True)),
    Claim(key="style_bias_real_lm",
          statement="A preference-tuned language model used as an implicit (reference-free) reward model "
                    "shows the same style bias: Easy > Normal > Hard, with Hard below chance.",
          paper="best RM (Skywork-Reward-Llama-3.1-8B): Easy 89.0, Normal 74.7, Hard 46.6",
          setup="SmolLM2-135M-Instruct, reference-free mean token log-prob of the response (cut to 256 "
                "tokens) after the chat-templated prompt, 12 fixed ids per domain (36 items); the summed "
                "log-prob is reported too. Full profile only",
          rule=Rule(All(LM_ORDER, Test(_over_items("avg_hard", "Hard"), "<", 50)), partial=LM_ORDER)),
    Claim(key="leaderboard",
          statement="Across ~40 reward models the best reaches only 70.1 average accuracy on RM-Bench.",
          paper="Skywork-Reward-Llama-3.1-8B Avg 70.1 (Chat 69.5, Math 60.6, Code 54.5, Safety 95.7)",
          not_testable="needs the 8B–340B reward models' weights; the scoring path "
                       "(HFSequenceClassifierScorer -> evaluate) is tested on a tiny local model"),
    Claim(key="dpo_vs_classifier",
          statement="DPO models used as implicit reward models beat sequence classifiers trained on the same "
                    "preference data, and lose much of that edge without their reference model.",
          paper="tulu-v2.5 13B DPO vs classifier RMs on the same data (Table 4)",
          not_testable="needs the tulu-2.5 13B DPO, reference and classifier models; the implicit reward "
                       "with and without reference is tested on tiny inputs"),
    Claim(key="policy_correlation",
          statement="RM-Bench accuracy correlates with the downstream performance of policies trained with "
                    "those reward models (PPO).",
          paper="positive correlation between RM-Bench scores and PPO policy scores (8B policies)",
          not_testable="needs PPO on 8B policies (GPU-days); the correlation of benchmark and policy scores "
                       "is tested on tiny inputs"),
]
