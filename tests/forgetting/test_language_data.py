"""The language readers' word lists are data: one folder per language, loaded once, shipped.

Every phrase here is invented for the test; none is taken from a dev or held-out file."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from remnant.understand import lexicon, pair_model
from remnant.understand.requests import SCOPES, TOPICS, parse_intent
from remnant.understand.statements import ContradictionDetector, tokens

ROOT = Path(__file__).resolve().parents[2]


def test_every_language_folder_holds_json_objects_and_its_families_resolve() -> None:
    assert lexicon.languages() == ("en", "zh")
    for lang in lexicon.languages():
        for path in sorted((lexicon.DATA_DIR / lang).glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            assert isinstance(data, dict), path
            for field, value in data.items():
                if isinstance(value, list) and all(isinstance(w, str) for w in value):
                    lexicon.words(path.stem, field, lang)  # an unknown "@family" raises
                elif isinstance(value, dict) and path.stem != "families":
                    for key, entry in value.items():
                        if isinstance(entry, dict):
                            for sub, words in entry.items():
                                if isinstance(words, list):
                                    lexicon.entries(path.stem, field, key, sub, lang)


def test_a_table_is_read_once() -> None:
    assert lexicon.table("en", "requests") is lexicon.table("en", "requests")
    assert lexicon.table("en", "no such table") == {}


def test_topics_and_scopes_take_every_languages_words() -> None:
    by_key = {t.key: t for t in TOPICS}
    handle = by_key["handle"].request_words
    assert "wechat" in handle and "微信" in handle
    # a family of phrasings: each occupation with each lead, in each language
    job = by_key["job"].content_words
    assert {"i'm a nurse", "as an architect", "我是护士", "做老师"} <= set(job)
    assert [s.name for s in SCOPES] == lexicon.shared("topics")["scopes"]


def test_a_phrasing_in_the_data_is_read() -> None:
    assert parse_intent("please forget my wechat").topics == ("handle",)
    assert parse_intent("把我的微信删了").topics == ("handle",)
    assert parse_intent("forget what I told you yesterday").when == "yesterday"
    assert parse_intent("忘掉我昨天说的").when == "yesterday"


def test_the_pair_judges_cues_are_read_from_each_languages_data() -> None:
    has_cue = pair_model.has_cue
    for lang in lexicon.languages():
        data = lexicon.table(lang, "pairs")
        assert isinstance(data["word_boundaries"], bool)
        assert set(data["cues"]) <= set(pair_model.CUES)
    assert (
        lexicon.table("en", "pairs")["word_boundaries"]
        and not lexicon.table("zh", "pairs")["word_boundaries"]
    )

    # English words match whole words only; Chinese phrases anywhere
    assert has_cue("kept", "still at the same desk")
    assert not has_cue("kept", "stillness is nice")
    assert has_cue("kept", "我还在那家店上班")
    assert has_cue("correction", "not Tuesday, it's Thursday")  # a pattern with a gap
    assert has_cue("correction", "我说的是周四不是周二")
    assert has_cue("now_le", "现在改喝绿茶了")
    assert has_cue("question", "does she like tea") and has_cue("question", "你喜欢茶吗")
    assert has_cue("third", "our new team lead moved to Lisbon")
    assert has_cue("third", "我们的组长换了")
    assert has_cue("first", "I'm off dairy") and has_cue("first", "我不喝咖啡")
    assert not has_cue("first", "我妈不喝咖啡")  # 我妈 is someone else


def test_the_statement_readers_words_are_each_languages_data() -> None:
    assert "not" in lexicon.words("statements", "negations", "en")
    assert "不" in lexicon.words("statements", "negations", "zh")
    assert [t.kind for t in tokens("I don't drink coffee")].count("neg") == 1
    assert [t.kind for t in tokens("我不喝咖啡")].count("neg") == 1
    assert "的" not in {t.value for t in tokens("我的猫")}  # a particle from the data
    assert tokens("my favourite colour") == tokens("my favorite color")  # a spelling from the data
    # an additive word from the data: a value added, not replaced
    assert ContradictionDetector().compare("I also speak Spanish", "I speak French").label == "compatible"


def test_the_data_files_ship_with_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.json" in config["tool"]["setuptools"]["package-data"]["*"]
    # the folders are found as (namespace) packages by setuptools' find, so their json ships
    assert config["tool"]["setuptools"]["packages"]["find"].get("namespaces", True)
