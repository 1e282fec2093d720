"""Expiry said in words: what sets a TTL and what does not (EN/ZH), and the development file."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from remnant.extract.expiry import expiry_in_words

DEV = Path(__file__).with_name("dev_expiry.jsonl")
DEV2 = Path(__file__).with_name("dev_expiry_2.jsonl")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("this code is valid for ten minutes", 600),
        ("the link expires in 2 hours", 7200),
        ("good for the next 48h", 172800),
        ("the pass lasts an hour and a half", 5400),
        ("I'm in Madrid for another five days", 432000),
        ("the spare key works for a quarter of an hour", 900),
        ("she's minding the kids for a fortnight", 1209600),
        ("十分钟内有效", 600),
        ("两小时后过期", 7200),
        ("链接一刻钟后就失效", 900),
        ("有效期三天", 259200),
        ("我接下来两个小时在上课", 7200),
        ("我要在上海待一个半星期", int(1.5 * 7 * 86400)),
    ],
)
def test_a_stated_period_sets_the_ttl(text: str, seconds: int) -> None:
    assert expiry_in_words(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize(
    "text",
    [
        "I waited ten minutes for the bus",
        "the film was three hours long",
        "I feed the cat every 8 hours",
        "my niece is two weeks old",
        "we've lived here for six years",
        "bake it for 40 minutes",
        "the battery lasts 12 hours on a charge",
        "我跑了半小时",
        "我女儿两个月大",
        "每三天换一次水",
        "我以前在成都住过一年",
        "这个耳机能用八个小时",
        "2025年我要去日本",
        "我十分喜欢这本书",
        "I work as a baker",  # "a" + "s" is not "a second"
        "User works as nurse",
        "这条路很长，走路要半个小时。",  # 要 + a period: it takes, not a state
    ],
)
def test_a_period_in_passing_sets_nothing(text: str) -> None:
    assert expiry_in_words(text) is None


def _figures(path: Path) -> tuple[int, float, float]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    ttl = [r for r in rows if r["ttl_seconds"] is not None]
    null = [r for r in rows if r["ttl_seconds"] is None]
    right = 0
    for r in ttl:
        got = expiry_in_words(r["text"])
        right += got is not None and 0.9 * r["ttl_seconds"] < got.total_seconds() < 1.1 * r["ttl_seconds"]
    false = sum(expiry_in_words(r["text"]) is not None for r in null)
    return len(rows), right / len(ttl), false / len(null)


def test_the_development_file_the_rules_were_written_against() -> None:
    n, right, false = _figures(DEV)
    assert n == 120
    assert right >= 0.9 and false <= 0.05


def test_the_second_development_file() -> None:
    # scored unchanged first (0.800 right, 0.064 falsely expired), then the rules were generalised
    n, right, false = _figures(DEV2)
    assert n == 200
    assert right >= 0.9 and false <= 0.03


# -- the mechanisms, on sentences of our own (neither development file's) ------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        # the validity of a piece of information, whatever the verb
        ("the wifi voucher is valid for 2 hours and 30 minutes", 9000),
        ("your one-time code: 55120, use it within the next ten minutes", 600),
        ("this gift card link will be deleted after 3 days", 259200),
        ("the locker PIN resets in 12 hours", 43200),
        ("the meeting room key card works for the next hour", 3600),
        ("Free shipping ends in 6 hours", 21600),
        ("you can use this code for 10 minutes", 600),
        ("the visitor pass expires tomorrow", 86400),
        ("this week's door code is 7788", 604800),
        ("Your Uber code is 4821. It expires in 10mins.", 600),
        ("psst the staff discount is good thru the next 2 wks", 1209600),
        ("取货码两个半小时内有效", 9000),
        ("这个链接俩小时后过期", 7200),
        ("优惠码半个月内有效", 1296000),
        ("会员卡还有五天到期", 432000),
        ("这张临时卡只能用两天", 172800),
        ("分享的文件一个半月后自动删除", 3888000),
        ("密码明天就过期了", 86400),
        ("三天后这个链接就没用了", 259200),
        ("该优惠码有效期：7天", 604800),
        ("红包24小时未领取将退回", 86400),
        ("这个会员还能用俩月", 5184000),
        ("这个码可以用十分钟", 600),
        ("我这礼拜的门禁密码是3344", 604800),
        ("密码一小时二十分后重置", 4800),
        ("signup closes in 5 days", 432000),
        ("my free trial has 2 days left", 172800),
        ("the code is good until tomorrow", 86400),
        ("the warranty expires in 2 years", 2 * 365 * 86400),
        ("这个优惠还有两天", 172800),
        ("券明天之前有效", 86400),
        ("学生优惠还有一年有效", 365 * 86400),
    ],
)
def test_a_validity_said_of_information(text: str, seconds: int) -> None:
    got = expiry_in_words(text)
    assert got is not None and abs(got.total_seconds() - seconds) <= 0.1 * seconds, (text, got)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        # a present or coming state, counted from now
        ("I'm in Lisbon for the next week", 604800),
        ("crashing at my cousin's for another three nights", 259200),
        ("starting today I'm off dairy for two weeks", 1209600),
        ("I'm off sugar for 30 days from today", 2592000),
        ("I got banned from the forum for 3 days lol", 259200),
        ("no alcohol for 10 days, the doctor said", 864000),
        ("He's in the hospital for at least another week", 604800),
        ("they gave me a loaner laptop for 2 weeks", 1209600),
        ("i'll be at the dentist for like an hour", 3600),
        ("I've booked the room for the next 2 hours", 7200),
        ("我接下来俩礼拜都在外地", 1209600),
        ("我被封号七天了", 604800),
        ("从今天开始我要戒酒一个月", 2592000),
        ("小区临时停水六个小时", 21600),
        ("医生说两周内不要游泳", 1209600),
        ("我把车借给朋友开三天", 259200),
        ("车位我帮你留半小时", 1800),
        ("优惠活动只剩最后两天", 172800),
        ("接下来仨小时别打扰我", 10800),
        ("我爸妈来北京住半个月", 1296000),
        ("I'm in Paris for a week, back on Monday", 604800),
        ("my account is locked for 24 hours after too many attempts", 86400),
        ("我在老家待半个月，月底回来", 1296000),
        ("我被公司派到成都工作半年", 15552000),
        ("I won't have signal for about 6 hours, hiking", 21600),
        ("Our contract runs for another 2 years", 2 * 365 * 86400),
        ("If you need me, I'm in Paris for the next week", 604800),
        ("我接下来一周都要加班，周末再聊", 604800),
        ("接下来三天我不在，有事的话打电话", 259200),
    ],
)
def test_a_state_from_now(text: str, seconds: int) -> None:
    got = expiry_in_words(text)
    assert got is not None and abs(got.total_seconds() - seconds) <= 0.1 * seconds, (text, got)


@pytest.mark.parametrize(
    "text",
    [
        # past
        "the code was valid for five minutes but I missed it",
        "the token expired after 10 minutes yesterday, annoying",
        "we lived in Rome for two years",
        "my sister drove for 6 hours",
        "For 5 years I've wanted a dog",
        "the surgery lasted 4 hours",
        "我们在三亚玩了一个星期",
        "我在北京租房子住了三年",
        "我练瑜伽练了三年了",
        "前两天去了趟北京",
        # recurring
        "OTP codes usually expire in 5 minutes",
        "I nap for 20 minutes after lunch",
        "I practise piano for an hour on weekdays",
        "I go running for 30 mins most days",
        "The gate code changes every 30 days",
        "我每天练琴一个小时",
        "我一般午睡二十分钟",
        "我一天工作十个小时",
        "一天不能超过三杯咖啡",
        # a plan or a later start
        "next week I'm in Berlin for 4 days",
        "in July we're going to Greece for ten days",
        "I'll be on vacation for two weeks starting Monday",
        "I'm planning to stay in Paris for a week",
        "下周我要出差三天",
        "暑假打算去云南玩十天",
        "我可能在上海待三天",
        "明天开始我要出差一周",
        # an event's, a process's or a thing's length
        "the class lasts 90 minutes",
        "the course runs for 8 weeks",
        "the appointment is for 45 minutes",
        "my phone's warranty is valid for two years from purchase",
        "Link expires after 30 days of inactivity",
        "I can hold my breath for 2 minutes",
        "Hold the plank for 30 seconds",
        "set a timer for 10 minutes",
        "这个课程为期六周",
        "这个项目为期两年",
        "这款耳机续航八小时",
        "牛排要煎两分钟才翻面",
        "我能憋气两分钟",
        "这个充电宝可以用十个小时",
        # a countdown to an event
        "only 3 more days until my vacation!",
        "离放假还剩五天",
        "高考还剩一百天",
        "再过两周就放假了",
        # vague
        "staying with friends for a day or two",
        "I'll be away for 2-3 days",
        "这两天有点忙",
        "这两周有点忙",
        "我在上海待一两天",
        "我要在医院住一个礼拜左右",
        # asked about
        "is the coupon good for 3 more days?",
        "这个验证码多久过期？",
        # ages and other measures
        "I'm 3 weeks into my new job",
        "this coupon is valid for 7 days after purchase",
        "the visa is good for 10 years",
        "护照有效期十年",
        "I was grounded for a week when I was 12",
        "after my exams I'll travel for a month",
        "二维码一分钟刷新一次",
        "我们在一起三年",
        "三天之前我在上海",
        "if the code is valid for 10 minutes, why did it fail?",
        "My sourdough needs to proof for 12 hours",
        "如果验证码十分钟内有效的话我就来得及",
        "听说签证要等二十天",
        "我妈这周末来住两天",
        "这周五要开一个三小时的会",
        "我女儿半岁了",
        "半夜三点才睡",
    ],
)
def test_a_period_that_bounds_no_validity_sets_nothing(text: str) -> None:
    assert expiry_in_words(text) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("a couple of days", 2 * 86400),
        ("twenty-one days", 21 * 86400),
        ("an hour and a half", 5400),
        ("half a month", 15 * 86400),
        ("2 hours and 30 minutes", 9000),
        ("俩小时", 7200),
        ("仨礼拜", 21 * 86400),
        ("半个月", 15 * 86400),
        ("一个半月", 45 * 86400),
        ("两个钟", 7200),
        ("两个半小时", 9000),
        ("1小时30分钟", 5400),
    ],
)
def test_number_words_and_units(text: str, seconds: int) -> None:
    assert expiry_in_words(f"valid for {text}" if text.isascii() else f"{text}内有效") == timedelta(
        seconds=seconds
    )
