"""Whether a sentence the `rules` distiller kept is a standing rule a person plainly stated.

What the rules store active is injected into every later session and matched against every
prompt, so it has to be right whoever wrote it. Only one thing carries across authors without a
model: a person stating, in so many words, how the project is done. Everything else the rules
find waits in the inbox as a suggestion. A sentence is `standing` when all of these hold:

- it says it holds beyond the task at hand: a durable word ("always", "never", "from now on",
  "by default", "in this repo") or a replacement ("we use X, not Y", "use X instead of Y");
- it is addressed to the assistant or speaks for the project: an instruction ("always run …",
  "don't …", "please …"), a person speaking ("we", "I", "you"), or an explicit project scope
  ("from now on", "in this repo"), not a description of how a feature behaves ("the banner
  should always be visible");
- it names something concrete that a later session can act on (`concrete`): a tool, a command, a
  file or path, a flag, an identifier, or a class of things in a code base ("generated files",
  "the linter", "commits"), never only the thing at hand ("this file", "… it").

An answer to the assistant's question and a rejection reason are the person's own words at a
decision point, but most of them settle the task at hand ("Which approach? → the second one").
They are standing when they pass the test above, or when they name a tool, command or file as
the project's way: a rejection reason that tells the assistant which tool to use ("use uv, the
lockfile depends on it"), an answer to a question about what the project uses or sets up, or where
something lives ("Which linters should we set up? → Ruff + mypy", "Where should the config
live? → pyproject.toml").
"""

from __future__ import annotations

import re

from . import rules_patterns as pat

I = re.IGNORECASE

#: well-known developer tools, runtimes, languages, services and formats, lowercased: naming
#: one is naming something a later session can act on
TOOLS = frozenset("""
npm pnpm yarn bun deno node nodejs npx corepack nvm volta uv pip pipx poetry pdm conda mamba rye hatch venv virtualenv
pyenv cargo rustup go gradle maven mvn sbt bundler bundle gem rake composer dotnet nuget mix rebar cabal stack opam
brew homebrew apt dnf pacman nix make cmake ninja bazel meson just tox nox
python python3 ruby rust golang java kotlin swift typescript javascript php elixir erlang haskell scala lua perl bash
zsh fish powershell sql graphql
pytest unittest vitest jest mocha jasmine ava playwright cypress selenium puppeteer rspec minitest junit testify
hypothesis karma storybook
ruff flake8 pylint black isort mypy pyright pyre pytype bandit eslint prettier biome tslint stylelint rubocop
clippy rustfmt gofmt golangci-lint shellcheck hadolint tsc tscgo swc esbuild vite webpack rollup parcel turbopack
babel tsx ts-node nodemon
git gh github gitlab bitbucket jj pre-commit husky lefthook commitlint changesets semantic-release
docker podman compose kubectl kubernetes k8s helm terraform ansible pulumi vagrant systemd nginx caddy
postgres postgresql psql mysql mariadb sqlite sqlite3 redis mongodb mongo dynamodb supabase firebase prisma drizzle
sqlalchemy alembic knex typeorm sequelize django flask fastapi starlette pydantic celery rails sinatra laravel
express nestjs nextjs next nuxt svelte sveltekit react vue angular solid astro remix tailwind tailwindcss htmx
jquery zod yup joi trpc axios httpx requests aiohttp urllib3 pandas numpy polars jupyter
aws gcp azure vercel netlify heroku fly cloudflare s3 lambda
json yaml toml markdown csv protobuf grpc openapi swagger
vscode vim neovim emacs tmux ssh rsync curl wget jq sed awk grep ripgrep rg fd sudo chmod chown xargs
sentry datadog grafana prometheus otel opentelemetry logging structlog loguru
""".split())

#: classes of things in a code base: "never commit generated files", "always run the linter"
ARTIFACTS = frozenset("""
file files folder folders directory directories repo repository codebase module modules package packages dependency
dependencies lockfile lockfiles tests suite spec specs linter linters formatter formatters typecheck typechecker
docstring docstrings comments readme changelog docs commit commits committing branch branches push pushing pr prs
merge rebase ci pipeline workflow workflows build builds deploy deployment migration migrations schema database db
endpoint endpoints api apis env secrets credentials config configuration script scripts command commands cli flag
flags logs logging import imports exports function functions class classes variable variables component components
hooks worktree worktrees container containers lint linting formatting cache dockerfile makefile
""".split())

