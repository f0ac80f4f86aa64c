"""The phrases the `rules` distiller keeps, in English, German and Spanish.

Each `Rule` names its kind, the words it cannot match without (`anchors`) and its pattern;
the first rule that matches wins. `rules_for(words)` returns, in order, only the rules with
an anchor among a sentence's words, so a sentence with none of them (most sentences) costs
one set lookup per word and never reaches a regular expression. Patterns run on the sentence
as written (case-insensitive), after `HEDGE` (questions, musings) and `TRANSIENT` (one-off
requests) have had their say. Rules marked `needs_reason` (the first version's decisions)
only count when the sentence gives a reason (`REASON`) or says "decided/agreed".
"""

from __future__ import annotations

import re
from typing import NamedTuple

I = re.IGNORECASE

HEDGE = re.compile(
    r"^(?:maybe|perhaps|possibly|probably|i think(?! (?:this|it) makes (?:more )?sense)|i guess|i wonder|i'?m wondering|im wondering|not sure|"
    r"i'?m not sure|should we|could we|can we|can you|could you|would you|will you|do we|did we|are we|"
    r"is it|is there|does|did|why|how|what|which|where|when do|if i want|vielleicht|könnten wir|sollen wir|"
    r"kannst du|quizás|quizá|tal vez|podemos|puedes)\b",
    I,
)
TRANSIENT = re.compile(
    r"\b(?:for now|right now|for the moment|temporarily|just this once|this time|today|tonight|tomorrow|"
    r"for this (?:task|pr|commit|session)|fürs erste|vorerst|heute|por ahora|de momento|hoy)\b",
    I,
)


_TOOLISH = r"(?:[\w.@/+-]*[\w+])"  # a tool, package or file name
_DURABLE = (r"(?:always|never|going forward|from now on|in the future|each time|every time|whenever|"
            r"when(?:ever)? (?:useful|needed|neede?d?|appropriate|i say|i ask)|if needed|as well)")
_DURABLE_WORDS = "always never forward now future each every whenever useful needed neede appropriate say ask well"
_GENERIC = (r"(?:messages?|names?|files?|tests?|commits?|branches?|functions?|classes?|variables?|imports?|"
            r"exports?|components?|endpoints?|migrations?|PRs?|pull requests?|docstrings?|comments?|logs?)")
_ENVIRONMENTS = (r"(?:macos|mac|linux|windows|ubuntu|debian|alpine|arm64|apple silicon|m1|m2|m3|wsl2?|"
                 r"docker|ci|node \d+|python 3\.\d+)")
_ALWAYS_NEVER = r"(?:toujours|jamais|immer|nie|niemals|siempre|nunca|sempre|mai)"
_USE_WORDS = r"(?:on utilise|nous utilisons|utilise[zr]?|wir (?:verwenden|nutzen|benutzen)|usamos|utilizamos|usiamo)"


class Rule(NamedTuple):
    kind: str
    anchors: frozenset[str]
    pattern: re.Pattern[str]
    needs_reason: bool = False
    also: frozenset[str] = frozenset()  # when set, one of these words must be there too


def _rule(kind: str, anchors: str, *alternatives: str, needs_reason: bool = False, also: str = "") -> Rule:
    return Rule(kind, frozenset(anchors.split()), re.compile("|".join(alternatives), I), needs_reason,
                frozenset(also.split()))


def _procedure(anchors: str, *alternatives: str, also: str = "") -> Rule:
    return _rule("procedure", anchors, *alternatives, also=also)


def _fact(anchors: str, *alternatives: str, also: str = "") -> Rule:
    return _rule("fact", anchors, *alternatives, also=also)


def _decision(anchors: str, *alternatives: str, needs_reason: bool = False, also: str = "") -> Rule:
    return _rule("decision", anchors, *alternatives, needs_reason=needs_reason, also=also)


def _preference(anchors: str, *alternatives: str, also: str = "") -> Rule:
    return _rule("preference", anchors, *alternatives, also=also)


_VERBS_TO = "deploy release publish verify build test migrate set setup reset regenerate bump rebuild seed"

