"""The cues the `rules` distiller scores, in English, German and Spanish.

A `Cue` names its kind, its weight, the words it cannot match without (`anchors`, plus `also`:
one of those must be there too), its pattern and its `origin`: `prior` for the phrasings written
before the real labelled set existed (the first version's patterns, written for the synthetic set,
and the general shapes of adoption, prohibition and correction: "let's use X", "we use X",
"don't X", "always X", "from now on", "go with X", "switch to X", "no, use X"), or the source group
of the real set's tuning half a cue was drafted from. `scripts/eval --real --cv` leaves each group
out in turn with the cues drafted from it switched off, and a drafted cue stays only if it finds
statements in groups it was not drafted from.

`cues_for(words)` returns, in order, only the cues with an anchor among a sentence's words, so a
sentence with none (most sentences) costs one set lookup per word and never meets a regular
expression. The guards below (`HEDGE`, `TRANSIENT`, `ONE_OFF`, …) only run on sentences a cue
matched; `rules.score` adds them up.
"""

from __future__ import annotations

import re
from typing import NamedTuple

I = re.IGNORECASE
PRIOR = "prior"

# --- guards: a question, a musing or a one-off request is never a memory -----------------------
HEDGE = re.compile(
    r"^(?:should we|could we|can we|can you|could you|would you|will you|do we|did we|are we|do you|did you|"
    r"is it|is there|does|did|why|how|what|which|where|who|when do|if i want|any ideas|"
    r"könnten wir|sollen wir|kannst du|podemos|puedes)\b|"
    r"\b(?:maybe|perhaps|possibly|probably|might|i think|i guess|i wonder|wondering|not sure|i'?m not sure|"
    r"i was thinking|i suppose|vielleicht|quizás|quizá|tal vez)\b",
    I,
)
TRANSIENT = re.compile(
    r"\b(?:for now|right now|for the moment|temporarily|just this once|this time|at this time|today|tonight|"
    r"tomorrow|for this (?:task|pr|commit|session|one)|fürs erste|vorerst|heute|por ahora|de momento|hoy)\b",
    I,
)
#: the object is the thing at hand ("don't rewrite it", "use this file", "the current changes")
ONE_OFF = re.compile(
    r"\b(?:this|that|these|those) (?:file|function|method|class|change|changes|commit|bug|error|test|line|lines|"
    r"issue|pr|branch|folder|step|part|section|output|result|page|one)\b|\bthe current\b|\banything else\b|\b(?:yet|again)\b|"
    r"\b(?:it|this|that|them)\s*[.!]*$|"
    r"\b(?:when|once|after) you(?:'re| are)? (?:done|finished|finish)\b",
    I,
)
#: the person telling what happened, not what holds ("I just ran …", "I had already …")
NARRATION = re.compile(r"^(?:(?:so|and|but|ok|okay),? )?(?:i|we) (?:just|already|had|did|tried|ran|reset|was|were)\b",
                       I)
REASON = re.compile(r"\b(?:because|since|so that|as it|as we|given that|due to|otherwise|"
                    r"(?:is|isn'?t|is not|not) worth)\b|;", I)
DURABLE = re.compile(r"\b(?:always|never|whenever|going forward|from now on|in the future|every time|each time|"
                     r"by default|in this (?:repo|repository|project|codebase)|immer|nie|siempre|nunca)\b", I)
DURABLE_WORDS = frozenset("always never whenever forward now future every each default repo repository project "
                          "codebase immer nie siempre nunca".split())
REASON_WORDS = frozenset("because since so as given due otherwise worth".split())

_TOOLISH = r"(?:[\w.@/+-]*[\w+])"  # a tool, package or file name
_NOT_OBJECT = r"(?!(?:it|this|that|them|these|those|your|the same)\b)"
_GENERIC = (r"(?:messages?|names?|files?|tests?|commits?|branches?|functions?|classes?|variables?|imports?|"
            r"exports?|components?|endpoints?|migrations?|PRs?|pull requests?|docstrings?|comments?|logs?)")
