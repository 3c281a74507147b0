"""Underdamped diffusion bridges (Blessing, Berner, Richter, Neumann; ICLR 2025): diffusion samplers for
unnormalised densities — ULA, MCD, CMCD, DIS, DBS and their underdamped versions — on one integrator /
Radon-Nikodym core, with learned step sizes, friction, prior and annealing; the paper's targets; ELBO,
log Ẑ, ESS and Sinkhorn metrics; and the reproduction of the paper's claims."""

from iclr25.core.registry import make_paper
from iclr25.underdamped_bridges.controls import METHODS, NetControls
from iclr25.underdamped_bridges.data import BLR_SETS, TARGETS, lgcp, load_blr, target_by_name
from iclr25.underdamped_bridges.dynamics import INTEGRATORS, SCHEMES, Dynamics, NoControls, Path
from iclr25.underdamped_bridges.experiments import CLAIMS, run
from iclr25.underdamped_bridges.kernels import a_step, b_step, log_normal, o_log_prob, o_mean, o_variance
from iclr25.underdamped_bridges.metrics import elbo, emc, ess, log_z_hat, sinkhorn
from iclr25.underdamped_bridges.networks import PISGRADNet
from iclr25.underdamped_bridges.params import SDEParams, cosine_profile
from iclr25.underdamped_bridges.reference import laplace_is_log_z
from iclr25.underdamped_bridges.sampler import Sampler, SamplerConfig
from iclr25.underdamped_bridges.targets import (
    LGCP,
    Funnel,
    GaussianMixture,
    LogisticRegression,
    ManyWell,
    Seeds,
    Target,
    bayesian_logreg,
    from_log_prob,
    funnel,
    gmm40,
    many_well,
    seeds,
)

PAPER = make_paper("underdamped_bridges", CLAIMS, run)

__all__ = [
    "BLR_SETS", "CLAIMS", "INTEGRATORS", "LGCP", "METHODS", "PAPER", "SCHEMES", "Dynamics", "Funnel",
    "GaussianMixture", "LogisticRegression", "ManyWell", "NetControls", "NoControls", "PISGRADNet", "Path",
    "Sampler", "SamplerConfig", "SDEParams", "Seeds", "TARGETS", "Target", "a_step", "b_step",
    "bayesian_logreg", "cosine_profile", "elbo", "emc", "ess", "from_log_prob", "funnel", "gmm40",
    "laplace_is_log_z", "lgcp", "load_blr", "many_well", "seeds",
    "log_normal", "log_z_hat", "o_log_prob", "o_mean", "o_variance", "run", "sinkhorn", "target_by_name",
]