_WORD = re.compile(r"[\w][\w.+#-]*")
#: a token shaped like code: `quoted`, --flag, a path, file.ext, snake_case, camelCase, ENV_VAR, Node 22
_CODE = re.compile(
    r"`[^`]+`|(?<![\w-])--?[a-z][\w-]+|(?:^|\s)(?:\.{1,2}/|~/|/)[\w.-]+|\b[\w.-]+/(?:[\w.-]+/)+|\b[\w.-]+/(?=[\s,;)]|$)|"
    r"\b[\w-]+/[\w-]+\.[a-z]+\b|\b[\w-]+\.(?:json|ya?ml|toml|md|txt|"
    r"ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|swift|sh|lock|cfg|ini|env|sql|html|css|scss|xml|gradle|csproj)\b|"
    r"\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Z]{2,}[A-Z0-9]*=\S+|"
    r"\b(?:node|python|java|ruby|go|php|postgres|postgresql)\s?\d+(?:\.\d+)*\b"
)
#: the person speaking, to the assistant or for the project (English, German, Spanish)
_VOICE = re.compile(r"\b(?:we|i|you|our|us|let'?s|wir|ich|du|uns|unser\w*|nosotros|usamos|usemos|prefiero|"
                    r"preferimos)\b", I)
_SCOPE = re.compile(r"\b(?:from now on|going forward|from here on|in the future|by default|in this (?:repo|repository|"
                    r"project|codebase)|ab jetzt|in diesem (?:repo|projekt)|de ahora en adelante|en este "
                    r"(?:repo|proyecto))\b", I)
_LEAD = r"^(?:(?:ok(?:ay)?|so|and|also|but|no|yes|then|now|actually|btw|fyi|note|remember|bitte|por favor)[,.:!]?\s+)*"
#: an instruction: the sentence opens with a verb, a durable word or a prohibition
_INSTRUCTION = re.compile(
    _LEAD + r"(?:please |pls )?(?:always|never|don'?t|do not|use|run|keep|make sure|be sure|ensure|prefer|avoid|stop|"
    r"put|write|add|commit|push|name|place|store|install|call|import|test|format|lint|check|follow|stick|switch|"
    r"enable|disable|set|pin|mock|log|deploy|build|only|immer|nie|niemals|verwende|nutze|nimm|benutze|siempre|"
    r"nunca|usa|utiliza|no uses)\b", I)
#: a flag, a path or a file name
_FILEISH = re.compile(r"^--?[a-z][\w-]+$|/|^[\w.-]+\.(?:json|ya?ml|toml|md|txt|ts|tsx|js|jsx|mjs|cjs|py|rb|go|rs|java|kt|"
                      r"swift|sh|lock|cfg|ini|env|sql|html|css|scss|xml|gradle|csproj)$", I)
_CLAUSE = re.compile(r"[,;:]\s|\s[-–—]\s")
#: the person telling what already happened ("I already ran it", "we just did")
_ALREADY = re.compile(r"\b(?:i|we)(?:'ve| have)? (?:already|just)\b", I)
#: what happened, not what holds: "I never asked for a dashboard", "we always had trouble with …"
#: (a passive "is always used" is present, and stays)
_PAST = re.compile(r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bget )\b(?:always|never)\s+"
                   r"(?:(?!(?:need|embed|proceed|exceed|feed|seed|speed|shed)\b)\w+ed|had|was|were|"
                   r"did|got|went|saw|said|knew|thought|made|found|came|ran|wrote|told|took|gave|meant|felt|"
                   r"understood|heard|seen|done|been)\b", I)
#: what keeps happening, not what to do: "the tests always fail when …", "we never get a warning",
#: "you always forget …"
_HAPPENS = re.compile(r"\b(?:always|never)\s+(?:get|gets|see|sees|fails?|breaks?|crash(?:es)?|happens?|seems?|"
                      r"forgets?|ends? up|has to|have to|manages? to|works?|shows? up|returns? an? (?:error|empty))\b", I)
#: a rejection reason that tells the assistant which tool to use: "use uv", "don't use sudo", "switch to pnpm"
_TOOL_INSTRUCTION = re.compile(
    r"^(?:no[,.!]?\s+)?(?:please\s+)?(?:use|switch to|stick (?:to|with)|prefer|keep using|go with|(?:don'?t|do not|"
    r"never|avoid) (?:use|using|call|calling|install|installing)?)\s*(?:the\s+)?(`[^`]+`|[\w.@/+-]+)", I)
