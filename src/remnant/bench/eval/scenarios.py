"""Seeded scenario generator: the users, facts, changes, dialogues and distractors the suites replay.

Everything comes from one ``random.Random(seed)`` per scenario, so a seed gives the same scenario
on every machine. Facts are short English sentences built from attribute templates; each template
has its own topic word, which the probing question repeats, so plain lexical recall can find the
fact and any retriever that does better than lexical will only score higher. Values are unique
within a scenario, so "is this fact in that text" is a substring test.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# -- vocabulary ---------------------------------------------------------------------------------------
FIRST = [
    "Ana",
    "Bruno",
    "Chiara",
    "Dmitri",
    "Elena",
    "Farid",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Kaori",
    "Liam",
    "Maya",
    "Nikolai",
    "Olga",
    "Pablo",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zofia",
    "Amara",
    "Bodhi",
    "Caius",
    "Delia",
]
SURNAMES = [
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Tanaka",
    "Rossi",
    "Novak",
    "Haddad",
    "Kowalski",
    "Duarte",
    "Brennan",
    "Ivanova",
    "Mensah",
    "Castillo",
    "Nakamura",
    "Fischer",
    "Oyelaran",
    "Petrov",
    "Sandoval",
    "Varga",
    "Whitfield",
    "Zhou",
    "Abebe",
    "Quintero",
    "Larsen",
]
CITIES = [
    "Lyon",
    "Porto",
    "Tallinn",
    "Osaka",
    "Valencia",
    "Gdansk",
    "Leeds",
    "Utrecht",
    "Bergen",
    "Trieste",
    "Cordoba",
    "Graz",
    "Tampere",
    "Bilbao",
    "Malmo",
    "Nantes",
    "Aarhus",
    "Bologna",
    "Krakow",
    "Seville",
    "Ghent",
    "Innsbruck",
    "Lausanne",
    "Brno",
]
STREETS = [
    "Maple Lane",
    "Quarry Road",
    "Harbour Street",
    "Linden Avenue",
    "Cedar Close",
    "Mill Walk",
    "Orchard Row",
    "Beacon Hill",
    "Copper Street",
    "Willow Crescent",
    "Falcon Drive",
    "Juniper Way",
    "Saffron Court",
    "Granite Terrace",
]
JOBS = [
    "nurse",
    "data analyst",
    "carpenter",
    "pharmacist",
    "architect",
    "teacher",
    "translator",
    "pilot",
    "chef",
    "electrician",
    "accountant",
    "veterinarian",
    "journalist",
    "physiotherapist",
    "geologist",
    "librarian",
]
COMPANIES = [
    "Nordwind",
    "Bluefern",
    "Kestrel Labs",
    "Orbis Freight",
    "Tessera",
    "Halcyon Health",
    "Quillon",
    "Marlow & Pike",
    "Vantor",
    "Ember Systems",
    "Lumio",
    "Crestline",
    "Ostara Foods",
    "Pinecrest",
    "Riverton",
    "Solace Mobility",
]
PLANS = ["Basic", "Plus", "Premium", "Family", "Student", "Unlimited", "Traveller", "Business", "Lite", "Max"]
PRODUCTS = ["X200", "Aero5", "Nimbus 3", "Vela S", "Kite Pro", "Orca 2", "Helix 7", "Sprout Mini"]
COLORS = ["teal", "crimson", "ochre", "silver", "navy", "olive", "amber", "charcoal", "lilac", "coral"]
PETS = [
    "Biscuit",
    "Pepper",
    "Mochi",
    "Rufus",
    "Juniper",
    "Pixel",
    "Nala",
    "Otis",
    "Tofu",
    "Ziggy",
    "Clementine",
    "Barnaby",
]
LANGS = [
    "Portuguese",
    "Japanese",
    "Finnish",
    "Greek",
    "Swahili",
    "Korean",
    "Dutch",
    "Polish",
    "Turkish",
    "Welsh",
]
INSTRUMENTS = [
    "cello",
    "banjo",
    "oboe",
    "ukulele",
    "harp",
    "trombone",
    "accordion",
    "mandolin",
    "clarinet",
    "sitar",
]
ALLERGENS = [
    "peanuts",
    "shellfish",
    "penicillin",
    "pollen",
    "latex",
    "sesame",
    "kiwi",
    "bee stings",
    "gluten",
    "soy",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
DIETS = ["vegetarian", "vegan", "pescatarian", "keto", "low-sodium", "halal", "kosher", "gluten-free"]
SPORTS = [
    "climbing",
    "rowing",
    "fencing",
    "judo",
    "badminton",
    "squash",
    "curling",
    "archery",
    "surfing",
    "kayaking",
]
BOOKS = [
    "The Quiet Orchard",
    "Salt and Cedar",
    "A Map of Tides",
    "The Glass Cartographer",
    "Northern Lanterns",
    "The Ninth Harbour",
    "Paper Comets",
    "The Clockmaker's Field",
]
TRANSPORT = ["bicycle", "tram", "ferry", "train", "scooter", "bus", "car pool", "motorbike"]
GOALS = [
    "run a marathon in {city}",
    "open a bakery in {city}",
    "learn {lang} well enough to work in it",
    "finish a master's degree in {job_field}",
    "save enough to buy a flat in {city}",
    "write a novel about {city}",
    "cycle from {city} to {city2}",
    "become a certified {job}",
]
JOB_FIELDS = ["economics", "marine biology", "urban planning", "robotics", "linguistics", "public health"]
CONSTRAINTS = [
    "I am allergic to {allergen}",
    "I can only meet after {hour} pm on weekdays",
    "my budget is {n}00 euros a month",
    "I do not fly, I travel by {transport}",
    "I follow a {diet} diet",
    "I cannot lift heavy things because of my back",
]
ACTIVITIES = [
    "went to the market",
    "watched a documentary",
    "cleaned the kitchen",
    "called my aunt",
    "fixed a shelf",
    "walked along the river",
    "baked bread",
    "read the news",
    "repotted a plant",
    "tried a new recipe",
    "answered emails",
    "went to a concert",
    "played cards",
    "painted the fence",
    "visited a museum",
    "took the dog to the park",
    "cooked soup",
    "listened to a podcast",
    "sorted old photos",
    "went swimming",
]
ADJECTIVES = [
    "fine",
    "relaxing",
    "tiring",
    "fun",
    "boring",
    "lovely",
    "chaotic",
    "calm",
    "strange",
    "pleasant",
]
WEATHER = ["rainy", "sunny", "windy", "foggy", "cold", "warm", "humid", "stormy", "bright", "grey"]


@dataclass(frozen=True)
class Fact:
    """One thing a user says about themselves, and the question that needs it back."""

    topic: str  # the attribute, also the memory key
    text: str
    query: str
    value: str  # a unique substring that shows the fact is present in a text
    kind: str = "fact"
    importance: float = 0.5
    pinned: bool = False


# (topic, statement template, question, value template). The topic word is in both the statement
# and the question, so lexical recall has something to match.
_ATTRIBUTES: tuple[tuple[str, str, str, str], ...] = (
    ("address", "My home address is {num} {street}, {city}.", "What is my home address?", "{num} {street}"),
    ("job", "I work as a {job} at {company}.", "What is my job and where do I work?", "{job} at {company}"),
    (
        "plan",
        "My phone contract is on the {plan} plan.",
        "Which plan is my phone contract on?",
        "{plan} plan",
    ),
    ("dentist", "My dentist is Dr. {surname} in {city}.", "Who is my dentist?", "Dr. {surname}"),
    ("car", "I drive a {color} {product} car.", "What car do I drive?", "{color} {product}"),
    ("dog", "My dog is called {pet}.", "What is my dog called?", "called {pet}"),
    ("allergy", "I am allergic to {allergen}.", "What am I allergic to?", "allergic to {allergen}"),
    ("birthday", "My birthday is on {month} {day}.", "When is my birthday?", "{month} {day}"),
    (
        "language",
        "I am learning {lang} in evening classes.",
        "Which language am I learning?",
        "learning {lang}",
    ),
    ("instrument", "I play the {instrument} in a band.", "Which instrument do I play?", "the {instrument}"),
    ("sister", "My sister {first} lives in {city}.", "Where does my sister live?", "sister {first}"),
    ("diet", "I follow a {diet} diet.", "What diet do I follow?", "a {diet} diet"),
    ("sport", "On Saturdays I go {sport} with friends.", "Which sport do I do on Saturdays?", "go {sport}"),
    ("book", "I am reading the novel {book}.", "Which novel am I reading?", "novel {book}"),
    (
        "commute",
        "I commute to the office by {transport}.",
        "How do I commute to the office?",
        "by {transport}",
    ),
    ("hometown", "I grew up in the town of {city}.", "Which town did I grow up in?", "town of {city}"),
    ("partner", "My partner is called {first} {surname}.", "What is my partner called?", "{first} {surname}"),
    ("bank", "My bank account is with {company} Bank.", "Which bank is my account with?", "{company} Bank"),
    ("gym", "My gym membership is at {company} Fitness.", "Where is my gym membership?", "{company} Fitness"),
    ("shoe", "My shoe size is {shoe}.", "What is my shoe size?", "size is {shoe}"),
    ("colour", "My favourite colour is {color}.", "What is my favourite colour?", "colour is {color}"),
    ("landlord", "My landlord is {first} {surname}.", "Who is my landlord?", "landlord is {first} {surname}"),
    (
        "doctor",
        "My family doctor is Dr. {surname} at {city} clinic.",
        "Who is my family doctor?",
        "{city} clinic",
    ),
    ("coffee", "I take my coffee with {coffee}.", "How do I take my coffee?", "coffee with {coffee}"),
    (
        "laptop",
        "My laptop is a {color} {product} laptop.",
        "Which laptop do I have?",
        "{color} {product} laptop",
    ),
    (
        "school",
        "My son goes to {surname} Primary School.",
        "Which school does my son go to?",
        "{surname} Primary",
    ),
    (
        "anniversary",
        "Our wedding anniversary is on {month} {day}.",
        "When is our wedding anniversary?",
        "anniversary is on {month} {day}",
    ),
    ("plant", "I grow {plant} on my balcony.", "What do I grow on my balcony?", "grow {plant}"),
    ("team", "I support the {city} football team.", "Which football team do I support?", "{city} football"),
    (
        "insurance",
        "My car insurance is with {company} Insurance.",
        "Who is my car insurance with?",
        "{company} Insurance",
    ),
)
_COFFEE = [
    "oat milk",
    "honey",
    "cardamom",
    "no sugar",
    "cinnamon",
    "a splash of cream",
    "lemon zest",
    "brown sugar",
]
_PLANTS = ["tomatoes", "basil", "chillies", "lavender", "strawberries", "mint", "peppers", "rosemary"]

TOPICS: tuple[str, ...] = tuple(a[0] for a in _ATTRIBUTES)


class Vocabulary:
    """Draws values so that each value string is used once per scenario (a substring test needs that)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._used: set[str] = set()

    def _fill(self) -> dict[str, str]:
        r = self.rng
        return {
            "num": str(r.randint(2, 398)),
            "street": r.choice(STREETS),
            "city": r.choice(CITIES),
            "city2": r.choice(CITIES),
            "job": r.choice(JOBS),
            "company": r.choice(COMPANIES),
            "plan": r.choice(PLANS),
            "surname": r.choice(SURNAMES),
            "first": r.choice(FIRST),
            "color": r.choice(COLORS),
            "product": r.choice(PRODUCTS),
            "pet": r.choice(PETS),
            "allergen": r.choice(ALLERGENS),
            "month": r.choice(MONTHS),
            "day": str(r.randint(1, 28)),
            "lang": r.choice(LANGS),
            "instrument": r.choice(INSTRUMENTS),
            "diet": r.choice(DIETS),
            "sport": r.choice(SPORTS),
            "book": r.choice(BOOKS),
            "transport": r.choice(TRANSPORT),
            "shoe": str(r.randint(35, 47)),
            "coffee": r.choice(_COFFEE),
            "plant": r.choice(_PLANTS),
            "job_field": r.choice(JOB_FIELDS),
            "hour": str(r.randint(4, 7)),
            "n": str(r.randint(3, 19)),
        }

    def fact(self, topic: str, *, importance: float = 0.5, kind: str = "fact") -> Fact:
        """A fresh statement about ``topic`` whose value was not used before in this scenario."""
        spec = next(a for a in _ATTRIBUTES if a[0] == topic)
        for _ in range(200):
            slots = self._fill()
            value = spec[3].format(**slots)
            if value not in self._used:
                self._used.add(value)
                return Fact(topic, spec[1].format(**slots), spec[2], value, kind, importance)
        raise RuntimeError(f"vocabulary exhausted for topic {topic!r}")

    def near_duplicate(self, topic: str) -> str:
        """A sentence about someone else's ``topic``: same words as the user's fact, different owner."""
        spec = next(a for a in _ATTRIBUTES if a[0] == topic)
        slots = self._fill()
        owner = self.rng.choice(
            ["my neighbour", "my colleague", "my cousin", "a friend of mine", "my old flatmate"]
        )
        sentence = spec[1].format(**slots)
        # "My dentist is Dr. X" -> "My neighbour said their dentist is Dr. X"
        sentence = sentence.replace("My ", "their ", 1).replace("I ", "they ", 1).replace(" my ", " their ")
        return f"{owner.capitalize()} told me {sentence[0].lower() + sentence[1:]}"

    def mention(self, fact: Fact) -> str:
        """Talk around a fact without stating it: it shares the question's words, not the value."""
        q = fact.query.rstrip("?")
        q = q[0].lower() + q[1:]
        return self.rng.choice(
            [
                f"At lunch someone asked {q}, and we laughed about it.",
                f"Note to self: {q}? Check the paperwork.",
                f"My friend wondered {q} and I changed the subject.",
            ]
        )

    def chatter(self) -> str:
        """An everyday episode with no lasting fact in it."""
        r = self.rng
        return (
            f"Today I {r.choice(ACTIVITIES)} and it was {r.choice(ADJECTIVES)}; "
            f"the weather was {r.choice(WEATHER)} in {r.choice(CITIES)}."
        )