PROCEDURES: tuple[Rule, ...] = (
    _procedure(_VERBS_TO, r"\bto (?:deploy|release|publish|verify|build|test|migrate|set up|setup|reset|regenerate|"
               r"bump|rebuild|seed)\b[^,.]{0,80}, (?:simply |just |first |always )?(?:run|use|do|call)\b", also="run use do call"),
    _procedure("before", r"\bbefore (?:committing|you commit|pushing|you push|a release|you do)\b.{0,40}\b"
               r"(?:run|update|check)\b", r"\b(?:remember|make sure) to run\b.{0,80}\bbefore\b", also="run update check"),
    _procedure("say", r"\bwhen i say [^,]{3,40}, (?:make sure|remember|always|also|update|run)\b"),
    _procedure("well", r"\bmake sure to update the \w+ as well\b"),
    _procedure("steps procedure how", r"^(?:steps|procedure|how to \w+):"),
    _procedure("way", r"\bthe way to \w+(?: \w+){0,3}(?: is(?: to)?|:)"),
)

FACTS: tuple[Rule, ...] = (
    _fact("fix solution workaround cause culprit trick",
          r"\b(?:the fix|the solution|the workaround|the root cause|the cause|the culprit|the trick) (?:was|is)\b"),
    _fact("turns turned turn", r"\b(?:it )?turn(?:s|ed) out\b"),
    _fact("run runs", r"\b(?:tests?|the tests|builds?|ci|linting|lint) (?:run|runs|are run|is run) "
          r"(?:with|on|in|via|under)\b", also="tests test builds build ci linting lint"),
    _fact("path", r"\bthe path (?:for|to) (?:the )?\S+ (?:\w+ )?is\b"),
    _fact("project repo repository app codebase",
          r"\b(?:this|the|our) (?:particular )?(?:project|repo|repository|app|codebase) (?:also )?"
          r"(?:uses|is using|runs on|needs)\b",
          r"\bin this (?:repo|repository|project),? (?:the )?\S+ (?:are|is)\b"),
    _fact("using", r"\b(?:we'?re|we are|i'?m|i am) (?:not )?using (?:\S+ )?(?:with )?\S+ (?:type stripping|instead|but)\b",
          r"\bwe'?re not using \S+\b"),
    _fact("asset", r"\bis (?:actually )?a project asset\b"),
    _fact("use", r"\bwhich (?:i|we) (?:always |only )?use for \w+", also="which"),
    _fact("run runs", r"\bi(?: will|'ll| always) run (?:the|this) (?:tool|script|app|cli|command|server)\b",
          also="i i'll"),
    _fact("remember note fyi reference",
          r"^(?:remember|note)(?: that|:|,) \w+",
          r"^(?:fyi|for (?:future )?reference)(?: that|:|,)? (?!to\b)\w+"),
    _fact("prod production staging dev database db server",
          r"\b(?:our|the) (?:prod|production|staging|dev) (?:db|database|server|cluster|environment|env|box|api) "
          r"(?:is|runs|uses|lives|sits)\b"),
    _fact("deployed deploy deploys", r"^(?!.*\b(?:from now on|going forward)\b).*(?:\b(?:is|are) deployed (?:on|to|with|via)\b|"
          r"\bwe deploy (?:to|with|via|on)\b)"),
    _fact("audience", r"\bthe audience is\b"),
    _fact("macos mac linux windows ubuntu arm apple silicon wsl docker ci",
          r"\bon (?:macos|mac|linux|windows|ubuntu|arm64|apple silicon|wsl2?|docker|ci)\b.{0,80}\b"
          r"(?:needs?|requires?|fails?|breaks?|only works)\b", also="needs need requires require fails fail breaks break works"),
    _fact("only", r"\bonly (?:works|builds|runs|compiles) (?:with|when|if|on|under)\b"),
    _fact("needs requires", r"\b(?:needs|requires) [A-Z][A-Z0-9_]{2,} (?:to be )?set\b"),
    _fact("laufen läuft liegt liegen", r"\b(?:die tests|tests|der build|ci) (?:laufen|läuft) (?:mit|auf|unter)\b",
          r"\b(?:läuft|liegt|liegen) (?:unter|in|auf) (?:/|~|port)"),
    _fact("corren ejecutan usan", r"\b(?:los tests|las pruebas|el build) (?:corren|se ejecutan|usan) (?:con|en)\b"),
)

