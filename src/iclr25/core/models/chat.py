"""Chat prompts: render a model's Jinja chat template (read from its GGUF) in a sandbox."""

from __future__ import annotations

from iclr25.core.errors import UserError

ROLES = ("system", "user", "assistant")


def render_chat(template: str | None, messages: list[dict[str, str]], add_generation_prompt: bool = True,
                ) -> str:
    """The prompt for `messages` under `template`.

    >>> t = "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}"
    >>> render_chat(t, [{"role": "user", "content": "hi"}], add_generation_prompt=False)
    '<user>hi'
    """
    if not template:
        raise UserError("this model has no chat template")
    if not isinstance(messages, list) or not messages:
        raise UserError("messages must be a non-empty list of {'role', 'content'} dicts")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or set(m) != {"role", "content"}:
            raise UserError(f"message {i} must be a dict with exactly 'role' and 'content', got {m!r}")
        if m["role"] not in ROLES or not isinstance(m["content"], str):
            raise UserError(f"message {i}: role must be one of {', '.join(ROLES)} and content a string")
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    env = ImmutableSandboxedEnvironment(trim_blocks=False, lstrip_blocks=False)
    return env.from_string(template).render(messages=messages, add_generation_prompt=add_generation_prompt)
