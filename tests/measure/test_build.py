"""`BuildSpec` travels to the nodes as JSON (`to_json` / `from_json`): read back, it is the same spec, same key."""

from __future__ import annotations

from mirtune.measure.build import BuildSpec


def test_a_spec_read_back_from_json_is_the_same_spec():
    spec = BuildSpec(name="app", source="int main(void){return 0;}\n", defines={"N": "8", "FAST": ""}, openmp=True,
                     extra=("-DX=1",), include_dirs=("/tmp/inc",), units=(("b.c", "int f;\n", "/src/b.c"),),
                     depends="abc")
    back = BuildSpec.from_json(spec.to_json())
    assert back == spec
    assert back.key() == spec.key()
    assert BuildSpec.from_json(BuildSpec(name="k", source="x", suffix=".cu", compiler="nvcc").to_json()).compiler == "nvcc"