DECISIONS: tuple[Rule, ...] = (
    _decision("decided chose agreed picked settled going",
              r"\b(?:we|i) (?:decided|chose|agreed|picked|settled on|are going with)\b"),
    _decision("go switch move adopt stick stay keep standardize standardise fall use include separate isolate drop "
              "remove",
              r"\b(?:we|i)(?:'ll| will| should(?: also)?| are going to| can) (?:go with|switch to|move to|adopt|"
              r"stick with|stay on|stay with|keep using|keep the|standardi[sz]e on|fall back to|"
              r"use \S+ (?:for|as|instead)|include|separate|isolate|drop|remove)\b", also="we i we'll i'll"),
    _decision("let's lets", r"\blet'?s (?:go with|use|switch to|stick with|keep|move to (?!phase|step|the next|next)|adopt|"
              r"stay on|make it)\b"),
    _decision("instead", r"^instead of [^,]{3,80}, (?:let'?s|we'?ll|we should|use)\b"),
    _decision("let's lets", r"\blet'?s do (?:the |option |approach |plan |variant )?[\w`.-]+ "
              r"(?:approach|option|version|variant|plan|one|way)\b", r"\blet'?s do (?:option|approach|plan|variant) \w+"),
    _decision("make", r"^(?:(?:ok(?:ay)?|sure|yes|yeah|fine|alright)[,.!]* )?(?:and )?(?:let'?s |lets )?make (?:it|sure it) "
              r"(?:also )?(?:works?|runs?|supports?|compatible)\b"),
    _decision("ok okay sure fine yes yeah alright", r"^(?:ok(?:ay)?|sure|fine|yes|yeah|alright)[,.!]* "
              r"(?:let'?s |lets |we'?ll )?(?:go with|switch to|use|stick with)\b", also="go switch use stick"),
    _decision("go switch stick stay move", r"^(?:go with|switch to|stick with|stay on|move to) \S+",
              also="with to on"),
    _decision("forward", r"\b(?:we|i)(?:'ll| will) use your \w+ going forward\b"),
    _decision("stick", r"\b(?:let'?s|lets|we'?ll|we will|i'?ll) stick to \S+"),
    _decision("need", r"\bwe (?:don'?t|do not) need to\b"),
    _decision("consolidate standardize standardise", r"\b(?:consolidate|standardi[sz]e) \w+ (?:and \w+ )?"
              r"(?:using|on|with) \S+"),
    _decision("dependency", r"\bit (?:should|must) (?:have|use|require) `?\w+`? as a dependency\b"),
    _decision("venv python", r"\b(?:has|have|needs?) (?:\w+ )?with venv\b|\bruns python \d"),
    _decision("updates", r"\bmake sure that \w+ updates\b"),
    _decision("want", r"\bwe want (?:full|strict|complete) \S+"),
    _decision("sense", r"\b(?:more sense|makes sense) to (?:put|keep|move) \S+"),
    _decision("uns", r"\blass(?:t)? uns (?:\S+ )?(?:\w+ )?(?:verwenden|nehmen|nutzen|benutzen|bleiben|wechseln|"
              r"umsteigen)\b"),
    _decision("wir ich", r"\bwir (?:sollten|werden|bleiben|wechseln|nehmen|haben uns für)\b",
              r"\b(?:wir haben uns|ich habe mich) (?:für|entschieden)\b"),
    _decision("statt", r"\b\w+ statt \w+\b.{0,30}\b(?:verwenden|nehmen|nutzen)\b"),
    _decision("usemos vamos quedémonos cambiemos pasemos",
              r"\b(?:usemos|vamos a usar|vamos a quedarnos con|quedémonos con|cambiemos a|pasemos a)\b"),
    _decision("deberíamos debemos", r"\b(?:deberíamos|debemos) (?:usar|cambiar|mantener|quedarnos|pasar|migrar)\b"),
    _decision("decidimos elegimos acordamos", r"\b(?:decidimos|elegimos|acordamos)\b"),
)