#: a question about what the project uses or sets up, or a choice said to hold from now on
_PROJECT_QUESTION = re.compile(
    r"\b(?:which|what)\b[^?]{0,60}\b(?:should|do|shall|will)\b[^?]{0,20}\b(?:we|i|you|the project)\b[^?]{0,30}\b(?:use|"
    r"set up|setup|adopt|prefer|standardi[sz]e on|go with|run|install|configure|pick|choose)\b|"
    r"\bwhere\b[^?]{0,40}\b(?:should|do|does|shall|will)\b[^?]{0,40}\b(?:live|go|belong|be stored|be kept)\b|"
    r"\b(?:default|convention|going forward|from now on|for the project|project-wide|for this (?:repo|project))\b", I)


def words(text: str) -> set[str]:
    return {w.strip(".-+").lower() for w in _WORD.findall(text)}


def names_tool(text: str) -> bool:
    """A well-known tool, or a token shaped like code (a command, a flag, a file, a path, an identifier)."""
    return bool(words(text) & TOOLS) or bool(_CODE.search(text))


def names_command(token: str) -> bool:
    """The object of "use …" in a rejection reason is a tool, flag, file or path, or a quoted
    command line: not a bare identifier, which is most often the code at hand ("use parseDate")."""
    bare = token.strip("`")
    if bare.lower() in TOOLS or bare.split(" ")[0].lower() in TOOLS:
        return True
    return bool(_FILEISH.search(bare)) or (token.startswith("`") and " " in bare)


def concrete(text: str) -> bool:
    """Names something a later session can act on: a tool or code-shaped token, or a class of
    things in a code base."""
    return names_tool(text) or bool(words(text) & ARTIFACTS)


def _plain(sentence: str) -> str:
    return sentence.replace("’", "'")


def _guarded(text: str) -> bool:
    """A question, hedge, one-off request, leave for the task at hand or narration."""
    bare = text.replace("`", "")
    return (bare.rstrip().endswith("?") or bool(pat.HEDGE.search(bare)) or bool(pat.TRANSIENT.search(bare))
            or bool(pat.PERMISSION.match(bare)) or bool(pat.NARRATION.match(bare)) or bool(_ALREADY.search(bare))
            or bool(_PAST.search(bare)) or bool(_HAPPENS.search(bare)))


def standing(sentence: str) -> bool:
    """A standing instruction: durable or a replacement, addressed, concrete, not about the thing at hand."""
    text = _plain(sentence)
    bare = text.replace("`", "")
    if not pat.STANDING.search(bare) or pat.ONE_OFF.search(bare) or _guarded(text):
        return False
    return addressed(bare) and concrete(text)


def addressed(text: str) -> bool:
    """Said to the assistant or for the project: a person speaking, a project scope, or a clause
    that opens with an instruction ("To keep pnpm, enable corepack")."""
    if _VOICE.search(text) or _SCOPE.search(text):
        return True
    return any(_INSTRUCTION.match(clause.strip()) for clause in _CLAUSE.split(text))


def standing_reason(sentence: str) -> bool:
    """A rejection reason or plan feedback that states the project's way: a standing instruction,
    or an instruction naming the tool, command or file to use ("use uv, the lockfile needs it")."""
    text = _plain(sentence)
    if standing(text):
        return True
    found = _TOOL_INSTRUCTION.match(text.strip())
    if found is None or _guarded(text):
        return False
    first_clause = _CLAUSE.split(text, maxsplit=1)[0]
    return names_command(found.group(1)) and not pat.ONE_OFF.search(first_clause.replace("`", ""))


def standing_answer(line: str, arrow: str = "→") -> bool:
    """An answer to the assistant's question (`Question? → Answer`) that settles how the project
    is done: the answer is a standing instruction, or it names a tool, command or file in reply to
    a question about what the project uses or sets up."""
    question, _, answer = _plain(line).partition(arrow)
    answer = answer.strip().strip('"')
    if standing(answer):
        return True
    if pat.ONE_OFF.search(answer.replace("`", "")) or pat.TRANSIENT.search(line) or _ALREADY.search(answer):
        return False
    return bool(_PROJECT_QUESTION.search(question) or pat.DURABLE.search(answer)) and names_tool(answer)
