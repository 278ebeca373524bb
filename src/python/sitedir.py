"""Print the directory, relative to PREFIX, where this interpreter imports
extension modules from when they are installed under PREFIX.

    python3 sitedir.py PREFIX

The interpreter's own install directory (sysconfig 'platlib') comes first,
then its site directories (site.getsitepackages()); of those under PREFIX
the one nearest to it wins, the first on a tie (Debian: PREFIX /usr/local
gives lib/python3.X/dist-packages, /usr lib/python3/dist-packages). When none
is, the 'posix_prefix' layout under PREFIX (lib/python3.X/site-packages),
which a PYTHONPATH entry then has to name.
"""
import os
import site
import sys
import sysconfig

prefix = os.path.normpath(sys.argv[1])
candidates = [sysconfig.get_path("platlib")]
if hasattr(site, "getsitepackages"):
    candidates += site.getsitepackages()
under = [os.path.relpath(os.path.normpath(d), prefix) for d in candidates
         if os.path.normpath(d).startswith(prefix.rstrip("/") + "/")]
if under:
    print(min(under, key=lambda d: d.count("/")))
else:
    d = sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix})
    print(os.path.relpath(d, prefix))
