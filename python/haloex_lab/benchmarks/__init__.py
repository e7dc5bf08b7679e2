"""Each benchmark's analysis, figures and report section together, one
module a benchmark (the halo benchmark, the largest, one folder):

    halo/      bench halo: sweeps, strong scaling, noise, the recommendation
    stencil    bench stencil: the stencil paper's three experiments
    pingpong   bench pingpong
    lb         bench lb: saturation, worksharing or tasks, scaling, output
    stream     bench stream
    coll       bench clock, coll, overlap and monitor (the CRESTA paper)
    io         bench io (the ARCHER2 paper's Table 1)
    peers      GHEX, PETSc and OSU beside haloex (peers/run.py, peers/pingpong.py)
    ludwig     Ludwig beside haloex lb (peers/ludwig.py)
    rrze       RRZE's lbm-benchmark-kernels beside haloex bench lb (peers/rrze.py)

The report (report.py) calls one function of each, in the order above:

    section(records, figdir, formats) -> list[str]

the markdown lines of its part of the report for the records of one
machine and configuration (empty when they hold none of its records), its
figures written to figdir in each of formats ("png", "svg"). halo/section.py
also gives `recommendation(records) -> str`, the table `haloex-lab report`
prints. A new benchmark is a module here with its `section` and a line in
report.py's SECTIONS.

This file imports nothing: the modules import their siblings, and a
package that imported its own modules would put each of them in an import
circle with it (tests/test_imports.py)."""
