"""Pattern recognizers for person names and postal addresses (English and Chinese).

Names and addresses have no checksum, so these rely on shape plus context: a street number and a
street suffix, a province/city/district chain ending in a road and number, a cue such as
"my name is", 我叫 or 姓名：. Presidio/spaCy adds English names found without a cue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from remnant.core.text import HAN_CLASS, is_han
from remnant.privacy.entities import Detection, EntityType


def _words(text: str) -> list[str]:
    """Whitespace-separated word lists kept as one readable string in the source."""
    return text.split()


# --- English addresses -----------------------------------------------------------------------

_STREET_SUFFIXES = _words(
    "Alley Aly Annex Arcade Avenue Ave Av Bayou Beach Bend Bluff Bluffs Bottom Boulevard Blvd Branch "
    "Bridge Brook Brooks Burg Burgs Bypass Camp Canyon Cape Causeway Center Centers Ctr Circle Circles "
    "Cir Cliff Cliffs Club Common Commons Corner Corners Course Court Courts Ct Cove Coves Creek Crescent "
    "Crest Crossing Crossroad Curve Dale Dam Divide Drive Drives Dr Estate Estates Expressway Extension "
    "Extensions Fall Falls Ferry Field Fields Flat Flats Ford Fords Forest Forge Forges Fork Forks Fort "
    "Freeway Garden Gardens Gateway Glen Glens Green Greens Grove Groves Harbor Harbors Haven Heights "
    "Highway Hwy Hill Hills Hollow Inlet Island Islands Isle Junction Junctions Key Keys Knoll Knolls "
    "Lake Lakes Land Landing Lane Ln Light Lights Loaf Lock Locks Lodge Loop Mall Manor Manors Meadow "
    "Meadows Mews Mill Mills Mission Motorway Mount Mountain Mountains Neck Orchard Oval Overpass Park "
    "Parks Parkway Parkways Pkwy Pass Passage Path Pike Pine Pines Place Pl Plain Plains Plaza Point "
    "Points Port Ports Prairie Radial Ramp Ranch Rapid Rapids Rest Ridge Ridges River Road Roads Rd Route "
    "Row Rue Run Shoal Shoals Shore Shores Skyway Spring Springs Spur Spurs Square Squares Sq Station "
    "Stravenue Stream Street Streets St Summit Terrace Ter Throughway Trace Track Trafficway Trail Trl "
    "Trailer Tunnel Turnpike Underpass Union Unions Valley Valleys Via Viaduct View Views Village "
    "Villages Ville Vista Walk Walks Wall Way Ways Well Wells"
)
_STATES = _words(
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY "
    "NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI FM MH PW AA AE AP"
)
_SUFFIX_ALT = "|".join(sorted(_STREET_SUFFIXES, key=len, reverse=True))
_STATE_ALT = "|".join(_STATES)
_WORD = r"[A-Z0-9][A-Za-z0-9'\-]*\.?"
_CITY_LINE = (
    rf"[A-Z][A-Za-z'\-.]*(?:[ ][A-Z][A-Za-z'\-.]*){{0,3}},[ ]*(?:{_STATE_ALT})(?:[ ]+\d{{5}}(?:-\d{{4}})?)?"
)
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?[ ]?\d[A-Z]{2}"
_SECONDARY = r"(?:,?[ ]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Floor|Fl\.?|Room|Rm\.?|#)[ ]*#?[A-Za-z0-9\-]+)"

_EN_STREET = re.compile(
    rf"(?<![A-Za-z0-9])\d{{1,6}}[A-Z]?[ ]+(?:[NSEW]\.?[ ]+)?(?:{_WORD}[ ]+){{1,4}}?(?:{_SUFFIX_ALT})\b\.?"
    r"(?:[ ]+(?:NE|NW|SE|SW|N|S|E|W)\b\.?)?"
    rf"{_SECONDARY}?"
    rf"(?:(?:,[ ]*|[ ]*\n[ ]*|[ ]+)(?:{_CITY_LINE}|[A-Z][A-Za-z'\-]+(?:[ ][A-Z][A-Za-z'\-]+)?[ ]+{_UK_POSTCODE}\b))?"
)
_EN_MILITARY = re.compile(
    r"(?:(?:Unit[ ]+\d{3,5}[ ]+Box[ ]+\d{3,5}|PSC[ ]+\d{3,5},?[ ]+Box[ ]+\d{3,5}|"
    r"(?:USNS|USNV|USS|USCGC)[ ]+[A-Z][A-Za-z]+)(?:,[ ]*|[ ]*\n[ ]*|[ ]+))?"
    r"(?:APO|FPO|DPO)[ ]+(?:AA|AE|AP)[ ]+\d{5}\b"
)
_EN_CITY_ZIP = re.compile(rf"(?<![A-Za-z])(?:{_CITY_LINE})")
_ZIP_REQUIRED = re.compile(r"\d{5}")

# --- English names -------------------------------------------------------------------------------

_NAME_WORD = r"[A-Z][a-z]+(?:['\-][A-Z]?[a-z]+)*|[A-Z][a-z]*[A-Z][a-z]+|[A-Z]\."
_EN_NAME_CUE = re.compile(
    r"(?:\b(?:[Mm]y name is|[Mm]y name's|[Nn]ame:|[Cc]all me|I am|I'm|[Tt]his is|[Ss]igned|[Rr]egards,|"
    r"[Cc]ontact person:?|[Aa]sk for|[Nn]amed|the name|[Ss]igned by|[Mm]y (?:wife|husband|partner|brother|"
    r"sister|son|daughter|mother|father|mom|dad|mum|friend|boss|landlord|landlady|colleague|neighbou?r|"
    r"manager|doctor|lawyer|teacher|cousin|uncle|aunt|fiancée?|girlfriend|boyfriend|roommate))"
    r"|\b(?:Mr|Mrs|Ms|Miss|Dr|Prof|Sir|Madam|Mx)\.?"
    # Chinese cues before a Latin-script name (我叫Rebecca White, 收件人Tara Parker).
    r"|(?:我叫|我的名字是|名字是|名叫|姓名|联系人|收件人|收货人|持卡人|负责人)[:：]?)[ ]*"
    rf"((?:{_NAME_WORD})(?:[ ]+(?:{_NAME_WORD})){{0,2}})"
)
_NOT_A_NAME = frozenset(
    _words(
        "The A An This That It Here There Not Just So Very Sorry Happy Glad Fine Good Going Back From Also "
        "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
        "August September October November December English Chinese American British French German Japanese "
        "Indian Canadian Australian Sure Ready Done Busy Available Interested Excited Tired Hungry Late New "
        "Still Always Never Only Really In On At For With By To Of And Or But If When What Who How I"
    )
)

# --- Chinese names -------------------------------------------------------------------------------

_CN_SURNAMES_1 = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔"
    "向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕"
    "单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚"
    "娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩佘池查麻"
    "苑迟邝鞠蔺门井邰毋燕冀郁衣宿鹿雍帅郦萧支屠豆海晋楚闻厉戈植权逯盖桓暴钭戎祖束幸韶郜蓟薄印怀鄂索咸"
    "籍赖阴胥苍双莘贡劳逄扶堵宰却璩濮寿扈郏浦充慕茹习宦鱼容慎庾暨衡耿弘匡寇禄阙殳沃蔚越夔隆厍晁勾融訾阚"
    "乜养须丰巢蒯荆竺"
)
_CN_SURNAMES_2 = _words(
    "欧阳 司马 上官 诸葛 东方 皇甫 尉迟 公孙 慕容 长孙 宇文 司徒 夏侯 令狐 端木 独孤 南宫 西门 轩辕 百里"
)
_CJK = HAN_CLASS  # Chinese names and places: Han only, kana and hangul bound them
# Grammar that cannot start a given name (我叫王的 is not a name); checked for the first character.
_CN_NAME_STRONG_STOPS = tuple(
    _words(
        "先生 女士 小姐 老师 医生 律师 经理 教授 今年 电话 手机 邮箱 住在 家住 身份证 护照 地址 联系 "
        "是 的 在 了 和 与 及 说 也 都 就 把 被 让 您 你 我 他 她 们 这 那 吗 呢 吧 啊 不 没"
    )
)
# Text that follows a name rather than continuing it (so 我叫梁鑫今年 stops at 鑫).
_CN_NAME_STOPS = tuple(
    _words(
        "先生 女士 小姐 老师 医生 律师 经理 同学 教授 师傅 阿姨 叔叔 今年 电话 手机 邮箱 住在 家住 身份证 护照 地址 "
        "联系 是 的 在 了 和 与 及 说 来 去 也 都 就 已 正 会 刚 很 请 给 要 想 年 岁 今 昨 明天 现 从 到 把 被 让 "
        "跟 同 对 向 为 于 但 而 还 又 再 可 能 将 曾 您 你 我 他 她 们 这 那 每 有 没 不 吗 呢 吧 啊"
    )
)
_CN_NAME_CUE_BEFORE = re.compile(
    r"(?:(?:[Mm]y (?:Chinese )?name is|[Nn]ame:|I'm|I am|[Cc]all me|[Cc]ontact:?)[ ]*|我叫|我的名字是|我的名字叫|名字是|名字叫|名叫|叫做|本人|姓名|联系人|收件人|收货人|寄件人|持卡人|"
    r"户名|患者|签名|负责人|申请人|法人|叫)"
    r"[ ]?[:：是为]?[ ]?"
)
# Weaker cues (我是高中生 is not a name): only count when the name is followed by punctuation or the end.
_CN_NAME_CUE_WEAK = re.compile(r"(?:我是|这里是|这是|他是|她是|请联系|请找)[ ]?")
_CN_NAME_CUE_AFTER = (
    "先生",
    "女士",
    "小姐",
    "老师",
    "医生",
    "律师",
    "经理",
    "教授",
    "的电话",
    "的手机",
    "的邮箱",
    "的地址",
    "的身份证",
    "的护照",
    "的银行卡",
)

# Characters common in given names. A surname followed by one or two of these, standing between
# punctuation or grammar words, reads as a name even without a cue (明天是周俊的生日).
_CN_GIVEN_CHARS = frozenset(
    "伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超兰霞平刚桂华玉梅红建国文辉力鹏斌宇浩凯健俊帆帅旭宁龙林欢阳亮"
    "成飞彬波晨鑫博琳瑶婷雪慧莹晶颖倩琴云萍燕玲丹芬珍凤兵峰毅翔坤东海志荣新春利清昊然子轩梓涵欣怡嘉佳思雨"
    "萱诗梦航泽睿铭奕天一诺悦可馨妍琪瑞豪鸿振伦彤露薇蕾青岚晓秋冬亚金宝福生德兴胜发祥庆光良永安正立忠仁"
    "义智信辰星宏维家之继树松柏菊莲荷芝芸蓉娥婉婕姝媛娅莉洁淑惠贤雅琦璐瑜璇珊琼玮炜煜森淼焱杨柳舟远达鹰"
    "虎彪勋铁钢锋锐钰锦绍承宗先启兆喜乐美康泰顺丰盛昌隆旺富贵畅瑾璟琛琰璋珏琨曦晗昕晔晴暄旻昱晟朗凌"
    "岩峻崇嵘巍川江河湖波涌沛浩洪涵润泓渊源溪漫澜静娴婧妮娇媚婵嫣嫦卿若蓓芮苗茜茹菲萌蔚薰蕊"
)
_CN_LEFT_GLUE = _words(
    "和 跟 与 同 给 对 找 见 问 约 叫 是 请 让 帮 替 陪 被 把 送 向 等 告诉 通知 联系 提醒 备忘 还有 以及 及 "
    "记得 认识 喜欢 想念 遇到 碰到 看望 拜访 感谢 谢谢 欠 借 嫁给 娶了 老婆 老公 妻子 丈夫 儿子 女儿 朋友 同事"
)
_CN_RIGHT_GLUE = _words(
    "的 说 还 也 都 是 和 跟 与 在 给 来 去 要 会 已 刚 今 明 昨 一起 先生 女士 小姐 老师 医生 同学 打 发 "
    "问 让 请 欠 借 回 住 想 叫 就 又 再 才 却 很 不 没 买 卖 做 当 被 把 从 到 离 对 向 带 约 写 看 听 找"
)
_CJK_CHAR = re.compile(f"[{HAN_CLASS}]")


def _cn_bounded_left(text: str, pos: int) -> bool:
    if pos == 0 or not _CJK_CHAR.match(text[pos - 1]):
        return True
    return any(text.endswith(g, 0, pos) for g in _CN_LEFT_GLUE)


def _cn_bounded_right(text: str, pos: int) -> bool:
    if pos >= len(text) or not _CJK_CHAR.match(text[pos]):
        return True
    return text.startswith(tuple(_CN_RIGHT_GLUE), pos)


def find_cn_names_lexicon(text: str) -> list[Detection]:
    """Chinese names without a cue: surname + 1-2 common given-name characters between boundaries."""
    out: list[Detection] = []
    if not _CJK_CHAR.search(text):
        return out
    i = 0
    n = len(text)
    while i < n:
        sl = 2 if text[i : i + 2] in _CN_SURNAMES_2 else 1 if text[i] in _CN_SURNAMES_1 else 0
        if not sl or not _cn_bounded_left(text, i) or text.startswith(_CN_NAME_CUE_AFTER, i + sl):
            i += 1
            continue
        hit = 0
        for given in (2, 1):
            end = i + sl + given
            if end > n or not all(c in _CN_GIVEN_CHARS for c in text[i + sl : end]):
                continue
            if _cn_bounded_right(text, end):
                hit = end
                break
        if hit:
            out.append(Detection(EntityType.PERSON, i, hit, text[i:hit], 0.55, "cn_name_lexicon"))
            i = hit
        else:
            i += 1
    return out


# --- Chinese addresses ---------------------------------------------------------------------------

_PROVINCES = _words(
    "北京 天津 上海 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 "
    "四川 贵州 云南 陕西 甘肃 青海 台湾 内蒙古 广西 西藏 宁夏 新疆 香港 澳门"
)
# Characters that are grammar, not place names: a place segment never contains them.
_NOT_PLACE = "在住于到是的我你他她请把被给去来了吗呢吧啊址"
_PLACE_CHAR = rf"(?:(?![{_NOT_PLACE}])[{_CJK}])"
_PROVINCE = rf"(?:{'|'.join(_PROVINCES)})(?:省|市|壮族自治区|回族自治区|维吾尔自治区|自治区|特别行政区)?"
_CITY = rf"{_PLACE_CHAR}{{1,6}}?(?:市|自治州|地区|盟)"
_COUNTY = rf"{_PLACE_CHAR}{{1,6}}?(?:区|县|旗)"
_TOWN = rf"{_PLACE_CHAR}{{1,6}}?(?:镇|乡|街道)"
_ROAD = rf"(?:{_PLACE_CHAR}|[0-9A-Za-z]){{1,10}}?(?:大道|大街|胡同|路|街|道|巷|弄|里)"
_NUMBER = r"(?:[ ]?[0-9]{1,5}(?:-[0-9]{1,5})?[ ]?(?:号|弄|號))?"
_COMPLEX = rf"{_PLACE_CHAR}{{1,10}}?(?:小区|花园|大厦|公寓|广场|中心|大楼|家园|新村|苑)"
_UNIT = r"[0-9A-Za-z]{1,5}[ ]?(?:座|栋|幢|号楼|单元|层|楼|室|号)"
_BUILDING = rf"(?:[ ]?(?:{_COMPLEX}|{_UNIT}))*"
_POSTCODE = r"(?:[ ]?\d{6}(?!\d))?"
_CN_ADDRESS = re.compile(
    rf"(?:{_PROVINCE}(?:{_CITY})?(?:{_COUNTY})?|{_CITY}(?:{_COUNTY})?|{_COUNTY})(?:{_TOWN})?"
    rf"(?:{_ROAD})+{_NUMBER}{_BUILDING}{_POSTCODE}"
)


def find_en_addresses(text: str) -> list[Detection]:
    out: list[Detection] = []
    for m in _EN_STREET.finditer(text):
        out.append(Detection(EntityType.ADDRESS, m.start(), m.end(), m.group(), 0.85, "en_street"))
    for m in _EN_MILITARY.finditer(text):
        out.append(Detection(EntityType.ADDRESS, m.start(), m.end(), m.group(), 0.9, "en_military"))
    for m in _EN_CITY_ZIP.finditer(text):
        if _ZIP_REQUIRED.search(m.group()):
            out.append(Detection(EntityType.ADDRESS, m.start(), m.end(), m.group(), 0.7, "en_city_zip"))
    return out


def find_en_names(text: str) -> list[Detection]:
    out: list[Detection] = []
    for m in _EN_NAME_CUE.finditer(text):
        words = m.group(1).split()
        while words and words[0] in _NOT_A_NAME:
            words.pop(0)
        while words and words[-1] in _NOT_A_NAME:
            words.pop()
        if not words or words != m.group(1).split()[: len(words)]:
            continue
        start = m.start(1)
        end = start + len(" ".join(words))
        if text[start:end] != " ".join(words):
            continue
        out.append(Detection(EntityType.PERSON, start, end, text[start:end], 0.8, "en_name_cue"))
    return out


def _cn_name_at(text: str, pos: int) -> int:
    """End of a Chinese name starting at ``pos`` (surname + up to two given characters), or -1."""
    if text[pos : pos + 2] in _CN_SURNAMES_2:
        i = pos + 2
    elif pos < len(text) and text[pos] in _CN_SURNAMES_1:
        i = pos + 1
    else:
        return -1
    given = 0
    while given < 2 and i < len(text) and is_han(text[i]):
        if text.startswith(_CN_NAME_STRONG_STOPS if given == 0 else _CN_NAME_STOPS, i):
            break
        if text.startswith(_CN_NAME_CUE_AFTER, i):
            break
        i += 1
        given += 1
    return i


def find_cn_names(text: str) -> list[Detection]:
    out: list[Detection] = []
    for m in _CN_NAME_CUE_BEFORE.finditer(text):
        end = _cn_name_at(text, m.end())
        if end > m.end() + 1 or (end == m.end() + 1 and text.startswith(_CN_NAME_CUE_AFTER, end)):
            out.append(Detection(EntityType.PERSON, m.end(), end, text[m.end() : end], 0.75, "cn_name_cue"))
    for m in _CN_NAME_CUE_WEAK.finditer(text):
        end = _cn_name_at(text, m.end())
        nxt = text[end : end + 1]
        if end > m.end() + 1 and (not nxt or not is_han(nxt)):
            out.append(Detection(EntityType.PERSON, m.end(), end, text[m.end() : end], 0.6, "cn_name_cue"))
    for cue in _CN_NAME_CUE_AFTER:
        start_search = 0
        while (k := text.find(cue, start_search)) != -1:
            start_search = k + 1
            # Try the longest name that ends right before the honorific (姓 + 0..2 given chars).
            for length in (4, 3, 2, 1):
                s = k - length
                if s < 0:
                    continue
                if _cn_name_at(text, s) == k or (length <= 2 and text[s:k] in _CN_SURNAMES_2):
                    out.append(Detection(EntityType.PERSON, s, k, text[s:k], 0.7, "cn_name_honorific"))
                    break
    return out


def find_cn_addresses(text: str) -> list[Detection]:
    return [
        Detection(EntityType.ADDRESS, m.start(), m.end(), m.group(), 0.85, "cn_address")
        for m in _CN_ADDRESS.finditer(text)
    ]


def find_freetext(text: str, entities: Iterable[EntityType]) -> list[Detection]:
    wanted = frozenset(entities)
    out: list[Detection] = []
    if EntityType.ADDRESS in wanted:
        out.extend(find_en_addresses(text))
        out.extend(find_cn_addresses(text))
    if EntityType.PERSON in wanted:
        out.extend(find_en_names(text))
        out.extend(find_cn_names(text))
        out.extend(find_cn_names_lexicon(text))
    return out
