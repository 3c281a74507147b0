"""Underdamped diffusion bridges (Blessing, Berner, Richter, Neumann; ICLR 2025): diffusion samplers for
unnormalised densities — ULA, MCD, CMCD, DIS, DBS and their underdamped versions — on one integrator /
Radon-Nikodym core, with learned step sizes, friction, prior and annealing; the paper's targets; ELBO,
log Ẑ, ESS and Sinkhorn metrics; and the reproduction of the paper's claims."""

from iclr25.core.lazy import lazy_package

__getattr__, __dir__, __all__ = lazy_package(__name__, {
    "controls": ["METHODS", "NetControls"],
    "data": ["BLR_SETS", "TARGETS", "lgcp", "load_blr", "target_by_name"],
    "dynamics": ["INTEGRATORS", "SCHEMES", "Dynamics", "NoControls", "Path"],
    "claims": ["CLAIMS"],
    "experiments": ["run"],
    "kernels": ["a_step", "b_step", "log_normal", "o_log_prob", "o_mean", "o_variance"],
    "metrics": ["elbo", "emc", "ess", "log_z_hat", "mmd", "sinkhorn"],
    "networks": ["PISGRADNet"],
    "params": ["SDEParams", "cosine_profile"],
    "reference": ["laplace_is_log_z"],
    "sampler": ["Sampler", "SamplerConfig"],
    "targets": ["LGCP", "Funnel", "GaussianMixture", "LogisticRegression", "ManyWell", "Seeds",
        "StudentTMixture", "Target", "bayesian_logreg", "from_log_prob", "funnel", "gmm40", "many_well",
        "seeds", "student_t_mixture"],
})
