"""Parameters by name: every kernel's parameter positions are tied to its Policy's parameter names,
learned's weights are read by feature name, and a missing or corrupt weights file is an error."""
import json
import subprocess
import sys

import numpy as np
import pytest

from lostcards.engine import moves
from lostcards.errors import PolicyError
from lostcards.policies import expert, resolve, staller
from lostcards.policies.improve import decision
from lostcards.policies.learned import blueprint, load_weights, rollout
from lostcards.policies.search import policy as search


def _positions(module, prefix):
    """name -> position of the module's constants PREFIX_NAME (the kernel's parameter positions)."""
    return {k[len(prefix):].lower(): v for k, v in vars(module).items()
            if k.startswith(prefix) and k[len(prefix):].isupper() and isinstance(v, int)}


@pytest.mark.parametrize("spec,module,prefix,skip", [
    ("expert", expert, "K_", set()),
    ("search", search, "K_", set()),
    ("learned-mc", rollout, "K_", {"max"}),
    ("staller", staller, "K_", set()),
    ("improve", decision, "P_", {"policy_at", "decide_at", "prior_at", "others_at", "others_params"}),
])
def test_a_kernels_parameter_positions_are_its_parameters_names(spec, module, prefix, skip):
    names = list(resolve(spec).parameters)
    pos = {k: v for k, v in _positions(module, prefix).items() if k not in skip}
    assert pos, f"{module.__name__} has no {prefix}* constants"
    wrong = {k: (v, names.index(k) if k in names else None) for k, v in pos.items()
             if k not in names or names.index(k) != v}
    assert not wrong, f"{spec}: constant -> (its position, the parameter's): {wrong}"


def test_the_name_check_can_fail():
    class Fake:
        K_INVEST, K_SAFETY = 0, 1
    assert _positions(Fake, "K_") == {"invest": 0, "safety": 1}
    names = list(resolve("expert").parameters)
    assert names.index("safety") != 1          # expert's safety is not its second parameter


def test_every_weight_is_read_by_its_features_name():
    p = resolve("blueprint")
    names = list(p.parameters)
    seen = {}
    for group, word in (("PLAY_", "play."), ("DISC_", "discard."), ("DRAW_", "draw.")):
        for k, v in _positions(blueprint, group).items():
            if not hasattr(moves, group + k.upper()):          # DRAW_DECK, DRAW_NONE: move codes
                seen[word + k] = v
    assert sorted(seen) == sorted(blueprint.FEATURES), "a feature without its constant, or the reverse"
    for feature, at in seen.items():
        assert names[at] == feature, (feature, at, names[at])
    assert names[blueprint.TEMP] == "temp"
    w = load_weights()
    assert np.array_equal(p.params[[seen[f] for f in blueprint.FEATURES]], w)


@pytest.mark.parametrize("text,says", [
    ("{not json", "not JSON"),
    ('{"weights": {"play.bias": 1.0}}', 'its "weights" lacks'),
    ('{"weights": [1, 2, 3]}', "30 weights .one a feature of blueprint.FEATURES., got 3 numbers"),
    ('{"format": "x"}', 'no "weights" in it'),
    ('{"weights": ["a"]}', 'its "weights" are not 30 numbers'),
])
def test_a_corrupt_weights_file_is_a_clear_error(tmp_path, text, says):
    f = tmp_path / "weights.json"
    f.write_text(text)
    with pytest.raises(PolicyError, match=says):
        load_weights(f)


def test_a_missing_weights_file_is_a_clear_error(tmp_path):
    with pytest.raises(PolicyError, match="cannot read the weights file"):
        load_weights(tmp_path / "none.json")


def test_a_weights_file_with_an_unknown_feature_is_refused(tmp_path):
    doc = json.loads(json.dumps({"weights": {f: 0.0 for f in blueprint.FEATURES}}))
    doc["weights"]["play.nonsense"] = 1.0
    f = tmp_path / "weights.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(PolicyError, match="unknown features play.nonsense"):
        load_weights(f)


def test_the_blueprint_with_a_corrupt_shipped_file_refuses_instead_of_playing_at_random():
    code = ("import pathlib\n"
            "orig = pathlib.Path.read_bytes\n"
            "def bad(self, *a, **k):\n"
            "    return b'{corrupt' if self.name == 'weights.json' else orig(self, *a, **k)\n"
            "pathlib.Path.read_bytes = bad\n"
            "from lostcards.errors import LostcardsError\n"
            "from lostcards.policies import resolve\n"
            "resolve('expert')\n"                     # the other bots are not held back by it
            "for name in ('blueprint', 'learned'):\n"
            "    try:\n"
            "        resolve(name)\n"
            "    except LostcardsError as e:\n"
            "        print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("refused: policy 'blueprint' cannot be loaded") and "not JSON" in lines[0], out.stdout
    assert lines[1].startswith("refused: policy 'learned' cannot be loaded"), out.stdout   # its reference is gone
