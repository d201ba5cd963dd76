"""libtenure as a C++ team adopts it: the library-only configuration builds without the server's
packages, installs into a prefix, and every example in examples/ builds out of tree against the
installed package (with find_package, and with pkg-config) and runs against `tenure serve`.
Also: used as a subproject, tenure imposes no build type, warnings-as-errors, tests or install
rules on the project that includes it.

The library-only build folder sits beside the release build (build -> build-library-only):
compiled with the same flags, its objects come from the release build's ccache entries.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path

from tenure_testlib import COORDINATED_FLAGS, REPO, Server, tenure_bin

SOURCE = Path(REPO)
EXAMPLES = ("elector", "leadership", "coordinated")
# Packages only the server, the CLI and the tests need: the library-only build must not look
# for them (a clean machine with only the library's -dev packages has none of them).
HIDDEN_PACKAGES = ("gRPC", "Protobuf", "SQLite3", "GTest", "benchmark", "absl", "c-ares", "re2")
# Their Debian packages: as root, the library-only build runs where every file of these is gone
# from /usr (an overlay with whiteouts, in a mount namespace of its own).
SERVER_DEV_PACKAGES = ("libgrpc++-dev", "libgrpc-dev", "libprotobuf-dev", "protobuf-compiler",
                       "protobuf-compiler-grpc", "libabsl-dev", "libre2-dev", "libc-ares-dev",
                       "libsqlite3-dev", "libjemalloc-dev", "libgtest-dev", "libgmock-dev",
                       "libbenchmark-dev", "libcli11-dev")

# Run inside `unshare --mount`: /usr without the files of SERVER_DEV_PACKAGES, then the commands.
WITHOUT_SERVER_PACKAGES = r"""
import json, os, subprocess, sys, tempfile
packages, commands = sys.argv[1].split(), json.loads(sys.argv[2])
listed = subprocess.run(["dpkg", "-L", *packages], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                        text=True).stdout.split("\n")
top = tempfile.mkdtemp(prefix="tenure-no-server-packages-")
subprocess.run(["mount", "-t", "tmpfs", "tmpfs", top], check=True)
upper, work = os.path.join(top, "upper"), os.path.join(top, "work")
os.makedirs(work)
hidden = 0
for path in listed:
    if path.startswith("/usr/") and (os.path.isfile(path) or os.path.islink(path)):
        target = os.path.join(upper, path[len("/usr/"):])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.mknod(target, 0o600 | 0o020000, os.makedev(0, 0))  # an overlay whiteout
        hidden += 1
os.makedirs(upper, exist_ok=True)
subprocess.run(["mount", "-t", "overlay", "overlay", "-o", f"lowerdir=/usr,upperdir={upper},workdir={work}", "/usr"],
               check=True)
assert hidden > 100 and not os.path.exists("/usr/include/sqlite3.h"), "the server's packages are still visible"
print(f"hid {hidden} files of {len(packages)} packages", flush=True)
for command in commands:
    subprocess.run(command, check=True)
"""


def can_hide_packages() -> bool:
    """Root, and mount namespaces allowed (not so in every container)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("dpkg") is None:
        return False
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
SERVER_ONLY_WORDS = ("grpc", "protobuf", "sqlite", "jemalloc", "gtest", "gmock")


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout[-6000:]}")
    return result


class LineProcess:
    """A child process whose stdout lines are read on a thread; wait_line waits for one."""

    def __init__(self, cmd: list[str], env: dict[str, str]):
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self.stderr: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr.append), daemon=True).start()

    @staticmethod
    def _read(stream, sink) -> None:
        for line in stream:
            sink(line.rstrip("\n"))

    def wait_line(self, pattern: str, timeout: float = 20.0) -> re.Match:
        regex = re.compile(pattern)
        for line in self.seen:
            if m := regex.search(line):
                self.seen.remove(line)
                return m
        deadline = threading.Event()
        timer = threading.Timer(timeout, deadline.set)
        timer.start()
        try:
            while not deadline.is_set():
                try:
                    line = self.lines.get(timeout=0.05)
                except queue.Empty:
                    if self.proc.poll() is not None and self.lines.empty():
                        break
                    continue
                if m := regex.search(line):
                    return m
                self.seen.append(line)
        finally:
            timer.cancel()
        raise AssertionError(f"{self.cmd[0]}: no line matching {pattern!r}; stdout {self.seen}; "
                             f"stderr {self.stderr[-20:]}; exit {self.proc.poll()}")

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def release_build_dir() -> Path:
    return Path(tenure_bin()).resolve().parents[2]


