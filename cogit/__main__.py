from cogit.entry import main

raise SystemExit(main())
