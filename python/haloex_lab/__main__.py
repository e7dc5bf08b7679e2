from haloex_lab.cli import main

raise SystemExit(main())
