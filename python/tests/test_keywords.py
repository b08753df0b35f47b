"""A keyword set to False is not dropped: a switch whose default is on is turned off, and a keyword
that names no flag raises instead of vanishing (before, every False but enable_prefix_caching was
left out of the command line, so a misspelt one and enable_chunked_prefill=False did nothing)."""
import pytest

import kvsim

_SMALL = dict(gpu="h100", max_model_len=4096)


def test_enable_chunked_prefill_false_turns_it_off(cli):
    expected = cli.json(["capacity", "--gpu=h100", "--max-model-len=4096", "--no-enable-chunked-prefill"])
    got = kvsim.capacity(enable_chunked_prefill=False, **_SMALL).to_dict()
    assert got == expected
    default = cli.json(["capacity", "--gpu=h100", "--max-model-len=4096"])
    # The flag moves what the CLI prints, so dropping it would not pass unseen here.
    assert expected != default


def test_enable_prefix_caching_false_still_turns_it_off(cli):
    expected = cli.json(["capacity", "--gpu=h100", "--max-model-len=4096", "--no-enable-prefix-caching"])
    assert kvsim.capacity(enable_prefix_caching=False, **_SMALL).to_dict() == expected


def test_misspelt_keyword_false_raises(cli):
    with pytest.raises(ValueError, match="enable_chunked_prefil=False"):
        kvsim.capacity(enable_chunked_prefil=False, **_SMALL)


def test_misspelt_replay_keyword_false_raises(cli):
    with pytest.raises(ValueError, match="exact_quantile=False"):
        kvsim.replay(synthetic=10, rate=5, exact_quantile=False, **_SMALL)


def test_switch_without_off_form_false_is_its_default(cli):
    on = kvsim.replay(synthetic=20, rate=5, omit_wall_time=True, exact_quantiles=False, **_SMALL).to_dict()
    default = kvsim.replay(synthetic=20, rate=5, omit_wall_time=True, **_SMALL).to_dict()
    assert on == default


def test_a_whole_number_given_as_a_float_is_that_number(cli):
    # LLM(max_model_len=4096.0) runs: pydantic's lax mode reads a float with no fraction as the integer.
    expected = cli.json(["capacity", "--gpu=h100", "--max-model-len=4096", "--max-num-seqs=64"])
    assert kvsim.capacity(gpu="h100", max_model_len=4096.0, max_num_seqs=64.0).to_dict() == expected
    with pytest.raises(ValueError, match="4096.5"):
        kvsim.capacity(gpu="h100", max_model_len=4096.5)


def test_bytes_are_read_as_their_utf8_text(cli):
    expected = cli.json(["capacity", "--gpu=h100", "--max-model-len=4096"])
    assert kvsim.capacity(gpu=b"h100", max_model_len=b"4096").to_dict() == expected
    with pytest.raises(ValueError, match="not UTF-8"):
        kvsim.capacity(gpu=b"\xff\xfe", max_model_len=4096)


def test_a_release_given_as_a_float_is_refused():
    """0.30 as a float is 0.3, another release: the keyword must be text."""
    with pytest.raises(ValueError, match="as a string"):
        kvsim.capacity(vllm_version=0.30)


def test_true_or_false_for_a_flag_that_takes_a_value_raises():
    """tensor_parallel_size=True gave `--tensor-parallel-size --json=-`, so the CLI read '--json=-' as
    the size; max_model_len=False was left out of the command line as if never given."""
    with pytest.raises(ValueError, match="tensor_parallel_size=True: --tensor-parallel-size takes a value"):
        kvsim.capacity(tensor_parallel_size=True)
    with pytest.raises(ValueError, match="max_model_len=False: --max-model-len takes a value"):
        kvsim.capacity(max_model_len=False)


def test_the_wrappers_own_keywords_raise():
    """help=True printed the help where the wrapper parses JSON (a JSONDecodeError); json=PATH gave
    --json twice."""
    with pytest.raises(ValueError, match="help=True is the wrapper's own"):
        kvsim.capacity(help=True)
    with pytest.raises(ValueError, match="json='out.json' is the wrapper's own"):
        kvsim.replay(synthetic=10, rate=5, json="out.json", **_SMALL)


def test_arguments_of_the_wrong_shape_raise_value_error():
    """A list for grid, a number for slo or for a compare deployment raised AttributeError from the
    wrapper, or reached the CLI as a stray word; each is a ValueError naming the argument."""
    with pytest.raises(ValueError, match="grid=\\[8, 16\\]"):
        kvsim.sweep(grid=[8, 16], synthetic=10, rate=5, **_SMALL)
    with pytest.raises(ValueError, match="lists no values"):
        kvsim.sweep(grid={"max_num_seqs": []}, synthetic=10, rate=5, **_SMALL)
    with pytest.raises(ValueError, match="slo=5"):
        kvsim.sweep(find="max-num-seqs", slo=5, synthetic=10, rate=5, **_SMALL)
    with pytest.raises(ValueError, match="not 5"):
        kvsim.compare(a=5, b={"max_num_seqs": 16}, synthetic=10, rate=5, **_SMALL)


def test_misspelt_keyword_none_raises():
    """None leaves a flag out, so a misspelt keyword set to None vanished like one set to False."""
    with pytest.raises(ValueError, match="unknown keyword max_num_seq=None"):
        kvsim.capacity(max_num_seq=None, **_SMALL)


def test_a_progress_that_is_not_a_function_raises():
    """The core only calls progress: a number there was accepted and never used."""
    with pytest.raises(ValueError, match="progress=5"):
        kvsim.replay(synthetic=10, rate=5, progress=5, **_SMALL)


def test_capacity_from_command_needs_a_line():
    """None left --vllm-cmd out and planned kvsim's default deployment as if it were the line."""
    with pytest.raises(ValueError, match="command=None"):
        kvsim.capacity_from_command(None)
    with pytest.raises(ValueError, match="command=''"):
        kvsim.capacity_from_command("")


def test_a_grid_value_twice_raises():
    with pytest.raises(ValueError, match="lists the value '8' twice"):
        kvsim.sweep(grid={"max_num_seqs": [8, 8]}, synthetic=10, rate=5, **_SMALL)


def test_model_runner_for_another_engine_raises():
    with pytest.raises(ValueError, match="--engine sglang has its own"):
        kvsim.capacity(model_runner="v2", engine="sglang", **_SMALL)


def test_compare_deployment_without_options_is_the_shared_one(cli, tmp_path):
    """{} (or a dict of False switches) gave "--a=", which the CLI refuses as a missing value; the
    CLI's --a '' is the shared deployment as it is."""
    got = kvsim.compare({}, {"max_num_seqs": 16}, synthetic=10, rate=5, omit_wall_time=True, **_SMALL).to_dict()
    expected = cli.json_file(["compare", "--a", "", "--b", "--max-num-seqs 16", "--synthetic=10", "--rate=5",
                              "--omit-wall-time", "--gpu=h100", "--max-model-len=4096"], tmp_path)
    assert got == expected


def test_a_grid_of_switches_raises():
    with pytest.raises(ValueError, match="grid\\['enforce_eager'\\] holds True"):
        kvsim.sweep(grid={"enforce_eager": [True, False]}, synthetic=10, rate=5, **_SMALL)


def test_find_without_a_limit_raises():
    with pytest.raises(ValueError, match="needs a limit to search against"):
        kvsim.sweep(find="max-num-seqs", synthetic=10, rate=5, **_SMALL)