_ENVIRONMENTS = (r"(?:macos|mac|linux|windows|ubuntu|debian|alpine|arm64|apple silicon|m1|m2|m3|wsl2?|"
                 r"docker|ci|node \d+|python 3\.\d+)")
_ALWAYS_NEVER = r"(?:toujours|jamais|immer|nie|niemals|siempre|nunca|sempre|mai)"
_USE_WORDS = r"(?:on utilise|nous utilisons|utilise[zr]?|wir (?:verwenden|nutzen|benutzen)|usamos|utilizamos|usiamo)"
_DONT_VERBS = ("use add run commit push call import write mock rename move create include touch edit change "
               "install modify delete remove hardcode put store log print expose bypass skip disable leave generate "
               "return force merge deploy upgrade downgrade pin catch swallow")
_FUNCTION_WORDS = (r"(?!(?:that|this|the|a|an|really|been|be|is|was|were|had|have|mind|know|knew|seen|thought|"
                   r"used|heard|worked|again|once|ever|too|enough|felt|feel|get|got|forget|forgot|miss|lose|break|breaks|fail|"
                   r"fails|seem|seems|wonder|struggle|hate|end)\b)")


class Cue(NamedTuple):
    kind: str
    weight: int
    anchors: frozenset[str]
    pattern: re.Pattern[str]
    origin: str = PRIOR
    also: frozenset[str] = frozenset()  # when set, one of these words must be there too
    name: str = ""
    raw: bool = False  # matched on the sentence as written (backticks kept)


def _cue(kind: str, weight: int, anchors: str, *alternatives: str, origin: str = PRIOR, also: str = "",
         name: str = "", raw: bool = False) -> Cue:
    return Cue(kind, weight, frozenset(anchors.split()), re.compile("|".join(alternatives), I), origin,
               frozenset(also.split()), name or alternatives[0][:48], raw)


PROCEDURES: tuple[Cue, ...] = (
    _cue("procedure", 3, "deploy release publish build run test migrate set setup reset regenerate bump rebuild seed",
         r"\bto (?:deploy|release|publish|build|run|test|migrate|set up|setup|reset|regenerate|bump|rebuild|seed)\b"
         r"[^,.]{0,60}, (?:simply |just |first |always )?(?:run|use|do|call)\b", also="run use do call",
         name="to <verb> X, run Y"),
    _cue("procedure", 3, "steps procedure how", r"^(?:steps|procedure|how to \w+):", name="steps:"),
    _cue("procedure", 3, "way", r"\bthe way to \w+(?: \w+){0,3}(?: is(?: to)?|:)", name="the way to X is"),
    _cue("procedure", 3, "every", r"\bwe (?:\w+ ){1,3}every \d+ (?:minutes|hours|days|weeks|months)\b",
         name="we X every N days"),
)

