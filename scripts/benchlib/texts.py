"""Seeded text for generated sessions: prompts, prose, code, logs, fake secrets.

Everything is drawn from a `random.Random` the caller seeds, so a tree is reproducible.
Bulk text (file contents, logs) is sampled from pools of lines built once per seed, which
keeps generating hundreds of megabytes fast. Secrets are fake: random strings in the real
shapes (`AKIA` + 16, `ghp_` + 36, credentialed URLs). They are random on purpose: the
redactor leaves values containing EXAMPLE or FAKE alone as placeholders, so those would
not exercise it.
"""

from __future__ import annotations

import base64
import random
import string

WORDS = (
    "the a to of and in is that for it on with as this be are we by not or from at an can if "
    "will you but all so one when which their there use has more out then them these some would "
    "function module config request response cache queue worker handler schema migration index "
    "query table column service client server token session user account invoice order payment "
    "build test fixture mock runner deploy release branch commit merge review lint format type "
    "error exception retry timeout backoff lock transaction rollback commit batch stream buffer "
    "parser tokenizer render component hook state effect router store action reducer selector "
    "endpoint route middleware auth permission role scope tenant project workspace package "
    "dependency version upgrade pin lockfile script command flag option argument default value"
).split()

PACKAGES = ("pnpm", "npm", "yarn", "uv", "poetry", "pip", "cargo", "bun", "go", "make")
TOOLS = ("vitest", "jest", "pytest", "ruff", "eslint", "prettier", "mypy", "black", "biome", "tsc")
AREAS = ("the API layer", "migrations", "the CLI", "React components", "the worker", "SQL queries",
         "test fixtures", "the billing module", "shell scripts", "the build")
ENVS = ("OPENSSL_DIR", "DATABASE_URL", "PKG_CONFIG_PATH", "JAVA_HOME", "NODE_OPTIONS", "RUST_LOG")
OSES = ("macOS", "Linux", "Windows", "Alpine", "arm64", "WSL")

DURABLE = (
    "In this repo we use {pkg}, never {pkg2}.",
    "Please don't use {thing} in {area}; {tool} only.",
    "We always run {tool} before committing.",
    "I prefer {tool} over {tool2} for {area}.",
    "We decided to move {area} to {tool} because the old setup kept breaking CI.",
    "Let's go with {pkg} for {area} since it caches much better.",
    "The fix was to pin {thing} to the previous minor version.",
    "It turns out {area} only works with {env} set.",
    "On {os} the build needs {env} set before {tool} runs.",
    "To release, run `{pkg} run release` from a clean main branch.",
    "To deploy {area}, run `make deploy` after the tag is pushed.",
    "Never commit generated files under dist/ in this project.",
)

TASKS = (
    "Can you look at why {file} fails on CI?",
    "Add pagination to the {thing} endpoint in {file}.",
    "Refactor {file} so the {thing} logic lives in one place.",
    "Run the tests again and tell me what still fails.",
    "That looks right. Commit it with a short message.",
    "Hmm, the {thing} still shows the old value after reload. Check {file}.",
    "Write a test for the {thing} edge case we just hit.",
    "Rename {thing} to something clearer across the codebase.",
    "Why is {file} so slow on large inputs?",
    "Explain what {file} does before you change it.",
    "ok go ahead",
    "continue",
)

SECRETS = (
    "AKIA{upper16}",
    "ghp_{alnum36}",
    "postgres://app_user:{lower12}@db.internal.example:5432/app",
    "AWS_SECRET_ACCESS_KEY={alnum40}",
    "mysql://root:hunter2{lower6}@127.0.0.1:3306/shop",
)


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(WORDS, k=n))


def sentence(rng: random.Random) -> str:
    text = words(rng, rng.randint(6, 22))
    return text[0].upper() + text[1:] + "."


def prose(rng: random.Random, chars: int) -> str:
    """Assistant-style prose: paragraphs of sentences, sometimes a list or a code span."""
    out: list[str] = []
    size = 0
    while size < chars:
        para = " ".join(sentence(rng) for _ in range(rng.randint(2, 5)))
        if rng.random() < 0.2:
            para += "\n\n" + "\n".join(f"- `{rng.choice(WORDS)}_{rng.choice(WORDS)}`: {sentence(rng)}"
                                        for _ in range(rng.randint(2, 5)))
        out.append(para)
        size += len(para) + 2
    return "\n\n".join(out)[:chars]


