"""Bad input raises ValueError with the CLI's own error line; the module stays usable after it."""
import pytest

import kvsim


@pytest.mark.parametrize("call,args", [
    (lambda: kvsim.capacity(tensor_parallel_size=0), ["capacity", "--tensor-parallel-size=0"]),
    (lambda: kvsim.capacity(model="no/such-model"), ["capacity", "--model=no/such-model"]),
    (lambda: kvsim.capacity(gpu="h200x"), ["capacity", "--gpu=h200x"]),
    (lambda: kvsim.capacity(max_model_lenn=4096), ["capacity", "--max-model-lenn=4096"]),
    (lambda: kvsim.replay(allocator="buddy", synthetic=10), ["replay", "--allocator=buddy", "--synthetic=10"]),
    (lambda: kvsim.replay(trace="/nonexistent/trace.csv"), ["replay", "--trace=/nonexistent/trace.csv"]),
    (lambda: kvsim.sweep(find="max-num-seqs", synthetic=10), ["sweep", "--find=max-num-seqs", "--synthetic=10"]),
    (lambda: kvsim.capacity(model="meta-llama/Llama-3.1-70B-Instruct", gpu="l4"),
     ["capacity", "--model=meta-llama/Llama-3.1-70B-Instruct", "--gpu=l4"]),  # 70B x 2 B of weights > 24 GB
])
def test_bad_input_raises_the_cli_message(cli, call, args):
    expected = cli.fail(args + (["--json=-"] if args[0] == "capacity" else []))
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == expected


def test_module_usable_after_an_error():
    with pytest.raises(ValueError):
        kvsim.capacity(gpu="nope")
    assert kvsim.capacity(gpu="l4", max_model_len=4096).settings.gpu == "l4"