# -- retention -----------------------------------------------------------------------------------------
USE_SCHEDULES: dict[str, tuple[int, int]] = {  # name -> (mean interval days, jitter)
    "weekly": (7, 2),
    "biweekly": (14, 3),
    "monthly": (30, 5),
}
IMPORTANCE_LEVELS: tuple[float, ...] = (0.3, 0.5, 0.8)


@dataclass
class RetentionFact:
    fact: Fact
    schedule: str | None  # None: never used again after it was said
    use_days: list[int] = field(default_factory=list)
    expires_day: int | None = None  # a fact with a TTL is not "still valid" after it


@dataclass
class RetentionScenario:
    user_id: str
    days: int
    facts: list[RetentionFact]
    chatter: dict[int, list[str]]  # day -> episodes said that day


def retention(
    seed: int, user_id: str, *, n_used: int, n_unused: int, days: int, chatter_per_day: int
) -> RetentionScenario:
    """One user's months: facts said on day 0, some used on a schedule, daily chatter, a few TTL facts."""
    rng = random.Random(f"retention:{seed}:{user_id}")
    vocab = Vocabulary(rng)
    topics = rng.sample(TOPICS, min(len(TOPICS), n_used + n_unused))
    facts: list[RetentionFact] = []
    for i, topic in enumerate(topics):
        importance = IMPORTANCE_LEVELS[i % len(IMPORTANCE_LEVELS)]
        if i < n_used:
            schedule = list(USE_SCHEDULES)[(i // len(IMPORTANCE_LEVELS)) % len(USE_SCHEDULES)]
            mean, jitter = USE_SCHEDULES[schedule]
            uses, day = [], 0
            while True:
                day += max(1, mean + rng.randint(-jitter, jitter))
                if day >= days:
                    break
                uses.append(day)
            facts.append(RetentionFact(vocab.fact(topic, importance=importance), schedule, uses))
        else:
            facts.append(RetentionFact(vocab.fact(topic, importance=importance), None))
    # a few short-lived facts (a delivery slot, a cart) that must be gone by the end
    for j in range(2):
        f = Fact(
            f"delivery{j}",
            f"My parcel number {rng.randint(10000, 99999)} arrives on {rng.choice(MONTHS)} {rng.randint(1, 28)}.",
            "When does my parcel arrive?",
            "",
            "open_issue",
            0.5,
        )
        facts.append(RetentionFact(f, None, [], expires_day=3))
    chatter: dict[int, list[str]] = {}
    for day in range(days):
        items = [vocab.chatter() for _ in range(chatter_per_day)]
        if day % 3 == 0:  # someone else's version of a topic, now and then
            items.append(vocab.near_duplicate(rng.choice(topics)))
        chatter[day] = items
    return RetentionScenario(user_id, days, facts, chatter)


# -- conflict ------------------------------------------------------------------------------------------
CONFLICT_TOPICS = ("address", "job", "plan")


@dataclass
class KeyedHistory:
    key: str
    query: str
    kind: str
    versions: list[tuple[int, Fact]]  # (day said, fact), oldest first; the last one is current


@dataclass
class ConflictScenario:
    user_id: str
    histories: list[KeyedHistory]
    chatter: list[tuple[int, str]]
    days: int


def conflict(seed: int, user_id: str, *, versions: int, days: int) -> ConflictScenario:
    """Address, job and phone plan change over time; a product spec changes across manual versions."""
    rng = random.Random(f"conflict:{seed}:{user_id}")
    vocab = Vocabulary(rng)
    histories: list[KeyedHistory] = []
    for topic in CONFLICT_TOPICS:
        n = rng.randint(2, max(2, versions))
        said = sorted(rng.sample(range(days), n))
        histories.append(
            KeyedHistory(
                topic, vocab.fact(topic).query, "fact", [(d, vocab.fact(topic, importance=0.6)) for d in said]
            )
        )
    product = rng.choice(PRODUCTS)
    n = rng.randint(2, max(2, versions))
    said = sorted(rng.sample(range(days), n))
    hours = rng.sample(range(6, 40), n)
    spec_versions = []
    for v, (d, h) in enumerate(zip(said, hours, strict=True), start=1):
        value = f"{product} manual v{v}.0"
        text = f"According to the {value}, the {product} battery lasts {h} hours on one charge."
        spec_versions.append(
            (d, Fact("spec", text, f"How long does the {product} battery last?", value, "knowledge", 0.7))
        )
    histories.append(
        KeyedHistory(f"spec:{product}:battery", spec_versions[0][1].query, "knowledge", spec_versions)
    )
    chatter = [(rng.randrange(days), vocab.chatter()) for _ in range(days * 2)]
    return ConflictScenario(user_id, histories, sorted(chatter), days)


# -- long dialogue -------------------------------------------------------------------------------------
@dataclass
class Dialogue:
    user_id: str
    turns: list[str]  # the user's turns, in order
    early: list[Fact]  # name, goals, constraints said in the first turns (indexes in ``early_turns``)
    early_turns: list[int]
    probes: list[tuple[int, Fact]]  # (turn index, fact needed to answer the question at that turn)
    turns_per_day: int
    side: list[tuple[int, Fact]] = field(default_factory=list)  # facts said later (turn index, fact)

    def extracted(self) -> dict[int, Fact]:
        """Turn index -> the fact an extractor would key from that turn (early and side facts)."""
        out = dict(zip(self.early_turns, self.early, strict=True))
        out.update(dict(self.side))
        return out


def dialogue(
    seed: int, user_id: str, *, turns: int, turns_per_day: int = 60, probe_every: int = 0
) -> Dialogue:
    """A long dialogue: name, two goals and two constraints first, then chatter and a few side facts.

    With ``probe_every`` > 0, every that many turns the user asks something that needs an earlier fact
    (the token-efficiency suite measures whether the context sent carries it).
    """
    rng = random.Random(f"dialogue:{seed}:{user_id}:{turns}")
    vocab = Vocabulary(rng)
    first, surname = rng.choice(FIRST), rng.choice(SURNAMES)
    slots = vocab._fill()
    goal_texts = rng.sample(GOALS, 2)
    constraint_texts = rng.sample(CONSTRAINTS, 2)
    early = [
        Fact(
            "name",
            f"Hi, my name is {first} {surname}.",
            "What is my name?",
            f"{first} {surname}",
            "fact",
            0.95,
            True,
        ),
    ]
    for i, g in enumerate(goal_texts):
        goal = g.format(**slots)
        early.append(
            Fact(
                f"goal{i + 1}",
                f"One of my main goals this year is to {goal}.",
                "What are my main goals this year?",
                goal,
                "fact",
                0.9,
                True,
            )
        )
    for i, c in enumerate(constraint_texts):
        con = c.format(**slots)
        early.append(
            Fact(
                f"constraint{i + 1}",
                f"Please keep in mind that {con}.",
                "What should you keep in mind about me?",
                con,
                "preference",
                0.9,
                True,
            )
        )
    out: list[str] = []
    early_turns: list[int] = []
    for f in early:
        early_turns.append(len(out))
        out.append(f.text)
    side_topics = [t for t in TOPICS if t not in ("allergy", "diet")]
    side: list[tuple[int, Fact]] = []
    probes: list[tuple[int, Fact]] = []
    while len(out) < turns:
        i = len(out)
        if probe_every and i > 40 and i % probe_every == 0:
            pool = early + [f for _, f in side]
            need = rng.choice(pool)
            probes.append((i, need))
            out.append(need.query)
        elif rng.random() < 0.02 and side_topics:
            topic = side_topics.pop(rng.randrange(len(side_topics)))
            f = vocab.fact(topic, importance=0.6)
            side.append((i, f))
            out.append(f.text)
        elif rng.random() < 0.05:
            out.append(vocab.near_duplicate(rng.choice(TOPICS)))
        else:
            out.append(vocab.chatter())
    return Dialogue(user_id, out[:turns], early, early_turns, probes, turns_per_day, side)


# -- interference --------------------------------------------------------------------------------------
@dataclass
class InterferenceScenario:
    user_id: str
    relevant: list[Fact]
    distractors: list[str]
    days: int


def interference(
    seed: int, user_id: str, *, n_relevant: int, ratio: int, days: int, near_share: float = 0.6
) -> InterferenceScenario:
    """``n_relevant`` facts and ``ratio`` times as many distractors.

    ``near_share`` of the distractors are near-duplicates, split evenly between someone else's
    version of a topic and talk that repeats a fact's question without its value; the rest is chatter.
    """
    rng = random.Random(f"interference:{seed}:{user_id}")
    vocab = Vocabulary(rng)
    topics = rng.sample(TOPICS, min(n_relevant, len(TOPICS)))
    relevant = [vocab.fact(t, importance=0.5) for t in topics]
    distractors = []
    for _ in range(ratio * len(relevant)):
        x = rng.random()
        if x < near_share / 2:
            distractors.append(vocab.near_duplicate(rng.choice(topics)))
        elif x < near_share:
            distractors.append(vocab.mention(rng.choice(relevant)))
        else:
            distractors.append(vocab.chatter())
    return InterferenceScenario(user_id, relevant, distractors, days)


# -- deletion ------------------------------------------------------------------------------------------
@dataclass
class Secret:
    fact: Fact
    marker: str  # a token that appears nowhere else; it must not survive anywhere once forgotten
    how: str  # "id", "key", "request" or "erasure"


@dataclass
class DeletionScenario:
    user_id: str
    erased_user: str
    keep: list[Fact]
    secrets: list[Secret]
    requests: dict[str, str]  # secret topic -> natural-language forget request


def deletion(seed: int, user_id: str, *, n_secrets: int) -> DeletionScenario:
    """Secrets with unique markers, each to be forgotten one way, and facts that must stay."""
    rng = random.Random(f"deletion:{seed}:{user_id}")

    def marker() -> str:
        return "Q" + "".join(rng.choice("BCDFGHJKLMNPRSTVWXZ") for _ in range(5)) + str(rng.randint(100, 999))

    # two e-mail addresses (vaulted by the privacy layer), forgotten by id and by key
    templates = [
        ("email", "My private email address is {m}@example.org.", "What is my private email address?"),
        ("wifi", "The wifi password at home is {m}.", "What is the wifi password at home?"),
        ("passport", "My passport number is {m}.", "What is my passport number?"),
        ("pin", "The door pin for the garage is {m}.", "What is the door pin for the garage?"),
        ("locker", "My gym locker code is {m}.", "What is my gym locker code?"),
        ("work_email", "My work email address is {m}@example.com.", "What is my work email address?"),
        ("diagnosis", "My doctor's diagnosis code is {m}.", "What is my diagnosis code?"),
        ("ticket", "My support ticket reference is {m}.", "What is my support ticket reference?"),
    ]
    hows = ("id", "key", "request", "erasure")
    secrets: list[Secret] = []
    requests: dict[str, str] = {}
    for i in range(n_secrets):
        topic, tpl, query = templates[i % len(templates)]
        m = marker()
        key = f"{topic}{i}"
        how = hows[i % len(hows)]
        secrets.append(Secret(Fact(key, tpl.format(m=m), query, m, "fact", 0.8), m, how))
        if how == "request":
            requests[key] = f"please forget my {topic.replace('_', ' ')}"
    vocab = Vocabulary(rng)
    keep = [vocab.fact(t, importance=0.6) for t in rng.sample(TOPICS, 6)]
    return DeletionScenario(user_id, f"{user_id}-erased", keep, secrets, requests)