FACTS: tuple[Cue, ...] = (
    _cue("fact", 3, "fix solution workaround cause culprit trick",
         r"\bthe (?:fix|solution|workaround|root cause|cause|culprit|trick) (?:was|is|turned out)\b", name="the fix was"),
    _cue("fact", 3, "turns turned turn", r"\b(?:it )?turn(?:s|ed) out\b", name="turns out"),
    _cue("fact", 3, "macos mac linux windows ubuntu debian alpine arm apple silicon m wsl docker ci node python",
         rf"\b(?:on|under|with) {_ENVIRONMENTS}\b.{{0,80}}\b(?:needs?|requires?|must|fails?|breaks?|crash(?:es)?|"
         r"only (?:works|builds|runs|compiles))",
         also="needs need requires require must fails fail breaks break crash crashes only", name="on <os> X needs"),
    _cue("fact", 3, "only", r"\bonly (?:works|builds|runs|compiles) (?:with|when|if|on|under)\b", name="only works with"),
    _cue("fact", 3, "needs requires", r"\b(?:needs|requires) [A-Z][A-Z0-9_]{2,} (?:to be )?set\b", name="needs VAR set"),
    _cue("fact", 3, "always only", r"\b(?:always|only) (?:runs?|lives?|deploys?) (?:in|on) ", name="always runs in"),
    _cue("fact", 3, "my", r"\bmy (?:setup|machine|environment|dev environment|laptop|dev box)(?: is|:)",
         name="my setup is"),
    _cue("fact", 3, "remember note fyi reference",
         r"^(?:remember|note)(?: that|:|,) \w+", r"^(?:fyi|for (?:future )?reference)(?: that|:|,)? (?!to\b)\w+",
         name="note that / fyi"),
    _cue("fact", 3, "prod production staging dev database db server",
         r"\b(?:our|the) (?:prod|production|staging|dev) (?:db|database|server|cluster|environment|env|box|api) "
         r"(?:is|runs|uses|lives|sits)\b", name="our prod db is"),
    _cue("fact", 3, "deployed deploy deploys", r"^(?!.*\b(?:from now on|going forward)\b).*(?:\b(?:is|are) deployed "
         r"(?:on|to|with|via)\b|\bwe deploy (?:to|with|via|on)\b)", name="is deployed to"),
    _cue("fact", 3, "laufen läuft liegt liegen", r"\b(?:die tests|tests|der build|ci) (?:laufen|läuft) (?:mit|auf|unter)\b",
         r"\b(?:läuft|liegt|liegen) (?:unter|in|auf) (?:/|~|port)", name="die Tests laufen mit"),
    _cue("fact", 3, "corren ejecutan usan", r"\b(?:los tests|las pruebas|el build) (?:corren|se ejecutan|usan) "
         r"(?:con|en)\b", name="las pruebas corren con"),
)

DECISIONS: tuple[Cue, ...] = (
    _cue("decision", 3, "decided chose agreed picked settled going",
         r"\b(?:we|i) (?:have )?(?:decided|chose|agreed|picked|settled on|are going with)\b", r"^decision:",
         name="we decided"),
    _cue("decision", 3, "now forward", r"\b(?:from now on|going forward|from here on),? (?:we|i)\b",
         name="from now on we X"),
    _cue("decision", 3, "go switch move adopt stick stay standardize standardise fall keep",
         r"\b(?:we|i)(?:'ll| will| should| are going to| can)? (?:go with|switch to|move to|adopt|stick with|"
         r"stick to|stay on|stay with|keep using|standardi[sz]e on|fall back to) " + _NOT_OBJECT,
         also="we i we'll i'll", name="we'll go with / switch to X"),
    _cue("decision", 3, "let's lets",
         r"\blet'?s (?:go with|use|switch to|stick with|stick to|keep using|adopt|stay on|stay with|"
         r"move to (?!phase|step|the next|next)) " + _NOT_OBJECT, name="let's use / go with X"),
    _cue("decision", 3, "let's lets", r"\blet'?s (?:move|migrate|switch) (?:\w+ ){1,3}to\b", name="let's move X to Y"),
    _cue("decision", 3, "ok okay sure fine yes yeah alright", r"^(?:ok(?:ay)?|sure|fine|yes|yeah|alright)[,.!]* "
         r"(?:let'?s |lets |we'?ll )?(?:go with|switch to|use|stick with) " + _NOT_OBJECT,
         also="go switch use stick", name="ok, go with X"),
    _cue("decision", 3, "go switch stick stay", r"^(?:go with|switch to|stick with|stay on) " + _NOT_OBJECT + r"\S+",
         also="with to on", name="go with X (imperative)"),
    _cue("decision", 1, "we'll will", r"\bwe(?:'ll| will) use " + _NOT_OBJECT + r"\S+", name="we'll use X"),
    _cue("decision", 3, "uns", r"\blass(?:t)? uns (?:\S+ )?(?:\w+ )?(?:verwenden|nehmen|nutzen|benutzen|bleiben|"
         r"wechseln|umsteigen)\b", name="lass uns X verwenden"),
    _cue("decision", 3, "wir ich", r"\bwir (?:sollten|werden|bleiben|wechseln|nehmen|haben uns für)\b",
         r"\b(?:wir haben uns|ich habe mich) (?:für|entschieden)\b", name="wir sollten"),
    _cue("decision", 3, "statt", r"\b\w+ statt \w+\b.{0,30}\b(?:verwenden|nehmen|nutzen)\b", name="X statt Y"),
    _cue("decision", 3, "usemos vamos quedémonos cambiemos pasemos",
         r"\b(?:usemos|vamos a usar|vamos a quedarnos con|quedémonos con|cambiemos a|pasemos a)\b", name="usemos X"),
    _cue("decision", 3, "deberíamos debemos", r"\b(?:deberíamos|debemos) (?:usar|cambiar|mantener|quedarnos|pasar|"
         r"migrar)\b", name="deberíamos usar"),
    _cue("decision", 3, "decidimos elegimos acordamos", r"\b(?:decidimos|elegimos|acordamos)\b", name="decidimos"),
)

