"""§6 バトル: entries, turns, moves, rest, attacks, the chip bag, damage, victory points,
knock-outs and counters, with skills driven by the card data.

Called by `engine`; every function is pure (state in, state out, events appended). Where
the rulebook is silent the behaviour is a ruling in docs/RULINGS.md. The modules, each
importing only those before it:

- `field`    §6 フィールド, アタックカードの距離: areas, distances, ranges; the limits
- `base`     plumbing: events, state changers, shared action objects, primed legal lists
- `skills`   §6 魔力を消費するスキル, 継続スキル (§2, §4 R2, §5-4): usable skills, costs
- `attack`   §6 アタック 1–6, ターゲットの選択, 複数スキル, 防御スキル: declarations, crits
- `turns`    §6 バトルの基本的な流れ, 登場と初期手番, ラウンド, 手番, 移動, 休息, バトルの終了
- `refusals` why an action is refused (every §6 rule above)
- `chips`    §6 アタック 6–8, バトルチップを引く枚数, アンラック: the bag and the draws
- `counters` §6 カウンター, カウンターの制限
- `damage`   §6 アタック 9–12, ダメージ, 体力とノックアウト, 体力による勝利点
- `stages`   §6 アタック 1–13 / カウンターの処理 in order; `LEGAL` and `APPLY`

Here: the names the engine, the AI, the interface and the tests read as `battle.<name>`.
"""

from .base import PRIMED
from .chips import draw_outcome, legal_draw, legal_unluck, running_total
from .field import AREAS, RANGE_AREA, RANGE_CRIT, VP_TO_WIN, distance, step_area
from .refusals import explain, explain_early
from .stages import APPLY, LEGAL, apply_battle_decline
from .turns import pending_battle, start_battle

__all__ = ["AREAS", "APPLY", "LEGAL", "PRIMED", "RANGE_AREA", "RANGE_CRIT", "VP_TO_WIN",
           "apply_battle_decline", "distance", "draw_outcome", "explain", "explain_early",
           "legal_draw", "legal_unluck", "pending_battle", "running_total", "start_battle",
           "step_area"]