PREFERENCES: tuple[Rule, ...] = (
    _preference("always never usually generally",
                r"\b(?:i|we) (?:always|never|usually|generally) (?:use|prefer|want|run|write|do|put|keep|call|commit|"
                r"push)\b",
                r"(?:^|\b(?:please|pls|and|also|so|ok|okay|no),? )(?:always|never) \w+"),
    _preference("prefer like", r"\b(?:i|we) (?:really )?(?:prefer|like to)\b"),
    _preference("rather", r"\b(?:i'?d|we'?d) rather\b"),
    _preference("should", r"\bwe should (?:always |never |not |only )?(?:use|keep|avoid|prefer|store|put|return|"
                r"log|validate|treat|default to|stick to|stick with|stay on)\b", also="we"),
    _preference("no nope", r"^(?:no|nope)[,.!]* (?:just )?(?:use|keep|put|go with|switch to|stick with|call) \S+"),
    _preference("if", r"^if [^,]{3,80}, (?:always |never |please |just )?(?:ask|use|check|don'?t|do not|keep|prefer|"
                r"fall back|skip|avoid|stop)\b"),
    _preference("use", r"\bwe (?:always |usually |generally )?use `?(?!it\b|this\b|that\b|them\b)[\w.@/+-]+`? "
                r"(?:for|as) (?:all |every |our |the )?\w+", also="we"),
    _preference("repo repository project codebase team",
                r"\bin this (?:repo|repository|project|codebase|team),? (?:we|i|always|never|use|don'?t|the)\b"),
    _preference("using", r"\b(?:we'?re|we are|i'?m|i am) using \S+,? so (?:we|you|i) "
                r"(?:should|shouldn'?t|must|can'?t|don'?t)\b"),
    _preference("instead rather over not",
                r"\b(?:use|using) " + _TOOLISH + r"(?: [\w-]+){0,2} (?:instead of|rather than|over|not) ",
                also="use using"),
    _preference("prefer", r"\bprefer `?" + _TOOLISH + r"`?(?: \S+)? (?:over|to|instead of)\b"),
    _preference(_DURABLE_WORDS, r"^(?:no,? |nope,? |nah,? )?(?:use|run|keep|put|write|name|call|launch) [^.]{2,60}\b"
                + _DURABLE),
    _preference("sure remember",
                r"^(?:be sure|make sure|remember) to (?:also )?(?:use|allow|run|keep|update|include)\b.{0,80}"
                r"(?:\b(?:when|whenever|each time|every time|before|after|as well|too|also|going forward|if)\b)",
                r"^(?:(?:also|and),? )?be sure to also use\b"),
    _preference("don't dont not never",
                r"^(?:please |also,? )?(?:don'?t|do not|never) (?:ever )?(?:use|add|run|commit|push|call|import|write|"
                r"mock|escape|rename|move|create|include|touch|edit|change|install)\b(?!.*\b(?:yet|this)\b)",
                r"\bdo not use any\b", also="use add run commit push call import write mock escape rename move create "
                "include touch edit change install"),
    _preference("formatting same", r"\bfor formatting,? use\b|\buse the same \w+ (?:options|settings|style|config)\b"),
    _preference("professional concise brief terse", r"\b(?:be|keep it) (?:professional|concise|brief|terse)\b"),
    _preference("gitignore", r"\bshould be added to \.?gitignore\b|\badd(?:ed)? to (?:the )?\.gitignore\b"),
    _preference("flag", r"\buse the `?--[\w-]+`? flag\b"),
    _preference("see", r"\bif you see [^,]{3,60}, (?:you can |please )?(?:use|run|call|check)\b"),
    _preference("want should must need", r"\bwhen [^,]{3,80},? (?:we|you|i) (?:want|should|must|need) to \w+"),
    _preference("get read take", r"\b(?:get|read|take) the \w+ from (?:there|\S+\.\w+)\b"),
    _preference("free", r"\bfeel free to use\b"),
    _preference("only", r"^only (?:stage|commit|push|touch|edit|change|modify)\b",
                r"\b(?:i|we) (?:do not|don'?t) need [^,.]{2,40}, (?:only|just) \S+"),
    _preference("tests test", r"\b(?:write|run) (?:the |all )?tests?,? (?:using|with|in) \S+"),
    _preference("when whenever", r"^when(?:ever)? [^,]{3,80}, (?:just )?(?:extract|put|skip|drop|show|output|write|return|"
                r"ignore|log|print|strip|keep)\b"),
    _preference("want need", r"^for (?:the )?[\w`.-]+(?: \w+)?,? we (?:want|need) (?:to )?\w+", also="we"),
    _preference("written", r"\bthe (?:code|tool|script|project) (?:should|must) be written in\b"),
    _preference("wir ich", r"\b(?:wir|ich) (?:verwenden|nutzen|benutzen|nehmen|schreiben) "
                r"(?:immer|nie|niemals|kein\w*|lieber)\b"),
    _preference("immer nie niemals",
                r"\b(?:bitte )?(?:immer|nie|niemals) (?:\S+ ){0,3}(?:verwenden|nutzen|benutzen|committen|pushen|"
                r"schreiben|ausführen|machen|löschen|ändern|mocken)\b"),
    _preference("verwende verwendet nutze nutzt nimm benutze benutzt",
                r"^(?:bitte )?(?:verwende|nutze|nimm|benutze)(?:t| bitte)? \S+.{0,40}"
                r"(?:statt|anstatt|anstelle|nicht|immer)\b"),
    _preference("kein keine keinen", r"\b(?:bitte )?(?:kein|keine|keinen) \w+ (?:verwenden|benutzen|nutzen|einsetzen)\b"),
    _preference("mag möchte", r"\bich (?:mag|möchte) (?:lieber|immer|keine?)\b"),
    _preference("diesem", r"\bin diesem (?:repo|projekt|repository)\b.{0,60}\b(?:immer|nie|verwenden|nutzen|kein)"),
    _preference("siempre nunca", r"\b(?:siempre|nunca) (?:usa|uses|usamos|utiliza|utilizamos|ejecuta|hagas|hacemos|"
                r"escribe)\b"),
    _preference("lugar vez", r"\b(?:usa|usamos|utiliza|usemos) \S+.{0,40}\b(?:en lugar de|en vez de|y no)\b"),
    _preference("uses utilices evita evitemos", r"^(?:no uses|no utilices|evita|evitemos) \w+"),
    _preference("prefiero preferimos", r"\b(?:prefiero|preferimos) \w+"),
    _preference("este", r"\ben este (?:repo|proyecto|repositorio)\b.{0,60}\b(?:siempre|nunca|usamos|no)\b"),
)