PREFERENCES: tuple[Cue, ...] = (
    _cue("preference", 3, "always never",
         r"(?:^|\b(?:please|pls|and|also|so|ok|okay|no|but|i|we|you|should|must|to)\b,? )(?:always|never) "
         + _FUNCTION_WORDS + r"\w+", name="always / never X"),
    _cue("preference", 3, "usually generally", r"\b(?:i|we) (?:usually|generally) (?:use|prefer|want|run|write|do|"
         r"put|keep|call|commit|push)\b", name="we usually X"),
    _cue("preference", 3, "don't dont not never",
         r"^(?:please |pls |also,? |and |but |so |no,? )?(?:don'?t|do not|never) (?:ever )?(?:" + "|".join(
             _DONT_VERBS.split()) + r")\b", also=_DONT_VERBS, name="don't X"),
    _cue("preference", 3, "prefer like rather", r"\b(?:i|we) (?:really |strongly |generally )?(?:prefer|like to)\b",
         r"\b(?:i'?d|we'?d|i would|we would) rather\b", r"^prefer \S+", name="I prefer X"),
    _cue("preference", 3, "prefer", r"\bprefer `?" + _TOOLISH + r"`?(?: \S+)? (?:over|to|instead of)\b",
         name="prefer X over Y"),
    _cue("preference", 3, "instead rather over not",
         r"\b(?:use|using) `?" + _NOT_OBJECT + _TOOLISH + r"`?(?: [\w-]+){0,2},? (?:instead of|rather than|over|not) ",
         also="use using", name="use X instead of Y"),
    _cue("preference", 3, "no nope nah", r"^(?:no|nope|nah)[,.!]* (?:just |please )?(?:use|keep|put|go with|"
         r"switch to|stick with|call|run) " + _NOT_OBJECT + r"\S+", name="no, use X"),
    _cue("preference", 1, "should", r"\bwe should (?:always |never |not |only )?(?:use|keep|avoid|prefer|store|put|"
         r"return|log|validate|treat|default to|stick to|stick with|stay on)\b", also="we",
         name="we should use X"),
    _cue("preference", 3, "use", r"\bwe (?:always |usually |generally |only )?use `?" + _NOT_OBJECT + _TOOLISH
         + r"`? (?:for|as|to|in) ", also="we", name="we use X for Y"),
    _cue("preference", 3, "repo repository project codebase team",
         r"\b(?:in|for) this (?:repo|repository|project|codebase|team),? (?:we|i|always|never|use|don'?t)\b",
         name="in this repo we X"),
    _cue("preference", 3, "code files tests services service modules module packages package",
         r"\b(?:for|in) (?:\w+ ){1,3}(?:code|files|tests|services?|modules?|packages?),? we "
         r"(?:use|prefer|always|never)\b", also="we", name="for X code we use"),
    _cue("preference", 3, "when whenever if",
         r"^(?:when|whenever|if) [^,]{5,80}, (?:then )?(?:always |never |please |just )?(?:ask|check|make sure|"
         r"prefer|fall back|avoid|stop)\b", name="when X, do Y"),
    _cue("preference", 3, "keep make", r"^(?:keep|make) (?:the |all |our )?[\w .-]{2,40} \w+, (?:no|not|never) \w+",
         name="keep X Y, no Z"),
    _cue("preference", 3, "please", rf"^please (?:always |never )?(?:write|name|keep|format|use) (?:\w+ ){{0,2}}{_GENERIC}\b",
         name="please write GENERIC"),
    _cue("preference", 3, "should must", rf"\b{_GENERIC} (?:should|must) (?:always |never )?(?:be|use|go|stay|start|end)\b",
         name="GENERIC should be"),
    _cue("preference", 3, "toujours jamais immer nie niemals siempre nunca sempre mai",
         rf"{_USE_WORDS}\b.{{0,60}}\b{_ALWAYS_NEVER}\b|\b{_ALWAYS_NEVER}\b.{{0,40}}\b{_USE_WORDS}",
         name="on utilise toujours"),
    _cue("preference", 3, "wir ich", r"\b(?:wir|ich) (?:verwenden|nutzen|benutzen|nehmen|schreiben) "
         r"(?:immer|nie|niemals|kein\w*|lieber)\b", name="wir verwenden immer"),
    _cue("preference", 3, "immer nie niemals",
         r"\b(?:bitte )?(?:immer|nie|niemals) (?:\S+ ){0,3}(?:verwenden|nutzen|benutzen|committen|pushen|"
         r"schreiben|ausführen|machen|löschen|ändern|mocken)\b", name="nie X pushen"),
    _cue("preference", 3, "verwende verwendet nutze nutzt nimm benutze benutzt",
         r"^(?:bitte )?(?:verwende|nutze|nimm|benutze)(?:t| bitte)? \S+.{0,40}(?:statt|anstatt|anstelle|nicht|immer)\b",
         name="verwende X statt Y"),
    _cue("preference", 3, "kein keine keinen", r"\b(?:bitte )?(?:kein|keine|keinen) \w+ (?:verwenden|benutzen|nutzen|"
         r"einsetzen)\b", name="keine X verwenden"),
    _cue("preference", 3, "mag möchte", r"\bich (?:mag|möchte) (?:lieber|immer|keine?)\b", name="ich möchte lieber"),
    _cue("preference", 3, "diesem", r"\bin diesem (?:repo|projekt|repository)\b.{0,60}\b(?:immer|nie|verwenden|nutzen|"
         r"kein)", name="in diesem Repo"),
    _cue("preference", 3, "siempre nunca", r"\b(?:siempre|nunca) (?:usa|uses|usamos|utiliza|utilizamos|ejecuta|hagas|"
         r"hacemos|escribe)\b", name="siempre usa"),
    _cue("preference", 3, "lugar vez", r"\b(?:usa|usamos|utiliza|usemos) \S+.{0,40}\b(?:en lugar de|en vez de|y no)\b",
         name="usa X en lugar de Y"),
    _cue("preference", 3, "uses utilices evita evitemos", r"^(?:no uses|no utilices|evita|evitemos) \w+",
         name="no uses X"),
    _cue("preference", 3, "prefiero preferimos", r"\b(?:prefiero|preferimos) \w+", name="prefiero X"),
    _cue("preference", 3, "este", r"\ben este (?:repo|proyecto|repositorio)\b.{0,60}\b(?:siempre|nunca|usamos|no)\b",
         name="en este repo"),
)

