"""The Debian packages CPack builds from the release build folder (cmake/packages.cmake):
libtenureX.Y, libtenure-dev and tenure. They are installed with `apt-get install ./*.deb` inside
a mount namespace of their own, where /usr, /var and /etc are overlays on a tmpfs: the packages
really install (dependencies resolved by apt, maintainer scripts and triggers run), and nothing of
it is left on the machine afterwards. From the installed packages, `tenure demo` runs and the
elector example builds with find_package against /usr and links the packaged shared library.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from tenure_testlib import REPO, tenure_bin

SCRIPT = r"""
set -eu
top=$(mktemp -d /tmp/tenure-packages-root-XXXXXX)
mount -t tmpfs tmpfs "$top"
for d in usr var etc; do
  mkdir -p "$top/$d/upper" "$top/$d/work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$top/$d/upper,workdir=$top/$d/work" "/$d"
done
DEBIAN_FRONTEND=noninteractive apt-get install -y "$DEBS"/*.deb
echo "== version"
/usr/bin/tenure --version
echo "== demo"
/usr/bin/tenure demo
echo "== example"
cmake -S "$SOURCE/examples/elector" -B "$WORK/elector" -G Ninja > /dev/null
cmake --build "$WORK/elector" > /dev/null
ldd "$WORK/elector/elector" | grep libtenure
echo "== done"
"""


class DebianPackagesTest(unittest.TestCase):
    def setUp(self) -> None:
        for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps", "apt-get", "unshare"):
            if shutil.which(tool) is None:
                raise unittest.SkipTest(f"{tool} is not installed")
        if os.geteuid() != 0:
            raise unittest.SkipTest("installing packages into an overlay needs root")
        if subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            raise unittest.SkipTest("mount namespaces are not allowed here (a container without CAP_SYS_ADMIN)")
        self.work = tempfile.mkdtemp(prefix="tenure-packages-test-")
        self.addCleanup(shutil.rmtree, self.work, True)
        self.build = Path(tenure_bin()).resolve().parents[2]

    def test_the_packages_install_with_apt_and_run(self):
        debs = Path(self.work) / "debs"
        made = subprocess.run(["cpack", "-G", "DEB", "-B", str(debs), "--config", str(self.build / "CPackConfig.cmake")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        self.assertEqual(made.returncode, 0, made.stdout[-4000:])
        packages = {p.name.split("_")[0]: p for p in debs.glob("*.deb")}
        library = next((name for name in packages if re.fullmatch(r"libtenure\d+(\.\d+)?", name)), None)
        self.assertIsNotNone(library, f"no shared-library package among {sorted(packages)}")
        self.assertIn("libtenure-dev", packages)
        self.assertIn("tenure", packages)

        def field(package: str, name: str) -> str:
            return subprocess.run(["dpkg-deb", "-f", str(packages[package]), name], stdout=subprocess.PIPE,
                                  text=True, check=True).stdout.strip()
        # Dependencies come from the binaries (dpkg-shlibdeps), the -dev package pins its library.
        self.assertIn("libssl3", field(library, "Depends"))
        self.assertIn("libyaml-cpp", field(library, "Depends"))
        self.assertIn(f"{library} (= ", field("libtenure-dev", "Depends"))
        self.assertIn("libsqlite3", field("tenure", "Depends"))
        contents = subprocess.run(["dpkg-deb", "-c", str(packages["libtenure-dev"])], stdout=subprocess.PIPE,
                                  text=True, check=True).stdout
        for path in ("include/tenure/tenure.h", "cmake/tenure/tenureConfig.cmake", "pkgconfig/tenure.pc",
                     "libtenure.a"):
            self.assertIn(path, contents)

        env = dict(os.environ, DEBS=str(debs), SOURCE=REPO, WORK=self.work)
        run = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", SCRIPT],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600, env=env)
        out = run.stdout
        self.assertEqual(run.returncode, 0, out[-6000:])
        self.assertRegex(out, r"== version\ntenure \d+\.\d+\.\d+\n")
        demo = out[out.index("== demo"):out.index("== example")]
        self.assertIn("Cleaned up:", demo)
        self.assertRegex(out, r"libtenure\.so\.[0-9.]+ => (/usr)?/lib/\S*libtenure\.so", out[-3000:])
        self.assertIn("== done", out)
        # The overlay went with its namespace: the machine's own package database never saw them.
        status = subprocess.run(["dpkg-query", "-W", "-f", "${Status}", "tenure"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True).stdout
        self.assertNotEqual(status, "install ok installed")

if __name__ == "__main__":
    unittest.main()
