"""Key normalisation: many ways of naming the same attribute map to one snake_case key.

Supersession works by key, so "my mobile is…", "my phone number is…" and 我的手机号是… must
all land on ``phone_number``; "favourite colour" and 最喜欢的颜色 on ``preferred_color``.
"""

from __future__ import annotations

import re
import unicodedata

from remnant.core.text import CJK_CLASS

# Spelling variants folded before matching (British -> American, plural noise).
_SPELLING = {"favourite": "favorite", "colour": "color", "colours": "colors", "e-mail": "email"}

# Canonical keys for common attribute names (English and Chinese).
CANONICAL: dict[str, str] = {
    "phone": "phone_number",
    "mobile": "phone_number",
    "mobile_number": "phone_number",
    "mobile_phone": "phone_number",
    "cell": "phone_number",
    "cell_phone": "phone_number",
    "telephone": "phone_number",
    "telephone_number": "phone_number",
    "contact_number": "phone_number",
    "order_number": "last_order_id",
    "order_id": "last_order_id",
    "order_no": "last_order_id",
    "email": "email",
    "email_address": "email",
    "mail": "email",
    "home_address": "address",
    "delivery_address": "shipping_address",
    "shipping_address": "shipping_address",
    "name": "name",
    "full_name": "name",
    "first_name": "name",
    "birthday": "birthday",
    "date_of_birth": "birthday",
    "city": "city",
    "home_city": "city",
    "hometown": "city",
    "home_town": "city",
    "location": "city",
    "favorite_color": "preferred_color",
    "color": "preferred_color",
    "favorite_colour": "preferred_color",
    "language": "preferred_language",
    "job": "occupation",
    "profession": "occupation",
    "手机": "phone_number",
    "手机号": "phone_number",
    "手机号码": "phone_number",
    "电话": "phone_number",
    "电话号码": "phone_number",
    "联系电话": "phone_number",
    "邮箱": "email",
    "电子邮箱": "email",
    "邮件地址": "email",
    "名字": "name",
    "姓名": "name",
    "地址": "address",
    "家庭住址": "address",
    "收货地址": "shipping_address",
    "送货地址": "shipping_address",
    "生日": "birthday",
    "城市": "city",
    "所在城市": "city",
    "颜色": "preferred_color",
    "最喜欢的颜色": "preferred_color",
    "工作": "occupation",
    "职业": "occupation",
    "会员等级": "membership_level",
    "订单号": "last_order_id",
    "语言": "preferred_language",
}

_ARTICLES = {"the", "a", "an", "my", "our", "your", "some", "any", "current", "new"}
_NON_WORD = re.compile(rf"[^0-9a-z{CJK_CLASS}]+")


def slug(text: str, *, max_words: int = 4) -> str:
    """snake_case a free phrase: lowercase, ASCII words and CJK kept, articles dropped."""
    folded = unicodedata.normalize("NFKC", text).lower()
    for variant, canon in _SPELLING.items():
        folded = folded.replace(variant, canon)
    words = [w for w in _NON_WORD.split(folded) if w and w not in _ARTICLES]
    return "_".join(words[:max_words])


def normalise_key(name: str) -> str:
    """Canonical key for an attribute name: ``"Favourite Colour"`` -> ``preferred_color``.

    Unknown names become their snake_case slug; ``favorite_x`` becomes ``preferred_x`` so that
    "my favourite drink is…" and "I prefer … to drink" meet on one key. Raises ValueError when
    nothing usable remains.
    """
    key = slug(name, max_words=5)
    if not key:
        raise ValueError(f"cannot build a key from {name!r}")
    if key in CANONICAL:
        return CANONICAL[key]
    if key.startswith("最喜欢的"):
        rest = key.removeprefix("最喜欢的")
        return "preferred_" + CANONICAL.get(rest, rest).removeprefix("preferred_") if rest else key
    if key.startswith("favorite_"):
        rest = key.removeprefix("favorite_")
        return "preferred_" + CANONICAL.get(rest, rest).removeprefix("preferred_")
    return key
