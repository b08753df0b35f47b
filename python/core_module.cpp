// The compiled half of `import kvsim` (the package python/kvsim): runs a kvsim command in this
// process through the same RunKvsim the executable calls (cli/commands.h), so the JSON, the tables
// and the error messages are the CLI's own, and the Python half only turns keyword arguments into
// the command's flags and the JSON into result objects.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace py = pybind11;

namespace {

// Thrown through the replay when the Python progress callback raised: not a std::exception, so
// RunKvsim's handlers let it pass and the callback's own exception is raised in Python instead.
struct ProgressCallbackRaised {};

// One command at a time: a run installs kvsim's signal handlers and clears the process-wide stop
// flag (kvcache/base/interrupt.h), which two overlapping runs would undo for each other. Other
// Python threads keep running meanwhile: the GIL is released for the whole run.
std::mutex& RunMutex() {
  static std::mutex m;
  return m;
}

// Returns (exit code, standard output as bytes, standard error as str).
py::tuple Run(const std::vector<std::string>& argv, const py::object& progress) {
  std::ostringstream out, err;
  kvsim::CommandHooks hooks;
  py::object raised;  // the callback's exception, set with the GIL held
  if (!progress.is_none()) {
    hooks.progress = [&progress, &raised](double fraction, int64_t simulated_ns) {
      py::gil_scoped_acquire gil;
      try {
        progress(fraction, static_cast<double>(simulated_ns) * 1e-9);
      } catch (py::error_already_set& e) {
        raised = e.value();
        throw ProgressCallbackRaised{};
      }
    };
  }
  int code = 0;
  bool aborted = false;
  {
    py::gil_scoped_release release;
    const std::lock_guard<std::mutex> lock(RunMutex());
    try {
      code = kvsim::RunKvsim(argv, out, err, hooks);
    } catch (const ProgressCallbackRaised&) {
      aborted = true;
    }
  }
  if (aborted) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(raised.ptr())), raised.ptr());
    throw py::error_already_set();
  }
  return py::make_tuple(code, py::bytes(out.str()), py::bytes(err.str()));
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "kvsim's C++ core, run in-process (use the kvsim package, not this module)";
  m.def("run", &Run, py::arg("argv"), py::arg("progress") = py::none(),
        "Runs `kvsim <command> <flags>` in this process; argv[0] is the program name. Returns (exit code, "
        "stdout bytes, stderr bytes). progress(fraction, simulated_s) is called during replays.");
  m.def("commands", &kvsim::CommandNames, "The commands run() accepts, as `kvsim --help` lists them.");
}