_TOOL_TOKEN = r"(?:`[^`]+`|--[\w-]+|\S+\.(?:json|ya?ml|toml|md|ts|js|py|rb|go|rs|lock|cfg|ini|sh)\b|\S*/\S+)"

#: the general shapes of a standing instruction, not drafted from any group: a durable word with
#: something to do, "make sure to X whenever …", "use `tool`", "we should X because …",
#: "no, we use X", "I don't want X"
GENERAL: tuple[Cue, ...] = (
    _cue("preference", 3, "now forward", r"\b(?:from now on|going forward|from here on)\b", name="from now on"),
    _cue("preference", 2, "always never forward future default",
         r"\b(?:always|never|going forward|in the future|by default)\b", name="durable word",
         also="use used using run should must need want make keep put write prefer avoid don't do please ensure"),
    _cue("preference", 3, "sure remember ensure", r"\b(?:make sure|be sure|ensure|remember)(?: to| that| you)? (?:also )?"
         r"\w+.{0,80}\b(?:also|as well|too|whenever|when|each time|every time|before|after|if needed)\b",
         r"\b(?:make|be) sure to also\b", origin="claude_transcript", name="make sure to X as well / when Y"),
    _cue("preference", 3, "no nope actually", r"^(?:no|nope|actually)[,.!]* (?:we|i) (?:use|need|want|always|never|"
         r"don'?t|do not|prefer)\b", name="no, we use X"),
    _cue("preference", 3, "allowed forbidden required mandatory convention rule policy",
         r"\b(?:is|are) (?:not allowed|forbidden|required|mandatory)\b",
         r"\b(?:the|our) (?:convention|rule|policy|house style) is\b|\bby convention\b", name="X is not allowed"),
    _cue("preference", 3, "whenever", r"^whenever [^,]{3,80}, (?:please |just |always )?"
         r"(?!(?:it|i|we|you|they|he|she|this|that|there|the|a)\b)\w+", name="whenever X, do Y"),
    _cue("preference", 3, "avoid stop", r"^(?:please |also,? |and )?(?:avoid \w+|stop \w+ing\b)", name="avoid X"),
    _cue("preference", 3, "don't not never", r"\bwe (?:don'?t|do not|never) (?:use|do|write|commit|push|deploy|run|"
         r"mock|store)\b", also="we", name="we don't use X"),
    _cue("fact", 3, "truth", r"\bis the (?:single |only )?source of truth\b", name="X is the source of truth"),
)