def file_name(rng: random.Random) -> str:
    folder = rng.choice(("src", "src/api", "src/components", "lib", "tests", "app/models", "pkg/store"))
    ext = rng.choice((".py", ".ts", ".tsx", ".go", ".rs", ".sql"))
    return f"{folder}/{rng.choice(WORDS)}_{rng.choice(WORDS)}{ext}"


def fill(rng: random.Random, template: str) -> str:
    return template.format(
        pkg=rng.choice(PACKAGES), pkg2=rng.choice(PACKAGES), tool=rng.choice(TOOLS), tool2=rng.choice(TOOLS),
        area=rng.choice(AREAS), thing=f"{rng.choice(WORDS)}_{rng.choice(WORDS)}", env=rng.choice(ENVS),
        os=rng.choice(OSES), file=file_name(rng),
    )


def secret(rng: random.Random) -> str:
    def pick(alphabet: str, n: int) -> str:
        return "".join(rng.choices(alphabet, k=n))

    return rng.choice(SECRETS).format(
        upper16=pick(string.ascii_uppercase + "234567", 16), alnum36=pick(string.ascii_letters + string.digits, 36),
        alnum40=pick(string.ascii_letters + string.digits + "/+", 40), lower12=pick(string.ascii_lowercase, 12),
        lower6=pick(string.ascii_lowercase, 6),
    )


def image_b64(rng: random.Random, size: int) -> str:
    """A base64 blob of about `size` characters that starts like a PNG."""
    raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(max(size * 3 // 4 - 8, 16))
    return base64.b64encode(raw).decode("ascii")


class Pools:
    """Line pools sampled for bulk text; built once per generator."""

    def __init__(self, rng: random.Random) -> None:
        self.code = [self._code_line(rng) for _ in range(3000)]
        self.log = [self._log_line(rng) for _ in range(2000)]

    @staticmethod
    def _code_line(rng: random.Random) -> str:
        a, b, c = rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)
        shapes = (
            f"def {a}_{b}(self, {c}: str) -> None:",
            f"    return self.{a}.{b}({c}, timeout={rng.randint(1, 90)})",
            f"export function {a}{b.title()}({c}: string): Promise<void> {{",
            f"  const {a} = await {b}.{c}({{ retries: {rng.randint(0, 5)} }});",
            f"    if {a} is None or not {b}:",
            f"        raise {a.title()}Error(f\"{b} {{{c}!r}} is missing\")",
            f"SELECT {a}, {b} FROM {c}s WHERE id = $1 ORDER BY {a} LIMIT {rng.randint(1, 500)};",
            f"// {sentence(rng)}",
            f"# {sentence(rng)}",
            "}",
            "",
        )
        return rng.choice(shapes)

    @staticmethod
    def _log_line(rng: random.Random) -> str:
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        shapes = (
            f"tests/test_{a}.py::test_{b}_{rng.choice(WORDS)} PASSED{' ' * rng.randint(1, 20)}"
            f"[{rng.randint(1, 99):3d}%]",
            f"tests/test_{a}.py::test_{b} FAILED",
            f"  src/{a}/{b}.ts:{rng.randint(1, 900)}:{rng.randint(1, 80)} - error TS2345: Argument of type '{a}' "
            f"is not assignable to parameter of type '{b}'.",
            f"[{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}] "
            f"INFO {a}.{b}: {sentence(rng)}",
            f"  ✓ {a} {b} ({rng.randint(1, 400)}ms)",
            f"E       AssertionError: assert {rng.randint(0, 9)} == {rng.randint(0, 9)}",
            f"warning: unused variable `{a}_{b}`",
        )
        return rng.choice(shapes)

    def code_block(self, rng: random.Random, chars: int) -> str:
        """File content with `cat -n` style line numbers, as the Read tool returns it."""
        lines = rng.choices(self.code, k=max(chars // 34, 1))
        return "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(lines, start=1))

    def log_block(self, rng: random.Random, chars: int) -> str:
        return "\n".join(rng.choices(self.log, k=max(chars // 60, 1)))
