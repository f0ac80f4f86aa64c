from loreline_view.run import main

raise SystemExit(main())
