"""Prints a Java classpath that runs Debian's Jena (libapache-jena-java 4.5):
Jena's jars, the jars of the packages it depends on (from dpkg), slf4j-api
with slf4j-simple (so Jena's warnings reach stderr; Debian's set also holds
log4j-over-slf4j and slf4j-log4j12, which together refuse to start), and a
resource directory made under OUT.

The directory is needed because Debian's jena-core moved Jena's bundled
Xerces classes to the package `xerces.*` but left their message bundles under
`org/apache/jena/ext/xerces/`: without copies at `xerces/impl/...` every Jena
command dies initialising XSD datatypes ("RuntimeException: internal error").

Usage: python3 jena_classpath.py OUT
"""

import os
import re
import subprocess
import sys
import zipfile

JAVA = "/usr/share/java"


def package_jars(pkg: str) -> list[str]:
    out = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True).stdout
    jars = []
    for line in out.splitlines():
        if not re.fullmatch(re.escape(JAVA) + r"/[^/]+\.jar", line):
            continue
        name = os.path.basename(line)
        # Versioned copies (jena-arq-4.5.0.jar) duplicate the plain names.
        if re.search(r"-\d[\d.]*[^/]*\.jar$", name) or "slf4j" in name:
            continue
        jars.append(line)
    return jars


def main() -> None:
    out = sys.argv[1]
    deps = subprocess.run(
        ["dpkg-query", "-W", "-f=${Depends}", "libapache-jena-java"],
        capture_output=True,
        text=True,
    ).stdout
    pkgs = ["libapache-jena-java", "libhttpcore-java", "libcommons-logging-java"]
    pkgs += [d.split()[0] for d in deps.split(",") if d.strip()]
    jars = sorted({j for p in pkgs for j in package_jars(p)})
    if not any(j.endswith("/jena-arq.jar") for j in jars):
        sys.exit("Jena is not installed: apt-get install libapache-jena-java")
    res = os.path.join(out, "jena-resources")
    prefix = "org/apache/jena/ext/xerces/"
    with zipfile.ZipFile(os.path.join(JAVA, "jena-core.jar")) as z:
        for name in z.namelist():
            if name.startswith(prefix) and name.endswith(".properties"):
                dest = os.path.join(res, "xerces", name[len(prefix):])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as f:
                    f.write(z.read(name))
    jars += [os.path.join(JAVA, "slf4j-api.jar"), os.path.join(JAVA, "slf4j-simple.jar"), res]
    print(":".join(jars))


if __name__ == "__main__":
    main()