class InstalledLibraryTest(unittest.TestCase):
    """One library-only build and install for the whole class; each test uses the prefix."""

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        if shutil.which("cmake") is None or shutil.which("ninja") is None:
            raise unittest.SkipTest("cmake and ninja are needed")
        cls.tmp = tempfile.mkdtemp(prefix="tenure-install-test-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.prefix = Path(cls.tmp) / "prefix"
        release = release_build_dir()
        cls.library_build = release.with_name(release.name + "-library-only")
        configure = ["cmake", "-S", str(SOURCE), "-B", str(cls.library_build), "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DTENURE_LIBRARY_ONLY=ON",
                     # The release build's flags exactly (its objects come from ccache).
                     "-DTENURE_WERROR=ON", f"-DCMAKE_INSTALL_PREFIX={cls.prefix}"]
        build = ["cmake", "--build", str(cls.library_build), "-j2"]
        install = ["cmake", "--install", str(cls.library_build)]
        if can_hide_packages():
            # The build folder is configured afresh: a cache from a run with the packages
            # visible would not show what a machine without them does.
            shutil.rmtree(cls.library_build / "CMakeCache.txt", ignore_errors=True)
            if (cls.library_build / "CMakeCache.txt").exists():
                (cls.library_build / "CMakeCache.txt").unlink()
            cls.hidden_output = run(["unshare", "--mount", "--propagation", "private", sys.executable, "-c",
                                     WITHOUT_SERVER_PACKAGES, " ".join(SERVER_DEV_PACKAGES),
                                     json.dumps([configure, build, install])]).stdout
        else:
            cls.hidden_output = ""
            configure += [f"-DCMAKE_DISABLE_FIND_PACKAGE_{p}=ON" for p in HIDDEN_PACKAGES]
            run(configure)
            run(build)
            run(install)
        cls.server = Server(COORDINATED_FLAGS)
        cls.addClassCleanup(cls.server.cleanup)
        cls.server.start()

    def lib_dir(self) -> Path:
        found = sorted(self.prefix.glob("lib*/**/libtenure.so"))
        self.assertTrue(found, f"no libtenure.so under {self.prefix}")
        return found[0].parent

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["KUBECONFIG"] = self.server.kubeconfig
        env["PKG_CONFIG_PATH"] = str(self.lib_dir() / "pkgconfig")
        env["LD_LIBRARY_PATH"] = str(self.lib_dir())
        return env

    # -- the library-only configuration --------------------------------------------------------

    def test_library_only_build_needs_none_of_the_servers_packages(self):
        if can_hide_packages():
            self.assertRegex(self.hidden_output, r"hid \d+ files of \d+ packages")
        ninja = (self.library_build / "build.ninja").read_text().lower()
        for word in SERVER_ONLY_WORDS:
            self.assertNotIn(word, ninja, f"the library-only build uses {word}")
        self.assertIn("libtenure.so", ninja)
        self.assertFalse((self.library_build / "src" / "cli").exists(), "the CLI was configured")

    def test_install_holds_headers_libraries_package_and_license(self):
        lib = self.lib_dir()
        version = re.search(r'#define TENURE_VERSION_STRING "([0-9.]+)"',
                            (self.prefix / "include/tenure/version.h").read_text()).group(1)
        major, minor, _ = version.split(".")
        soname = f"libtenure.so.{major}" if major != "0" else f"libtenure.so.0.{minor}"
        self.assertTrue((lib / f"libtenure.so.{version}").is_file())
        self.assertTrue((lib / soname).is_symlink())
        self.assertTrue((lib / "libtenure.a").is_file())
        dynamic = run(["readelf", "-d", str(lib / f"libtenure.so.{version}")]).stdout
        self.assertIn(f"Library soname: [{soname}]", dynamic)
        for header in ("tenure.h", "elector.h", "log.h", "status.h", "version.h", "testing/waits.h"):
            self.assertTrue((self.prefix / "include/tenure" / header).is_file(), header)
        self.assertTrue((lib / "cmake/tenure/tenureConfig.cmake").is_file())
        self.assertTrue((lib / "cmake/tenure/tenureConfigVersion.cmake").is_file())
        self.assertTrue((lib / "pkgconfig/tenure.pc").is_file())
        self.assertIn("Apache License", (self.prefix / "share/doc/tenure/LICENSE").read_text())
        # No internal header is installed: every installed header is a public one.
        installed = {p.relative_to(self.prefix / "include/tenure").as_posix()
                     for p in (self.prefix / "include/tenure").rglob("*.h")}
        public = {p.relative_to(SOURCE / "include/tenure").as_posix()
                  for p in (SOURCE / "include/tenure").rglob("*.h")} | {"version.h"}
        self.assertEqual(installed, public)
        pc = run(["pkg-config", "--modversion", "tenure"], env=self.env()).stdout.strip()
        self.assertEqual(pc, version)

    # -- the examples, out of tree -------------------------------------------------------------

    def build_with_cmake(self, example: str, *extra: str) -> Path:
        out = Path(self.tmp) / f"cmake-{example}{'-'.join(extra)}"
        run(["cmake", "-S", str(SOURCE / "examples" / example), "-B", str(out), "-G", "Ninja",
             f"-DCMAKE_PREFIX_PATH={self.prefix}", *extra])
        run(["cmake", "--build", str(out)])
        return out / example

    def build_with_pkg_config(self, example: str) -> Path:
        out = Path(self.tmp) / f"pkg-config-{example}"
        flags = run(["pkg-config", "--cflags", "--libs", "tenure"], env=self.env()).stdout.split()
        run(["c++", "-std=c++20", "-o", str(out), str(SOURCE / "examples" / example / "main.cc"), *flags],
            env=self.env())
        return out

    def test_elector_hands_over_on_stop_built_with_cmake_and_pkg_config(self):
        shared = self.build_with_cmake("elector")
        static = self.build_with_cmake("elector", "-DTENURE_USE_STATIC_LIBS=ON")
        plain = self.build_with_pkg_config("elector")
        needed = run(["readelf", "-d", str(shared)]).stdout
        self.assertIn("libtenure.so", needed)
        self.assertNotIn("libtenure.so", run(["readelf", "-d", str(static)]).stdout)
        a = LineProcess([str(shared), "install-elector", "a"], self.env())
        self.addCleanup(a.stop)
        a.wait_line(r"^leading a fencing_token=\d+$")
        b = LineProcess([str(static), "install-elector", "b"], self.env())
        self.addCleanup(b.stop)
        b.wait_line(r"^leader is a$")
        c = LineProcess([str(plain), "install-elector", "c"], self.env())
        self.addCleanup(c.stop)
        c.wait_line(r"^leader is a$")
        self.assertEqual(a.stop(), 0)
        # a released the lease on stop: b or c leads well before the 15 s lease would expire.
        winner = None
        for candidate, name in ((b, "b"), (c, "c")):
            try:
                candidate.wait_line(rf"^leading {name} fencing_token=\d+$", timeout=5)
                winner = name
                break
            except AssertionError:
                continue
        self.assertIsNotNone(winner, f"no one took over: b {b.seen} c {c.seen}")

    def test_leadership_grants_revokes_and_yields(self):
        binary = self.build_with_cmake("leadership")
        plain = self.build_with_pkg_config("leadership")
        first = LineProcess([str(binary), "install-leadership", "first", "scheduler"], self.env())
        self.addCleanup(first.stop)
        first.wait_line(r"^granted role=scheduler fencing_token=\d+$")
        second = LineProcess([str(plain), "install-leadership", "second", "scheduler"], self.env())
        self.addCleanup(second.stop)
        first.signal(signal.SIGUSR1)
        first.wait_line(r"^yielding$")
        first.wait_line(r"^revoked role=scheduler$")
        second.wait_line(r"^granted role=scheduler fencing_token=\d+$", timeout=10)
        self.assertEqual(second.stop(), 0)
        second.wait_line(r"^revoked role=scheduler$")
        second.wait_line(r'"leaderElection"')

    def test_coordinated_candidates_let_the_controller_choose(self):
        binary = self.build_with_cmake("coordinated")
        plain = self.build_with_pkg_config("coordinated")
        newer = LineProcess([str(binary), "install-coordinated", "newer", "1.34.0", "1.34.0"], self.env())
        self.addCleanup(newer.stop)
        older = LineProcess([str(plain), "install-coordinated", "older", "1.34.0", "1.33.0"], self.env())
        self.addCleanup(older.stop)
        # OldestEmulationVersion: the candidate emulating 1.33 leads, whoever registered first.
        older.wait_line(r"^leading older fencing_token=\d+$", timeout=30)
        self.assertEqual(older.stop(), 0)
        newer.wait_line(r"^leading newer fencing_token=\d+$", timeout=30)


class SubprojectTest(unittest.TestCase):
    """add_subdirectory(tenure): only the library, on the parent's terms (configure only)."""

    def test_a_parent_project_gets_the_library_and_nothing_else(self):
        tmp = tempfile.mkdtemp(prefix="tenure-subproject-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        parent = Path(tmp) / "parent"
        parent.mkdir()
        (parent / "main.cc").write_text("#include <tenure/tenure.h>\nint main() { return 0; }\n")
        (parent / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.25)\nproject(parent LANGUAGES CXX)\nenable_testing()\n"
            f"add_subdirectory({SOURCE} tenure)\n"
            "add_executable(app main.cc)\ntarget_link_libraries(app PRIVATE tenure::tenure)\n")
        build = Path(tmp) / "build"
        configure = ["cmake", "-S", str(parent), "-B", str(build), "-G", "Ninja"]
        configure += [f"-DCMAKE_DISABLE_FIND_PACKAGE_{p}=ON" for p in HIDDEN_PACKAGES]
        run(configure)
        cache = (build / "CMakeCache.txt").read_text()
        self.assertRegex(cache, r"(?m)^CMAKE_BUILD_TYPE:STRING=$", "the build type was set for the parent")
        self.assertRegex(cache, r"(?m)^TENURE_LIBRARY_ONLY:BOOL=ON$")
        ninja = (build / "build.ninja").read_text()
        self.assertNotIn("-Werror", ninja)
        tests = run(["ctest", "-N", "--test-dir", str(build)]).stdout
        self.assertIn("Total Tests: 0", tests)
        # Every target tenure adds is named tenure...: none can clash with the parent's.
        targets = set()
        for name in re.findall(r"(?m)^build ([^/\s:]+): phony ", ninja):
            name = name.removeprefix("cmake_object_order_depends_target_")
            if name.startswith("lib") and name.endswith((".a", ".so")):
                name = name[3:].rsplit(".", 1)[0]
            targets.add(name)
        ours = targets - {"all", "app", "clean", "help", "edit_cache", "rebuild_cache", "test",
                          "list_install_components", "install"}
        self.assertIn("tenure_election", ours)
        strange = sorted(t for t in ours if not t.startswith("tenure"))
        self.assertEqual(strange, [], "targets without the tenure prefix")
        self.assertNotIn("libtenure", (build / "tenure" / "cmake_install.cmake").read_text(),
                         "tenure added install rules to the parent")


if __name__ == "__main__":
    unittest.main()
