"""Detection per entity type, adversarial spellings, mixed languages and offsets."""

from __future__ import annotations

import pytest

from remnant.privacy import Detector, EntityType, PrivacyPolicy
from remnant.privacy.normalize import normalize


def kinds(det: Detector, text: str) -> list[tuple[str, str]]:
    return [(d.entity_type.name, d.value) for d in det.detect(text)]


def only(det: Detector, text: str, etype: EntityType) -> list[str]:
    return [d.value for d in det.detect(text) if d.entity_type == etype]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("write to jane.doe+work@mail.example.co.uk today", "jane.doe+work@mail.example.co.uk"),
        ("邮箱是13812345678@qq.com，谢谢", "13812345678@qq.com"),
        ("mail ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ now", "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｃｏｍ"),
        ("reach me at jane [at] example [dot] com", "jane [at] example [dot] com"),
    ],
)
def test_email(plain_detector: Detector, text: str, value: str) -> None:
    assert only(plain_detector, text, EntityType.EMAIL) == [value]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("call 13812345678 tonight", "13812345678"),
        ("手机：138-1234-5678。", "138-1234-5678"),
        ("电话 +86 138 1234 5678", "+86 138 1234 5678"),
        ("手机１３８１２３４５６７８", "１３８１２３４５６７８"),
        ("号码 １３８ １２３４ ５６７８ 谢谢", "１３８ １２３４ ５６７８"),
        ("digits 1 3 8 1 2 3 4 5 6 7 8 spaced out", "1 3 8 1 2 3 4 5 6 7 8"),
        ("dotted 138.1234.5678 works", "138.1234.5678"),
        ("zero\u200bwidth 138\u200b1234\u200b5678 inside", "138\u200b1234\u200b5678"),
        ("US (415) 555-0134 office", "(415) 555-0134"),
        ("US 415.555.0134x204 ext", "415.555.0134x204"),
        ("intl +44 20 7946 0958 London", "+44 20 7946 0958"),
        ("dial 001-507-843-9150 now", "001-507-843-9150"),
        ("座机 010-62345678 上班时间", "010-62345678"),
        ("call +1 415 555 0134 please", "+1 415 555 0134"),
    ],
)
def test_phone(plain_detector: Detector, text: str, value: str) -> None:
    assert only(plain_detector, text, EntityType.PHONE) == [value]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("card 4111 1111 1111 1111 exp 12/29", "4111 1111 1111 1111"),
        ("卡号4111-1111-1111-1111", "4111-1111-1111-1111"),
        ("amex 378282246310005.", "378282246310005"),
        ("card ４１１１１１１１１１１１１１１１ ok", "４１１１１１１１１１１１１１１１"),
        ("card 4111.1111.1111.1111 ok", "4111.1111.1111.1111"),
    ],
)
def test_card_luhn(plain_detector: Detector, text: str, value: str) -> None:
    assert only(plain_detector, text, EntityType.CREDIT_CARD) == [value]


def test_card_failing_luhn_is_not_a_card(plain_detector: Detector) -> None:
    assert only(plain_detector, "card 4111 1111 1111 1112", EntityType.CREDIT_CARD) == []


@pytest.mark.parametrize(
    "text",
    [
        "IBAN DE89 3704 0044 0532 0130 00 please",
        "iban DE89370400440532013000.",
        "pay GB82-WEST-1234-5698-7654-32",
    ],
)
def test_iban(plain_detector: Detector, text: str) -> None:
    found = only(plain_detector, text, EntityType.IBAN)
    assert len(found) == 1 and found[0].replace(" ", "").replace("-", "").upper().startswith(("DE89", "GB82"))


def test_iban_bad_checksum(plain_detector: Detector) -> None:
    assert only(plain_detector, "IBAN DE88 3704 0044 0532 0130 00", EntityType.IBAN) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("身份证号11010519491231002X，请核对", "11010519491231002X"),
        ("ID 110105194912310021 on file", None),  # wrong check digit
        ("身份证 1101 0519 4912 3100 2X", "1101 0519 4912 3100 2X"),
        ("身份证１１０１０５１９４９１２３１００２Ｘ", "１１０１０５１９４９１２３１００２Ｘ"),
    ],
)
def test_cn_id_checksum(plain_detector: Detector, text: str, value: str | None) -> None:
    assert only(plain_detector, text, EntityType.CN_ID) == ([value] if value else [])


def test_passport_needs_context(plain_detector: Detector) -> None:
    assert only(plain_detector, "passport number E12345678", EntityType.PASSPORT) == ["E12345678"]
    assert only(plain_detector, "护照号码：G87654321", EntityType.PASSPORT) == ["G87654321"]
    assert only(plain_detector, "product code E12345678", EntityType.PASSPORT) == []


