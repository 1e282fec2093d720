"""Generated conversation turns labelled salient or filler, English and Chinese, for the salience model.

What a user says once and would expect remembered a month later is *salient*: self-disclosure
(where they live and work, health, what they are like), plans and dates, people and relationships,
preferences, habits, numbers that belong to them, names of their things, and changes of state,
including turns that state a fact by implication without "I"/"my"/"我" ("Moving to Denver in
March", "刚换了工作"). *Filler* is what nobody needs a month later: greetings, thanks,
acknowledgements, small talk, weather, questions to the assistant, instructions about the answer's
form, and hard filler that has numbers, names and dates but says nothing about the user ("Einstein
was born in 1879, right?", "帮我算一下 37 乘以 12").

Every turn is composed from templates and slot lists written for this generator (no public data,
no evaluation file); :func:`generate` is deterministic for a seed. See ``docs/forgetting.md``
(*How salience is estimated*) for how the model trained on it is used.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

SALIENT = "salient"
FILLER = "filler"


@dataclass(frozen=True)
class Turn:
    text: str
    label: str  # SALIENT or FILLER
    lang: str  # "en" or "zh"
    category: str
    template: str  # the template it was filled from: cross-validation folds split by template


# ---------------------------------------------------------------- English slots
_S = {
    "city": ["Lyon", "Denver", "Osaka", "Porto", "Austin", "Leeds", "Hamburg", "Calgary", "Perth", "Nairobi",
             "Krakow", "Seattle", "Valencia", "Ghent", "Tucson", "Bristol", "Montreal", "Brisbane", "Turin"],
    "job": ["nurse", "plumber", "data analyst", "teacher", "pharmacist", "architect", "line cook", "lawyer",
            "paramedic", "UX designer", "accountant", "electrician", "translator", "vet tech", "firefighter",
            "software engineer", "librarian", "dental hygienist", "truck driver", "physiotherapist"],
    "employer": ["a hospital", "a bakery", "the city council", "a startup", "a law firm", "a school",
                 "an airline", "a bank", "a logistics company", "a museum", "the post office", "a hotel"],
    "rel": ["wife", "husband", "partner", "son", "daughter", "mom", "dad", "brother", "sister", "boss",
            "best friend", "grandma", "roommate", "girlfriend", "boyfriend", "uncle", "niece", "stepdad"],
    "name": ["Maya", "Tom", "Priya", "Lucas", "Aiko", "Omar", "Greta", "Diego", "Nina", "Sam", "Leila",
             "Jonas", "Chloe", "Ravi", "Elena", "Felix", "Hana", "Marcus", "Ines", "Kofi"],
    "pet": ["dog", "cat", "rabbit", "parrot", "hamster", "tortoise", "puppy", "kitten", "gecko"],
    "petname": ["Biscuit", "Mochi", "Rex", "Luna", "Pepper", "Ziggy", "Olive", "Bruno", "Noodle"],
    "food": ["cilantro", "mushrooms", "spicy food", "olives", "blue cheese", "sushi", "dark chocolate",
             "oat milk", "coffee", "licorice", "eggplant", "tofu", "pickles", "ramen", "mango"],
    "allergen": ["peanuts", "shellfish", "penicillin", "cats", "pollen", "gluten", "dairy", "latex", "bees"],
    "condition": ["type 1 diabetes", "asthma", "migraines", "a bad knee", "high blood pressure",
                  "ADHD", "celiac disease", "a heart murmur", "chronic back pain", "insomnia"],
    "hobby": ["rock climbing", "knitting", "bouldering", "chess", "birdwatching", "salsa dancing",
              "woodworking", "trail running", "pottery", "sourdough baking", "painting", "cycling",
              "surfing", "playing the cello", "gardening", "photography"],
    "activity": ["swim", "run 5k", "meditate", "walk the dog", "journal", "do yoga", "stretch",
                 "read for an hour", "practice piano", "cycle to work", "lift weights", "call my mom"],
    "time": ["every morning", "every night", "on Sundays", "every weekend", "twice a week", "each evening",
             "every Friday", "most days", "before work", "after dinner", "every other day"],
    "when": ["next week", "next month", "on Friday", "in March", "this summer", "tomorrow",
             "on the 14th", "next Tuesday", "in two weeks", "after Easter", "in October", "next spring",
             "on June 3rd", "by the end of the month", "this weekend", "next term"],
    "event": ["a job interview", "my wedding", "a dentist appointment", "surgery", "a flight to Lisbon",
              "my thesis defense", "a marathon", "a court date", "the bar exam", "a piano recital",
              "a camping trip", "my driving test", "a conference talk", "an MRI", "my sister's wedding"],
    "thing": ["a 2015 Subaru Outback", "an old ThinkPad", "a Kindle", "a vintage Vespa", "a Pixel 7",
              "a Prius", "a road bike", "a Nikon D750", "an iPad", "a Honda Civic", "a Peloton"],
    "lang": ["Spanish", "Japanese", "German", "Korean", "Italian", "Arabic", "Portuguese", "Dutch"],
    "school": ["the state university", "a community college", "night school", "a coding bootcamp",
               "an online MBA", "nursing school", "art school"],
    "team": ["the Celtics", "Arsenal", "the Yankees", "the Packers", "Real Madrid", "the Lakers"],
    "num": ["2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "15", "20", "25", "30", "40"],
    "age": ["29", "34", "41", "52", "67", "23", "38", "45", "19", "71"],
    "diet": ["vegetarian", "vegan", "pescatarian", "keto", "gluten-free", "lactose intolerant",
             "halal", "kosher"],
    "kid_school": ["kindergarten", "middle school", "high school", "a new school", "preschool", "college"],
    "band": ["Radiohead", "Taylor Swift", "Miles Davis", "BTS", "Fleetwood Mac", "Bach", "Kendrick Lamar"],
}  # fmt: skip

_EN_SALIENT: dict[str, list[str]] = {
    "self": [
        "I live in {city} with my {rel}",
        "I'm a {job} at {employer}",
        "I work as a {job}",
        "I've been a {job} for {num} years",
        "I'm {age} and just started at {employer}",
        "we live in a small flat in {city}",
        "I grew up in {city} but live in {city} now",
        "I'm {diet}",
        "I have {condition}",
        "I was diagnosed with {condition} last year",
        "I'm allergic to {allergen}",
        "I speak {lang} at home",
        "I study at {school}",
        "I drive {thing}",
        "my car is {thing}",
        "I'm left-handed, if that matters",
        "I'm pregnant with our second",
        "I retired from teaching in 2019",
        "honestly I'm pretty introverted",
        "I'm a night owl, I rarely sleep before 2",
    ],
    "implicit": [
        "Moving to {city} {when} for the new role",
        "Allergic to {allergen}, so no {food} either please",
        "Got promoted to head {job} last week",
        "Three kids, all under ten",
        "{diet} since 2015",
        "Just adopted a {pet} named {petname}",
        "Started at {employer} on Monday",
        "Back in {city} for good now",
        "Still recovering from knee surgery",
        "Fluent in {lang}, rusty at French",
        "Two years sober as of {when}",
        "Newly married, still getting used to it",
        "Working night shifts at {employer} these days",
        "Off dairy for good after the tests",
        "Vegan household, the kids too",
        "Been on blood thinners since March",
        "Training for {event} {when}",
        "Half marathon done, full one {when}",
        "Retired as of last Friday",
        "Finally quit smoking, day {num} today",
        "Living alone since the divorce",
        "New job at {employer}, way better commute",
        "Only shellfish gives me hives",
        "Bought a house in {city}, keys {when}",
        "Kid number two is due {when}",
        "The {pet} is {num} now and still acts like a puppy",
        "Mornings are for {hobby}, always",
        "No more coffee after noon, doctor's orders",
        "Wheelchair user, so stairs are a no",
        "Commute is {num} minutes each way by train",
    ],
    "plan": [
        "I have {event} {when}",
        "my {rel} and I are flying to {city} {when}",
        "I'm planning to start {hobby} {when}",
        "I'm going to quit my job {when}",
        "remind me that {event} is {when}",
        "we're moving {when}",
        "{event} is {when}, I'm nervous",
        "I'm starting {school} {when}",
        "I need to renew my passport before {when}",
        "my {rel}'s birthday is {when}",
        "our anniversary is {when}",
        "planning a trip to {city} {when}",
        "my son starts {kid_school} {when}",
        "my daughter goes to {kid_school} {when}",
        "I'm taking {num} days off {when}",
        "I want to run {event} {when}",
    ],
    "people": [
        "my {rel} is called {name}",
        "{name} is my {rel}",
        "my {rel} {name} works as a {job}",
        "my {rel} lives in {city}",
        "my {rel} just turned {age}",
        "I have {num} grandchildren",
        "my {rel} is allergic to {allergen}",
        "I have a {pet} named {petname}",
        "my {rel} and I split up last month",
        "{name} and I got engaged",
        "my {rel} passed away in May",
        "my {rel} is the one who got me into {hobby}",
        "my kids are {num} and {num}",
        "I take care of my {rel} who has {condition}",
        "my {rel} moved in with us",
    ],
    "preference": [
        "I love {food}",
        "I can't stand {food}",
        "I prefer {food} over everything",
        "I hate {food}, it tastes like soap to me",
        "my favourite band is {band}",
        "I'm a huge {team} fan",
        "I'd rather take the train than fly",
        "I don't drink alcohol",
        "please always answer me in {lang}",
        "I like short answers without emojis",
        "call me {name}, not my full name",
        "I'm really into {hobby}",
        "I never eat {food}",
        "window seat always, I get claustrophobic",
        "I prefer mornings for meetings",
    ],
    "habit": [
        "{time} I {activity}",
        "I {activity} {time}",
        "I usually {activity} {time}",
        "I always {activity} before bed",
        "I go {hobby} {time}",
        "I take my meds at 8 every morning",
        "I fast on Mondays",
        "I visit my {rel} {time}",
        "I never miss my {time} {hobby}",
        "I work from home on Fridays",
        "I drink {num} cups of coffee a day",
    ],
    "number": [
        "my budget is ${num},000",
        "I earn about {num}k a year",
        "my rent is {num}00 a month",
        "I'm {age} years old",
        "I weigh {num}0 kilos",
        "I sleep about {num} hours a night",
        "my blood type is O negative",
        "my shoe size is 4{num}",
        "I have {num} kids",
        "I've lost {num} pounds since January",
        "our wifi password is tulip{num}{num}",
        "my flight number is BA{num}{num}7",
        "my locker code is {num}{num}{num}",
    ],
    "change": [
        "I switched to {diet} recently",
        "I'm a {job} now",
        "I no longer work at {employer}",
        "I moved to {city} last month",
        "I stopped eating {food}",
        "I don't live in {city} anymore",
        "these days I {activity} {time}",
        "I quit {hobby} after the injury",
        "I left {employer} in June",
        "from now on call me {name}",
        "we changed our plans, the trip is {when} now",
        "I used to love {food} but not anymore",
        "I finally got my license",
        "I'm single again",
        "my {rel} and I moved in together",
        "I changed jobs, I'm at {employer} now",
    ],
    "question_with_fact": [
        "I'm {diet}, what should I cook tonight?",
        "since I have {condition}, is it safe to fly?",
        "my {rel} is turning {age} {when}, any gift ideas?",
        "I'm allergic to {allergen} — which of these dishes is safe?",
        "I'm moving to {city} {when}, which neighbourhoods are good?",
        "I have {event} {when}, how should I prepare?",
    ],
}

_EN_FILLER: dict[str, list[str]] = {
    "greeting": [
        "hi",
        "hello there",
        "hey!",
        "good morning",
        "good evening :)",
        "morning!",
        "hey, you around?",
        "yo",
        "bye for now",
        "see you tomorrow",
        "goodnight",
        "hi again",
        "hello, how are you?",
        "hey there, hope you're well",
        "talk later",
        "ok bye",
    ],
    "thanks": [
        "thanks",
        "thank you so much",
        "thx!",
        "cheers",
        "thanks, that helps",
        "appreciate it",
        "great, thank you",
        "perfect, thanks a lot",
        "that's very kind",
        "ty",
        "many thanks!",
        "thank you, that was useful",
        "awesome, thanks man",
    ],
    "ack": [
        "ok",
        "okay",
        "got it",
        "sounds good",
        "sure",
        "yeah",
        "yep",
        "right",
        "alright",
        "makes sense",
        "hmm",
        "I see",
        "fair enough",
        "oh nice",
        "cool cool",
        "no worries",
        "noted",
        "ah ok",
        "true",
        "lol",
        "haha yes",
        "wow",
        "interesting",
        "that's funny",
        "oh really?",
        "yes please",
        "no thanks",
        "I agree",
        "good point",
        "not sure",
        "maybe",
        "I guess so",
        "ok let me think",
        "hmm, let me check",
    ],
    "smalltalk": [
        "what a day",
        "long week huh",
        "it's so hot today",
        "looks like rain again",
        "so windy out there",
        "the weather is lovely today",
        "ugh, mondays",
        "finally friday",
        "traffic was crazy today lol",
        "this coffee is good",
        "it's been snowing all day",
        "nice sunset tonight",
        "so tired lol",
        "it's freezing this morning",
        "anyway",
        "where was I",
        "brb",
        "back",
        "oops typo",
        "I'm bored",
        "it's quiet today",
        "what a game last night",
        "the news is wild today",
    ],
    "question": [
        "what's the capital of {lang_country}?",
        "how do I reverse a list in Python?",
        "can you explain how vaccines work?",
        "what does 'ephemeral' mean?",
        "who wrote Moby Dick?",
        "how many ounces in a cup?",
        "what's a good name for a bakery?",
        "why is the sky blue?",
        "can you recommend a sci-fi book?",
        "how do I boil an egg?",
        "what time zone is {city} in?",
        "is {city} bigger than {city}?",
        "tell me a joke",
        "what's the difference between affect and effect?",
        "how far is the moon?",
        "can you write a haiku about autumn?",
        "what is a Roth IRA?",
        "how do I center a div?",
        "give me three ideas for a team offsite",
        "what's trending in AI?",
        "summarize the French revolution",
        "how do you pronounce quinoa?",
        "what rhymes with orange?",
        "explain recursion simply",
        "help me write an email declining a meeting",
    ],
    "meta": [
        "shorter please",
        "can you rephrase that?",
        "in bullet points",
        "make it more formal",
        "never mind",
        "ignore that last message",
        "try again",
        "say it in plain English",
        "more detail please",
        "just the code",
        "use a table",
        "less jargon",
        "continue",
        "go on",
        "start over",
        "that's not what I asked",
        "can you be more concise?",
        "one more example",
        "format it as markdown",
        "undo that",
        "stop",
        "wait",
        "regenerate please",
    ],
    "hard": [
        "Einstein was born in 1879, right?",
        "convert {num} km to miles",
        "what's {num} times {age}?",
        "the {team} won 112 to 108 last night",
        "{name} is a nice name for a character in a story",
        "is June 21st the longest day of the year?",
        "what happened in {city} in 1989?",
        "the movie starts at 8 on the poster, weird",
        "round {age}.6 to the nearest whole number",
        "how many days until {when_date}?",
        "who is {name} in that show?",
        "translate 'see you {when}' into {lang}",
        "list {num} facts about {city}",
        "the article says {num} million people visit {city} each year",
        "what's {num} percent of {age}0?",
        "{band} released a new album on Friday apparently",
        "the {rel} in the novel is called {name}",
        "write a story about a {job} in {city}",
        "what's the weather like in {city} in March?",
        "is {food} healthy?",
        "how do you make {food} at home?",
        "what are the symptoms of {condition}?",
        "what's the best age to start {hobby}?",
        "can {pet}s eat {food}?",
        "flights from {city} to {city}?",
        "how long does it take to learn {lang}?",
        "example: 'my {rel} lives in {city}' is a sentence",
        "in the example, {name} is {age}",
        "the test user's password is hunter{num}",
        "a {job} in {city} earns about {num}0k, says the report",
        "the deadline in the template is {when}",
        "fun fact: octopuses have 3 hearts",
        "{num} + {num} = ?",
        "pi is about 3.14159",
    ],
}

_WHEN_DATE = ["Christmas", "New Year", "July 4th", "Halloween", "March 1st", "the solstice"]
_COUNTRY = ["Peru", "Norway", "Kenya", "Vietnam", "Chile", "Portugal", "Canada", "Egypt"]

# ---------------------------------------------------------------- Chinese slots
_Z = {
    "city": ["杭州", "成都", "深圳", "西安", "南京", "青岛", "武汉", "厦门", "苏州", "长沙", "昆明", "大连",
             "重庆", "天津", "哈尔滨", "上海", "北京", "广州"],
    "job": ["护士", "程序员", "老师", "会计", "律师", "厨师", "设计师", "医生", "销售", "工程师", "司机",
            "翻译", "药剂师", "建筑师", "公务员", "产品经理"],
    "employer": ["腾讯", "一家医院", "一所中学", "银行", "一家创业公司", "律所", "物流公司", "国企", "外企",
                 "一家餐厅", "出版社", "航空公司"],
    "rel": ["老婆", "老公", "儿子", "女儿", "妈妈", "爸爸", "哥哥", "姐姐", "弟弟", "妹妹", "奶奶", "外婆",
            "男朋友", "女朋友", "室友", "领导", "表哥"],
    "name": ["小明", "王磊", "李娜", "张伟", "刘洋", "陈静", "小雨", "赵强", "周婷", "孙浩", "乐乐", "豆豆"],
    "pet": ["狗", "猫", "兔子", "鹦鹉", "仓鼠", "乌龟", "金毛", "柯基"],
    "food": ["香菜", "辣的", "海鲜", "榴莲", "羊肉", "咖啡", "甜食", "奶茶", "牛奶", "蘑菇", "火锅", "臭豆腐"],
    "allergen": ["花生", "海鲜", "青霉素", "花粉", "芒果", "鸡蛋", "猫毛", "牛奶"],
    "condition": ["糖尿病", "高血压", "哮喘", "偏头痛", "失眠", "胃病", "颈椎病", "腰椎间盘突出"],
    "hobby": ["跑步", "游泳", "打羽毛球", "练瑜伽", "下围棋", "爬山", "弹吉他", "画画", "钓鱼", "骑车", "写毛笔字"],
    "time": ["每天早上", "每天晚上", "每周末", "每周三", "平时", "周一到周五", "每天中午", "每个月初"],
    "when": ["下周", "下个月", "明年", "周五", "三月份", "国庆", "春节前", "下学期", "后天", "月底", "十月一号",
             "暑假", "下周二"],
    "event": ["面试", "手术", "婚礼", "考研", "驾照考试", "出差", "体检", "答辩", "搬家", "马拉松", "雅思考试"],
    "num": ["两", "三", "四", "五", "六", "八", "十", "十二", "二十"],
    "age": ["二十八", "三十五", "四十", "六十", "七十二", "十九", "32", "45"],
    "diet": ["素食", "吃素", "戒糖", "低碳水饮食", "清真饮食"],
    "thing": ["一辆特斯拉", "一台旧笔记本", "一辆电动车", "一台单反", "一辆二手宝马", "一台iPad"],
    "school": ["浙江大学", "夜校", "一所职高", "在职研究生", "网课"],
}  # fmt: skip

_ZH_SALIENT: dict[str, list[str]] = {
    "self": [
        "我住在{city}",
        "我是{job}",
        "我在{employer}上班",
        "我在{employer}当{job}",
        "我今年{age}岁",
        "我是{city}人，现在住在{city}",
        "我有{condition}",
        "我对{allergen}过敏",
        "我吃素好几年了",
        "我在{school}读书",
        "我开的是{thing}",
        "我做{job}已经{num}年了",
        "我是左撇子",
        "我怀孕五个月了",
        "我去年退休了",
        "我性格比较内向",
        "我晚上一般两点才睡",
    ],
    "implicit": [
        "下个月搬去{city}",
        "刚换了工作，在{employer}",
        "对{allergen}过敏，{food}也别推荐",
        "家里三个孩子",
        "在{employer}上班",
        "刚养了一只{pet}，叫{name}",
        "已经戒烟{num}个月了",
        "上周升职了",
        "离婚后一个人住",
        "新工作通勤{num}十分钟",
        "孩子{when}上小学",
        "一直在{city}，没离开过",
        "{when}要做{event}",
        "老家是{city}的",
        "房子买在{city}了",
        "二胎{when}出生",
        "做{job}这一行{num}年",
        "医生说不能再喝{food}了",
        "早上都去{hobby}",
        "常年夜班",
        "腿不方便，楼梯走不了",
    ],
    "plan": [
        "我{when}有{event}",
        "我打算{when}去{city}",
        "我们{when}搬家",
        "我准备{when}开始学{hobby}",
        "{when}是我{rel}的生日",
        "{when}我要去{city}出差",
        "我儿子{when}上初中",
        "我女儿下学期转学",
        "我计划明年考研",
        "{when}结婚纪念日",
        "{event}定在{when}了",
        "我{when}请{num}天假",
    ],
    "people": [
        "我{rel}叫{name}",
        "{name}是我{rel}",
        "我{rel}是{job}",
        "我{rel}住在{city}",
        "我{rel}今年{age}岁",
        "我有一只{pet}叫{name}",
        "我{rel}对{allergen}过敏",
        "我和{rel}分手了",
        "我{rel}去年去世了",
        "我家有{num}个孩子",
        "我{rel}搬来和我们一起住",
        "我在照顾有{condition}的{rel}",
    ],
    "preference": [
        "我喜欢{food}",
        "我不吃{food}",
        "我讨厌{food}",
        "我最爱{hobby}",
        "我受不了{food}的味道",
        "请用中文回答我",
        "回答简短一点就好，我不喜欢长篇大论",
        "叫我{name}就行",
        "我不喝酒",
        "坐飞机我喜欢靠窗",
        "我更喜欢坐高铁",
        "开会我习惯安排在上午",
    ],
    "habit": [
        "我{time}都{hobby}",
        "{time}我会去{hobby}",
        "我每天早上喝{num}杯咖啡",
        "我每晚十点睡觉",
        "我每周去看一次{rel}",
        "我周五在家办公",
        "我每天晚饭后散步",
        "我每天早上八点吃药",
        "我习惯睡前看书",
        "我每周一不吃晚饭",
    ],
    "number": [
        "我的预算是{num}万",
        "我月薪大概{num}千",
        "我房租每月{num}千",
        "我体重六十公斤",
        "我血型是O型",
        "我一天睡{num}个小时左右",
        "我鞋码四十二",
        "我有{num}个孩子",
        "我身高一米七五",
        "我工号是{num}{num}07",
    ],
    "change": [
        "我现在是{job}了",
        "我不再在{employer}上班了",
        "我搬到{city}了",
        "我改成{diet}了",
        "我换成{thing}了",
        "我已经不吃{food}了",
        "我现在每天{hobby}",
        "我辞职了",
        "我把名字改成{name}了",
        "我们的旅行改到{when}了",
        "我以前很爱吃{food}，现在不吃了",
        "我终于考到驾照了",
        "我从{employer}离职了",
        "我又单身了",
        "最近开始{hobby}了",
    ],
    "question_with_fact": [
        "我有{condition}，能坐飞机吗？",
        "我对{allergen}过敏，这些菜哪个能吃？",
        "我{when}要去{city}，住哪儿好？",
        "我{rel}{when}过生日，送什么好？",
        "我在吃素，今晚做什么菜？",
    ],
}

_ZH_FILLER: dict[str, list[str]] = {
    "greeting": [
        "你好",
        "您好",
        "嗨",
        "早上好",
        "晚上好",
        "晚安",
        "再见",
        "拜拜",
        "在吗",
        "哈喽",
        "早",
        "下次聊",
    ],
    "thanks": ["谢谢", "谢谢你", "多谢", "太感谢了", "谢啦", "辛苦了", "谢谢，很有帮助", "感谢感谢"],
    "ack": [
        "好的",
        "嗯",
        "嗯嗯",
        "哦",
        "知道了",
        "明白",
        "收到",
        "可以",
        "行",
        "没问题",
        "对",
        "是的",
        "哈哈",
        "哈哈哈",
        "有道理",
        "原来如此",
        "好吧",
        "厉害",
        "真的吗",
        "不用了",
        "让我想想",
        "也许吧",
    ],
    "smalltalk": [
        "今天好热啊",
        "又下雨了",
        "今天天气不错",
        "外面风好大",
        "好累啊",
        "周一好烦",
        "终于周五了",
        "今天堵车好严重",
        "好无聊",
        "今天下雪了",
        "太阳好大",
        "刚才说到哪了",
        "打错字了",
        "回来了",
    ],
    "question": [
        "{city}有什么好吃的？",
        "怎么煮鸡蛋？",
        "Python怎么反转列表？",
        "为什么天是蓝的？",
        "给我讲个笑话",
        "什么是通货膨胀？",
        "帮我写一封请假邮件",
        "推荐一本科幻小说",
        "地球到月亮多远？",
        "怎么学好英语？",
        "帮我翻译一下这句话",
        "解释一下什么是区块链",
        "红楼梦的作者是谁？",
        "怎么做红烧肉？",
    ],
    "meta": [
        "简短一点",
        "换个说法",
        "详细点",
        "用英文回答",
        "算了",
        "重新说一遍",
        "用表格列出来",
        "继续",
        "不是这个意思",
        "再举个例子",
        "只要代码",
        "说人话",
    ],
    "hard": [
        "帮我算一下 37 乘以 12",
        "爱因斯坦是1879年出生的吗？",
        "{num}公里是多少英里？",
        "{city}有多少人口？",
        "昨晚比赛112比108",
        "{name}这个名字适合小说主角吗？",
        "1949年发生了什么？",
        "{when}是几号？",
        "把“{when}见”翻译成英文",
        "说说{city}的{num}个景点",
        "文章说{city}每年有{num}百万游客",
        "{food}健康吗？",
        "{condition}有什么症状？",
        "{pet}能吃{food}吗？",
        "几岁开始学{hobby}比较好？",
        "{city}到{city}的高铁要多久？",
        "例句：我{rel}住在{city}",
        "小说里的{rel}叫{name}",
        "写一个关于{job}的故事",
        "圆周率是3.14159",
        "{num}加{num}等于几？",
        "报告说{job}平均月薪一万",
    ],
}

_PREFIX_EN = ["", "", "", "", "btw ", "oh and ", "fyi, ", "so ", "just so you know, ", "also ", "well, "]
_SUFFIX_EN = ["", "", "", "", ".", "!", " lol", " haha", " :)", "...", ", just saying"]
_PREFIX_ZH = ["", "", "", "对了，", "顺便说一下，", "跟你说，", "其实", "那个，"]
# an aside marker ("btw", 对了) introduces news about the speaker; filler gets only neutral openers
_PREFIX_EN_FILLER = ["", "", "", "", "so ", "well, ", "oh ", "hmm, ", "ok "]
_PREFIX_ZH_FILLER = ["", "", "", "嗯，", "那个，", "哦，"]
_SUFFIX_ZH = ["", "", "", "。", "！", "哈哈", "～", "啊", "呢"]

_SLOT = re.compile(r"\{(\w+)\}")


def _fill(template: str, slots: dict[str, list[str]], rng: random.Random) -> str:
    def pick(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "when_date":
            return rng.choice(_WHEN_DATE)
        if key == "lang_country":
            return rng.choice(_COUNTRY)
        return rng.choice(slots[key])

    return _SLOT.sub(pick, template)


def _surface_en(text: str, rng: random.Random, salient: bool) -> str:
    text = rng.choice(_PREFIX_EN if salient else _PREFIX_EN_FILLER) + text + rng.choice(_SUFFIX_EN)
    r = rng.random()
    if r < 0.35:
        text = text[:1].upper() + text[1:]
    elif r < 0.45:
        text = text.lower()
    return text


def _surface_zh(text: str, rng: random.Random, salient: bool) -> str:
    return rng.choice(_PREFIX_ZH if salient else _PREFIX_ZH_FILLER) + text + rng.choice(_SUFFIX_ZH)


def generate(
    n: int = 3000, *, seed: int = 0, zh_share: float = 0.4, salient_share: float = 0.5
) -> list[Turn]:
    """``n`` distinct labelled turns (fewer if the templates run out), deterministic for ``seed``.

    Categories are drawn uniformly within each label and language, so rare kinds of turn (implied
    facts, hard filler) are as common as easy ones."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[Turn] = []
    tries = 0
    while len(out) < n and tries < n * 20:
        tries += 1
        zh = rng.random() < zh_share
        salient = rng.random() < salient_share
        table = (_ZH_SALIENT if salient else _ZH_FILLER) if zh else (_EN_SALIENT if salient else _EN_FILLER)
        category = rng.choice(sorted(table))
        template = rng.choice(table[category])
        text = _fill(template, _Z if zh else _S, rng)
        text = _surface_zh(text, rng, salient) if zh else _surface_en(text, rng, salient)
        if text in seen:
            continue
        seen.add(text)
        out.append(Turn(text, SALIENT if salient else FILLER, "zh" if zh else "en", category, template))
    return out


def speaker_names(lang: str) -> list[str]:
    """Names a speaker is given when a turn is read with its speaker (``"Maya: ..."``): the slot
    lists' own names, so the model learns the prefix's form, not any one name."""
    return list((_Z if lang == "zh" else _S)["name"])


def spoken(texts: list[str], langs: list[str], *, seed: int = 0) -> list[str]:
    """Each turn as recall embeds a named speaker's turn (``"<name>: <text>"``), a name drawn for
    each turn from its language's names (deterministic for ``seed``)."""
    rng = random.Random(seed)
    return [f"{rng.choice(speaker_names(lang))}: {text}" for text, lang in zip(texts, langs, strict=True)]
