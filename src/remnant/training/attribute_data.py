"""Generated statements labelled with the single-valued attribute they set, English and Chinese.

Used to fit the attribute centroids of :mod:`remnant.understand.attribute_model`: "relocated
to Vancouver" and "Berlin is home these days" both set ``city`` without sharing a word. The
attribute names are those of :mod:`remnant.understand.attributes`; ``other`` collects
statements about things a person has many of (likes, pets, hobbies, events), which never supersede
one another. Templates and slot lists are written for this generator (no public data, no evaluation
file); :func:`generate` is deterministic for a seed, and :func:`pairs` composes labelled old/new
pairs from it (same attribute and subject with a new value: ``supersedes``; another attribute:
``unrelated``; another person or an addition: ``compatible``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

OTHER = "other"


@dataclass(frozen=True)
class Statement:
    text: str
    attribute: str
    lang: str
    template: str
    value: str


_V = {
    "city": ["Lyon", "Denver", "Osaka", "Porto", "Leeds", "Hamburg", "Calgary", "Perth", "Krakow", "Seattle",
             "Valencia", "Ghent", "Tucson", "Bristol", "Montreal", "Turin", "Austin", "Dublin"],
    "employer": ["Acme", "Northwind", "Globex", "Initech", "Umbrella Labs", "Contoso", "Hooli", "Vandelay",
                 "Stark Freight", "Wayne Health", "Pied Piper", "Soylent"],
    "occupation": ["nurse", "plumber", "data analyst", "teacher", "pharmacist", "architect", "chef", "lawyer",
                   "paramedic", "designer", "accountant", "electrician", "translator", "firefighter"],
    "diet": ["vegetarian", "vegan", "pescatarian", "keto", "gluten-free", "dairy-free", "paleo"],
    "drink": ["black coffee", "green tea", "decaf", "oat lattes", "espresso", "chai", "matcha"],
    "commute": ["bike", "train", "bus", "car", "scooter", "tram", "ferry"],
    "time": ["6", "6:30", "7", "5:45", "8", "9", "10", "11", "midnight", "7:15"],
    "exercise": ["run", "swim", "do yoga", "lift", "cycle", "box", "row", "climb"],
    "phone": ["an iPhone 15", "a Pixel 8", "a Galaxy S23", "a Fairphone", "an old Nokia", "a OnePlus"],
    "car": ["a Prius", "a Subaru", "a Tesla", "a Golf", "a Civic", "a Volvo", "a Mini", "an old Jeep"],
    "school": ["Lincoln Elementary", "Oak Hill Academy", "the Montessori school", "St Mary's", "Riverside High"],
    "rent": ["900", "1,200", "1,450", "2,100", "750", "1,800"],
    "name": ["Sam", "Alex", "Jo", "Max", "Kit", "Rae", "Lou", "Bea"],
    "rel": ["sister", "brother", "mom", "dad", "boss", "friend", "roommate", "cousin"],
    "like": ["jazz", "hiking", "sushi", "board games", "horror films", "gardening", "chess", "podcasts"],
    "pet": ["a cat", "a beagle", "two goldfish", "a parrot", "a rabbit"],
}  # fmt: skip

_EN: dict[str, list[str]] = {
    "city": [
        "I live in {city}",
        "we moved to {city}",
        "relocated to {city} last month",
        "{city} is home now",
        "I'm based in {city}",
        "just settled in {city}",
        "living in {city} these days",
        "our new place is in {city}",
    ],
    "employer": [
        "I work at {employer}",
        "started at {employer} on Monday",
        "I joined {employer}",
        "I'm with {employer} now",
        "my employer is {employer}",
        "got hired by {employer}",
        "working for {employer} these days",
    ],
    "occupation": [
        "I'm a {occupation}",
        "I work as a {occupation}",
        "I became a {occupation}",
        "my job is {occupation}",
        "trained as a {occupation} and now do it full time",
        "I'm a {occupation} now",
    ],
    "diet": [
        "I'm {diet}",
        "I went {diet}",
        "I eat {diet} now",
        "my diet is {diet}",
        "strictly {diet} these days",
        "switched to a {diet} diet",
    ],
    "drink": [
        "I drink {drink} every morning",
        "my morning drink is {drink}",
        "I switched to {drink}",
        "only {drink} for me these days",
        "I start the day with {drink}",
    ],
    "commute": [
        "I commute by {commute}",
        "I take the {commute} to work",
        "I get to the office by {commute}",
        "my commute is by {commute} now",
        "going to work by {commute} these days",
    ],
    "wake_time": [
        "I wake up at {time}",
        "my alarm goes off at {time}",
        "I'm up at {time} every day",
        "I get up at {time} now",
    ],
    "bedtime": [
        "I go to bed at {time}",
        "I'm asleep by {time}",
        "lights out at {time} for me",
        "I sleep at {time} these days",
    ],
    "exercise_habit": [
        "I {exercise} every morning",
        "I {exercise} three times a week",
        "my workout is to {exercise}",
        "these days I {exercise} after work",
        "I {exercise} on weekdays",
    ],
    "relationship_status": [
        "I'm single",
        "I'm married",
        "I got engaged",
        "I'm divorced",
        "I'm dating someone",
        "we got married in June",
        "we split up",
        "I'm in a relationship now",
    ],
    "school": [
        "my kid goes to {school}",
        "our son attends {school}",
        "my daughter is at {school}",
        "the kids are at {school} now",
    ],
    "phone_model": [
        "I use {phone}",
        "my phone is {phone}",
        "I switched to {phone}",
        "got {phone} as my phone",
    ],
    "car": ["I drive {car}", "my car is {car}", "we bought {car}", "I got {car} last week"],
    "smoking": ["I smoke", "I quit smoking", "I'm a smoker", "I stopped smoking", "I smoke a pack a day"],
    "alcohol": ["I don't drink alcohol", "I'm sober now", "I drink wine most nights", "I quit drinking"],
    "rent": ["my rent is {rent} a month", "I pay {rent} in rent", "rent went up to {rent}"],
    "name": ["call me {name}", "my name is {name}", "I go by {name}", "please use {name} for me"],
    OTHER: [
        "I like {like}",
        "I love {like}",
        "I'm into {like}",
        "we have {pet}",
        "I adopted {pet}",
        "I went to a concert yesterday",
        "I visited my {rel} last weekend",
        "I read a great book",
        "I'm learning the guitar",
        "I enjoy {like} on Sundays",
        "my {rel} loves {like}",
        "I had a dentist appointment today",
        "I'm watching a new series",
        "I play {like} with friends",
    ],
}

_ZV = {
    "city": ["杭州", "成都", "深圳", "西安", "南京", "青岛", "武汉", "厦门", "苏州", "长沙", "北京", "上海"],
    "employer": ["腾讯", "阿里", "华为", "美团", "字节", "京东", "网易", "小米", "百度"],
    "occupation": ["护士", "程序员", "老师", "会计", "律师", "厨师", "设计师", "医生", "工程师", "翻译"],
    "diet": ["吃素", "生酮饮食", "不吃肉", "戒糖", "低碳水"],
    "drink": ["美式咖啡", "绿茶", "拿铁", "红茶", "豆浆"],
    "commute": ["地铁", "公交", "开车", "骑车", "打车"],
    "time": ["六点", "六点半", "七点", "八点", "十点", "十一点", "十二点"],
    "exercise": ["跑步", "游泳", "练瑜伽", "健身", "骑车", "打球"],
    "phone": ["苹果手机", "华为手机", "小米手机", "三星手机"],
    "car": ["比亚迪", "特斯拉", "大众", "丰田", "宝马"],
    "school": ["实验小学", "阳光幼儿园", "第一中学", "外国语学校"],
    "rent": ["三千", "四千五", "五千", "六千"],
    "name": ["小王", "阿杰", "老李", "小美"],
    "rel": ["妹妹", "哥哥", "妈妈", "爸爸", "领导", "朋友"],
    "like": ["爬山", "看电影", "打游戏", "听音乐", "下棋"],
    "pet": ["一只猫", "一条狗", "两只兔子"],
}  # fmt: skip

_ZH: dict[str, list[str]] = {
    "city": ["我住在{city}", "我搬到{city}了", "现在在{city}生活", "我们定居{city}了", "刚搬去{city}"],
    "employer": ["我在{employer}上班", "我跳槽到{employer}了", "我入职{employer}了", "现在在{employer}工作"],
    "occupation": [
        "我是{occupation}",
        "我现在当{occupation}",
        "我的工作是{occupation}",
        "我改行做{occupation}了",
    ],
    "diet": ["我{diet}", "我现在{diet}了", "我开始{diet}了"],
    "drink": ["我每天早上喝{drink}", "我改喝{drink}了", "我现在只喝{drink}"],
    "commute": ["我{commute}上班", "我每天{commute}去公司", "我现在{commute}通勤"],
    "wake_time": ["我每天{time}起床", "我现在{time}起", "闹钟定在{time}"],
    "bedtime": ["我{time}睡觉", "我一般{time}就睡了", "我现在{time}上床"],
    "exercise_habit": ["我每天早上{exercise}", "我每周{exercise}三次", "我现在下班后{exercise}"],
    "relationship_status": ["我单身", "我结婚了", "我订婚了", "我离婚了", "我谈恋爱了", "我们分手了"],
    "school": ["我孩子在{school}上学", "我儿子在{school}", "我女儿转到{school}了"],
    "phone_model": ["我用{phone}", "我换了{phone}", "我的手机是{phone}"],
    "car": ["我开{car}", "我买了一辆{car}", "我的车是{car}"],
    "smoking": ["我抽烟", "我戒烟了", "我每天抽一包烟"],
    "alcohol": ["我不喝酒", "我戒酒了", "我每晚喝点红酒"],
    "rent": ["我房租每月{rent}", "房租涨到{rent}了"],
    "name": ["叫我{name}", "我的名字是{name}", "大家都叫我{name}"],
    OTHER: [
        "我喜欢{like}",
        "我养了{pet}",
        "我昨天去看了演唱会",
        "我上周末去看了{rel}",
        "我在学吉他",
        "我{rel}喜欢{like}",
        "我今天去看牙医了",
        "我最近在追一部剧",
        "周末我常{like}",
    ],
}


# more phrasings per attribute: the ones that share no cue word with the first ones matter most
_EN_MORE: dict[str, list[str]] = {
    "city": [
        "home is {city} these days",
        "we're in {city} since the move",
        "just got an apartment in {city}",
        "I'm a {city} resident now",
        "our address is in {city} now",
        "ended up settling down in {city}",
    ],
    "employer": [
        "I'm on the payroll at {employer}",
        "{employer} hired me last week",
        "my new company is {employer}",
        "signed my contract with {employer}",
        "I've been at {employer} since spring",
    ],
    "occupation": [
        "I make a living as a {occupation}",
        "I'm working as a {occupation} now",
        "by trade I'm a {occupation}",
        "my new role is {occupation}",
        "I retrained and I'm a {occupation} these days",
    ],
    "diet": [
        "I follow a {diet} diet",
        "no more meat, I'm {diet}",
        "I've been eating {diet} for a while",
        "{diet} is how I eat now",
    ],
    "drink": [
        "mornings are {drink} now",
        "{drink} is my go-to drink",
        "I can't start the day without {drink}",
        "I've moved on to {drink}",
    ],
    "commute": [
        "I ride the {commute} to the office",
        "{commute} is how I get to work",
        "I go in by {commute}",
        "the {commute} gets me to work every day",
    ],
    "wake_time": [
        "I'm an early riser, up at {time}",
        "{time} is when I get up",
        "my mornings start at {time}",
        "the alarm rings at {time}",
    ],
    "bedtime": [
        "I turn in around {time}",
        "bedtime for me is {time}",
        "I hit the sack at {time}",
        "I'm in bed by {time} most nights",
    ],
    "exercise_habit": [
        "my workouts are to {exercise} before breakfast",
        "I try to {exercise} daily",
        "I've taken up a habit: I {exercise} every evening",
        "my fitness routine is to {exercise}",
    ],
    "relationship_status": [
        "I have a girlfriend now",
        "I tied the knot last month",
        "we broke up in spring",
        "the divorce is final",
        "I'm seeing someone",
        "not dating anyone, I'm on my own",
    ],
    "school": [
        "{school} is where my son goes",
        "we enrolled our daughter at {school}",
        "my kids attend {school}",
    ],
    "phone_model": [
        "I'm carrying {phone} now",
        "I replaced my phone with {phone}",
        "{phone} is my phone these days",
    ],
    "car": ["I'm driving {car} these days", "{car} is our family car", "we traded in for {car}"],
    "smoking": [
        "cigarettes are a thing of the past for me",
        "I still smoke now and then",
        "I kicked the smoking habit",
    ],
    "alcohol": [
        "I don't touch alcohol",
        "I gave up booze",
        "I have a beer most evenings",
        "teetotal for a year now",
    ],
    "rent": ["we pay {rent} a month for the flat", "our rent is {rent} now", "the landlord charges {rent}"],
    "name": ["everyone calls me {name}", "I'd like to be called {name}", "the name's {name}"],
    OTHER: [
        "I went hiking last weekend",
        "I bought a new jacket",
        "I love {like} and {like}",
        "my {rel} visited us",
        "we watched a movie last night",
        "I'm reading about history",
        "I collect vinyl records",
        "I have {pet} at home",
        "I tried a new recipe today",
    ],
}
_ZH_MORE: dict[str, list[str]] = {
    "city": ["我现在是{city}人了", "我们家在{city}", "新家在{city}"],
    "employer": ["我现在是{employer}的员工", "{employer}录用我了", "我去{employer}上班了"],
    "occupation": ["我干{occupation}这行", "我转行当{occupation}了", "我的职业是{occupation}"],
    "diet": ["我的饮食是{diet}", "我最近{diet}"],
    "drink": ["早上来一杯{drink}", "{drink}是我每天必喝的"],
    "commute": ["我上下班{commute}", "{commute}去公司最方便"],
    "wake_time": ["我早上{time}就起来了", "每天{time}醒"],
    "bedtime": ["我晚上{time}上床睡觉", "我{time}就睡着了"],
    "exercise_habit": ["我坚持每天{exercise}", "我晚饭后{exercise}"],
    "relationship_status": ["我有对象了", "我们领证了", "我现在一个人"],
    "school": ["孩子上的是{school}", "我们把孩子送到{school}了"],
    "phone_model": ["我现在拿的是{phone}", "我手机换成{phone}了"],
    "car": ["我们家的车是{car}", "我换了{car}"],
    "smoking": ["我早就不抽烟了", "我偶尔抽根烟"],
    "alcohol": ["我滴酒不沾", "我晚上会喝点啤酒"],
    "rent": ["房租一个月{rent}", "每月交{rent}房租"],
    "name": ["你可以叫我{name}", "我的小名是{name}"],
    OTHER: ["我喜欢{like}和旅游", "我昨天买了新衣服", "我们昨晚看了电影", "我家有{pet}", "我在看一本历史书"],
}  # fmt: skip
for _table, _more in ((_EN, _EN_MORE), (_ZH, _ZH_MORE)):
    for _attr, _templates in _more.items():
        _table[_attr] = _table[_attr] + _templates

# which slot carries the value of each attribute's template
_VALUE_SLOT = {"city": "city", "employer": "employer", "occupation": "occupation", "diet": "diet",
               "drink": "drink", "commute": "commute", "wake_time": "time", "bedtime": "time",
               "exercise_habit": "exercise", "school": "school", "phone_model": "phone", "car": "car",
               "rent": "rent", "name": "name"}  # fmt: skip
_SLOT = re.compile(r"\{(\w+)\}")


def _fill(template: str, values: dict[str, list[str]], rng: random.Random, fixed: dict[str, str]) -> str:
    def pick(m: re.Match[str]) -> str:
        key = m.group(1)
        return fixed.get(key) or rng.choice(values[key])

    return _SLOT.sub(pick, template)


def generate(n: int = 2000, *, seed: int = 0, zh_share: float = 0.4) -> list[Statement]:
    """``n`` distinct statements (fewer if the templates run out), attributes drawn uniformly."""
    rng = random.Random(seed)
    out: list[Statement] = []
    seen: set[str] = set()
    tries = 0
    while len(out) < n and tries < n * 20:
        tries += 1
        zh = rng.random() < zh_share
        table, values = (_ZH, _ZV) if zh else (_EN, _V)
        attribute = rng.choice(sorted(table))
        template = rng.choice(table[attribute])
        slot = _VALUE_SLOT.get(attribute)
        value = rng.choice(values[slot]) if slot and "{" + slot + "}" in template else template
        text = _fill(template, values, rng, {slot: value} if slot else {})
        if text in seen:
            continue
        seen.add(text)
        out.append(Statement(text, attribute, "zh" if zh else "en", template, value))
    return out


def pairs(statements: list[Statement], n: int = 1500, *, seed: int = 0) -> list[tuple[str, str, str]]:
    """(old, new, label) pairs: a third each supersedes / unrelated / compatible (an addition
    "also …" or another person's attribute)."""
    rng = random.Random(seed)
    by_attr: dict[tuple[str, str], list[Statement]] = {}
    for s in statements:
        by_attr.setdefault((s.lang, s.attribute), []).append(s)
    keys = [k for k in by_attr if k[1] != OTHER]
    out: list[tuple[str, str, str]] = []
    while len(out) < n:
        lang, attr = rng.choice(keys)
        old = rng.choice(by_attr[(lang, attr)])
        kind = rng.random()
        if kind < 1 / 3:
            news = [s for s in by_attr[(lang, attr)] if s.value != old.value and s.template != old.template]
            if news:
                out.append((old.text, rng.choice(news).text, "supersedes"))
        elif kind < 2 / 3:
            other = rng.choice([k for k in by_attr if k[0] == lang and k[1] != attr])
            out.append((old.text, rng.choice(by_attr[other]).text, "unrelated"))
        else:
            new = rng.choice(by_attr[(lang, attr)]).text
            if lang == "en":
                rel = rng.choice(_V["rel"])
                changed = re.sub(r"^(?:I|we)\b", f"my {rel}", new, count=1)
                changed = changed if changed != new else new + " too"
                changed = changed.replace("my " + rel + "'m", "my " + rel + " is")
            else:
                rel = rng.choice(_ZV["rel"])
                changed = (
                    new.replace("我", "我" + rel, 1) if new.startswith("我") else "我" + rel + "也" + new
                )
            out.append((old.text, changed, "compatible"))
    return out
