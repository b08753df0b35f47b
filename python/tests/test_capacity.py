"""capacity, capacity_from_command, step, train, models, gpus: to_dict() equals the CLI's JSON."""
import pytest

import kvsim

CAPACITY_CASES = [
    ({}, []),  # every default: Llama-3.1-8B on an A100 80GB
    ({"model": "Qwen/Qwen3-8B", "gpu": "l4", "max_model_len": 8192},
     ["--model", "Qwen/Qwen3-8B", "--gpu", "l4", "--max-model-len", "8192"]),
    ({"model": "meta-llama/Llama-3.1-70B-Instruct", "gpu": "h100", "tensor_parallel_size": 4},
     ["--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "h100", "-tp", "4"]),
    ({"gpu": "a100-40gb", "kv_cache_dtype": "fp8", "gpu_memory_utilization": 0.85, "enable_prefix_caching": False},
     ["--gpu", "a100-40gb", "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.85", "--no-enable-prefix-caching"]),
    ({"max_model_len": "auto", "gpu": "l4"}, ["--max-model-len", "auto", "--gpu", "l4"]),
    ({"max_model_len": -1, "gpu": "l4"}, ["--max-model-len=-1", "--gpu", "l4"]),
    ({"enforce_eager": True, "max_num_seqs": 64, "block_size": 32},
     ["--enforce-eager", "--max-num-seqs", "64", "--block-size", "32"]),
    ({"hf_overrides": {"max_position_embeddings": 65536}, "model": "Qwen/Qwen3-0.6B"},
     ["--hf-overrides", '{"max_position_embeddings": 65536}', "--model", "Qwen/Qwen3-0.6B"]),
]


@pytest.mark.parametrize("kwargs,args", CAPACITY_CASES)
def test_capacity_presets_equal_cli(cli, kwargs, args):
    assert kvsim.capacity(**kwargs).to_dict() == cli.json(["capacity"] + args)


@pytest.mark.parametrize("config", ["tests/data/models/gemma-2-2b-it.json", "tests/data/models/Qwen-72B.json",
                                    "data/models/meta-llama/Llama-2-7b-hf.json"])
def test_capacity_config_files_equal_cli(cli, source_dir, config):
    path = source_dir / config
    if not path.exists():
        pytest.skip("no %s" % config)
    args = ["--model", str(path), "--gpu", "h100", "--tensor-parallel-size", "4"]
    assert kvsim.capacity(model=str(path), gpu="h100", tensor_parallel_size=4).to_dict() == cli.json(["capacity"] + args)


def test_capacity_from_command_equals_cli(cli):
    line = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --max-model-len 16384 --gpu-memory-utilization 0.8"
    result = kvsim.capacity_from_command(line, gpu="l40s")
    assert result.to_dict() == cli.json(["capacity", "--gpu", "l40s", "--vllm-cmd", line])


def test_attributes_carry_units_and_repr_is_the_table(cli):
    r = kvsim.capacity(gpu="l4", model="Qwen/Qwen3-8B", max_model_len=4096)
    d = r.to_dict()
    assert r.kv_cache_gib == d["kv_cache_gib"]
    assert r.settings.max_model_len == 4096
    table = cli.run(["capacity", "--gpu", "l4", "--model", "Qwen/Qwen3-8B", "--max-model-len", "4096"]).stdout
    assert repr(r) == table.rstrip("\n")
    with pytest.raises(AttributeError, match="no field 'kv_cache_gb'"):
        r.kv_cache_gb  # noqa: B018


def test_step_equals_cli(cli):
    kwargs = dict(gpu="h100", decode_seqs=32, decode_context=2048, prefill_seqs=1, prefill_tokens=512)
    args = ["--gpu", "h100", "--decode-seqs", "32", "--decode-context", "2048", "--prefill-seqs", "1",
            "--prefill-tokens", "512"]
    assert kvsim.step(**kwargs).to_dict() == cli.json(["step"] + args)


@pytest.mark.parametrize("kwargs,args", [
    ({}, []),
    ({"model": "Qwen/Qwen3-8B", "micro_batch_size": 4, "seq_len": 4096, "recompute": "full"},
     ["--model", "Qwen/Qwen3-8B", "--micro-batch-size", "4", "--seq-len", "4096", "--recompute", "full"]),
])
def test_train_equals_cli(cli, kwargs, args):
    assert kvsim.train(**kwargs).to_dict() == cli.json(["train"] + args)


def test_models_and_gpus_are_the_cli_tables(cli):
    gpus = kvsim.gpus()
    assert repr(gpus) == cli.run(["gpus"]).stdout.rstrip("\n")
    assert "a100-80gb" in gpus.ids() and "h100" in gpus.ids()
    a100 = [g for g in gpus if g["id"] == "a100-80gb"][0]
    # torch reports an A100 80GB as "total capacity of 79.15 GiB" (vllm-project/vllm #4408, cited in data/gpus.csv).
    assert a100["CUDA GiB"] == "79.15"
    models = kvsim.models()
    assert repr(models) == cli.run(["models"]).stdout.rstrip("\n")
    assert "meta-llama/Llama-3.1-8B-Instruct" in models.ids()


def test_capacity_calls_are_cheap():
    # Not a timing assertion (bench/ times things): a loop of calls must simply work and agree.
    first = kvsim.capacity(gpu="l4", max_model_len=4096).to_dict()
    for _ in range(50):
        assert kvsim.capacity(gpu="l4", max_model_len=4096).to_dict() == first