# The first version's patterns (explicit statements: "in this repo we use pnpm, never npm", "we'll use
# advisory locks because …", "the fix was …", "to release, run …"); its decisions need a reason.
LEGACY: tuple[Rule, ...] = (
    _preference("always never usually", r"\b(?:i|we) (?:always|never|usually) (?:use|prefer|want|run|write|do|put|"
                r"keep|call)\b", r"(?:^|please |pls )(?:always|never) \w+"),
    _preference("prefer like always rather", r"\b(?:i|we) (?:prefer|like to|want to always)\b|\bi'?d rather\b"),
    _preference("don't not", r"(?:^|please |pls )(?:don'?t|do not) (?:ever )?(?:use|add|run|commit|push|call|import|"
                r"write|mock)\b", also="use add run commit push call import write mock"),
    _preference("repo repository project codebase team",
                r"\b(?:in|for) this (?:repo|repository|project|codebase|team),? (?:we|i|always|never|use|don'?t)\b"),
    _preference("code files tests services service modules module packages package",
                r"\b(?:for|in) (?:\w+ ){1,3}(?:code|files|tests|services?|modules?|packages?),? we "
                r"(?:use|prefer|always|never)\b", also="we"),
    _preference("now", r"\bfrom now on,? (?:always|never|please|don'?t)\b"),
    _preference("instead rather over", r"\buse \S+ (?:instead of|rather than|over) "),
    _preference("prefer", r"\bprefer \S+(?: \S+)? (?:over|to|instead of) "),
    _preference("when whenever", r"^(?:when|whenever) [^,]{5,80}, (?:always |never |please )?(?:ask|use|run|check|"
                r"don'?t|do not|make sure|keep)\b"),
    _preference("keep make", r"^(?:keep|make) (?:the |all |our )?[\w .-]{2,40} \w+, (?:no|not|never) \w+"),
    _preference("please", rf"^please (?:always |never )?(?:write|name|keep|format|use) (?:\w+ ){{0,2}}{_GENERIC}\b"),
    _preference("should must", rf"\b{_GENERIC} (?:should|must) (?:always |never )?(?:be|use|go|stay|start|end)\b"),
    _preference("toujours jamais immer nie niemals siempre nunca sempre mai",
                rf"{_USE_WORDS}\b.{{0,60}}\b{_ALWAYS_NEVER}\b|\b{_ALWAYS_NEVER}\b.{{0,40}}\b{_USE_WORDS}"),
    _decision("decided chose agreed picked settled going",
              r"\b(?:we|i) (?:decided|chose|agreed|picked|settled on|are going with)\b", needs_reason=True),
    _decision("go switch move adopt stick stay keep standardize standardise",
              r"\b(?:we|i)(?:'ll| will| should| are going to)? (?:go with|switch to|move to|adopt|stick with|stay on|"
              r"stay with|keep using|standardi[sz]e on)\b", needs_reason=True),
    _decision("let's lets", r"\blet'?s (?:go with|use|switch to|stick with|keep|move to|adopt|stay on)\b",
              r"\blet'?s (?:move|migrate|switch) (?:\w+ ){1,3}to\b", needs_reason=True),
    _decision("now", r"\bfrom now on,? (?:we|i)\b", needs_reason=True),
    _decision("decision decided we'll will", r"^decision:|^decided:|\bwe(?:'ll| will) use\b", needs_reason=True),
    _fact("fix solution workaround cause culprit problem issue trick",
          r"\bthe (?:fix|solution|workaround|root cause|cause|culprit|problem|issue|trick) (?:was|is|turned out)\b"),
    _fact("turns turned turn", r"\b(?:it )?turn(?:s|ed) out\b"),
    _fact("macos mac linux windows ubuntu debian alpine arm apple silicon m wsl docker ci node python",
          rf"\b(?:on|under|with) {_ENVIRONMENTS}\b.{{0,80}}\b(?:needs?|requires?|must|fails?|breaks?|crash(?:es)?|"
          r"only (?:works|builds|runs|compiles))",
          also="needs need requires require must fails fail breaks break crash crashes only"),
    _fact("only", r"\bonly (?:works|builds|runs|compiles) (?:with|when|if|on|under)\b"),
    _fact("needs requires", r"\b(?:needs|requires) [A-Z][A-Z0-9_]{2,} (?:to be )?set\b"),
    _fact("always only", r"\b(?:always|only) (?:runs?|lives?|deploys?) (?:in|on) "),
    _fact("my", r"\bmy (?:setup|machine|environment|dev environment|laptop|dev box)(?: is|:)"),
    _procedure("deploy release publish build run test migrate set setup reset regenerate bump rebuild seed",
               r"\bto (?:deploy|release|publish|build|run|test|migrate|set up|setup|reset|regenerate|bump|rebuild|"
               r"seed)\b[^,.]{0,60}, (?:run|use|do|call)\b", also="run use do call"),
    _procedure("steps procedure how", r"^(?:steps|procedure|how to \w+):"),
    _procedure("way", r"\bthe way to \w+(?: \w+){0,3}(?: is(?: to)?|:)"),
    _procedure("every", r"\bwe (?:\w+ ){1,3}every \d+ (?:minutes|hours|days|weeks|months)\b"),
)