def test_ip_addresses(plain_detector: Detector) -> None:
    text = "from 192.168.10.4 and 2001:db8::8a2e:370:7334, not 999.1.1.1 nor 12:30:45"
    assert only(plain_detector, text, EntityType.IP_ADDRESS) == ["192.168.10.4", "2001:db8::8a2e:370:7334"]


def test_english_address(plain_detector: Detector) -> None:
    text = "I live at 1350 Alex Hill Suite 765, Davisshire, MD 20745 now."
    assert only(plain_detector, text, EntityType.ADDRESS) == [
        "1350 Alex Hill Suite 765, Davisshire, MD 20745"
    ]


def test_chinese_address(plain_detector: Detector) -> None:
    text = "我住在广东省广州市天河区天河路385号，欢迎来玩"
    assert only(plain_detector, text, EntityType.ADDRESS) == ["广东省广州市天河区天河路385号"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("我叫王小明，今年30岁", "王小明"),
        ("姓名：欧阳娜娜", "欧阳娜娜"),
        ("联系人：李伟，电话：13812345678", "李伟"),
        ("张先生明天到", "张"),
        ("my name is 陈静, nice to meet you", "陈静"),
    ],
)
def test_chinese_names_with_cues(plain_detector: Detector, text: str, name: str) -> None:
    assert only(plain_detector, text, EntityType.PERSON) == [name]


def test_english_names(detector: Detector, plain_detector: Detector) -> None:
    assert only(plain_detector, "Hi, my name is Sarah Connor.", EntityType.PERSON) == ["Sarah Connor"]
    if detector.uses_presidio:  # spaCy NER finds names without a cue
        assert only(detector, "I had lunch with Michael Jordan yesterday.", EntityType.PERSON) == [
            "Michael Jordan"
        ]


def test_mixed_language_sentence(detector: Detector) -> None:
    text = "我叫李雷, my email is lilei@example.com，手机 +86 139 0000 1111, card 4111111111111111."
    found = {d.entity_type for d in detector.detect(text)}
    assert {EntityType.PERSON, EntityType.EMAIL, EntityType.PHONE, EntityType.CREDIT_CARD} <= found


@pytest.mark.parametrize(
    "text",
    [
        "The meeting moved to 3 pm on 2024-05-02 10:30.",
        "Python 3.11.4 and version 2.4.1 were released.",
        "We sold 1,234 units for $19.99 each, 12% more.",
        "ISBN 978-3-16-148410-0 is on the shelf.",
        "会议改到周五下午三点，预算1,200,000元。",
        "高中同学聚会定在下个月。",
        "这条路很长，走路要半个小时。",
    ],
)
def test_clean_text_has_no_findings(plain_detector: Detector, text: str) -> None:
    assert plain_detector.detect(text) == []


def test_spans_map_back_to_original_offsets(plain_detector: Detector) -> None:
    text = "号码：１３８\u200b１２３４ ５６７８，邮箱 ａ＠ｂ．ｃｏｍ"
    for d in plain_detector.detect(text):
        assert text[d.start : d.end] == d.value
    norm = normalize(text)
    assert "138" in norm.text and "\u200b" not in norm.text


def test_policy_limits_entity_types() -> None:
    det = Detector(PrivacyPolicy.only(["EMAIL"], use_presidio=False))
    assert kinds(det, "a@b.com 13812345678") == [("EMAIL", "a@b.com")]


def test_policy_rejects_unknown_type() -> None:
    with pytest.raises(ValueError, match="unknown entity type"):
        PrivacyPolicy.only(["SHOE_SIZE"])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Send it to 221B Baker Street, London NW1 6XE please", "221B Baker Street, London NW1 6XE"),
        (
            "Office: 1600 Pennsylvania Ave NW, Washington, DC 20500",
            "1600 Pennsylvania Ave NW, Washington, DC 20500",
        ),
        ("Unit 3883 Box 6859, DPO AA 60680", "Unit 3883 Box 6859, DPO AA 60680"),
        (
            "寄到杭州市西湖区文三路478号华星时代广场A座1201室。",
            "杭州市西湖区文三路478号华星时代广场A座1201室",
        ),
        ("住在朝阳区望京西路阳光家园3号楼2单元501室", "朝阳区望京西路阳光家园3号楼2单元501室"),
    ],
)
def test_real_world_address_formats(plain_detector: Detector, text: str, value: str) -> None:
    assert only(plain_detector, text, EntityType.ADDRESS) == [value]