CUES: tuple[Cue, ...] = PROCEDURES + FACTS + DECISIONS + PREFERENCES + GENERAL
ORIGINS = frozenset(cue.origin for cue in CUES)

_INDEX: dict[str, tuple[int, ...]] = {}
for _number, _c in enumerate(CUES):
    for _word in _c.anchors:
        _INDEX[_word] = (*_INDEX.get(_word, ()), _number)
TRIGGERS = frozenset(_INDEX)


def cues_for(words: set[str], without: frozenset[str] = frozenset()) -> list[Cue]:
    """The cues that could match a sentence with these words, in priority order (`without`: origins left out)."""
    numbers = {n for word in words & TRIGGERS for n in _INDEX[word]}
    return [cue for cue in (CUES[n] for n in sorted(numbers))
            if (not cue.also or cue.also & words) and cue.origin not in without]


#: a rejection reason, plan feedback or answer is already a correction: a bare imperative counts
IMPERATIVE = re.compile(
    r"^(?:no[,.]?\s+)?(?:use|don'?t|do not|never|always|keep|prefer|avoid|stick (?:to|with)|switch to|"
    r"verwende|nutze|nimm|kein|usa|no uses|evita)\b",
    I,
)

EMPTY_ANSWERS = frozenset(("ok", "okay", "yes", "no", "sure", "fine", "n/a", "skip", "(no input)", "whatever",
                           "you decide", "up to you", "ja", "nein", "sí", "si"))