RULES: tuple[Rule, ...] = PROCEDURES + FACTS + DECISIONS + PREFERENCES + LEGACY

REASON = re.compile(r"\b(?:because|since|so that|as it|as we|given that|due to|otherwise|"
                    r"(?:is|isn'?t|is not|not) worth)\b", I)
EXPLICIT = re.compile(r"\b(?:decided|chose|agreed|settled on)\b|^decision:", I)
EXPLICIT_WORDS = frozenset(("decided", "chose", "agreed", "settled", "decision"))

_INDEX: dict[str, tuple[int, ...]] = {}
for _number, _r in enumerate(RULES):
    for _word in _r.anchors:
        _INDEX[_word] = (*_INDEX.get(_word, ()), _number)
TRIGGERS = frozenset(_INDEX) | EXPLICIT_WORDS


def rules_for(words: set[str]) -> list[Rule]:
    """The rules that could match a sentence with these words, in priority order."""
    numbers = {n for word in words & TRIGGERS for n in _INDEX.get(word, ())}
    return [rule for rule in (RULES[n] for n in sorted(numbers)) if not rule.also or rule.also & words]

IMPERATIVE = re.compile(
    r"^(?:no[,.]?\s+)?(?:use|don'?t|do not|never|always|keep|prefer|avoid|stick (?:to|with)|switch to|"
    r"verwende|nutze|nimm|kein|usa|no uses|evita)\b",
    I,
)

EMPTY_ANSWERS = frozenset(("ok", "okay", "yes", "no", "sure", "fine", "n/a", "skip", "(no input)", "whatever",
                           "you decide", "up to you", "ja", "nein", "sí", "si"))
